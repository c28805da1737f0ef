"""QOSSort: priority, then QoS class, then queue timestamp; and upstream's Less before #855.

The exercise's own tests (chapters/02_queue/test_qos_sort.py) cover the
ordering; here: the plugin's shape, and the upstream function we keep for
the chapter's demonstration, checked against the cases of
``kubernetes-sigs/scheduler-plugins:pkg/qos/queue_sort_test.go`` as they
stood before the tie-break (equal classes answer true).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from framework.interface import QueueSortPlugin
from framework.plugins import qos
from framework.plugins.qos import QOSSort, upstream_less
from framework.types import PodInfo, QueuedPodInfo
from tests.queue.helpers import BEST_EFFORT, BURSTABLE, GUARANTEED, pod

LIMITED_BURSTABLE = {
    "requests": {"cpu": "100m", "memory": "100Mi"},
    "limits": {"cpu": "200m", "memory": "200Mi"},
}


def queued(priority: int, resources: dict[str, object], timestamp: float = 0) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(pod("p", priority=priority, resources=resources)), timestamp)


UPSTREAM_CASES = [
    pytest.param(
        queued(100, BEST_EFFORT), queued(50, BEST_EFFORT), True, id="p1's priority greater"
    ),
    pytest.param(queued(50, BEST_EFFORT), queued(80, BEST_EFFORT), False, id="p1's priority less"),
    pytest.param(queued(0, BEST_EFFORT), queued(0, BEST_EFFORT), True, id="both BestEffort"),
    pytest.param(
        queued(0, BEST_EFFORT), queued(0, GUARANTEED), False, id="BestEffort, Guaranteed"
    ),
    pytest.param(
        queued(0, LIMITED_BURSTABLE), queued(0, GUARANTEED), False, id="Burstable, Guaranteed"
    ),
    pytest.param(
        queued(0, LIMITED_BURSTABLE), queued(0, LIMITED_BURSTABLE), True, id="both Burstable"
    ),
    pytest.param(queued(0, GUARANTEED), queued(0, BURSTABLE), True, id="Guaranteed, Burstable"),
    pytest.param(queued(0, GUARANTEED), queued(0, GUARANTEED), True, id="both Guaranteed"),
    pytest.param(queued(0, BURSTABLE), queued(0, BEST_EFFORT), True, id="Burstable, BestEffort"),
]


@pytest.mark.parametrize(("a", "b", "expected"), UPSTREAM_CASES)
def test_upstream_less_before_the_tie_break(
    a: QueuedPodInfo, b: QueuedPodInfo, expected: bool
) -> None:
    assert upstream_less(a, b) is expected


def test_ours_differs_from_upstream_only_between_equal_pods() -> None:
    early, late = queued(0, GUARANTEED, 1), queued(0, GUARANTEED, 2)
    assert (QOSSort().less(early, late), QOSSort().less(late, early)) == (True, False)
    assert (upstream_less(early, late), upstream_less(late, early)) == (True, True)


def test_a_stored_qos_class_is_used_as_kubernetes_does() -> None:
    """A stored pod carries ``status.qosClass``; GetPodQOS answers from it."""
    best_effort = pod("p", resources=BEST_EFFORT)
    marked = replace(best_effort, status=replace(best_effort.status, qos_class="Guaranteed"))
    assert QOSSort().less(QueuedPodInfo(PodInfo(marked), 2), queued(0, BURSTABLE, 1))


def test_the_plugin_is_a_queue_sort_plugin_named_as_scheduler_plugins_names_it() -> None:
    plugin = qos.new(None, None)
    assert isinstance(plugin, QueueSortPlugin)
    assert plugin.name() == qos.NAME == "QOSSort"
