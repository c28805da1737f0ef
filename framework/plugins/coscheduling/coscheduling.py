"""Coscheduling: the members of a PodGroup get their nodes together, or none of them does.

A gang is a group of pods that are useless in part: a training job with
four workers makes no progress with three, and the three hold their nodes
while they wait. Coscheduling, from ``kubernetes-sigs/scheduler-plugins``,
schedules each member on its own, as usual, but holds the members at Permit
until ``minMember`` of them have a node, and gives up on the whole group as
soon as it looks doomed. It joins the pod's journey at five points:

1. **QueueSort** (``less``): priority first, then the *group's* creation
   time (a pod in no group: its first entry into activeQ), then
   ``namespace/name``. A group's members carry one timestamp, so they leave
   the queue back to back instead of interleaved with another group's.
2. **PreFilter**: turn a member away at once,
   ``UnschedulableAndUnresolvable`` (preemption cannot help), if its group
   is backing off, has fewer than ``minMember`` pods, or cannot fit its
   ``minResources`` in the cluster's free room.
3. **PostFilter** (the member fit on no node): unless enough members are
   assigned already, or the group is missing 10 % of its quorum or less,
   reject the group's waiting members at once ("optimistic rejection"),
   and back the group off if ``podGroupBackoffSeconds`` is set.
4. **Reserve/Unreserve**: Reserve does nothing; Unreserve (this member's
   attempt failed after it had a node) rejects the group's waiting members.
5. **Permit**: ``Success`` for the member that completes the quorum, which
   also allows its waiting siblings; else ``Wait``, for the PodGroup's
   ``scheduleTimeoutSeconds`` or the args' ``permitWaitingTimeSeconds``,
   and the group's first waiting member asks for its siblings to be
   activated (``PodsToActivate``). A member of a group with no PodGroup is
   rejected here, ``PodGroup not found``.

It registers two cluster events: a pod added, and a PodGroup added or
updated. No PreEnqueue: that is koordinator's fork, not scheduler-plugins.

The bookkeeping lives in :mod:`framework.plugins.coscheduling.core` (the PodGroupManager); this module
turns its answers into framework statuses. Messages are upstream's, word for
word; the tests compare them.

Mirrors ``Coscheduling``, ``New``, ``EventsToRegister``, ``Less``,
``PreFilter``, ``PostFilter``, ``Permit``, ``Reserve`` and ``Unreserve`` in
``kubernetes-sigs/scheduler-plugins:pkg/coscheduling/coscheduling.go`` at
release v0.33.5 (compiled with Kubernetes v1.33.5). Simplified: no logging;
Go's ``context`` is dropped.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.config.args_coscheduling import CoschedulingArgs, coscheduling_args_from
from framework.cycle_state import CycleState
from framework.interface import (
    Handle,
    NodeToStatus,
    PostFilterResult,
    PreFilterExtensions,
    PreFilterResult,
    WaitingPod,
)
from framework.node_info import NodeInfo
from framework.objects import Pod, pod_priority
from framework.objects.podgroup import pod_group_full_name, pod_group_label
from framework.plugins import names
from framework.plugins.coscheduling.core import (
    PermitStatus,
    PodGroupManager,
    get_wait_time_duration,
    namespaced_name,
)
from framework.status import Status as FrameworkStatus
from framework.types import QueuedPodInfo

__all__ = [
    "MSG_CANNOT_FIND_POD_GROUP",
    "MSG_OPTIMISTIC_REJECTION",
    "MSG_POD_GROUP_NOT_FOUND",
    "MSG_REJECTED_AFTER_POST_FILTER",
    "MSG_REJECTION_IN_UNRESERVE",
    "NAME",
    "NOT_ASSIGNED_TOLERANCE",
    "Coscheduling",
    "new",
]

NAME = names.COSCHEDULING

MSG_POD_GROUP_NOT_FOUND = "PodGroup not found"
"""Permit's rejection of a member whose PodGroup does not exist."""
MSG_CANNOT_FIND_POD_GROUP = "can not find pod group"
"""PostFilter's answer for a pod in no group, or in a group whose PodGroup does not exist."""
MSG_OPTIMISTIC_REJECTION = "optimistic rejection in PostFilter"
"""What a waiting member hears when PostFilter gives up on its group."""
MSG_REJECTED_AFTER_POST_FILTER = (
    "PodGroup {group} gets rejected due to Pod {pod} is unschedulable even after PostFilter"
)
MSG_REJECTION_IN_UNRESERVE = "rejection in Unreserve"
"""What a waiting member hears when a sibling's attempt failed after it had a node."""
NOT_ASSIGNED_TOLERANCE = 0.1
"""PostFilter leaves a group alone when at most this share of its quorum is missing."""


class Coscheduling:
    """QueueSort, PreFilter, PostFilter, Reserve and Permit plugin for PodGroups (gangs)."""

    def __init__(self, args: CoschedulingArgs, handle: Handle | None, manager: PodGroupManager):
        self._handle = handle
        self.pg_mgr = manager
        self.schedule_timeout = float(args.permit_waiting_time_seconds)
        # A zero backoff is no backoff (upstream leaves pgBackoff nil).
        backoff = args.pod_group_backoff_seconds
        self.pg_backoff: float | None = float(backoff) if backoff > 0 else None

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A new pod may complete a group; a new or changed PodGroup may change its answer."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD_GROUP, ActionType.ADD | ActionType.UPDATE)
            ),
        ]

    # --- QueueSort --------------------------------------------------------------------------

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Priority, then the group's (or lone pod's) time, then ``namespace/name``."""
        p1, p2 = pod_priority(a.pod), pod_priority(b.pod)
        if p1 != p2:
            return p1 > p2
        t1 = self.pg_mgr.get_creation_timestamp(a.pod, _initial_attempt(a))
        t2 = self.pg_mgr.get_creation_timestamp(b.pod, _initial_attempt(b))
        if t1 == t2:
            return namespaced_name(a.pod) < namespaced_name(b.pod)
        return t1 < t2

    # --- PreFilter ------------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, FrameworkStatus | None]:
        """The group's checks; a failure is ``UnschedulableAndUnresolvable``, to avoid any preemption."""
        reason = self.pg_mgr.pre_filter(pod)
        if reason is not None:
            return None, FrameworkStatus.unresolvable(reason)
        return None, FrameworkStatus.success()

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None

    # --- PostFilter -------------------------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, FrameworkStatus | None]:
        """The member fit nowhere: give up on the whole group, unless it is (nearly) complete.

        Based on an implicit assumption: if the nth member failed, the
        others are likely to fail too, so their nodes are better given back
        now than at their Permit timeout.
        """
        full_name, pg = self.pg_mgr.get_pod_group(pod)
        if pg is None:
            return PostFilterResult(), FrameworkStatus.unschedulable(MSG_CANNOT_FIND_POD_GROUP)
        min_member = pg.spec.quorum
        assigned = self.pg_mgr.get_assigned_pod_count(full_name)
        if assigned >= min_member:
            return PostFilterResult(), FrameworkStatus.unschedulable()
        # In float32, as Go computes it: the edge (exactly 10 %) must fall on the same side.
        not_assigned = _float32(_float32(min_member - assigned) / _float32(min_member))
        if not_assigned <= _float32(NOT_ASSIGNED_TOLERANCE):
            return PostFilterResult(), FrameworkStatus.unschedulable()

        for waiting in self._waiting_members(pod.namespace, pg.metadata.name):
            waiting.reject(NAME, MSG_OPTIMISTIC_REJECTION)
        # Only a group that could be complete backs off: one still missing pods will be
        # turned away by PreFilter anyway until they come.
        if self.pg_backoff is not None and len(self.pg_mgr.sibling_pods(pod)) >= min_member:
            self.pg_mgr.backoff_pod_group(full_name, self.pg_backoff)
        self.pg_mgr.delete_permitted_pod_group(full_name)
        return PostFilterResult(), FrameworkStatus.unschedulable(
            MSG_REJECTED_AFTER_POST_FILTER.format(group=full_name, pod=pod.name)
        )

    # --- Reserve, Unreserve ------------------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> FrameworkStatus | None:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """The member lost its node: it no longer counts, and its waiting siblings are rejected."""
        full_name, pg = self.pg_mgr.get_pod_group(pod)
        if pg is None:
            return
        self.pg_mgr.unreserve(pod)
        for waiting in self._waiting_members(pod.namespace, pg.metadata.name):
            waiting.reject(NAME, MSG_REJECTION_IN_UNRESERVE)
        self.pg_mgr.delete_permitted_pod_group(full_name)

    # --- Permit ----------------------------------------------------------------------------------------

    def permit(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[FrameworkStatus | None, float]:
        """Let the quorum through together: ``(status, seconds to wait)``."""
        wait_time = self.schedule_timeout
        decision = self.pg_mgr.permit(state, pod)
        if decision is PermitStatus.POD_GROUP_NOT_SPECIFIED:
            return FrameworkStatus.success(), 0
        if decision is PermitStatus.POD_GROUP_NOT_FOUND:
            return FrameworkStatus.unschedulable(MSG_POD_GROUP_NOT_FOUND), 0
        if decision is PermitStatus.WAIT:
            _, pg = self.pg_mgr.get_pod_group(pod)
            wait = get_wait_time_duration(pg, self.schedule_timeout)
            if wait != 0:
                wait_time = wait
            # The siblings are asked back to activeQ (by the group's first waiting member).
            self.pg_mgr.activate_siblings(pod, state)
            return FrameworkStatus.wait(), wait_time
        full_name = pod_group_full_name(pod)
        for waiting in self._waiting_pods():
            if pod_group_full_name(waiting.get_pod()) == full_name:
                waiting.allow(NAME)
        return FrameworkStatus.success(), 0

    # --- the handle -------------------------------------------------------------------------------------

    def _waiting_pods(self) -> list[WaitingPod]:
        found: list[WaitingPod] = []
        if self._handle is not None:
            self._handle.iterate_over_waiting_pods(found.append)
        return found

    def _waiting_members(self, namespace: str, group: str) -> list[WaitingPod]:
        """The pods of ``namespace``/``group`` parked at Permit right now."""
        return [
            w
            for w in self._waiting_pods()
            if w.get_pod().namespace == namespace and pod_group_label(w.get_pod()) == group
        ]


def _float32(x: float) -> float:
    """``x`` rounded to the nearest float32 (a quotient of two float32s rounds right this way)."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


def _initial_attempt(info: QueuedPodInfo) -> float:
    # Upstream dereferences InitialAttemptTimestamp, set when the pod first enters activeQ,
    # where every pod Less compares is; a record that never got there falls back to its
    # queue timestamp rather than failing.
    stamp = info.initial_attempt_timestamp
    return stamp if stamp is not None else info.timestamp


def new_manager(args: CoschedulingArgs, handle: Any) -> PodGroupManager:
    """The PodGroupManager a plugin built with ``handle`` uses (``core.NewPodGroupManager``)."""
    return PodGroupManager(
        handle.client() if handle is not None else None,
        (lambda: handle.snapshot_shared_lister()) if handle is not None else (lambda: None),
        float(args.permit_waiting_time_seconds),
        clock=handle.clock() if handle is not None else None,
    )


def new(args: Any, handle: Any) -> Coscheduling:
    """The factory the registry calls; ``args`` is ``CoschedulingArgs`` or its ``pluginConfig`` dict."""
    decoded = coscheduling_args_from(args)
    return Coscheduling(decoded, handle, new_manager(decoded, handle))


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _queue_sort: type[interface.QueueSortPlugin] = Coscheduling
    _pre_filter: type[interface.PreFilterPlugin] = Coscheduling
    _post_filter: type[interface.PostFilterPlugin] = Coscheduling
    _reserve: type[interface.ReservePlugin] = Coscheduling
    _permit: type[interface.PermitPlugin] = Coscheduling
    _enqueue_extensions: type[interface.EnqueueExtensions] = Coscheduling
