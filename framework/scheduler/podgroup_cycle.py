"""The PodGroup scheduling cycle (v1.36+): a gang's members are placed together, or none is.

With v1.35's GangScheduling a gang forms at Permit: each member takes a
node in its own cycle and waits there, holding the node, until the quorum
is assumed or the 5-minute timeout rejects them all. Half a gang can hold
half a cluster for five minutes, and then try again. From v1.36, with
``GenericWorkload`` on, kube-scheduler instead pops a member of a PodGroup
together with every sibling waiting in the queue and runs one **PodGroup
scheduling cycle** for them:

1. the members are sorted by priority, then by when they were first tried;
2. each one is run through the scheduling algorithm (PreFilter, Filter,
   Score), assumed on its node, reserved, and asked Permit, *without*
   waiting: each later member sees the earlier ones as placed;
3. every trial is undone (Unreserve, forget): nothing is kept yet;
4. if some member's Permit said Success (GangScheduling: the quorum is
   assumed), the group is schedulable, and each member that found a node
   goes through its ordinary cycle and binding cycle now (those whose trial
   failed are requeued alone); otherwise every member goes back to the
   queue as unschedulable, a member that had found a node with its Permit's
   words (``waiting for minCount pods from a gang to be scheduled``), and
   no node was held for a moment;
5. the PodGroup's ``PodGroupScheduled`` condition says how it went
   (``True``/``Scheduled`` or ``False``/``Unschedulable``).

Mirrors ``scheduleOnePodGroup``, ``podGroupInfoForPod``,
``podGroupSchedulingDefaultAlgorithm``, ``podGroupPodSchedulingAlgorithm``,
``submitPodGroupAlgorithmResult`` and ``updatePodGroupCondition`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one_podgroup.go`` (a
v1.37-era copy, index id 52400790438). With ``WorkloadAwarePreemption``
on, a group that does not fit preempts as one (``runWorkloadAwarePreemption``,
:mod:`framework.scheduler.podgroup_preemption`): victims are evicted, and the
members wait, nominated, with the result ``waiting_on_preemption``.
With the gate off, each member that fits nowhere runs the PostFilter
plugins, as a pod's cycle does: if DefaultPreemption nominates a node (and
evicts its victims), the member is tried there, the next members see it
placed, and a group that fits so goes back to the queue whole, each member
nominated, with the result ``waiting_on_preemption`` and the condition's
``pod group is waiting for preemption to complete``; a group that does not
fit even so drops the nominations (the victims are gone all the same, as in
Go). Simplified, and said plainly in chapter 10b: with the gate on, the
members run no PostFilter of their own. With
``TopologyAwareWorkloadScheduling`` on, the group is tried in each placement
(:mod:`framework.scheduler.podgroup_placement`); off, its
``schedulingConstraints`` are not enforced. The unschedulable pods of the
queue are not pulled into the group. A member whose trial found a node goes
through its final cycle with the trial's cycle state and node, as Go's
``prepareForBindingCycle`` does: assumed, reserved and permitted again, not
searched again. The group's members are read from the scheduler's workload
manager (:mod:`framework.cache.workload_manager`), as Go reads the cache's
``PodGroupStates``; no pod is listed from the API server.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import APIError
from framework.cycle_state import PODS_TO_ACTIVATE_KEY, CycleState, PodsToActivate
from framework.interface import Diagnosis, FitError
from framework.objects import Pod, pod_priority
from framework.objects.policy import Condition
from framework.objects.workload import POD_GROUP_SCHEDULED, SchedulingPodGroup, pod_group_key
from framework.runtime.framework import Framework
from framework.runtime.guard import call
from framework.scheduler.algorithm import ScheduleResult, SchedulingError
from framework.status import Code, Status, as_status
from framework.types import PodInfo, QueuedPodInfo

if TYPE_CHECKING:
    from framework.scheduler.schedule_one import Scheduling

__all__ = [
    "MSG_POD_GROUP_UNSCHEDULABLE",
    "MSG_WAITING_ON_PREEMPTION",
    "Trial",
    "schedule_one_pod_group",
]

MSG_POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
"""``errPodGroupUnschedulable``: the PodGroup condition's message when the group does not fit."""

MSG_WAITING_ON_PREEMPTION = "pod group is waiting for preemption to complete"
"""The group fits once members' preemptions complete (``podGroupSchedulingDefaultAlgorithm``)."""


@dataclasses.dataclass
class Trial:
    """One member's try in the group algorithm (Go's ``algorithmResult``)."""

    queued: QueuedPodInfo
    status: Status
    host: str = ""
    permit: Status | None = None
    diagnosis: Diagnosis | None = None
    revert: Callable[[], None] | None = None
    #: The trial's cycle state and node, which the member's final cycle takes as they are.
    planned: tuple[CycleState, ScheduleResult] | None = None
    #: PostFilter (DefaultPreemption) nominated this node and is evicting its victims; the
    #: member was tried there (Go's ``requiresPreemption``).
    nominated: str = ""


def _members(sched: Scheduling, first: QueuedPodInfo) -> list[QueuedPodInfo]:
    """The popped member and every unscheduled sibling the queue holds, in the group's order.

    Go's ``podGroupInfoForPod``: the siblings are the group's unscheduled
    pods in the scheduler's own state (neither assumed nor bound), each
    popped from the queue if it is there; then priority first, then the
    first attempt's time.
    """
    key = pod_group_key(first.pod)
    assert key is not None and sched.workload_manager is not None
    members = [first]
    for pod in sched.workload_manager.state(key).unscheduled():
        if pod.name == first.pod.name:
            continue
        popped = sched.queue.pop_specific_pod(pod)  # type: ignore[attr-defined]
        if popped is not None:
            members.append(popped)

    def order(info: QueuedPodInfo) -> tuple[int, float]:
        stamp = info.initial_attempt_timestamp
        return (-pod_priority(info.pod), stamp if stamp is not None else info.timestamp)

    return sorted(members, key=order)


def _permit_without_waiting(fwk: Framework, state: CycleState, pod: Pod, host: str) -> Status:
    """Every Permit plugin's answer, folded as ``RunPermitPlugins`` does, but parking nobody."""
    waited = False
    for plugin in fwk.plugins["permit"]:
        out = call(plugin, "permit", state, pod, host)
        status = out if isinstance(out, Status) else as_status(out[0])
        if status.is_success():
            continue
        if status.is_rejected():
            return status.with_plugin(plugin.name())
        if status.is_wait():
            waited = True
            last_wait = status
            continue
        return status.with_plugin(plugin.name())
    return last_wait if waited else Status.success()


def _trial(
    sched: Scheduling,
    fwk: Framework,
    queued: QueuedPodInfo,
    in_snapshot: bool = False,
    post_filter: bool = False,
) -> Trial:
    """``podGroupPodSchedulingAlgorithm``: place one member, assume and reserve it, ask Permit.

    ``in_snapshot`` (workload-aware preemption's simulation, on a snapshot
    without its victims): the member is assumed on the snapshot's node only,
    and the snapshot is not refreshed from the cache. ``post_filter``: a
    member that fits nowhere runs the PostFilter plugins, as a pod's cycle
    does; if DefaultPreemption nominates a node (its victims are being
    evicted), the member is tried there, so that the next members see it
    placed, and the trial says it waits on that preemption.
    """
    pod = queued.pod
    state = CycleState()
    state.write(PODS_TO_ACTIVATE_KEY, PodsToActivate())
    preempting: Trial | None = None
    result: ScheduleResult | None = None
    try:
        if not in_snapshot:
            sched.cache.update_snapshot(sched.snapshot)
        fwk.snapshot = sched.snapshot
        result = sched.algorithm.schedule_pod(fwk, state, pod, sched.snapshot)
        host = result.suggested_host
    except FitError as fit_error:
        status = Status(Code.UNSCHEDULABLE, (), fit_error)
        if not post_filter:
            return Trial(queued, status, diagnosis=fit_error.diagnosis)
        outcome = sched._after_fit_error(fwk, state, pod, fit_error)
        nominating = outcome.nominating_info
        host = nominating.nominated_node_name if nominating is not None else ""
        if not host:
            return Trial(queued, outcome.status, diagnosis=outcome.diagnosis)
        preempting = Trial(
            queued, outcome.status, host, diagnosis=outcome.diagnosis, nominated=host
        )
    except SchedulingError as error:
        return Trial(queued, error.status)
    assumed = dataclasses.replace(pod, spec=dataclasses.replace(pod.spec, node_name=host))
    if in_snapshot:
        node = sched.snapshot.get(host)
        node.add_pod(PodInfo(assumed))
        sched.snapshot.note_change(node)
    else:
        sched.cache.assume_pod(PodInfo(assumed))
    sched.queue.delete_nominated_pod_if_exists(pod)  # as Go's assume does

    def revert() -> None:
        fwk.run_reserve_plugins_unreserve(state, assumed, host)
        if in_snapshot:
            node.remove_pod(assumed)
            sched.snapshot.note_change(node)
            return
        with contextlib.suppress(Exception):
            sched.cache.forget_pod(assumed)

    reserved = fwk.run_reserve_plugins_reserve(state, assumed, host)
    if not reserved.is_success():
        revert()
        return Trial(queued, reserved, host)
    permit = _permit_without_waiting(fwk, state, assumed, host)
    if not (permit.is_success() or permit.is_wait()):
        revert()
        return Trial(queued, permit, host)
    if preempting is not None:
        return dataclasses.replace(preempting, permit=permit, revert=revert)
    assert result is not None
    return Trial(queued, Status.success(), host, permit, revert=revert, planned=(state, result))


def _set_condition(sched: Scheduling, pod: Pod, scheduled: bool, message: str) -> None:
    """``updatePodGroupCondition``: never back from True to False for the same generation."""
    group = pod.spec.scheduling_group
    assert group is not None
    try:
        pg = sched.api.get(SchedulingPodGroup, group.pod_group_name, namespace=pod.namespace)
    except APIError:
        return
    existing = [c for c in pg.status.conditions if c.type == POD_GROUP_SCHEDULED]
    if existing and existing[0].status == "True" and not scheduled:
        return
    condition = Condition(
        type=POD_GROUP_SCHEDULED,
        status="True" if scheduled else "False",
        observed_generation=pg.metadata.generation,
        last_transition_time=_now(sched),
        reason="Scheduled" if scheduled else "Unschedulable",
        message=message,
    )
    if existing and (existing[0].status, existing[0].reason, existing[0].message) == (
        condition.status,
        condition.reason,
        condition.message,
    ):
        return
    others = tuple(c for c in pg.status.conditions if c.type != POD_GROUP_SCHEDULED)
    status = dataclasses.replace(pg.status, conditions=(*others, condition))
    with contextlib.suppress(APIError):
        sched.api.update_status(dataclasses.replace(pg, status=status))


def _now(sched: Scheduling) -> str:
    from framework.clock import rfc3339

    return rfc3339(sched.clock.now())


def _algorithm(
    sched: Scheduling,
    fwk: Framework,
    members: list[QueuedPodInfo],
    in_snapshot: bool = False,
    post_filter: bool = False,
) -> list[Trial]:
    """``podGroupSchedulingDefaultAlgorithm``: each member's trial in order, all undone after."""
    # The trials are not attempts of their own: nobody is told about them node by node.
    node_tracer: Any = sched.algorithm.tracer
    sched.algorithm.tracer = None
    trials: list[Trial] = []
    try:
        for queued in members:
            trial = _trial(sched, fwk, queued, in_snapshot, post_filter)
            trials.append(trial)
            if not trial.status.is_success() and not trial.status.is_rejected():
                break  # an error: stop evaluating the rest (as Go does)
    finally:
        for trial in reversed(trials):
            if trial.revert is not None:
                trial.revert()
        sched.algorithm.tracer = node_tracer
    return trials


def _schedulable(trials: list[Trial]) -> bool:
    """Some member's Permit said Success (GangScheduling: the quorum is assumed), no error."""
    if any(t.status.code is Code.ERROR for t in trials):
        return False
    return any(t.permit is not None and t.permit.is_success() for t in trials)


def _preempt(
    sched: Scheduling, fwk: Framework, members: list[QueuedPodInfo]
) -> tuple[Status, dict[str, str]]:
    """Workload-aware preemption for the group (``runWorkloadAwarePreemption``)."""
    from framework.scheduler.podgroup_preemption import (
        Assignment,
        run_workload_aware_preemption,
    )

    def without_post_filter() -> tuple[list[Assignment] | None, Status]:
        trials = _algorithm(sched, fwk, members, in_snapshot=True)
        if not _schedulable(trials):
            return None, Status.unschedulable(MSG_POD_GROUP_UNSCHEDULABLE)
        plan: list[Assignment] = []
        for t in trials:
            if t.planned is not None:
                pod = t.queued.pod
                assumed = dataclasses.replace(
                    pod, spec=dataclasses.replace(pod.spec, node_name=t.host)
                )
                plan.append((t.planned[0], assumed, t.host))
        return plan, Status.success()

    return run_workload_aware_preemption(sched, fwk, members, without_post_filter)


def _placed(
    sched: Scheduling, fwk: Framework, members: list[QueuedPodInfo]
) -> tuple[list[Trial], Status | None]:
    """The group tried in each placement, the best kept (TopologyAwareWorkloadScheduling).

    Returns the chosen placement's trials (or the first placement's, when
    none fits, with the status that says so), or no trials and the status of
    a placement plugin that failed.
    """
    from framework.scheduler.podgroup_placement import placement_algorithm

    first = members[0].pod
    group = first.spec.scheduling_group
    assert group is not None
    pod_group = None
    with contextlib.suppress(APIError):
        pod_group = sched.api.get(
            SchedulingPodGroup, group.pod_group_name, namespace=first.namespace
        )
    key = pod_group_key(first)
    assert key is not None and sched.workload_manager is not None
    scheduled = len(sched.workload_manager.state(key).assigned())
    trials, status = placement_algorithm(
        sched,
        pod_group,
        lambda: _algorithm(sched, fwk, members, in_snapshot=True),
        _schedulable,
        lambda ts: any(t.status.code is Code.ERROR for t in ts),
        lambda ts: sum(1 for t in ts if t.planned is not None),
        scheduled,
    )
    return (trials or [], None if status.is_success() else status)


def schedule_one_pod_group(sched: Scheduling, fwk: Framework, first: QueuedPodInfo) -> None:
    """Run one PodGroup scheduling cycle for ``first``'s group (``scheduleOnePodGroup``)."""
    members = _members(sched, first)
    start = sched.clock.now()
    group = first.pod.spec.scheduling_group
    assert group is not None
    if sched.tracer is not None:
        sched.tracer.pod_group_cycle_started(fwk, first.pod.namespace, group.pod_group_name)
    placed: Status | None = None
    if fwk.feature_gates.enabled("TopologyAwareWorkloadScheduling"):
        trials, placed = _placed(sched, fwk, members)
        if not trials:  # a placement plugin failed: every member fails with its status
            assert placed is not None
            trials = [Trial(queued, placed) for queued in members]
    else:
        # Without workload-aware preemption each member may preempt alone, through PostFilter.
        per_member = not fwk.feature_gates.enabled("WorkloadAwarePreemption")
        trials = _algorithm(sched, fwk, members, post_filter=per_member)

    errored = next((t for t in trials if t.status.code is Code.ERROR), None)
    schedulable = _schedulable(trials)
    # Feasible, but only once some member's victims are gone: the whole group waits.
    waiting = schedulable and any(t.nominated for t in trials)
    schedulable = schedulable and not waiting
    message = "" if schedulable else MSG_POD_GROUP_UNSCHEDULABLE
    if waiting:
        message = MSG_WAITING_ON_PREEMPTION
    if placed is not None and placed.is_rejected():
        message = placed.message()
        if trials[0].status is not placed:
            message += f", first placement status: {MSG_POD_GROUP_UNSCHEDULABLE}"
    nominations: dict[str, str] = {}
    if (
        not schedulable
        and errored is None
        and fwk.feature_gates.enabled("WorkloadAwarePreemption")
    ):
        preempted, nominations = _preempt(sched, fwk, members)
        if preempted.code is Code.ERROR:
            errored = Trial(members[0], preempted)
        elif not preempted.is_success():
            message = f"{message}, {preempted.message()}"
    tried = {id(t.queued) for t in trials}
    for trial in trials:
        queued = trial.queued
        if schedulable and trial.status.is_success():
            sched.schedule_popped(fwk, queued, trial.planned)
            continue
        status, diagnosis = trial.status, trial.diagnosis
        nominated = nominations.get(queued.pod.key, "")
        if errored is not None and status.code is not Code.ERROR:
            status, diagnosis = errored.status, None
        elif waiting and trial.status.is_success():  # it keeps its node, nominated there
            status, diagnosis, nominated = Status.unschedulable(message), None, trial.host
        elif waiting and trial.nominated:  # it waits for its victims, nominated
            nominated = trial.nominated
        elif trial.status.is_success() or trial.nominated:
            # The group does not fit: the member's Permit says why, and no preemption matters.
            assert trial.permit is not None
            text = MSG_POD_GROUP_UNSCHEDULABLE if nominations else trial.permit.message()
            status, diagnosis = Status.unschedulable(text), None
        sched.record_failed_attempt(fwk, queued, status, diagnosis, start, nominated)
    for queued in members:
        if id(queued) not in tried:  # not evaluated after an error
            assert errored is not None
            sched.record_failed_attempt(fwk, queued, errored.status, None, start)
    if errored is not None:
        message = errored.status.message()
    if sched.tracer is not None:  # Go observes the attempt's duration here, before the condition
        result = "error" if errored else "scheduled" if schedulable else "unschedulable"
        if (nominations or waiting) and not errored:
            result = "waiting_on_preemption"
        sched.tracer.pod_group_cycle_ended(fwk, first.pod.namespace, group.pod_group_name, result)
    _set_condition(sched, first.pod, schedulable, message)
