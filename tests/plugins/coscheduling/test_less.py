"""QueueSort: priority, then the group's creation time (or the pod's first attempt), then the key.

The table is ``TestLess`` of
``kubernetes-sigs/scheduler-plugins:pkg/coscheduling/coscheduling_test.go``
(v0.33.5), case for case: ``now`` is the test's start, PodGroups are
created at ``now+1s`` or ``now+2s`` (``tu.MakePodGroup().Time(...)``) and
pods first entered activeQ at the ``InitialAttemptTimestamp`` given.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.objects import Pod
from framework.types import PodInfo, QueuedPodInfo
from tests.plugins.coscheduling.helpers import START, Setup, make_pod, make_pod_group

LOW, HIGH = 10, 100


def queued(pod: Pod, attempt: float | None = None) -> QueuedPodInfo:
    stamp = None if attempt is None else START + attempt
    return QueuedPodInfo(PodInfo(pod), timestamp=START, initial_attempt_timestamp=stamp)


# (p1, p1's first attempt, p2, p2's first attempt, PodGroups as (name, namespace, created at), want)
CASES = [
    pytest.param(
        make_pod("p1", namespace="ns1", priority=LOW),
        None,
        make_pod("p2", namespace="ns2", priority=HIGH),
        None,
        [],
        False,
        id="p1.priority less than p2.priority",
    ),
    pytest.param(
        make_pod("p1", namespace="ns1", priority=HIGH),
        None,
        make_pod("p2", namespace="ns2", priority=LOW),
        None,
        [],
        True,
        id="p1.priority greater than p2.priority",
    ),
    pytest.param(
        make_pod("p1", namespace="ns1", priority=HIGH),
        1,
        make_pod("p2", namespace="ns2", priority=HIGH),
        2,
        [],
        True,
        id="equal priority. p1 is added to schedulingQ earlier than p2",
    ),
    pytest.param(
        make_pod("p1", namespace="ns1", priority=HIGH),
        2,
        make_pod("p2", namespace="ns2", priority=HIGH),
        1,
        [],
        False,
        id="equal priority. p2 is added to schedulingQ earlier than p1",
    ),
    pytest.param(
        make_pod("p1", "pg1", namespace="ns1", priority=LOW),
        None,
        make_pod("p2", namespace="ns2", priority=HIGH),
        None,
        [("pg1", "ns1", 0)],
        False,
        id="p1.priority less than p2.priority, p1 belongs to pg1",
    ),
    pytest.param(
        make_pod("p1", "pg1", namespace="ns1", priority=HIGH),
        None,
        make_pod("p2", namespace="ns2", priority=LOW),
        None,
        [("pg1", "ns1", 0)],
        True,
        id="p1.priority greater than p2.priority, p1 belongs to pg1",
    ),
    pytest.param(
        make_pod("p1", "pg1", namespace="ns1", priority=HIGH),
        1,
        make_pod("p2", namespace="ns2", priority=HIGH),
        2,
        [("pg1", "ns1", 1)],
        True,
        id="equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1",
    ),
    pytest.param(
        make_pod("p1", "pg1", namespace="ns1", priority=HIGH),
        2,
        make_pod("p2", namespace="ns2", priority=HIGH),
        1,
        [("pg1", "ns1", 2)],
        False,
        id="equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg1",
    ),
    pytest.param(
        make_pod("p1", "pg1", namespace="ns1", priority=LOW),
        None,
        make_pod("p2", "pg2", namespace="ns2", priority=HIGH),
        None,
        [("pg1", "ns1", 1), ("pg2", "ns2", 2)],
        False,
        id="p1.priority less than p2.priority, p1 belongs to pg1 and p2 belongs to pg2",
    ),
    pytest.param(
        make_pod("p1", "pg1", namespace="ns1", priority=HIGH),
        None,
        make_pod("p2", "pg1", namespace="ns2", priority=LOW),
        None,
        [("pg1", "ns1", 1), ("pg2", "ns2", 2)],
        True,
        id="p1.priority greater than p2.priority, p1 belongs to pg1 and and p2 belongs to pg2",
    ),
    pytest.param(
        make_pod("p1", "pg1", namespace="ns1", priority=HIGH),
        1,
        make_pod("p2", "pg2", namespace="ns2", priority=HIGH),
        2,
        [("pg1", "ns1", 1), ("pg2", "ns2", 2)],
        True,
        id="equal priority. p1 is added to schedulingQ earlier than p2, "
        "p1 belongs to pg1 and p2 belongs to pg2",
    ),
    pytest.param(
        make_pod("p1", "pg2", namespace="ns", priority=LOW),
        1,
        make_pod("p2", "pg1", namespace="ns", priority=HIGH),
        2,
        [("pg1", "ns", 1), ("pg2", "ns", 2)],
        False,
        id="equal priority. p2 is added to schedulingQ earlier than p1, "
        "p1 belongs to pg2 and p2 belongs to pg1",
    ),
    pytest.param(
        make_pod("p1", "pg2", namespace="ns1", priority=HIGH),
        1,
        make_pod("p2", "pg2", namespace="ns2", priority=HIGH),
        1,
        [("pg1", "ns1", 1), ("pg2", "ns2", 2)],
        True,
        id="equal priority and creation time, p1 belongs pg1 and p2 belong to pg2",
    ),
    pytest.param(
        make_pod("p1", namespace="ns1", priority=HIGH),
        1,
        make_pod("p2", "pg2", namespace="ns2", priority=HIGH),
        1,
        [("pg2", "ns2", 2)],
        True,
        id="equal priority and creation time, and p2 belong to pg2",
    ),
]


@pytest.mark.parametrize(("p1", "t1", "p2", "t2", "groups", "want"), CASES)
def test_less(
    p1: Pod,
    t1: float | None,
    p2: Pod,
    t2: float | None,
    groups: list[tuple[str, str, float]],
    want: bool,
) -> None:
    setup = Setup(
        pod_groups=[make_pod_group(name, namespace=ns) for name, ns, _ in groups],
        created={name: at for name, _, at in groups},
    )
    plugin = setup.plugin()
    assert plugin.less(queued(p1, t1), queued(p2, t2)) is want


def test_members_of_one_group_sort_by_key_and_ahead_of_a_later_group() -> None:
    """One timestamp per group keeps a gang together in activeQ (the KEP's "back to back")."""
    setup = Setup(
        pod_groups=[make_pod_group("a"), make_pod_group("b")],
        created={"a": 1, "b": 2},
    )
    plugin = setup.plugin()
    # b's pods entered the queue first, and a's members each at a different time.
    records = [
        queued(make_pod("b-0", "b"), 0),
        queued(make_pod("a-1", "a"), 5),
        queued(make_pod("b-1", "b"), 1),
        queued(make_pod("a-0", "a"), 9),
    ]
    ordered = sorted(records, key=_key(plugin.less))
    assert [r.pod.name for r in ordered] == ["a-0", "a-1", "b-0", "b-1"]


def _key(less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]) -> Callable[[QueuedPodInfo], Any]:
    return functools.cmp_to_key(lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0))


@given(
    st.lists(
        st.tuples(st.sampled_from(["", "a", "b"]), st.integers(0, 2), st.integers(0, 5)),
        min_size=2,
        max_size=6,
    )
)
def test_less_is_a_strict_weak_ordering(specs: list[tuple[str, int, int]]) -> None:
    """Irreflexive, asymmetric and transitive, whatever the mix of groups and lone pods."""
    setup = Setup(
        pod_groups=[make_pod_group("a"), make_pod_group("b")],
        created={"a": 1, "b": 3},
    )
    plugin = setup.plugin()
    records = [
        queued(make_pod(f"p{i}", group, priority=prio), attempt)
        for i, (group, prio, attempt) in enumerate(specs)
    ]
    for a in records:
        assert not plugin.less(a, a)
        for b in records:
            assert not (plugin.less(a, b) and plugin.less(b, a))
            for c in records:
                if plugin.less(a, b) and plugin.less(b, c):
                    assert plugin.less(a, c)
