"""Why QOSSort needs its timestamp tie-break: a heap needs a strict weak ordering.

scheduler-plugins' ``Less`` before kubernetes-sigs/scheduler-plugins#855
(:func:`~framework.plugins.qos.upstream_less`) answers *true* in both
directions for two pods of equal priority and QoS class. A binary heap
trusts ``less`` to be a strict weak ordering; given this one, it still puts
the right *class* first (an equal swap never lets a worse class climb), but
among equal pods the order is an accident of the heap's layout: the newest
pod always comes out first, and the rest in no useful order. Our
:class:`~framework.plugins.qos.QOSSort` breaks the tie by queue timestamp,
and equal pods come out first in, first out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from framework.objects import pod_priority
from framework.objects.qos import get_pod_qos
from framework.plugins.qos import QOS_RANK, QOSSort, upstream_less
from framework.queue.heap import Heap
from framework.types import PodInfo, QueuedPodInfo
from tests.queue.helpers import BEST_EFFORT, BURSTABLE, GUARANTEED, pod

Less = Callable[[QueuedPodInfo, QueuedPodInfo], bool]
CLASSES = {"Guaranteed": GUARANTEED, "Burstable": BURSTABLE, "BestEffort": BEST_EFFORT}


def queued(
    name: str, timestamp: float, resources: dict[str, Any], priority: int = 0
) -> QueuedPodInfo:
    return QueuedPodInfo(
        PodInfo(pod(name, priority=priority, resources=resources)), timestamp=timestamp
    )


def pop_order(less: Less, pods: list[QueuedPodInfo]) -> list[str]:
    heap: Heap[QueuedPodInfo] = Heap(key=lambda p: p.key, less=less)
    for p in pods:
        heap.add_or_update(p)
    return [heap.pop().pod.name for _ in range(len(heap))]


@pytest.mark.parametrize("qos_class", list(CLASSES))
def test_upstream_less_is_true_both_ways_for_two_equal_pods(qos_class: str) -> None:
    a, b = queued("a", 1, CLASSES[qos_class]), queued("b", 2, CLASSES[qos_class])
    assert upstream_less(a, b) and upstream_less(b, a)
    assert QOSSort().less(a, b) and not QOSSort().less(b, a)


def test_five_equal_pods_come_out_scrambled_upstream_and_first_come_first_served_with_ours() -> (
    None
):
    pods = [queued(f"p{i}", float(i), BEST_EFFORT) for i in range(5)]
    assert pop_order(upstream_less, pods) == ["p4", "p1", "p2", "p3", "p0"]
    assert pop_order(QOSSort().less, pods) == ["p0", "p1", "p2", "p3", "p4"]


@settings(max_examples=100, deadline=None)
@given(count=st.integers(2, 12), qos_class=st.sampled_from(list(CLASSES)))
def test_upstream_lets_the_newest_equal_pod_jump_the_queue(count: int, qos_class: str) -> None:
    """Every push of an equal pod climbs to the root, so the newest is always popped first."""
    pods = [queued(f"p{i}", float(i), CLASSES[qos_class]) for i in range(count)]
    assert pop_order(upstream_less, pods)[0] == f"p{count - 1}"
    assert pop_order(QOSSort().less, pods) == [f"p{i}" for i in range(count)]


PODS = st.lists(
    st.tuples(st.sampled_from([0, 10]), st.sampled_from(list(CLASSES))), min_size=1, max_size=12
)


@settings(max_examples=100, deadline=None)
@given(PODS)
def test_upstream_still_orders_priority_and_class_only_the_order_among_equals_breaks(
    specs: list[tuple[int, str]],
) -> None:
    pods = [
        queued(f"p{i}", float(i), CLASSES[qos_class], priority)
        for i, (priority, qos_class) in enumerate(specs)
    ]
    by_name = {p.pod.name: p for p in pods}

    def rank(name: str) -> tuple[int, int]:
        p = by_name[name].pod
        return -pod_priority(p), QOS_RANK[get_pod_qos(p)]

    upstream = pop_order(upstream_less, pods)
    assert [rank(n) for n in upstream] == sorted(rank(n) for n in upstream)
    ours = pop_order(QOSSort().less, pods)
    assert ours == sorted(ours, key=lambda n: (rank(n), by_name[n].timestamp))
