"""One typed channel for what the loop did, and a gate that is not a tracer.

The steps a tracer hears follow ``scheduleOne``, ``schedulingCycle`` and
``bindingCycle`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``
(v1.33): the cycle starts, the algorithm suggests a host, the cycle ends,
the binding cycle waits on Permit, binds, ends; a failure is handled
(``handleSchedulingFailure``) after the cycle ends.
"""

from __future__ import annotations

from framework.cycle_state import CycleState
from framework.objects import Pod
from framework.runtime.framework import Framework
from framework.scheduler.algorithm import ScheduleResult
from framework.scheduler.schedule_one import CycleOutcome
from framework.scheduler.scheduler import Scheduler
from framework.scheduler.tracing import SchedulingTracer
from framework.status import Status
from framework.types import QueuedPodInfo
from tests.scheduler.helpers import Cluster, node, pod


class Every(SchedulingTracer):
    """Notes every loop-level hook (not the per-node ones) by its name."""

    def __init__(self, log: list[str], tag: str = "") -> None:
        self.log, self.tag = log, tag

    def note(self, step: str, p: Pod) -> None:
        self.log.append(f"{self.tag}{step} {p.name}")

    def cycle_started(self, fwk: Framework, queued: QueuedPodInfo) -> None:
        self.note("cycle_started", queued.pod)

    def host_suggested(self, queued: QueuedPodInfo, result: ScheduleResult) -> None:
        self.note(f"host_suggested:{result.suggested_host}", queued.pod)

    def cycle_ended(self, queued: QueuedPodInfo, outcome: CycleOutcome) -> None:
        self.note(f"cycle_ended:{outcome.status.code.name}", queued.pod)

    def scheduling_failed(self, queued: QueuedPodInfo, status: Status) -> None:
        self.note("scheduling_failed", queued.pod)

    def binding_started(self, assumed: QueuedPodInfo, host: str) -> None:
        self.note(f"binding_started:{host}", assumed.pod)

    def permit_waited(self, assumed: QueuedPodInfo, status: Status) -> None:
        self.note("permit_waited", assumed.pod)

    def pod_bound(self, assumed: QueuedPodInfo, host: str) -> None:
        self.note(f"pod_bound:{host}", assumed.pod)

    def binding_ended(self, assumed: QueuedPodInfo, status: Status) -> None:
        self.note(f"binding_ended:{status.code.name}", assumed.pod)

    def assumed_pod_expired(self, pod: Pod) -> None:
        self.note("assumed_pod_expired", pod)


def test_a_tracer_hears_each_step_of_a_bound_pod_and_of_a_failed_one_in_order() -> None:
    cluster = Cluster(node("a", cpu="1"), pod("fits", cpu="1"), pod("big", cpu="2"))
    sched = cluster.scheduler()
    log: list[str] = []
    sched.add_tracer(Every(log))
    sched.schedule_pending()
    sched.stop()
    fits = [line for line in log if line.endswith(" fits")]
    big = [line for line in log if line.endswith(" big")]
    assert fits == [
        "cycle_started fits",
        "host_suggested:a fits",
        "cycle_ended:SUCCESS fits",
        "binding_started:a fits",
        "permit_waited fits",
        "pod_bound:a fits",
        "binding_ended:SUCCESS fits",
    ]
    assert big == ["cycle_started big", "cycle_ended:UNSCHEDULABLE big", "scheduling_failed big"]


def test_several_tracers_are_told_in_the_order_they_were_added() -> None:
    cluster = Cluster(node("a"), pod("p"))
    sched = cluster.scheduler()
    log: list[str] = []
    sched.add_tracer(Every(log, "1:"))
    sched.add_tracer(Every(log, "2:"))
    sched.schedule_pending()
    sched.stop()
    assert log[:2] == ["1:cycle_started p", "2:cycle_started p"]
    assert log[-2:] == ["1:binding_ended:SUCCESS p", "2:binding_ended:SUCCESS p"]
    assert len(log) == 14


def listening(sched: Scheduler) -> bool:
    """Whether the algorithm has a tracer to call for each node."""
    return sched.scheduling.algorithm.tracer is not None


def test_the_filter_loop_calls_only_a_tracer_that_listens_per_node() -> None:
    class PerNode(SchedulingTracer):
        def node_filtered(
            self, fwk: Framework, state: CycleState, node_name: str, status: Status
        ) -> None:
            seen.append(node_name)

    seen: list[str] = []
    # a is too small, so the search goes on to b (with no Score plugin it stops at one fit).
    cluster = Cluster(node("a", cpu="1"), node("b", cpu="4"), pod("p", cpu="2"))
    sched = cluster.scheduler()
    sched.add_tracer(Every([]))
    assert sched.scheduling.tracer is not None
    assert not listening(sched)  # nothing added to the per-node loop
    sched.add_tracer(PerNode())
    assert listening(sched)
    sched.schedule_pending()
    sched.stop()
    assert sorted(seen) == ["a", "b"]


def test_the_binding_gate_holds_the_binding_cycle_after_wait_on_permit() -> None:
    log: list[str] = []

    cluster = Cluster(node("a"), pod("p"))
    sched = cluster.scheduler()

    class Gate:
        def wait_turn(self, assumed: QueuedPodInfo) -> None:
            log.append(f"gate {assumed.pod.name}")

        def settle(self) -> None:  # schedule_pending asks the gate in place of waiting
            log.append("settle")
            sched.scheduling.wait_for_bindings()

    sched.add_tracer(Every(log))
    sched.scheduling.binding_gate = Gate()
    sched.schedule_pending()
    sched.stop()
    start = log.index("binding_started:a p")
    assert log[start + 1 : start + 3] == ["gate p", "permit_waited p"]
    assert log[0] == "settle"  # before the first attempt, as before each one


def test_schedule_pending_asks_may_pop_before_each_attempt() -> None:
    cluster = Cluster(node("a"), pod("p"))
    sched = cluster.scheduler()
    asked: list[bool] = []

    def may_pop() -> bool:
        asked.append(True)
        return False

    assert sched.schedule_pending(may_pop=may_pop) == 0  # held back: nothing tried
    assert asked and cluster.node_of("p") == ""
    assert sched.schedule_pending() == 1
    sched.stop()
    assert cluster.node_of("p") == "a"
