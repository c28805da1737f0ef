"""The scheduler end to end on the fake API server: the shape of the two cycles.

* pods are bound through ``pods/binding``, with ``Scheduled`` events;
* a pod no node can take gets kube-scheduler's ``FailedScheduling`` event and
  ``PodScheduled=False`` condition, and waits in the queue;
* at most one scheduling cycle runs at a time, while binding cycles overlap;
* the cache's assumed pods prevent over-commit before bindings complete;
* a plugin that raises fails that pod's attempt only.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import pytest

from framework.cycle_state import CycleState
from framework.featuregate import new_feature_gates
from framework.objects import Event, Pod
from framework.status import Status
from framework.testing.steps import StepLog
from tests.scheduler.helpers import Cluster, bind_directly, node, pod


def events(cluster: Cluster) -> list[tuple[str, str, str]]:
    found = sorted(cluster.api.list(Event).items, key=lambda e: int(e.metadata.resource_version))
    return [(e.reason, e.involved_object.name, e.message) for e in found]


def test_pods_are_bound_and_the_one_that_fits_nowhere_is_explained() -> None:
    cluster = Cluster(node("a"), node("b", cpu="1"), pod("p1"), pod("p2"), pod("p3"), pod("p4"))
    sched = cluster.scheduler()
    sched.schedule_pending()
    sched.stop()
    placed = {name: cluster.node_of(name) for name in ("p1", "p2", "p3", "p4")}
    assert sorted(placed.values()) == ["", "a", "a", "b"]
    (unplaced,) = [name for name, host in placed.items() if not host]
    failed = [e for e in events(cluster) if e[0] == "FailedScheduling"]
    assert failed == [
        ("FailedScheduling", unplaced, "0/2 nodes are available: 2 Insufficient cpu.")
    ]
    condition = cluster.api.get(Pod, unplaced, namespace="default").status.conditions[-1]
    assert (condition.type, condition.status, condition.reason, condition.message) == (
        "PodScheduled",
        "False",
        "Unschedulable",
        "0/2 nodes are available: 2 Insufficient cpu.",
    )
    scheduled = [e for e in events(cluster) if e[0] == "Scheduled"]
    assert len(scheduled) == 3
    assert all(
        e[2] == f"Successfully assigned default/{e[1]} to {placed[e[1]]}" for e in scheduled
    )
    pending, summary = sched.queue.pending_pods()
    assert [p.name for p in pending] == [
        unplaced
    ] and summary == "activeQ:0; backoffQ:0; unschedulablePods:1"


def test_a_new_node_makes_the_waiting_pod_schedulable() -> None:
    cluster = Cluster(node("a", cpu="1"), pod("p1"), pod("p2"))
    sched = cluster.scheduler()
    sched.schedule_pending()
    waiting = [name for name in ("p1", "p2") if not cluster.node_of(name)]
    assert len(waiting) == 1
    cluster.api.create(node("b", cpu="1"))
    cluster.clock.advance(10)  # the pod's backoff has passed
    sched.sync()
    sched.queue.flush_backoff_q_completed()
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of(waiting[0]) == "b"


def test_assumed_pods_prevent_overcommit_before_their_binding_completes() -> None:
    release = threading.Event()

    class SlowPreBind:
        def name(self) -> str:
            return "SlowPreBind"

        def pre_bind(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
            release.wait(timeout=30)
            return None

    cluster = Cluster(node("a", cpu="1"), pod("p1"), pod("p2"))
    sched = cluster.scheduler("SlowPreBind", SlowPreBind=lambda *_: SlowPreBind())
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)
    assert sched.scheduling.schedule_one(timeout=0)  # while p1's binding is blocked
    release.set()
    sched.scheduling.wait_for_bindings()
    sched.stop()
    hosts = sorted(cluster.node_of(n) for n in ("p1", "p2"))
    assert hosts == ["", "a"]


def test_binding_cycles_overlap_while_scheduling_cycles_do_not() -> None:
    pods = 4
    barrier = threading.Barrier(pods, timeout=30)
    active = {"scheduling": 0, "max_scheduling": 0}
    lock = threading.Lock()

    class MeetInPreBind:
        def name(self) -> str:
            return "MeetInPreBind"

        def pre_bind(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
            barrier.wait()  # passes only if all binding cycles are in PreBind at once
            return None

    def observe(event: str, _pod: Pod, _detail: Any) -> None:
        with lock:
            if event == "SchedulingCycleStart":
                active["scheduling"] += 1
                active["max_scheduling"] = max(active["max_scheduling"], active["scheduling"])
            elif event == "SchedulingCycleEnd":
                active["scheduling"] -= 1

    cluster = Cluster(node("a", cpu="8"), *(pod(f"p{i}") for i in range(pods)))
    sched = cluster.scheduler("MeetInPreBind", MeetInPreBind=lambda *_: MeetInPreBind())
    sched.add_tracer(StepLog(observe))
    sched.schedule_pending()
    sched.stop()
    assert all(cluster.node_of(f"p{i}") == "a" for i in range(pods))
    assert active["max_scheduling"] == 1


def test_a_plugin_that_raises_fails_only_that_pods_attempt() -> None:
    class Picky:
        def name(self) -> str:
            return "Picky"

        def filter(self, state: CycleState, p: Pod, node_info: Any) -> Status | None:
            if p.name == "bad":
                raise KeyError("oops")
            return None

    cluster = Cluster(node("a"), pod("bad"), pod("good"))
    sched = cluster.scheduler("Picky", Picky=lambda *_: Picky())
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("good") == "a" and cluster.node_of("bad") == ""
    (failed,) = [e for e in events(cluster) if e[0] == "FailedScheduling"]
    assert failed[2] == 'running "Picky" filter plugin: plugin "Picky" raised KeyError: \'oops\''
    condition = cluster.api.get(Pod, "bad", namespace="default").status.conditions[-1]
    assert condition.reason == "SchedulerError"
    assert [p.pod.name for p in sched.queue.pending_pods_by_queue()["backoffQ"]] == ["bad"]


@pytest.mark.parametrize("seed", range(5))
def test_the_same_seed_gives_the_same_placements(seed: int) -> None:
    def run() -> dict[str, str]:
        cluster = Cluster(*(node(n, cpu="4") for n in "abcd"), *(pod(f"p{i}") for i in range(8)))
        sched = cluster.scheduler(seed=seed)
        sched.schedule_pending()
        sched.stop()
        return {f"p{i}": cluster.node_of(f"p{i}") for i in range(8)}

    assert run() == run()


def test_a_snapshot_failure_fails_one_attempt_and_the_next_one_proceeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cluster = Cluster(node("a"), pod("p1"), pod("p2"))
    sched = cluster.scheduler()
    real_update = sched.cache.update_snapshot
    failures = iter([RuntimeError("snapshot is inconsistent")])

    def flaky_update(snapshot: Any) -> None:
        error = next(failures, None)
        if error is not None:
            real_update(snapshot)  # the cache repairs, then reports, as kube's does
            raise error
        real_update(snapshot)

    monkeypatch.setattr(sched.cache, "update_snapshot", flaky_update)
    sched.schedule_pending()
    sched.stop()
    hosts = sorted(cluster.node_of(n) for n in ("p1", "p2"))
    assert hosts == ["", "a"]
    (failed,) = [e for e in events(cluster) if e[0] == "FailedScheduling"]
    assert failed[2] == "snapshot is inconsistent"


def finish(cluster: Cluster, name: str, phase: str) -> None:
    current = cluster.api.get(Pod, name, namespace="default")
    cluster.api.update_status(
        dataclasses.replace(current, status=dataclasses.replace(current.status, phase=phase))
    )


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_a_finished_pod_frees_its_room(phase: str) -> None:
    # kube-scheduler's pod informer selects status.phase!=Succeeded,status.phase!=Failed
    # (newPodInformer, pkg/scheduler/scheduler.go): a pod that finishes leaves the cache.
    cluster = Cluster(node("a", cpu="1"), pod("p1"), pod("p2"))
    sched = cluster.scheduler()
    sched.schedule_pending()
    (waiting,) = [name for name in ("p1", "p2") if not cluster.node_of(name)]
    (running,) = {"p1", "p2"} - {waiting}
    finish(cluster, running, phase)
    cluster.clock.advance(10)  # the waiting pod's backoff has passed
    sched.sync()
    sched.queue.flush_backoff_q_completed()
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of(waiting) == "a"


def test_a_pod_that_finished_before_the_scheduler_started_holds_no_room() -> None:
    cluster = Cluster(node("a", cpu="1"), pod("done"))
    bind_directly(cluster.api, "done", "a")
    finish(cluster, "done", "Succeeded")
    cluster.api.create(pod("next"))
    sched = cluster.scheduler()
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("next") == "a"
    assert sched.pod_informer.get("default/done") is None


def test_without_a_post_filter_a_failed_pod_keeps_its_nomination() -> None:
    # v1.33's schedulingCycle returns an empty ScheduleResult when no PostFilter plugin
    # is registered: the nominating info is nil (no-op), so status.nominatedNodeName
    # stays (pkg/scheduler/schedule_one.go; v1.35 clears it instead: test_nomination_versions).
    cluster = Cluster(node("a", cpu="1"), pod("big", cpu="2"))
    current = cluster.api.get(Pod, "big", namespace="default")
    cluster.api.update_status(
        dataclasses.replace(
            current, status=dataclasses.replace(current.status, nominated_node_name="a")
        )
    )
    sched = cluster.scheduler_with(feature_gates=new_feature_gates("1.33"))
    sched.schedule_pending()
    sched.stop()
    after = cluster.api.get(Pod, "big", namespace="default")
    assert after.spec.node_name == ""
    assert after.status.nominated_node_name == "a"
