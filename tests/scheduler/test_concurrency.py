"""Binding cycles overlap, and nothing they do holds up the scheduling loop.

kube-scheduler starts each pod's binding cycle in a goroutine of its own
(``go func() { ... sched.bindingCycle(...) }()`` in
``pkg/scheduler/schedule_one.go``) and goes straight on to the next pod. So a
PreBind that waits for a volume, or a pod parked at Permit until its gang is
complete, must not stop the next pods from being scheduled *and bound*; and
any number of binding cycles may be in flight at once. The scheduling cycle,
on the other hand, has exactly one driver.

A pod parked at Permit is rejected when the timeout of a plugin it still
waits for runs out; the deadlines are fixed when it is parked (kube-scheduler's
``newWaitingPod`` starts a timer per plugin), whenever its binding cycle
starts to wait.

An assumed pod whose binding finished but never shows up in the watch
expires after the cache's TTL, if one is set (kube-scheduler's old
behaviour; v1.33 sets no TTL): :meth:`Scheduler.run` cleans up on a thread
driven by the injected clock, :meth:`Scheduler.schedule_pending` once per
loop.

No test here sleeps. Threads meet at barriers and events, time moves only on
the FakeClock, and a test waits for a step with ``Observed.wait_until``,
which wakes on the step itself (``HANG_GUARD`` only bounds a hang). The
tests that depend on thread timing run five times each (``seed`` 0-4, which
also picks the pod that is slow or waits) to show they are not flaky.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.objects import Event, Pod
from framework.runtime.framework import Framework
from framework.status import Status
from framework.testing.steps import StepLog
from tests.scheduler.helpers import (
    HANG_GUARD,
    Cluster,
    Observed,
    bind_directly,
    node,
    pod,
)

SEEDS = range(5)
PROFILE = "default-scheduler"


def nth_scheduled(observed: Observed, n: int) -> Callable[[str], bool]:
    """Whether a pod is the ``n``-th (from 0) whose scheduling cycle started.

    Pods of equal priority created at the same instant come out of the heap
    in an order only its layout decides, as in Go; so the tests pick "the
    second pod scheduled", not a name.
    """

    def test(name: str) -> bool:
        started = observed.names("SchedulingCycleStart")
        return len(started) > n and started[n] == name

    return test


class SlowPreBind:
    """PreBind: one pod's binding blocks until the test releases it."""

    def __init__(self, is_slow: Callable[[str], bool], release: threading.Event) -> None:
        self.is_slow = is_slow
        self.release = release

    def name(self) -> str:
        return "SlowPreBind"

    def pre_bind(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
        if self.is_slow(p.name) and not self.release.wait(HANG_GUARD):
            return Status.as_error(TimeoutError("the test never released the slow PreBind"))
        return None


class Gang:
    """Permit: one pod waits (up to ``timeout`` seconds) for the test to allow it; others pass."""

    def __init__(self, is_waiting: Callable[[str], bool], timeout: float) -> None:
        self.is_waiting = is_waiting
        self.timeout = timeout

    def name(self) -> str:
        return "Gang"

    def permit(self, state: CycleState, p: Pod, node_name: str) -> tuple[Status | None, float]:
        if self.is_waiting(p.name):
            return Status.wait(), self.timeout
        return None, 0.0


class ReserveLog:
    """Reserve: records every Reserve and Unreserve call, as ``(point, pod)``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def name(self) -> str:
        return "ReserveLog"

    def reserve(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
        self.calls.append(("reserve", p.name))
        return None

    def unreserve(self, state: CycleState, p: Pod, node_name: str) -> None:
        self.calls.append(("unreserve", p.name))


def events_of(cluster: Cluster, name: str) -> list[tuple[str, str]]:
    found = sorted(cluster.api.list(Event).items, key=lambda e: int(e.metadata.resource_version))
    return [(e.reason, e.message) for e in found if e.involved_object.name == name]


def uid_of(cluster: Cluster, name: str) -> str:
    return cluster.api.get(Pod, name, namespace="default").metadata.uid


# --- a slow binding cycle, a waiting pod -------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_a_slow_pre_bind_does_not_stop_the_next_pods_from_being_scheduled_and_bound(
    seed: int,
) -> None:
    names = [f"p{i}" for i in range(6)]
    release = threading.Event()
    observed = Observed()
    # The seed-th pod to be scheduled (0-4 of 6) is slow: some pods always come after it.
    is_slow = nth_scheduled(observed, seed)
    cluster = Cluster(node("a", cpu="8"), *(pod(n) for n in names))
    sched = cluster.scheduler(
        "SlowPreBind", seed=seed, SlowPreBind=lambda *_: SlowPreBind(is_slow, release)
    )
    sched.add_tracer(StepLog(observed))
    sched.run()
    try:
        observed.wait_until(lambda o: len(o.names("Bound")) == 5, "the other pods are bound")
        (slow,) = set(names) - set(observed.names("Bound"))
        assert observed.names("SchedulingCycleStart")[seed] == slow
        # Still in PreBind ("Bound" is told just before a binding cycle's thread lets go, so
        # the others may not have left the count of cycles in flight yet).
        assert cluster.node_of(slow) == ""
        assert sched.scheduling.binding_cycles_in_flight() >= 1
        release.set()
        observed.wait_until(lambda o: slow in o.names("Bound"), f"{slow} is bound")
    finally:
        release.set()
        sched.stop()
    assert {cluster.node_of(n) for n in names} == {"a"}


@pytest.mark.parametrize("seed", SEEDS)
def test_a_pod_waiting_at_permit_does_not_stop_the_next_pods_and_binds_once_allowed(
    seed: int,
) -> None:
    names = [f"p{i}" for i in range(6)]
    observed = Observed()
    is_waiting = nth_scheduled(observed, seed)
    cluster = Cluster(node("a", cpu="8"), *(pod(n) for n in names))
    sched = cluster.scheduler("Gang", seed=seed, Gang=lambda *_: Gang(is_waiting, 60))
    sched.add_tracer(StepLog(observed))
    sched.run()
    try:
        observed.wait_until(lambda o: len(o.names("Bound")) == 5, "the other pods are bound")
        (waiting,) = set(names) - set(observed.names("Bound"))
        assert observed.names("SchedulingCycleStart")[seed] == waiting
        parked = sched.profiles[PROFILE].get_waiting_pod(uid_of(cluster, waiting))
        assert parked is not None and parked.get_pending_plugins() == ["Gang"]
        assert cluster.node_of(waiting) == ""
        parked.allow("Gang")
        observed.wait_until(lambda o: waiting in o.names("Bound"), f"{waiting} is bound")
    finally:
        sched.stop()
    assert {cluster.node_of(n) for n in names} == {"a"}
    assert sched.profiles[PROFILE].get_waiting_pod(uid_of(cluster, waiting)) is None


@pytest.mark.parametrize(
    ("timeout", "shown"),
    [(1, "1s"), (10, "10s"), (59, "59s"), (61, "1m1s"), (1000, "15m0s")],
    ids=["1s", "10s", "59s", "1m1s", "capped at 15m"],
)
def test_a_permit_timeout_rejects_the_waiting_pod_unreserves_it_and_requeues_it(
    timeout: float, shown: str
) -> None:
    log = ReserveLog()
    cluster = Cluster(node("a"), pod("p0"), pod("p1"))
    sched = cluster.scheduler(
        "ReserveLog",
        "Gang",
        ReserveLog=lambda *_: log,
        Gang=lambda *_: Gang(lambda name: name == "p0", timeout),
    )
    observed = Observed()
    sched.add_tracer(StepLog(observed))
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)  # p0: parked at Permit
    assert sched.scheduling.schedule_one(timeout=0)  # p1: scheduled meanwhile
    observed.wait_until(lambda o: "p1" in o.names("Bound"), "p1 is bound")
    cluster.clock.block_until_waiters(1)  # p0's binding cycle waits on the clock
    cluster.clock.advance(min(timeout, 15 * 60))
    sched.scheduling.wait_for_bindings()
    sched.sync()
    sched.stop()

    reason = f"rejected due to timeout after waiting {shown} at plugin Gang"
    assert cluster.node_of("p0") == "" and cluster.node_of("p1") == "a"
    assert [c for c in log.calls if c[1] == "p0"] == [("reserve", "p0"), ("unreserve", "p0")]
    assert events_of(cluster, "p0") == [
        ("FailedScheduling", f"0/1 nodes are available: 1 {reason}.")
    ]
    condition = cluster.api.get(Pod, "p0", namespace="default").status.conditions[-1]
    assert (condition.type, condition.status, condition.reason) == (
        "PodScheduled",
        "False",
        "Unschedulable",
    )
    # Gang registers no events, so any event may move p0 on (its own status update does).
    waiting = [p for pods in sched.queue.pending_pods_by_queue().values() for p in pods]
    assert [(p.pod.name, p.unschedulable_plugins) for p in waiting] == [("p0", {"Gang"})]


class WaitFor:
    """Permit: asks to wait ``timeout`` seconds."""

    def __init__(self, name: str, timeout: float) -> None:
        self._name = name
        self.timeout = timeout

    def name(self) -> str:
        return self._name

    def permit(self, state: CycleState, p: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status.wait(), self.timeout


class JumpyClock(FakeClock):
    """A fake clock that jumps ``jump`` seconds the first time a thread starts waiting on it.

    It plays the worst moment for time to pass: after the binding cycle has
    looked at the clock, before its wait has begun.
    """

    def __init__(self, jump: float) -> None:
        super().__init__(start=0)
        self.jump = jump

    def wait(self, event: threading.Event, timeout: float | None) -> bool:
        jump, self.jump = self.jump, 0
        self.advance(jump)
        return super().wait(event, timeout)


POD_AT_PERMIT = Pod.from_dict(
    {"metadata": {"name": "p", "uid": "uid-p"}, "spec": {"containers": [{"name": "c"}]}}
)


def wait_on_permit_in_a_thread(fwk: Framework) -> tuple[threading.Thread, list[Status]]:
    result: list[Status] = []
    waiter = threading.Thread(target=lambda: result.append(fwk.wait_on_permit(POD_AT_PERMIT)))
    waiter.start()
    return waiter, result


def test_a_permit_deadline_holds_even_if_the_clock_moves_just_before_the_wait_begins() -> None:
    """Found by the property test: a timeout started on the clock at wait time, not at Permit.

    Time that passed between reading the clock and starting to wait was
    added to the timeout, so with a fake clock the pod waited for ever.
    """
    clock = JumpyClock(jump=31)
    fwk = Framework.from_plugins("p", {"permit": [WaitFor("Gang", 30)]}, clock=clock)
    assert fwk.run_permit_plugins(CycleState(), POD_AT_PERMIT, "a").is_wait()
    waiter, result = wait_on_permit_in_a_thread(fwk)
    waiter.join(HANG_GUARD)
    assert not waiter.is_alive(), "the pod waits past its deadline"
    assert result[0].message() == "rejected due to timeout after waiting 30s at plugin Gang"


def test_a_plugin_that_allowed_the_pod_no_longer_times_it_out() -> None:
    clock = FakeClock(start=0)
    fwk = Framework.from_plugins(
        "p", {"permit": [WaitFor("Quick", 10), WaitFor("Slow", 60)]}, clock=clock
    )
    assert fwk.run_permit_plugins(CycleState(), POD_AT_PERMIT, "a").is_wait()
    waiting = fwk.get_waiting_pod("uid-p")
    assert waiting is not None
    waiter, result = wait_on_permit_in_a_thread(fwk)
    clock.block_until_waiters(1)  # waiting for the earliest deadline, Quick's
    waiting.allow("Quick")
    clock.advance(10)  # Quick's deadline: Quick has allowed the pod, so it rejects nothing
    assert waiter.is_alive() and waiting.get_pending_plugins() == ["Slow"]
    clock.advance(50)
    waiter.join(HANG_GUARD)
    assert result[0].plugin == "Slow"
    assert result[0].message() == "rejected due to timeout after waiting 1m0s at plugin Slow"


# --- many binding cycles at once ---------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 16, 17, 40])
def test_n_binding_cycles_really_overlap_after_every_scheduling_cycle_has_ended(n: int) -> None:
    """All ``n`` binding cycles must be in PreBind at once to pass the barrier.

    kube-scheduler starts a goroutine per binding cycle, so there is no
    limit; 17 and 40 are past the 16 worker threads this scheduler once had.
    """
    barrier = threading.Barrier(n, timeout=HANG_GUARD)

    class MeetInPreBind:
        def name(self) -> str:
            return "MeetInPreBind"

        def pre_bind(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                return Status.as_error(RuntimeError(f"{n} binding cycles never met"))
            return None

    names = [f"p{i:02}" for i in range(n)]
    cluster = Cluster(node("a", cpu=str(n)), *(pod(name) for name in names))
    sched = cluster.scheduler("MeetInPreBind", MeetInPreBind=lambda *_: MeetInPreBind())
    observed = Observed()
    sched.add_tracer(StepLog(observed))
    sched.schedule_pending()
    sched.stop()
    assert {cluster.node_of(name) for name in names} == {"a"}
    steps = [step for step, _, _ in observed.steps]
    last_cycle_end = max(i for i, step in enumerate(steps) if step == "SchedulingCycleEnd")
    assert last_cycle_end < steps.index("Bound")


# --- one driver for the scheduling loop ------------------------------------------------------------


def test_run_twice_starts_one_scheduling_loop_and_stop_ends_every_thread() -> None:
    cluster = Cluster(node("a"), pod("p0"))
    sched = cluster.scheduler()
    sched.run()
    sched.run()
    loops = [t for t in threading.enumerate() if t.name == "scheduling-loop"]
    try:
        assert len(loops) == 1
        with pytest.raises(RuntimeError, match="is running"):
            sched.schedule_pending()
    finally:
        sched.stop()
    assert not any(t.is_alive() for t in sched._threads)


# --- expiry of assumed pods -------------------------------------------------------------------------


class LyingBinder:
    """Bind: "binds" one pod without writing the binding; Skip for the others (DefaultBinder's)."""

    def __init__(self, victim: str) -> None:
        self.victim = victim

    def name(self) -> str:
        return "LyingBinder"

    def bind(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
        return None if p.name == self.victim else Status.skip()


def room_on(sched: Any, node_name: str) -> int:
    info = sched.cache.dump().nodes[node_name]
    return int(info.allocatable.milli_cpu - info.requested.milli_cpu)


def test_schedule_pending_expires_an_assumed_pod_whose_binding_never_lands() -> None:
    cluster = Cluster(node("a", cpu="1"), pod("ghost"))
    sched = cluster.scheduler_with(
        "LyingBinder",
        factories={"LyingBinder": lambda *_: LyingBinder("ghost")},
        assumed_pod_ttl_seconds=30,
    )
    sched.schedule_pending()
    assert cluster.node_of("ghost") == "" and room_on(sched, "a") == 0
    cluster.api.create(pod("late"))
    sched.schedule_pending()
    assert cluster.node_of("late") == "", "the ghost still holds the room"

    cluster.clock.advance(30)
    sched.schedule_pending()
    assert room_on(sched, "a") == 0, "exactly at the deadline is not past it"
    cluster.clock.advance(1)
    cluster.api.create(pod("later"))
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("later") == "a"
    assert not sched.cache.dump().assumed_pods


@pytest.mark.parametrize("seed", SEEDS)
def test_run_expires_assumed_pods_on_the_injected_clock(seed: int) -> None:
    cluster = Cluster(node("a", cpu="1"), pod("ghost"))
    sched = cluster.scheduler_with(
        "LyingBinder",
        factories={"LyingBinder": lambda *_: LyingBinder("ghost")},
        seed=seed,
        assumed_pod_ttl_seconds=30,
    )
    observed = Observed()
    sched.add_tracer(StepLog(observed))
    sched.run()
    try:
        observed.wait_until(lambda o: "ghost" in o.names("Bound"), "the ghost is 'bound'")
        assert room_on(sched, "a") == 0
        cluster.clock.advance(31)
        observed.wait_until(lambda o: "ghost" in o.names("AssumedPodExpired"), "it expired")
        assert room_on(sched, "a") == 1000
        cluster.api.create(pod("later"))
        observed.wait_until(lambda o: "later" in o.names("Bound"), "the next pod takes the room")
    finally:
        sched.stop()
    assert cluster.node_of("later") == "a"
    assert not any(t.is_alive() for t in sched._threads)


# --- kube-scheduler's own window ---------------------------------------------------------------------


def test_a_pod_bound_by_someone_else_during_its_binding_cycle_leaves_the_cache_until_the_watch_says_so() -> (
    None
):
    """Documents a window kube-scheduler has too; the property tests keep clear of it.

    Someone binds the pod while our binding cycle runs; our Bind gets a
    Conflict, and the failure path forgets the assumed pod, so the cache
    counts the node as empty until the watch delivers the binding. A
    scheduling cycle in that window could overcommit the node (kube-scheduler
    does the same: ``handleBindingCycleError`` calls ``ForgetPod``; see the
    comment on external bindings in ``deletePodFromSchedulingQueue``).
    """
    cluster = Cluster(node("a", cpu="1"), pod("p0"))

    class Intruder:
        def name(self) -> str:
            return "Intruder"

        def pre_bind(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
            bind_directly(cluster.api, p.name, node_name)
            return None

    sched = cluster.scheduler("Intruder", Intruder=lambda *_: Intruder())
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)
    sched.scheduling.wait_for_bindings()
    assert cluster.node_of("p0") == "a"
    assert room_on(sched, "a") == 1000, "forgotten: the window"
    (failed,) = events_of(cluster, "p0")
    assert failed[0] == "FailedScheduling" and "is already assigned to node" in failed[1]
    sched.sync()
    assert room_on(sched, "a") == 0, "the watch delivered the binding: the window is closed"
    assert sched.queue.pending_pods()[0] == []
    sched.stop()
