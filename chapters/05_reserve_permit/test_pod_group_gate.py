"""Chapter 5: PodGroupGate holds a pod group's members at Permit until the group is complete.

First the decision alone, case by case: which pods wait, for how long, and
which pass. Then the waiting itself, with the framework's real waiting-pods
map on a fake clock and the binding cycles' ``wait_on_permit`` on threads:
the member that completes the group releases the others, a timeout rejects
with kube-scheduler's message, and an unreserved member takes its waiting
siblings down with it. Last, a whole scheduler on the fake API server. No
test sleeps: threads meet on the fake clock's waiter count.

Run against your code with ``python -m pytest chapters/05_reserve_permit --exercise``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from framework.cache.snapshot import new_snapshot
from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.objects import Event, Node, Pod
from framework.runtime.framework import Framework
from framework.scheduler.scheduler import Scheduler
from framework.status import Code, Status, as_status
from framework.testing.steps import StepLog
from tests.scheduler.helpers import Cluster, node

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.examples.podgroupgate",
    skeleton="exercise.py",
    asks=["PodGroupGate.permit", "PodGroupGate.unreserve"],
)

NODE = "node-a"


def member(
    impl: ModuleType,
    name: str,
    group: str = "train",
    min_available: int = 3,
    namespace: str = "default",
    node_name: str = "",
) -> Pod:
    labels = {impl.GROUP_NAME_LABEL: group, impl.MIN_AVAILABLE_LABEL: str(min_available)}
    return Pod.from_dict(
        {
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": f"uid-{namespace}-{name}",
                "labels": labels,
            },
            "spec": {
                "nodeName": node_name,
                "containers": [{"name": "c", "image": "busybox"}],
            },
        }
    )


def loner(name: str) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        }
    )


def framework_with(
    impl: ModuleType, args: Any = None, clock: FakeClock | None = None
) -> tuple[Framework, Any]:
    """A framework whose only plugin is the gate, built with the framework as its handle."""
    fwk = Framework("default-scheduler", clock=clock or FakeClock(start=0))
    gate = impl.new(args, fwk)
    fwk.set_plugins({"reserve": [gate], "permit": [gate], "postBind": [gate]}, {})
    fwk.snapshot = new_snapshot([], [])
    return fwk, gate


def schedule(fwk: Framework, pod: Pod) -> Status:
    """The end of a scheduling cycle on NODE: Reserve, then Permit (Unreserve if either fails)."""
    state = CycleState()
    status = fwk.run_reserve_plugins_reserve(state, pod, NODE)
    if status.is_success():
        status = fwk.run_permit_plugins(state, pod, NODE)
    if not status.is_success() and not status.is_wait():
        fwk.run_reserve_plugins_unreserve(state, pod, NODE)
    return status


class BindingCycles:
    """Each pod's ``wait_on_permit`` on its own thread, as the binding cycles run it."""

    def __init__(self, fwk: Framework) -> None:
        self._fwk = fwk
        self._threads: list[threading.Thread] = []
        self.results: dict[str, Status] = {}

    def start(self, pod: Pod) -> None:
        def run() -> None:
            self.results[pod.name] = self._fwk.wait_on_permit(pod)

        thread = threading.Thread(target=run, name=f"binding-{pod.name}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def join(self) -> dict[str, Status]:
        for thread in self._threads:
            thread.join(timeout=10)
            assert not thread.is_alive(), f"{thread.name} is still waiting at Permit"
        return self.results


# --- the decision, case by case ---------------------------------------------------------------

# Each case: the group's members that already have a node, as (name, how, group,
# namespace) with how = "reserved" (in the plugin's book: waiting or binding) or
# "bound" (in the snapshot); then the pod at Permit and what Permit answers.
Setup = list[tuple[str, str, str, str]]

PERMIT_CASES = [
    pytest.param(None, [], "loner", Code.SUCCESS, None, id="pod without the group labels passes"),
    pytest.param(None, [], "train-0", Code.WAIT, 30, id="first member of 3 waits 30 s by default"),
    pytest.param(
        {"permitWaitingTimeSeconds": 10},
        [],
        "train-0",
        Code.WAIT,
        10,
        id="the wait is permitWaitingTimeSeconds from the args",
    ),
    pytest.param(
        None,
        [("train-0", "reserved", "train", "default")],
        "train-1",
        Code.WAIT,
        30,
        id="second member of 3 still waits",
    ),
    pytest.param(
        None,
        [("train-0", "reserved", "train", "default"), ("train-1", "reserved", "train", "default")],
        "train-2",
        Code.SUCCESS,
        None,
        id="third member of 3 completes the group",
    ),
    pytest.param(
        None,
        [("train-0", "bound", "train", "default"), ("train-1", "bound", "train", "default")],
        "train-2",
        Code.SUCCESS,
        None,
        id="bound members count",
    ),
    pytest.param(
        None,
        [("train-0", "bound", "train", "default"), ("train-1", "reserved", "train", "default")],
        "train-2",
        Code.SUCCESS,
        None,
        id="bound and waiting members count together",
    ),
    pytest.param(
        None,
        [("train-0", "bound", "train", "default"), ("train-0", "reserved", "train", "default")],
        "train-2",
        Code.WAIT,
        30,
        id="a member both bound and in the book counts once",
    ),
    pytest.param(
        None,
        [("eval-0", "reserved", "eval", "default"), ("eval-1", "bound", "eval", "default")],
        "train-2",
        Code.WAIT,
        30,
        id="members of another group do not count",
    ),
    pytest.param(
        None,
        [("train-0", "reserved", "train", "other"), ("train-1", "bound", "train", "other")],
        "train-2",
        Code.WAIT,
        30,
        id="the same group name in another namespace does not count",
    ),
    pytest.param(
        None,
        [(f"train-{i}", "reserved", "train", "default") for i in range(3)],
        "train-3",
        Code.SUCCESS,
        None,
        id="a member beyond min-available passes at once",
    ),
]


@pytest.mark.parametrize(("args", "setup", "name", "code", "timeout"), PERMIT_CASES)
def test_permit(
    impl: ModuleType,
    args: Any,
    setup: Setup,
    name: str,
    code: Code,
    timeout: int | None,
) -> None:
    fwk, gate = framework_with(impl, args)
    bound: list[Pod] = []
    for other, how, group, namespace in setup:
        if how == "reserved":
            gate.reserve(CycleState(), member(impl, other, group, namespace=namespace), NODE)
        else:
            bound.append(member(impl, other, group, namespace=namespace, node_name=NODE))
    fwk.snapshot = new_snapshot(bound, [Node.from_dict({"metadata": {"name": NODE}})])
    pod = loner(name) if name == "loner" else member(impl, name)

    assert gate.reserve(CycleState(), pod, NODE) is None
    status, seconds = gate.permit(CycleState(), pod, NODE)

    assert as_status(status).code is code
    if timeout is not None:
        assert seconds == timeout


# --- waiting, allowing, rejecting -------------------------------------------------------------


@pytest.fixture
def group_of_three(impl: ModuleType) -> tuple[Framework, Any, FakeClock, list[Pod]]:
    clock = FakeClock(start=0)
    fwk, gate = framework_with(impl, clock=clock)
    return fwk, gate, clock, [member(impl, f"train-{i}") for i in range(3)]


def test_a_group_of_three_waits_for_its_third_member(
    group_of_three: tuple[Framework, Any, FakeClock, list[Pod]],
) -> None:
    fwk, _gate, clock, pods = group_of_three
    cycles = BindingCycles(fwk)
    for pod in pods[:2]:
        status = schedule(fwk, pod)
        assert status.is_wait(), status
        assert status.message() == (
            f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"'
        )
        cycles.start(pod)
    clock.block_until_waiters(2)  # both binding cycles are blocked in WaitOnPermit
    assert cycles.results == {}

    status = schedule(fwk, pods[2])

    assert status.is_success(), status
    assert fwk.get_waiting_pod(pods[2].metadata.uid) is None  # it never waited
    results = cycles.join()
    assert {name: s.code for name, s in results.items()} == {
        "train-0": Code.SUCCESS,
        "train-1": Code.SUCCESS,
    }
    assert len(fwk.waiting_pods) == 0


@pytest.mark.parametrize(
    ("args", "waited"),
    [(None, "30s"), ({"permitWaitingTimeSeconds": 10}, "10s")],
    ids=["default timeout", "timeout from the args"],
)
def test_a_member_whose_group_does_not_complete_in_time_is_rejected(
    impl: ModuleType, args: Any, waited: str
) -> None:
    clock = FakeClock(start=0)
    fwk, gate = framework_with(impl, args, clock)
    pod = member(impl, "train-0")
    cycles = BindingCycles(fwk)
    status = schedule(fwk, pod)
    assert status.is_wait(), status
    cycles.start(pod)
    clock.block_until_waiters(1)

    clock.advance(int(waited[:-1]) - 1)
    assert cycles.results == {}  # one second early: still waiting
    clock.advance(1)

    (status,) = cycles.join().values()
    assert (status.code, status.plugin, status.message()) == (
        Code.UNSCHEDULABLE,
        impl.NAME,
        f"rejected due to timeout after waiting {waited} at plugin {impl.NAME}",
    )
    # The binding cycle fails, so the scheduler unreserves: nothing stays in the book.
    fwk.run_reserve_plugins_unreserve(CycleState(), pod, NODE)
    assert gate.reserved() == {}


def test_unreserving_a_member_rejects_its_waiting_siblings_and_no_one_else(
    impl: ModuleType,
) -> None:
    clock = FakeClock(start=0)
    fwk, gate = framework_with(impl, clock=clock)
    train = [member(impl, f"train-{i}") for i in range(3)]
    stranger = member(impl, "eval-0", group="eval")
    # The same group name in another namespace is another group (hint 3).
    twin = member(impl, "train-9", namespace="other")
    cycles = BindingCycles(fwk)
    for pod in (train[0], train[1], stranger, twin):
        assert schedule(fwk, pod).is_wait()
        cycles.start(pod)
    clock.block_until_waiters(4)

    # The third member is reserved, then something after Reserve fails for it.
    assert gate.reserve(CycleState(), train[2], NODE) is None
    fwk.run_reserve_plugins_unreserve(CycleState(), train[2], NODE)

    # The stranger's group is intact: allowing it now still lets it through
    # (had it been rejected above, that first decision would have won).
    for untouched in (stranger, twin):
        waiting = fwk.get_waiting_pod(untouched.metadata.uid)
        assert waiting is not None, f"{untouched.key} was rejected: it is not in default/train"
        waiting.allow(impl.NAME)
    results = cycles.join()
    expected = impl.MSG_MEMBER_UNRESERVED.format(pod="train-2", group="default/train")
    for name in ("train-0", "train-1"):
        assert (results[name].code, results[name].plugin, results[name].message()) == (
            Code.UNSCHEDULABLE,
            impl.NAME,
            expected,
        )
    assert results["eval-0"].code is Code.SUCCESS
    assert gate.reserved() == {
        "default/train": frozenset({"uid-default-train-0", "uid-default-train-1"}),
        "default/eval": frozenset({"uid-default-eval-0"}),
        "other/train": frozenset({"uid-other-train-9"}),
    }


def test_the_member_that_completes_a_group_allows_only_its_own_group(impl: ModuleType) -> None:
    clock = FakeClock(start=0)
    fwk, _gate = framework_with(impl, clock=clock)
    pair = [member(impl, f"train-{i}", min_available=2) for i in range(2)]
    twin = member(impl, "train-9", min_available=2, namespace="other")
    cycles = BindingCycles(fwk)
    for pod in (pair[0], twin):
        assert schedule(fwk, pod).is_wait()
        cycles.start(pod)
    clock.block_until_waiters(2)

    assert schedule(fwk, pair[1]).is_success()

    waiting = fwk.get_waiting_pod(twin.metadata.uid)
    assert waiting is not None, "other/train was allowed: only default/train is complete"
    waiting.reject(impl.NAME, "test over")
    results = cycles.join()
    assert {name: s.code for name, s in results.items()} == {
        "train-0": Code.SUCCESS,
        "train-9": Code.UNSCHEDULABLE,
    }


def test_unreserving_a_member_that_reserved_nothing_still_rejects_its_siblings(
    impl: ModuleType,
) -> None:
    clock = FakeClock(start=0)
    fwk, gate = framework_with(impl, clock=clock)
    first, never_reserved = member(impl, "train-0"), member(impl, "train-1")
    cycles = BindingCycles(fwk)
    assert schedule(fwk, first).is_wait()
    cycles.start(first)
    clock.block_until_waiters(1)

    # Another Reserve plugin failed before this one ran: the group is one short all the same.
    gate.unreserve(CycleState(), never_reserved, NODE)

    still_waiting = fwk.get_waiting_pod(first.metadata.uid)
    if still_waiting is not None:  # release it, so that the test fails at once, not at the timeout
        still_waiting.reject(impl.NAME, "still waiting after its sibling was unreserved")
    (status,) = cycles.join().values()
    assert (status.code, status.message()) == (
        Code.UNSCHEDULABLE,
        impl.MSG_MEMBER_UNRESERVED.format(pod="train-1", group="default/train"),
    )


def test_unreserve_is_idempotent_and_copes_with_a_reserve_that_never_ran(
    impl: ModuleType,
) -> None:
    _fwk, gate = framework_with(impl)
    a, b, c = (member(impl, f"train-{i}") for i in range(3))
    for pod in (a, b):
        gate.reserve(CycleState(), pod, NODE)
    gate.unreserve(CycleState(), b, NODE)
    gate.unreserve(CycleState(), b, NODE)  # again: nothing more to release
    gate.unreserve(CycleState(), c, NODE)  # c never reserved anything
    assert gate.reserved() == {"default/train": frozenset({a.metadata.uid})}

    for pod in (b, c):
        gate.reserve(CycleState(), pod, NODE)
    status, _ = gate.permit(CycleState(), c, NODE)
    assert as_status(status).is_success()  # a, b and c: complete

    for pod in (a, b, c):
        gate.unreserve(CycleState(), pod, NODE)
    assert gate.reserved() == {}  # an emptied group leaves nothing behind


# --- the whole scheduler --------------------------------------------------------------------------


def group_pod(impl: ModuleType, name: str, group: str, min_available: int) -> Pod:
    labels = {impl.GROUP_NAME_LABEL: group, impl.MIN_AVAILABLE_LABEL: str(min_available)}
    return Pod.from_dict(
        {
            "metadata": {"name": name, "labels": labels},
            "spec": {
                "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
                ]
            },
        }
    )


def failed_scheduling(cluster: Cluster) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for event in sorted(
        cluster.api.list(Event).items, key=lambda e: int(e.metadata.resource_version)
    ):
        if event.reason == "FailedScheduling":
            found.setdefault(event.involved_object.name, []).append(event.message)
    return found


def schedule_all(sched: Scheduler, clock: FakeClock) -> None:
    """Run scheduling cycles until the queue has no ready pod, then finish the binding cycles.

    A member that a wrong Permit never releases would block its binding cycle
    (and this test) for good; if the binding cycles are not done after 10 s
    of real time, the fake clock jumps past every Permit timeout so that the
    test fails with a message instead of hanging.
    """
    sched.sync()
    while sched.scheduling.schedule_one(timeout=0):
        sched.sync()
    waiter = threading.Thread(target=sched.scheduling.wait_for_bindings, daemon=True)
    waiter.start()
    waiter.join(timeout=10)
    if waiter.is_alive():
        clock.advance(15 * 60)
        waiter.join(timeout=10)
    sched.sync()


def recorder(log: list[tuple[str, str]]) -> Callable[[str, Pod, Any], None]:
    def observe(event: str, pod: Pod, _detail: Any) -> None:
        log.append((event, pod.name))  # list.append is atomic: binding threads call this too

    return observe


def test_a_group_of_three_is_bound_together(impl: ModuleType) -> None:
    cluster = Cluster(
        node("a", cpu="2"),
        node("b", cpu="2"),
        *(group_pod(impl, f"train-{i}", "train", 3) for i in range(3)),
    )
    sched = cluster.scheduler(impl.NAME, PodGroupGate=impl.new)
    log: list[tuple[str, str]] = []
    sched.add_tracer(StepLog(recorder(log)))

    schedule_all(sched, cluster.clock)
    sched.stop()

    assert all(cluster.node_of(f"train-{i}") for i in range(3)), failed_scheduling(cluster)
    # Nobody was bound before the third member had a node ("Scheduled" is logged when
    # the scheduling cycle has chosen it, before Reserve and Permit).
    first_bound = next(i for i, (event, _) in enumerate(log) if event == "Bound")
    chosen = [i for i, (event, _) in enumerate(log) if event == "Scheduled"]
    assert len(chosen) == 3 and max(chosen) < first_bound
    gate = sched.profiles["default-scheduler"].plugins["permit"][0]
    assert gate.reserved() == {}  # bound members live in the cluster, not in the book


def test_a_group_that_cannot_complete_is_rejected_after_the_timeout_and_requeued(
    impl: ModuleType,
) -> None:
    cluster = Cluster(node("a", cpu="4"), group_pod(impl, "job-0", "job", 3))
    sched = cluster.scheduler(impl.NAME, PodGroupGate=impl.new)
    fwk = sched.profiles["default-scheduler"]
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)  # job-0 waits from t=0 ...
    cluster.clock.advance(10)
    cluster.api.create(group_pod(impl, "job-1", "job", 3))
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)  # ... job-1 from t=10
    assert len(fwk.waiting_pods) == 2, failed_scheduling(cluster)
    cluster.clock.block_until_waiters(2)

    cluster.clock.advance(20)  # job-0's 30 s are up; job-1 has 10 s left
    sched.scheduling.wait_for_bindings()
    sched.sync()

    assert cluster.node_of("job-0") == "" and cluster.node_of("job-1") == ""
    assert failed_scheduling(cluster) == {
        "job-0": [
            "0/1 nodes are available: 1 rejected due to timeout after waiting 30s "
            f"at plugin {impl.NAME}."
        ],
        "job-1": [
            "0/1 nodes are available: 1 "
            + impl.MSG_MEMBER_UNRESERVED.format(pod="job-0", group="default/job")
            + "."
        ],
    }
    pending, _ = sched.queue.pending_pods()
    assert sorted(p.name for p in pending) == ["job-0", "job-1"]
    assert fwk.plugins["permit"][0].reserved() == {}

    # The third member arrives; once the backoff is over, the group goes together.
    cluster.api.create(group_pod(impl, "job-2", "job", 3))
    cluster.clock.advance(10)
    sched.sync()
    sched.queue.flush_backoff_q_completed()
    schedule_all(sched, cluster.clock)
    sched.stop()
    assert all(cluster.node_of(f"job-{i}") == "a" for i in range(3)), failed_scheduling(cluster)
