"""Chapter 2: QOSSort orders pods by priority, then QoS class, then queue timestamp.

The first cases follow ``TestSortLess`` in
``kubernetes-sigs/scheduler-plugins:pkg/qos/queue_sort_test.go``, in our own
words, with the timestamps the tie-break needs; the rest are the edges of
the rule. The properties check what a heap needs from ``less``: never true
both ways, and a heap ordered by it pops pods in priority, class, timestamp
order. Run against your code with ``python -m pytest chapters/02_queue --exercise``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.objects import Pod
from framework.objects.qos import get_pod_qos
from framework.queue.heap import Heap
from framework.types import PodInfo, QueuedPodInfo

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.qos", skeleton="exercise.py", asks=["QOSSort.less"]
)

GUARANTEED = {
    "requests": {"cpu": "100m", "memory": "100Mi"},
    "limits": {"cpu": "100m", "memory": "100Mi"},
}
BURSTABLE = {
    "requests": {"cpu": "100m", "memory": "100Mi"},
    "limits": {"cpu": "200m", "memory": "200Mi"},
}
BEST_EFFORT: dict[str, Any] = {}
RESOURCES = {"Guaranteed": GUARANTEED, "Burstable": BURSTABLE, "BestEffort": BEST_EFFORT}
RANK = {"Guaranteed": 0, "Burstable": 1, "BestEffort": 2}


def queued(
    name: str, priority: int | None, resources: dict[str, Any], timestamp: float = 0.0
) -> QueuedPodInfo:
    spec: dict[str, Any] = {"containers": [{"name": name, "resources": resources}]}
    if priority is not None:
        spec["priority"] = priority
    pod = Pod.from_dict({"metadata": {"name": name, "namespace": "default"}, "spec": spec})
    return QueuedPodInfo(PodInfo(pod), timestamp=timestamp)


EARLIER, LATER = 1.0, 2.0


def describe(info: QueuedPodInfo) -> str:
    """One pod in one phrase, for a failure message: its name, priority, class and timestamp."""
    qos = get_pod_qos(info.pod).value
    return f"{info.pod.name} (priority {info.pod.spec.priority}, {qos}, t={info.timestamp})"


CASES = [
    # scheduler-plugins' cases
    pytest.param(
        ("p1", 100, "BestEffort", 0.0),
        ("p2", 50, "BestEffort", 0.0),
        True,
        id="p1's priority greater than p2",
    ),
    pytest.param(
        ("p1", 50, "BestEffort", 0.0),
        ("p2", 80, "BestEffort", 0.0),
        False,
        id="p1's priority less than p2",
    ),
    pytest.param(
        ("p1", 0, "BestEffort", LATER),
        ("p2", 0, "BestEffort", EARLIER),
        False,
        id="both BestEffort, p2 queued earlier",
    ),
    pytest.param(
        ("p1", 0, "BestEffort", 0.0),
        ("p2", 0, "Guaranteed", 0.0),
        False,
        id="p1 BestEffort, p2 Guaranteed",
    ),
    pytest.param(
        ("p1", 0, "Burstable", 0.0),
        ("p2", 0, "Guaranteed", 0.0),
        False,
        id="p1 Burstable, p2 Guaranteed",
    ),
    pytest.param(
        ("p1", 0, "Burstable", LATER),
        ("p2", 0, "Burstable", EARLIER),
        False,
        id="both Burstable, p2 queued earlier",
    ),
    pytest.param(
        ("p1", 0, "Guaranteed", 0.0),
        ("p2", 0, "Burstable", 0.0),
        True,
        id="p1 Guaranteed, p2 Burstable",
    ),
    pytest.param(
        ("p1", 0, "Guaranteed", EARLIER),
        ("p2", 0, "Guaranteed", LATER),
        True,
        id="both Guaranteed, p1 queued earlier",
    ),
    # the edges
    pytest.param(
        ("p1", 0, "Burstable", 0.0),
        ("p2", 0, "BestEffort", 0.0),
        True,
        id="p1 Burstable, p2 BestEffort",
    ),
    pytest.param(
        ("p1", 0, "BestEffort", 0.0),
        ("p2", 0, "Burstable", 0.0),
        False,
        id="p1 BestEffort, p2 Burstable",
    ),
    pytest.param(
        ("p1", 10, "BestEffort", LATER),
        ("p2", 0, "Guaranteed", EARLIER),
        True,
        id="priority beats QoS class and timestamp",
    ),
    pytest.param(
        ("p1", 0, "Guaranteed", LATER),
        ("p2", 0, "BestEffort", EARLIER),
        True,
        id="QoS class beats timestamp",
    ),
    pytest.param(
        ("p1", 0, "Burstable", EARLIER),
        ("p2", 0, "Burstable", EARLIER),
        False,
        id="equal in all three: not less",
    ),
    pytest.param(
        ("p1", None, "Guaranteed", 0.0),
        ("p2", 0, "BestEffort", 0.0),
        True,
        id="no priority counts as 0",
    ),
    pytest.param(
        ("p1", -1, "Guaranteed", 0.0),
        ("p2", None, "BestEffort", 0.0),
        False,
        id="negative priority goes after no priority",
    ),
]


# A case names its pods as (name, priority, QoS class, timestamp), not as objects, so that a
# failure prints one short line per pod, not a dump of each QueuedPodInfo.
Spec = tuple[str, int | None, str, float]


@pytest.mark.parametrize(("first", "second", "expected"), CASES)
def test_less(impl: ModuleType, first: Spec, second: Spec, expected: bool) -> None:
    a, b = (queued(name, p, RESOURCES[qos], t) for name, p, qos, t in (first, second))
    got = impl.QOSSort().less(a, b)
    assert got is expected, (
        f"less({describe(a)}, {describe(b)}) returned {got!r}, expected {expected!r}"
    )


# `impl` is function-scoped but returns the same module every time, so sharing
# it across a property's examples is safe.
PROPERTY = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

SPECS = st.tuples(
    st.sampled_from([0, 0, 10, 1000]),
    st.sampled_from(list(RESOURCES)),
    st.sampled_from([0.0, 1.0, 2.0, 3.0]),
)


@PROPERTY
@given(a=SPECS, b=SPECS)
def test_less_is_never_true_both_ways(
    impl: ModuleType, a: tuple[int, str, float], b: tuple[int, str, float]
) -> None:
    x = queued("x", a[0], RESOURCES[a[1]], a[2])
    y = queued("y", b[0], RESOURCES[b[1]], b[2])
    less = impl.QOSSort().less
    assert not (less(x, y) and less(y, x)), (
        f"less is True both ways for {describe(x)} and {describe(y)}; expected True one way at most"
    )
    assert not less(x, x), f"less({describe(x)}, itself) is True, expected False"


@PROPERTY
@given(st.lists(SPECS, min_size=1, max_size=15))
def test_a_heap_ordered_by_qos_sort_pops_priority_then_qos_then_timestamp(
    impl: ModuleType, specs: list[tuple[int, str, float]]
) -> None:
    heap: Heap[QueuedPodInfo] = Heap(key=lambda p: p.key, less=impl.QOSSort().less)
    for i, (priority, qos_class, timestamp) in enumerate(specs):
        heap.add_or_update(queued(f"p{i}", priority, RESOURCES[qos_class], timestamp))
    popped = [heap.pop() for _ in range(len(specs))]
    keys = [
        (-specs[int(p.pod.name[1:])][0], RANK[specs[int(p.pod.name[1:])][1]], p.timestamp)
        for p in popped
    ]
    assert keys == sorted(keys), (
        "expected pops sorted by (-priority, QoS rank, timestamp), got: "
        + ", ".join(map(str, keys))
    )
