"""Coscheduling in a whole scheduler, on the fake API server and a fake clock.

The profile is scheduler-plugins' documented one
(``manifests/coscheduling/scheduler-config.yaml``: Coscheduling as the
QueueSort instead of PrioritySort, and at preFilter, postFilter, permit and
reserve) on top of the default plugins, without DefaultPreemption. What each
test expects follows ``pkg/coscheduling/coscheduling.go`` and
``core/core.go`` of kubernetes-sigs/scheduler-plugins v0.33.5, and
kube-scheduler v1.33's handling of Permit, WaitOnPermit and PostFilter
(``pkg/scheduler/schedule_one.go``): a waiting member is released by the
member that completes the quorum, rejected by a PostFilter that gives up on
its group, by a sibling's Unreserve, or by its own timeout. No test sleeps;
threads meet on the fake clock's waiter count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.featuregate import new_feature_gates
from framework.objects import (
    Event,
    Namespace,
    Node,
    ObjectMeta,
    Pod,
    PodGroup,
    PodSchedulingGate,
)
from framework.scheduler.scheduler import Scheduler
from framework.testing.steps import StepLog
from tests.plugins.coscheduling.helpers import (
    coscheduling_config,
    make_node,
    make_pod,
    make_pod_group,
    scheduler_plugins_registry,
)

NS = "ns"


class Cluster:
    """An API server with namespace ``ns`` on a fake clock, and a Coscheduling scheduler for it."""

    def __init__(
        self, *objects: Node | Pod | PodGroup, args: str = "{permitWaitingTimeSeconds: 10}"
    ):
        self.clock = FakeClock()
        self.api = APIServer(self.clock)
        self.api.create(Namespace(metadata=ObjectMeta(name=NS)))
        for obj in objects:
            self.create(obj)
        # These scenarios are timed on the classic queue: a requeued pod waits out its backoff.
        gates = new_feature_gates("1.33", "SchedulerPopFromBackoffQ=false")
        self.scheduler = Scheduler(
            self.api,
            coscheduling_config(args, gates),
            scheduler_plugins_registry(),
            clock=self.clock,
            seed=0,
            feature_gates=gates,
        )
        self.log: list[tuple[str, str]] = []
        self.scheduler.add_tracer(
            StepLog(lambda event, pod, _: self.log.append((event, pod.name)))
        )

    def create(self, obj: Node | Pod | PodGroup) -> None:
        self.api.create(obj)

    @property
    def plugin(self) -> Any:
        return self.scheduler.profiles["default-scheduler"].plugins["permit"][0]

    def node_of(self, name: str) -> str:
        return self.api.get(Pod, name, namespace=NS).spec.node_name

    def failed_scheduling(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        events = sorted(self.api.list(Event).items, key=lambda e: int(e.metadata.resource_version))
        for event in events:
            if event.reason == "FailedScheduling":
                found.setdefault(event.involved_object.name, []).append(event.message)
        return found

    def schedule_one(self) -> None:
        self.scheduler.sync()
        assert self.scheduler.scheduling.schedule_one(timeout=0)

    def finish(self) -> None:
        """Wait for the binding cycles (a hang guard jumps past every timeout), then sync."""
        waiter = threading.Thread(target=self.scheduler.scheduling.wait_for_bindings, daemon=True)
        waiter.start()
        waiter.join(timeout=20)
        if waiter.is_alive():
            self.clock.advance(15 * 60)
            waiter.join(timeout=20)
            raise AssertionError(f"binding cycles hung at Permit; steps: {self.log}")
        self.scheduler.sync()

    def nodes_are_free(self) -> bool:
        return (
            self.scheduler.cache.pod_count() == 0 and not self.scheduler.cache.dump().assumed_pods
        )


def member(name: str, group: str = "pg", cpu: str = "1", gated: bool = False) -> Pod:
    pod = make_pod(name, group, cpu=cpu, uid=f"uid-{name}")
    if gated:
        pod = replace(pod, spec=replace(pod.spec, scheduling_gates=(PodSchedulingGate("hold"),)))
    return pod


def nodes(count: int, cpu: str = "1") -> list[Node]:
    return [make_node(f"node-{i}", cpu=cpu) for i in range(count)]


def first_bound_after_every_member_had_a_node(
    log: list[tuple[str, str]], names: list[str]
) -> bool:
    chosen = [i for i, (event, name) in enumerate(log) if event == "Scheduled" and name in names]
    bound = [i for i, (event, name) in enumerate(log) if event == "Bound" and name in names]
    return len(chosen) == len(names) and bool(bound) and max(chosen) < min(bound)


# --- a gang that fits ---------------------------------------------------------------------------


def test_a_gang_of_three_with_room_for_three_is_bound_together() -> None:
    names = ["p-0", "p-1", "p-2"]
    cluster = Cluster(*nodes(3), make_pod_group("pg", 3), *(member(n) for n in names))

    cluster.scheduler.schedule_pending()
    cluster.finish()
    cluster.scheduler.stop()

    assert sorted(cluster.node_of(n) for n in names) == ["node-0", "node-1", "node-2"]
    assert first_bound_after_every_member_had_a_node(cluster.log, names), cluster.log
    assert cluster.failed_scheduling() == {}
    assert cluster.plugin.pg_mgr.assigned_pods() == {"ns/pg": frozenset(names)}


# --- a gang that does not fit --------------------------------------------------------------------


def test_room_for_two_of_three_rejects_the_whole_gang_at_once_and_frees_the_nodes() -> None:
    """The third member fits nowhere: PostFilter gives up on the group (a 1/3 gap > 10 %)."""
    names = ["p-0", "p-1", "p-2"]
    cluster = Cluster(*nodes(2), make_pod_group("pg", 3), *(member(n) for n in names))

    cluster.scheduler.schedule_pending()
    cluster.finish()

    assert [cluster.node_of(n) for n in names] == ["", "", ""]
    assert cluster.failed_scheduling() == {
        "p-0": ["0/1 nodes are available: 1 optimistic rejection in PostFilter."],
        "p-1": ["0/1 nodes are available: 1 optimistic rejection in PostFilter."],
        "p-2": [
            "0/2 nodes are available: 2 Insufficient cpu. PodGroup ns/pg gets rejected due to "
            "Pod p-2 is unschedulable even after PostFilter"
        ],
    }
    assert cluster.nodes_are_free()
    assert cluster.plugin.pg_mgr.assigned_pods() == {}
    pending, _ = cluster.scheduler.queue.pending_pods()
    assert sorted(p.name for p in pending) == names
    cluster.scheduler.stop()


def test_members_wait_at_permit_until_the_timeout_then_are_rejected_and_unreserved() -> None:
    """The third member is gated (never tried), so nothing gives up on the group but time.

    p-0 waits from t, p-1 from t+1; at t+5 (the PodGroup's
    ``scheduleTimeoutSeconds``, which wins over the args' 10) p-0 times
    out, and its Unreserve rejects p-1, which still had a second to go.
    """
    cluster = Cluster(
        *nodes(3),
        make_pod_group("pg", 3),
        member("p-0"),
        member("p-1"),
        member("p-2", gated=True),
    )
    group = cluster.api.get(PodGroup, "pg", namespace=NS)
    cluster.api.update(replace(group, spec=replace(group.spec, schedule_timeout_seconds=5)))
    cluster.schedule_one()
    cluster.clock.advance(1)
    cluster.schedule_one()
    waiting = cluster.scheduler.profiles["default-scheduler"].waiting_pods
    assert len(waiting) == 2
    cluster.clock.block_until_waiters(2)  # both binding cycles are blocked in WaitOnPermit
    assert cluster.scheduler.cache.pod_count() == 2  # the members hold their nodes meanwhile

    cluster.clock.advance(4)
    cluster.finish()

    assert cluster.failed_scheduling() == {
        "p-0": [
            "0/1 nodes are available: 1 rejected due to timeout after waiting 5s at plugin "
            "Coscheduling."
        ],
        "p-1": ["0/1 nodes are available: 1 rejection in Unreserve."],
    }
    assert cluster.nodes_are_free()
    assert cluster.plugin.pg_mgr.assigned_pods() == {}

    # The gate goes: the third member's Permit brings its siblings back (PodsToActivate).
    p2 = cluster.api.get(Pod, "p-2", namespace=NS)
    cluster.api.update(replace(p2, spec=replace(p2.spec, scheduling_gates=())))
    cluster.scheduler.schedule_pending()
    cluster.finish()
    cluster.scheduler.stop()
    assert all(cluster.node_of(n) for n in ("p-0", "p-1", "p-2")), cluster.failed_scheduling()


def test_a_gap_of_ten_percent_is_not_given_up_on_and_the_members_wait_out_their_timeout() -> None:
    """minMember 10, room for 9: the tenth's PostFilter leaves the nine waiting (gap ≤ 10 %)."""
    names = [f"p-{i}" for i in range(10)]
    cluster = Cluster(*nodes(9), make_pod_group("pg", 10), *(member(n) for n in names))
    for i, _ in enumerate(names):  # one second apart (p-0 at t, p-9 at t+9): p-0's deadline first
        cluster.clock.advance(1 if i else 0)
        cluster.schedule_one()

    messages = cluster.failed_scheduling()
    assert messages == {
        "p-9": ["0/9 nodes are available: 9 Insufficient cpu."],  # and no PostFilter message
    }
    assert len(cluster.scheduler.profiles["default-scheduler"].waiting_pods) == 9
    cluster.clock.block_until_waiters(9)

    cluster.clock.advance(10 - 9)  # p-0 waited its 10 s
    cluster.finish()
    cluster.scheduler.stop()

    messages = cluster.failed_scheduling()
    assert messages["p-0"] == [
        "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin "
        "Coscheduling."
    ]
    assert {n: m for n, m in messages.items() if n not in ("p-0", "p-9")} == {
        n: ["0/1 nodes are available: 1 rejection in Unreserve."] for n in names[1:9]
    }
    assert cluster.nodes_are_free()


# --- a gang that is not all there --------------------------------------------------------------


def test_fewer_pods_than_min_member_are_turned_away_at_pre_filter_until_the_last_arrives() -> None:
    cluster = Cluster(*nodes(3), make_pod_group("pg", 3), member("p-0"), member("p-1"))

    cluster.scheduler.schedule_pending()

    message = (
        "0/3 nodes are available: pre-filter pod {pod} cannot find enough sibling pods, current "
        "pods number: 2, minMember of group: 3. PodGroup ns/pg gets rejected due to Pod {pod} "
        "is unschedulable even after PostFilter"
    )
    assert cluster.failed_scheduling() == {
        "p-0": [message.format(pod="p-0")],
        "p-1": [message.format(pod="p-1")],
    }
    assert cluster.nodes_are_free()

    # The third member arrives; it waits at Permit and activates the two others.
    cluster.create(member("p-2"))
    cluster.scheduler.schedule_pending()
    cluster.finish()
    cluster.scheduler.stop()
    assert all(cluster.node_of(n) for n in ("p-0", "p-1", "p-2"))
    # No clock moved: p-0 and p-1 left the unschedulable pods only because p-2 activated them.
    since = cluster.log.index(("SchedulingCycleStart", "p-2"))
    tried = [n for e, n in cluster.log[since:] if e == "SchedulingCycleStart"]
    assert tried == ["p-2", "p-0", "p-1"]
    assert first_bound_after_every_member_had_a_node(cluster.log[since:], tried)


def test_members_of_a_podgroup_not_created_yet_are_rejected_at_permit_and_requeued_by_its_creation() -> (
    None
):
    cluster = Cluster(*nodes(2), member("p-0"), member("p-1"))

    cluster.scheduler.schedule_pending()
    assert cluster.failed_scheduling() == {
        "p-0": ["0/1 nodes are available: 1 PodGroup not found."],
        "p-1": ["0/1 nodes are available: 1 PodGroup not found."],
    }
    assert cluster.nodes_are_free()
    moved: list[str] = []
    cluster.scheduler.queue.move_all_to_active_or_backoff_queue = _spy(  # type: ignore[method-assign]
        cluster.scheduler.queue.move_all_to_active_or_backoff_queue, moved
    )

    cluster.create(make_pod_group("pg", 2))
    cluster.scheduler.sync()  # the PodGroup informer sees it: a PodGroup/Add event
    assert moved == ["podgroups.v1alpha1.scheduling.x-k8s.io"]
    cluster.clock.advance(10)  # past the members' backoff
    cluster.scheduler.queue.flush_backoff_q_completed()
    cluster.scheduler.schedule_pending()
    cluster.finish()
    cluster.scheduler.stop()
    assert all(cluster.node_of(n) for n in ("p-0", "p-1")), cluster.failed_scheduling()


def _spy(move: Callable[..., None], moved: list[str]) -> Callable[..., None]:
    def spy(event: Any, *args: Any) -> None:
        moved.append(event.resource.value)
        move(event, *args)

    return spy


# --- two gangs ------------------------------------------------------------------------------------


def test_two_gangs_competing_for_room_for_one_the_older_group_wins_whole() -> None:
    """Room for two pods; two groups of two. QueueSort brings the older group's members first.

    B's pods even arrive first; A's PodGroup is older, so A's members sort
    ahead of B's and A gets both nodes; B's members fit nowhere and B is
    rejected as a whole, holding nothing.
    """
    cluster = Cluster(*nodes(2), make_pod_group("a", 2))
    cluster.clock.advance(1)
    cluster.create(make_pod_group("b", 2))
    for name in ("b-0", "a-0", "b-1", "a-1"):
        cluster.clock.advance(1)
        cluster.create(member(name, group=name[0]))

    cluster.scheduler.schedule_pending()
    cluster.finish()
    cluster.scheduler.stop()

    assert {n: cluster.node_of(n) != "" for n in ("a-0", "a-1", "b-0", "b-1")} == {
        "a-0": True,
        "a-1": True,
        "b-0": False,
        "b-1": False,
    }
    tried = [name for event, name in cluster.log if event == "SchedulingCycleStart"]
    assert tried[:4] == ["a-0", "a-1", "b-0", "b-1"]
    assert cluster.failed_scheduling()["b-0"] == [
        "0/2 nodes are available: 2 Insufficient cpu. PodGroup ns/b gets rejected due to Pod b-0 "
        "is unschedulable even after PostFilter"
    ]
