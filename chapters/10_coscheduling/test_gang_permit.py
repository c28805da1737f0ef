"""Chapter 10: Coscheduling's Permit counts a gang's members and lets the quorum through together.

First the manager's decision alone (``TestPermit`` of
``kubernetes-sigs/scheduler-plugins:pkg/coscheduling/core/core_test.go``),
then the plugin's answer (``TestPermit`` of ``coscheduling_test.go``) with
its wait time (``util.GetWaitTimeDuration``), the activation of the
siblings (the first half of ``TestPodGroupBackoffTime``, and
kubernetes-sigs/scheduler-plugins#682: only the first waiting member
activates), the release of the waiting members by the one that completes
the quorum, and last a whole scheduler on the fake API server. No test
sleeps: binding cycles wait on threads, and tests meet them on the fake
clock's waiter count.

Run against your code with ``python -m pytest chapters/10_coscheduling --exercise``.
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Event, Namespace, ObjectMeta, Pod
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import Framework
from framework.runtime.registry import build_registry, with_plugin
from framework.scheduler.scheduler import Scheduler
from framework.status import Code, Status, as_status
from framework.testing.steps import StepLog
from tests.plugins.coscheduling.helpers import (
    Setup,
    coscheduling_config,
    cycle_state,
    make_node,
    make_pod,
    make_pod_group,
    pods_to_activate,
)

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.coscheduling",
    skeleton="exercise.py",
    asks=["PodGroupManager.permit", "Coscheduling.permit"],
)

NODES = [make_node("node", cpu="4")]


def plugin_of(impl: ModuleType, setup: Setup, args: Any = None) -> Any:
    """``impl``'s plugin (yours or the reference), wired into the setup's framework."""
    plugin = impl.new(args, setup.fwk)
    setup.fwk.set_plugins({"reserve": [plugin], "permit": [plugin]}, {})
    return plugin


# --- the manager's count ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        pytest.param(
            make_pod("p"), [], "POD_GROUP_NOT_SPECIFIED", id="pod does not belong to any pg"
        ),
        pytest.param(
            make_pod("p", "pg-non-existent"),
            [],
            "POD_GROUP_NOT_FOUND",
            id="pod specifies a non-existent pg",
        ),
        pytest.param(
            make_pod("p", "pg1"), [], "WAIT", id="pod belongs to a pg that doesn't have quorum"
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [make_pod("p1b", "pg1", node_name="node")],
            "SUCCESS",
            id="pod belongs to a pg that have quorum satisfied",
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [make_pod("p1b", "pg1", node_name="node", namespace="other")],
            "WAIT",
            id="a bound pod of the same group name in another namespace does not count",
        ),
    ],
)
def test_manager_permit(impl: ModuleType, pod: Pod, existing: list[Pod], want: str) -> None:
    setup = Setup(
        pods=[pod, *existing],
        pod_groups=[make_pod_group("pg1", 2), make_pod_group("pg1", 5, namespace="other")],
        nodes=NODES,
    )
    manager = plugin_of(impl, setup).pg_mgr
    assert manager.permit(cycle_state(), pod) is getattr(impl.PermitStatus, want)


def test_the_manager_counts_pod_names_once_and_the_first_waiting_member_asks_for_activation(
    impl: ModuleType,
) -> None:
    members = [make_pod(f"m{i}", "pg") for i in range(3)]
    setup = Setup(pods=members, pod_groups=[make_pod_group("pg", 3)], nodes=NODES)
    manager = plugin_of(impl, setup).pg_mgr
    first, again, second = cycle_state(), cycle_state(), cycle_state()

    assert manager.permit(first, members[0]) is impl.PermitStatus.WAIT
    assert manager.permit(again, members[0]) is impl.PermitStatus.WAIT  # m0 again: still one
    assert manager.permit(second, members[1]) is impl.PermitStatus.WAIT
    assert manager.assigned_pods() == {"ns/pg": frozenset({"m0", "m1"})}
    assert first.read(impl.PERMIT_STATE_KEY) == impl.PermitState(activate=True)
    assert again.read(impl.PERMIT_STATE_KEY) == impl.PermitState(activate=True)
    with pytest.raises(KeyError):
        second.read(impl.PERMIT_STATE_KEY)  # the second member asks for nothing

    assert manager.permit(cycle_state(), members[2]) is impl.PermitStatus.SUCCESS
    assert manager.assigned_pods() == {"ns/pg": frozenset({"m0", "m1", "m2"})}


# --- the plugin's answer -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "want", "message", "seconds"),
    [
        pytest.param(make_pod("p"), Code.SUCCESS, "", 0, id="pods do not belong to any podGroup"),
        pytest.param(
            make_pod("p", "pg2"),
            Code.WAIT,
            "",
            10,
            id="pods belong to a pg1, but quorum not satisfied",
        ),
        pytest.param(
            make_pod("p", "pg1"),
            Code.SUCCESS,
            "",
            0,
            id="pods belong to a podGroup, and quorum satisfied",
        ),
        pytest.param(
            make_pod("p", "pg-missing"),
            Code.UNSCHEDULABLE,
            "PodGroup not found",
            0,
            id="pods belong to a podGroup that does not exist",
        ),
    ],
)
def test_plugin_permit(
    impl: ModuleType, pod: Pod, want: Code, message: str, seconds: float
) -> None:
    setup = Setup(
        pods=[pod], pod_groups=[make_pod_group("pg1", 1), make_pod_group("pg2", 2)], nodes=NODES
    )
    plugin = plugin_of(impl, setup, {"permitWaitingTimeSeconds": 10})
    status, timeout = plugin.permit(cycle_state(), pod, "node")
    assert (as_status(status).code, as_status(status).message(), timeout) == (
        want,
        message,
        seconds,
    )


@pytest.mark.parametrize(
    ("schedule_timeout_seconds", "args", "seconds"),
    [
        (5, {"permitWaitingTimeSeconds": 10}, 5),
        (None, {"permitWaitingTimeSeconds": 10}, 10),
        (0, {"permitWaitingTimeSeconds": 10}, 10),
        (None, None, 60),
        (None, {"permitWaitingTimeSeconds": 0}, 60),
        (3600, None, 3600),
    ],
    ids=[
        "the PodGroup's scheduleTimeoutSeconds wins",
        "else permitWaitingTimeSeconds",
        "a zero scheduleTimeoutSeconds keeps permitWaitingTimeSeconds",
        "the default permitWaitingTimeSeconds is 60",
        "a zero permitWaitingTimeSeconds falls back to 60",
        "an hour is asked for (the framework caps it at 15 minutes)",
    ],
)
def test_a_waiting_member_waits_for_the_groups_timeout(
    impl: ModuleType, schedule_timeout_seconds: int | None, args: Any, seconds: float
) -> None:
    pod = make_pod("p", "pg")
    group = make_pod_group("pg", 2, schedule_timeout_seconds=schedule_timeout_seconds)
    setup = Setup(pods=[pod], pod_groups=[group], nodes=NODES)
    status, timeout = plugin_of(impl, setup, args).permit(cycle_state(), pod, "node")
    assert (as_status(status).code, timeout) == (Code.WAIT, seconds)


def test_the_first_waiting_member_activates_its_siblings(impl: ModuleType) -> None:
    """``TestPodGroupBackoffTime``: pod1 waits, and pod2 and pod3 are to be activated."""
    pods = [make_pod(f"pod{i}", "pg1") for i in (1, 2, 3)]
    other = make_pod("pod9", "pg2")
    setup = Setup(
        pods=[*pods, other],
        pod_groups=[make_pod_group("pg1", 3), make_pod_group("pg2", 1)],
        nodes=NODES,
    )
    plugin = plugin_of(impl, setup)
    state = cycle_state()

    status, _ = plugin.permit(state, pods[0], "node")

    assert as_status(status).code is Code.WAIT
    # Every other unfinished pod of the group: not pod1 itself, not pg2's.
    assert pods_to_activate(state) == ["ns/pod2", "ns/pod3"]
    state = cycle_state()
    status, _ = plugin.permit(state, pods[1], "node")
    assert as_status(status).code is Code.WAIT
    assert pods_to_activate(state) == []  # only the first waiting member asks


# --- waiting, and being let through ----------------------------------------------------------


class BindingCycles:
    """Each parked pod's ``wait_on_permit`` on its own thread, as its binding cycle runs it."""

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
            thread.join(timeout=20)
            assert not thread.is_alive(), f"{thread.name} is still waiting at Permit"
        return self.results


def test_the_member_that_completes_the_quorum_lets_its_waiting_siblings_through(
    impl: ModuleType,
) -> None:
    members = [make_pod(f"m{i}", "pg") for i in range(3)]
    stranger = make_pod("s0", "pg2")
    elsewhere = make_pod("o0", "pg", namespace="other")
    setup = Setup(
        pods=[*members, stranger, elsewhere],
        pod_groups=[
            make_pod_group("pg", 3),
            make_pod_group("pg2", 2),
            make_pod_group("pg", 2, namespace="other"),
        ],
        nodes=NODES,
    )
    plugin_of(impl, setup)
    cycles = BindingCycles(setup.fwk)
    for pod in (members[0], members[1], stranger, elsewhere):
        status = setup.fwk.run_permit_plugins(cycle_state(), pod, "node")
        assert status.is_wait(), status
        cycles.start(pod)
    setup.clock.block_until_waiters(4)

    status = setup.fwk.run_permit_plugins(cycle_state(), members[2], "node")

    assert status.is_success(), status
    for pod in (stranger, elsewhere):  # other groups still wait: release them to end the test
        waiting = setup.fwk.get_waiting_pod(pod.metadata.uid)
        assert waiting is not None and waiting.get_pending_plugins() == [impl.NAME]
        waiting.reject("test", "not this group")
    results = cycles.join()
    assert {name: s.code for name, s in results.items()} == {
        "m0": Code.SUCCESS,
        "m1": Code.SUCCESS,
        "s0": Code.UNSCHEDULABLE,
        "o0": Code.UNSCHEDULABLE,
    }
    assert len(setup.fwk.waiting_pods) == 0


def test_a_member_alone_times_out_with_kube_schedulers_message(impl: ModuleType) -> None:
    pod = make_pod("m0", "pg")
    setup = Setup(pods=[pod], pod_groups=[make_pod_group("pg", 2, schedule_timeout_seconds=7)])
    plugin_of(impl, setup)
    cycles = BindingCycles(setup.fwk)
    assert setup.fwk.run_permit_plugins(cycle_state(), pod, "node").is_wait()
    cycles.start(pod)
    setup.clock.block_until_waiters(1)

    setup.clock.advance(6)
    assert cycles.results == {}  # a second early: still waiting
    setup.clock.advance(1)

    (status,) = cycles.join().values()
    assert (status.code, status.plugin, status.message()) == (
        Code.UNSCHEDULABLE,
        impl.NAME,
        f"rejected due to timeout after waiting 7s at plugin {impl.NAME}",
    )


# --- the whole scheduler --------------------------------------------------------------------------


def test_a_gang_of_three_is_bound_together_in_a_scheduler(impl: ModuleType) -> None:
    clock = FakeClock()
    api = APIServer(clock)
    api.create(Namespace(metadata=ObjectMeta(name="ns")))
    for i in range(3):
        api.create(make_node(f"node-{i}", cpu="1"))
    api.create(make_pod_group("pg", 3))
    for i in range(3):
        api.create(make_pod(f"p-{i}", "pg", cpu="1"))
    registry = build_registry(in_tree_registry(), with_plugin(impl.NAME, impl.new))
    scheduler = Scheduler(api, coscheduling_config(), registry, clock=clock, seed=0)
    log: list[tuple[str, str]] = []
    scheduler.add_tracer(StepLog(lambda event, pod, _: log.append((event, pod.name))))

    scheduler.schedule_pending()
    scheduler.stop()

    bound = {p.name: p.spec.node_name for p in api.list(Pod, namespace="ns").items}
    failures = [e.message for e in api.list(Event).items if e.reason == "FailedScheduling"]
    assert all(bound.values()), failures
    chosen = [i for i, (event, _) in enumerate(log) if event == "Scheduled"]
    first_bound = next(i for i, (event, _) in enumerate(log) if event == "Bound")
    assert len(chosen) == 3 and max(chosen) < first_bound  # nobody bound before the third
