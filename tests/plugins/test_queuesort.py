"""PrioritySort: higher priority first, then the earlier queue timestamp."""

from __future__ import annotations

import pytest

from framework.interface import QueueSortPlugin
from framework.objects import pod_priority
from framework.plugins import queuesort
from framework.plugins.queuesort import PrioritySort
from framework.types import PodInfo, QueuedPodInfo
from tests.queue.helpers import pod


def queued(priority: int | None, timestamp: float) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(pod("p", priority=priority)), timestamp=timestamp)


CASES = [
    pytest.param(queued(100, 2), queued(50, 1), True, id="p1's priority greater than p2"),
    pytest.param(queued(50, 1), queued(80, 2), False, id="p1's priority less than p2"),
    pytest.param(queued(0, 1), queued(0, 2), True, id="equal priority, p1 added earlier"),
    pytest.param(queued(0, 2), queued(0, 1), False, id="equal priority, p2 added earlier"),
    pytest.param(queued(0, 1), queued(0, 1), False, id="equal priority and timestamp"),
    pytest.param(queued(None, 1), queued(0, 2), True, id="no priority counts as 0"),
    pytest.param(queued(-5, 1), queued(None, 2), False, id="negative priority below none"),
]


@pytest.mark.parametrize(("a", "b", "expected"), CASES)
def test_less(a: QueuedPodInfo, b: QueuedPodInfo, expected: bool) -> None:
    assert PrioritySort().less(a, b) is expected


def test_pod_priority_defaults_to_zero() -> None:
    assert (pod_priority(pod("p")), pod_priority(pod("p", priority=7))) == (0, 7)


def test_the_plugin_is_a_queue_sort_plugin_named_as_kubernetes_names_it() -> None:
    plugin = queuesort.new(None, None)
    assert isinstance(plugin, QueueSortPlugin)
    assert plugin.name() == queuesort.NAME == "PrioritySort"
