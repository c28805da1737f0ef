"""Workload-aware preemption (KEP-5710): a PodGroup that does not fit preempts as one.

With ``WorkloadAwarePreemption`` on (alpha from v1.36), a PodGroup cycle
whose group did not fit asks DefaultPreemption to make room for the whole
group at once, instead of preempting pod by pod:

1. the preemptor is the group, at its PodGroup's priority; members with
   ``preemptionPolicy: Never`` make it ineligible;
2. the domain is the whole cluster; a **victim** is a *unit* of lower
   priority: a pod, or, for a group whose ``disruptionMode`` is ``All``,
   the group with all its running pods, wherever they are (it loses all
   or none); by default (``Single``) a group's pods are victims one by one,
   each still more important than a pod of no group;
3. every victim is removed from the snapshot and the group's algorithm is
   run once, without PostFilter: if the group does not fit even so, there is
   nothing to do;
4. the victims are given back one at a time, from the most important (higher
   priority; a gang before a pod alone; the larger gang; the older pod), those
   that would violate a PodDisruptionBudget first: a victim stays if every
   member still passes Filter on the node it was given;
5. the rest are evicted (``DisruptionTarget``, then deleted), and the members
   go back to the queue nominated to their nodes, waiting for the room to
   free up.

Mirrors ``runWorkloadAwarePreemption`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one_podgroup.go`` (a v1.37-era
copy, index id 52400790438) and ``PodGroupEvaluator.Preempt``,
``selectVictimsOnDomain``, ``isPreemptionAllowed``,
``preemptorEligibleToPreemptOthers`` and ``moreImportantVictim`` in
``pkg/scheduler/framework/preemption/podgrouppreemption.go`` (a later copy,
index id 55837719029), whose test cases ``TestPodGroupEvaluator_Preempt_Victims``
are partly transcribed. The group's priority is its PodGroup's
``spec.priority`` (resolved from its ``priorityClassName`` at admission; 0
without one), for the preemptor and for a victim in a group, whatever its
pods' own priorities (``util.PodGroupPriority``, ``getPodPriority``; the
copy with the v1alpha2 lister, index id 51871972142). Simplified:
``disruptionMode`` is read from the PodGroup only (not from its template);
a unit violates a budget if one of its pods does; the
victims' ``Preempted`` events name the group, in words of this project;
``PodGroupPreemptionPolicy`` (v1.37, a group's own ``preemptionPolicy``) is
not read; ``CompositePodGroup`` victims are not modelled.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import APIError
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Pod, pod_priority
from framework.objects.workload import SchedulingPodGroup, pod_group_priority
from framework.plugins import names
from framework.plugins.defaultpreemption.pdb import filter_pods_with_pdb_violation
from framework.preemption.evaluator import disrupt_and_delete, get_pod_disruption_budgets
from framework.runtime.framework import Framework
from framework.status import Code, Status
from framework.types import PodInfo, QueuedPodInfo
from framework.util import get_pod_start_time

if TYPE_CHECKING:
    from framework.scheduler.schedule_one import Scheduling

__all__ = [
    "MSG_NO_VICTIMS",
    "Assignment",
    "Victim",
    "more_important_victim",
    "run_workload_aware_preemption",
]

MSG_NO_PLUGIN = (
    "default preemption plugin is not registered, workload aware preemption is disabled"
)
MSG_CONSTRAINTS = (
    "workload aware preemption is not supported for pod groups with scheduling constraints"
)
MSG_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING = "not eligible due to a terminating pod on the nominated node."
MSG_NO_VICTIMS = "No preemption victims found for incoming preemptor"

# A member's place in the group's plan, as its cycle state (PreFilter ran), the pod, its node.
Assignment = tuple[CycleState, Pod, str]


@dataclasses.dataclass
class Victim:
    """A preemption unit (Go's ``victim``): one pod, or a gang's running pods."""

    pods: list[PodInfo]
    priority: int
    is_pod_group: bool
    earliest_start: int


def more_important_victim(a: Victim, b: Victim) -> bool:
    """``moreImportantVictim``: priority, then a gang over a pod, then size, then age."""
    if a.priority != b.priority:
        return a.priority > b.priority
    if a.is_pod_group != b.is_pod_group:
        return a.is_pod_group
    if a.is_pod_group and len(a.pods) != len(b.pods):
        return len(a.pods) > len(b.pods)
    return a.earliest_start < b.earliest_start


def _importance(victim: Victim) -> tuple[int, int, int, int]:
    # The sort key that orders as more_important_victim does, most important first.
    size = len(victim.pods) if victim.is_pod_group else 0
    return (-victim.priority, 0 if victim.is_pod_group else 1, -size, victim.earliest_start)


def _pod_group(
    sched: Scheduling, pod: Pod, seen: dict[tuple[str, str], SchedulingPodGroup | None]
) -> SchedulingPodGroup | None:
    """The pod's PodGroup, None for a pod of no group or of a group that is gone."""
    group = pod.spec.scheduling_group
    if group is None:
        return None
    key = (pod.namespace, group.pod_group_name)
    if key not in seen:
        try:
            seen[key] = sched.api.get(
                SchedulingPodGroup, group.pod_group_name, namespace=pod.namespace
            )
        except APIError:
            seen[key] = None  # its group is gone: a pod alone
    return seen[key]


def victim_priority(pod: Pod, pg: SchedulingPodGroup | None) -> int:
    """A running pod's priority as preemption weighs it (``getPodPriority``): its group's, if any."""
    return pod_group_priority(pg) if pg is not None else pod_priority(pod)


def _victims(sched: Scheduling, nodes: Sequence[NodeInfo], priority: int) -> list[Victim]:
    """Every unit of lower priority than the preemptor (``GetAllPossibleVictims``).

    A pod of a group whose ``disruptionMode`` is ``All`` is part of one unit
    with the group's other running pods, wherever they are; any other pod is
    a unit alone, flagged as a group's when it has one (``Single``). A pod in
    a group weighs its group's priority.
    """
    now = sched.clock.now()
    singles: list[Victim] = []
    gangs: dict[tuple[str, str], list[PodInfo]] = {}
    groups: dict[tuple[str, str], SchedulingPodGroup | None] = {}
    for info in nodes:
        for pod_info in info.pods:
            pod = pod_info.pod
            pg = _pod_group(sched, pod, groups)
            unit_priority = victim_priority(pod, pg)
            if pg is not None and pg.spec.disruption_mode == "All":
                gangs.setdefault((pod.namespace, pg.metadata.name), []).append(pod_info)
            elif unit_priority < priority:
                start = get_pod_start_time(pod, now)
                singles.append(Victim([pod_info], unit_priority, pg is not None, start))
    units = list(singles)
    for (namespace, name), members in gangs.items():
        pg = groups[(namespace, name)]
        unit_priority = victim_priority(members[0].pod, pg)
        if unit_priority < priority:
            start = min(get_pod_start_time(p.pod, now) for p in members)
            units.append(Victim(members, unit_priority, True, start))
    return units


def _eligible(sched: Scheduling, members: Sequence[QueuedPodInfo], priority: int) -> str:
    """``preemptorEligibleToPreemptOthers``: the reason it is not, or ""."""
    if any(m.pod.spec.preemption_policy == "Never" for m in members):
        return MSG_NEVER
    groups: dict[tuple[str, str], SchedulingPodGroup | None] = {}
    for name in {m.pod.status.nominated_node_name for m in members} - {""}:
        with contextlib.suppress(Exception):
            for pod_info in sched.snapshot.get(name).pods:
                pod = pod_info.pod
                weight = victim_priority(pod, _pod_group(sched, pod, groups))
                if weight < priority and pod.metadata.deletion_timestamp:
                    return MSG_TERMINATING
    return ""


class _Room:
    """The snapshot's nodes as the preemption changes them, and undoes its changes."""

    def __init__(self, sched: Scheduling, fwk: Framework) -> None:
        self.sched = sched
        self.fwk = fwk

    def node(self, name: str) -> NodeInfo:
        info: NodeInfo = self.sched.snapshot.get(name)
        return info

    def add(self, pod_info: PodInfo, node_name: str) -> NodeInfo:
        info = self.node(node_name)
        info.add_pod(pod_info)
        self.sched.snapshot.note_change(info)
        return info

    def remove(self, pod: Pod, node_name: str) -> NodeInfo:
        info = self.node(node_name)
        info.remove_pod(pod)
        self.sched.snapshot.note_change(info)
        return info

    def give_back(self, victim: Victim, plan: Sequence[Assignment]) -> Status:
        for pod_info in victim.pods:
            info = self.add(pod_info, pod_info.pod.spec.node_name)
            for state, pod, _ in plan:
                status = self.fwk.run_pre_filter_extension_add_pod(state, pod, pod_info, info)
                if not status.is_success():
                    return status
        return Status.success()

    def take_away(self, victim: Victim, plan: Sequence[Assignment]) -> Status:
        for pod_info in victim.pods:
            info = self.remove(pod_info.pod, pod_info.pod.spec.node_name)
            for state, pod, _ in plan:
                status = self.fwk.run_pre_filter_extension_remove_pod(state, pod, pod_info, info)
                if not status.is_success():
                    return status
        return Status.success()

    def reprieve(self, victim: Victim, plan: Sequence[Assignment]) -> tuple[bool, Status]:
        """Give ``victim`` back; keep it if every member still fits where the plan put it."""
        status = self.give_back(victim, plan)
        if not status.is_success():
            return False, status
        undo: list[Callable[[], None]] = []
        try:
            for state, pod, host in plan:
                info = self.node(host)
                if not self.fwk.run_filter_plugins_with_nominated_pods(
                    state, pod, info
                ).is_success():
                    return False, self.take_away(victim, plan)
                self.add(PodInfo(pod), host)
                self.fwk.run_reserve_plugins_reserve(state, pod, host)

                def undo_one(state: CycleState = state, pod: Pod = pod, host: str = host) -> None:
                    self.fwk.run_reserve_plugins_unreserve(state, pod, host)
                    self.remove(pod, host)

                undo.append(undo_one)
            return True, Status.success()
        finally:
            for step in reversed(undo):
                step()


def _select_victims(
    sched: Scheduling,
    fwk: Framework,
    members: Sequence[QueuedPodInfo],
    priority: int,
    algorithm: Callable[[], tuple[list[Any] | None, Status]],
) -> tuple[list[Victim], list[Assignment], Status]:
    """``selectVictimsOnDomain``: the units to evict and the members' plan, on the snapshot.

    The snapshot is left as it was found.
    """
    if reason := _eligible(sched, members, priority):
        return [], [], Status.unschedulable(reason)
    potential = _victims(sched, sched.snapshot.list(), priority)
    if not potential:
        return [], [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (MSG_NO_VICTIMS,))
    room = _Room(sched, fwk)
    removed: list[Victim] = []
    try:
        for victim in potential:
            for pod_info in victim.pods:
                room.remove(pod_info.pod, pod_info.pod.spec.node_name)
            removed.append(victim)
        plan, status = algorithm()
        if plan is None:
            return [], [], status
        potential.sort(key=_importance)
        pdbs = get_pod_disruption_budgets(fwk.client())
        violating_pods, _ = filter_pods_with_pdb_violation(
            [p for v in potential for p in v.pods], pdbs
        )
        violators = {id(p) for p in violating_pods}
        in_order = [v for v in potential if any(id(p) in violators for p in v.pods)]
        in_order += [v for v in potential if not any(id(p) in violators for p in v.pods)]
        to_preempt: list[Victim] = []
        for victim in in_order:
            kept, status = room.reprieve(victim, plan)
            if not status.is_success():
                return [], [], Status.as_error(RuntimeError(status.message()))
            if kept:
                removed.remove(victim)
            else:
                to_preempt.append(victim)
        to_preempt.sort(key=_importance)
        return to_preempt, plan, Status.success()
    finally:
        for victim in removed:  # what is still out goes back: the cache has not changed
            for pod_info in victim.pods:
                room.add(pod_info, pod_info.pod.spec.node_name)


def _evict(sched: Scheduling, fwk: Framework, victim: Pod, preemptor: Pod, group: str) -> None:
    """Evict one victim as DefaultPreemption does (``DisruptionTarget``, then delete)."""
    waiting = fwk.get_waiting_pod(victim.metadata.uid)
    if waiting is not None:
        waiting.reject(names.DEFAULT_PREEMPTION, "preempted")
    elif not disrupt_and_delete(sched.api, victim, preemptor, sched.clock.now()):
        return
    recorder = fwk.event_recorder()
    if recorder is not None:
        message = f"Preempted by pod group {group} on node {victim.spec.node_name}"
        recorder.event(victim, "Normal", "Preempted", "Preempting", message)


def run_workload_aware_preemption(
    sched: Scheduling,
    fwk: Framework,
    members: Sequence[QueuedPodInfo],
    algorithm: Callable[[], tuple[list[Any] | None, Status]],
) -> tuple[Status, dict[str, str]]:
    """Preempt for the whole group; success and each member's node, or why not.

    ``algorithm`` is the group's algorithm run without PostFilter on the
    snapshot as it stands (Go's ``podGroupSchedulingFunc``): the members'
    assignments (cycle state, pod, node) if the group fits, else None and
    the group's status. Nothing it assumes is kept.
    """
    if names.DEFAULT_PREEMPTION not in [p.name() for p in fwk.plugins["postFilter"]]:
        return Status.unschedulable(MSG_NO_PLUGIN), {}
    first = members[0].pod
    group = first.spec.scheduling_group
    assert group is not None
    try:
        pg = sched.api.get(SchedulingPodGroup, group.pod_group_name, namespace=first.namespace)
    except APIError as error:
        return Status.as_error(RuntimeError(f"failed to get pod group object: {error}")), {}
    constraints = pg.spec.scheduling_constraints
    if constraints is not None and constraints.topology_constraints:
        return Status.unschedulable(MSG_CONSTRAINTS), {}
    sched.cache.update_snapshot(sched.snapshot)
    fwk.snapshot = sched.snapshot
    priority = pod_group_priority(pg)  # the group's own, not its members' (newPodGroupPreemptor)
    victims, plan, status = _select_victims(sched, fwk, members, priority, algorithm)
    if not status.is_success():
        return status, {}
    name = f"{first.namespace}/{group.pod_group_name}"
    for victim in victims:
        for pod_info in victim.pods:
            _evict(sched, fwk, pod_info.pod, first, name)
    return Status.success(), {pod.key: host for _, pod, host in plan}
