"""One list of extension points: the configuration's, which the runtime and the config checks follow."""

from __future__ import annotations

from framework.config import framework_checks
from framework.config.types import EXTENSION_POINTS, Plugins
from framework.runtime.framework import EXTENSION_POINTS as RUNTIME_POINTS
from framework.runtime.framework import Framework


def test_the_runtime_has_the_configurations_points_in_the_same_order() -> None:
    assert tuple(RUNTIME_POINTS) == EXTENSION_POINTS


def test_a_new_framework_has_an_empty_list_at_every_point() -> None:
    assert dict(Framework("p").plugins) == {point: [] for point in EXTENSION_POINTS}


def test_newframeworks_order_visits_every_point_once() -> None:
    # kube-scheduler's NewFramework builds the points in an order of its own
    # (which error is reported first depends on it): the same points, reordered.
    order = framework_checks._NEW_FRAMEWORK_ORDER
    assert sorted(order) == sorted(EXTENSION_POINTS)


def test_every_point_and_multipoint_is_a_field_of_plugins() -> None:
    plugins = Plugins()
    for point in (*EXTENSION_POINTS, "multiPoint"):
        assert plugins.point(point) == plugins.with_point(point, plugins.point(point)).point(point)
