"""A pod's own constraints, parsed once per workload: the same lists as parsing them afresh.

``getConstraints`` (``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/common.go``,
v1.33) parses the pod's constraints on every call: the action's constraints,
their selectors compiled, ``matchLabelKeys`` merged in with the pod's own
values. :class:`ParsedConstraints` keeps the result per constraint tuple and
per value of those labels; here it is asked about the same tuples with
changing labels and actions, and must answer as the plain function does.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from framework.objects import Pod
from framework.plugins.podtopologyspread.common import (
    ParsedConstraints,
    filter_topology_spread_constraints,
)


def _constraints(raw: list[dict[str, Any]]) -> Any:
    return Pod.from_dict(
        {"spec": {"topologySpreadConstraints": raw}}
    ).spec.topology_spread_constraints


CONSTRAINT = st.fixed_dictionaries(
    {
        "maxSkew": st.integers(1, 3),
        "topologyKey": st.sampled_from(["zone", "kubernetes.io/hostname"]),
        "whenUnsatisfiable": st.sampled_from(["DoNotSchedule", "ScheduleAnyway"]),
        "labelSelector": st.fixed_dictionaries({"matchLabels": st.just({"app": "web"})}),
        "matchLabelKeys": st.lists(st.sampled_from(["tier", "version"]), max_size=2, unique=True),
    }
)
LABELS = st.dictionaries(
    st.sampled_from(["app", "tier", "version"]), st.sampled_from(["a", "b"]), max_size=3
)


@given(
    workloads=st.lists(st.lists(CONSTRAINT, min_size=1, max_size=2), min_size=1, max_size=3),
    asks=st.lists(
        st.tuples(st.integers(0, 2), LABELS, st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
        max_size=12,
    ),
)
def test_kept_lists_equal_fresh_ones(
    workloads: list[list[dict[str, Any]]], asks: list[tuple[int, dict[str, str], str]]
) -> None:
    tuples = [_constraints(raw) for raw in workloads]
    parsed = ParsedConstraints()
    for index, labels, action in asks:
        constraints = tuples[index % len(tuples)]
        got = parsed.parse(constraints, labels, action)
        assert got == filter_topology_spread_constraints(constraints, labels, action)
        got.clear()  # a caller's list is its own
        assert parsed.parse(constraints, labels, action) == filter_topology_spread_constraints(
            constraints, labels, action
        )
