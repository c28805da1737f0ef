"""Chapter 10 exercise: Coscheduling's Permit, where a gang is let through together.

The rest of the plugin is written out below for you (QueueSort, PreFilter,
PostFilter, Reserve/Unreserve, the PodGroupManager's book and checks). This
file stands alone: it imports nothing of the reference plugin and inherits
from nothing of it, so neither deleting your methods nor calling a parent's
answers for you. You write the two halves of the decision a member meets
at Permit:

* :meth:`PodGroupManager.permit`: count the member among its group's
  assigned members and say ``SUCCESS`` (the quorum is there), ``WAIT``
  (not yet), ``POD_GROUP_NOT_SPECIFIED`` (no group) or
  ``POD_GROUP_NOT_FOUND`` (its PodGroup does not exist). The group's first
  member to wait also asks for its siblings to be activated.
* :meth:`Coscheduling.permit`: turn that answer into the framework's
  ``(status, seconds)``: pass, reject, or wait for the right time; the
  member that completes the quorum allows its waiting siblings, a member
  that waits brings its siblings to activeQ.

Then check them::

    python -m pytest chapters/10_coscheduling --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/coscheduling/``. Stuck?
``python -m framework hint 10`` shows the hints one at a time.
"""

from __future__ import annotations

import dataclasses
import struct
import threading
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from framework.apiserver import DELETED
from framework.apiserver.errors import APIError
from framework.apiserver.watch import ADDED
from framework.clock import Clock, RealClock
from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.config.args_coscheduling import CoschedulingArgs, coscheduling_args_from
from framework.cycle_state import PODS_TO_ACTIVATE_KEY, CycleState, NotFound, PodsToActivate
from framework.interface import (
    Handle,
    NodeToStatus,
    PostFilterResult,
    PreFilterExtensions,
    PreFilterResult,
    WaitingPod,
)
from framework.node_info import NodeInfo, Resource
from framework.objects import Pod, PodGroup, pod_priority
from framework.objects.podgroup import POD_GROUP_LABEL, pod_group_full_name, pod_group_label
from framework.plugins import names
from framework.plugins.coscheduling.quantity import (
    BINARY_SI,
    DECIMAL_SI,
    GoQuantity,
    go_resource_list,
)
from framework.status import Status as FrameworkStatus
from framework.types import QueuedPodInfo

__all__ = [
    "DEFAULT_WAIT_TIME",
    "MSG_POD_GROUP_NOT_FOUND",
    "NAME",
    "PERMIT_STATE_KEY",
    "Coscheduling",
    "PermitState",
    "PermitStatus",
    "PodGroupManager",
    "get_wait_time_duration",
    "new",
    "pod_group_full_name",
]

# --- given: the PodGroupManager's book and checks (core.go); its Permit is yours ------------------

DEFAULT_WAIT_TIME = 60.0
"""The Permit wait when neither the PodGroup nor the args set one (``util.DefaultWaitTime``)."""
PERMITTED_DEFAULT_TTL = 3.0
"""``permittedPG``'s default expiration: what a zero ``permitWaitingTimeSeconds`` gives it."""
BACKED_OFF_DEFAULT_TTL = 10.0
"""``backedOffPG``'s default expiration (never used: a zero backoff is no backoff)."""
PERMIT_STATE_KEY = "PermitCoscheduling"

NOT_TERMINATED = "status.phase!=Succeeded,status.phase!=Failed"
"""kube-scheduler's pod informer leaves finished pods out; so do the lists here."""

MSG_FAILED_RECENTLY = "podGroup {group} failed recently"
MSG_NOT_ENOUGH_SIBLINGS = (
    "pre-filter pod {pod} cannot find enough sibling pods, "
    "current pods number: {count}, minMember of group: {min_member}"
)
MSG_RESOURCE_GAP = "resource gap: {gap}"


class PermitStatus(StrEnum):
    """What the manager's Permit decided (``core.Status`` in Go); the plugin turns it into a framework status.

    Named ``PermitStatus`` here so that ``Status`` stays the framework's
    :class:`framework.status.Status` everywhere in this project.
    """

    POD_GROUP_NOT_SPECIFIED = "PodGroup not specified"
    POD_GROUP_NOT_FOUND = "PodGroup not found"
    SUCCESS = "Success"
    WAIT = "Wait"


@dataclasses.dataclass(frozen=True, slots=True)
class PermitState:
    """Written by Permit for the group's first waiting member: "activate my siblings"."""

    activate: bool = False

    def clone(self) -> PermitState:
        return self  # frozen: a copy would be equal


def namespaced_name(pod: Pod) -> str:
    """``namespace/name``, the key that orders equals in the queue (``GetNamespacedName``)."""
    return f"{pod.namespace}/{pod.name}"


def get_wait_time_duration(pg: PodGroup | None, schedule_timeout: float | None) -> float:
    """How long a member waits at Permit (``util.GetWaitTimeDuration``).

    The PodGroup's ``scheduleTimeoutSeconds`` if set (even 0, or negative),
    else the args' ``permitWaitingTimeSeconds`` if not 0, else 60 seconds.
    """
    if pg is not None and pg.spec.schedule_timeout_seconds is not None:
        return float(pg.spec.schedule_timeout_seconds)
    if schedule_timeout is not None and schedule_timeout != 0:
        return schedule_timeout
    return DEFAULT_WAIT_TIME


class ExpiringSet:
    """Keys that expire after a while, on the injected clock (the two ``go-cache`` caches).

    As ``Cache.Add`` does, adding a key that is present and not expired
    changes nothing (a backoff is not extended); a zero ttl means the set's
    default, a negative one means never.
    """

    def __init__(self, default_ttl: float, clock: Clock) -> None:
        self._default_ttl = default_ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._expiry: dict[str, float | None] = {}

    def add(self, key: str, ttl: float) -> bool:
        """Add ``key`` for ``ttl`` seconds; False if it was already there."""
        with self._lock:
            if self._live(key):
                return False
            ttl = self._default_ttl if ttl == 0 else ttl
            self._expiry[key] = self._clock.now() + ttl if ttl > 0 else None
            return True

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return isinstance(key, str) and self._live(key)

    def delete(self, key: str) -> None:
        with self._lock:
            self._expiry.pop(key, None)

    def _live(self, key: str) -> bool:
        if key not in self._expiry:
            return False
        expiry = self._expiry[key]
        if expiry is not None and self._clock.now() > expiry:
            del self._expiry[key]
            return False
        return True


class PodGroupManager:
    """Coscheduling's book of gangs, and the checks of PreFilter and Permit.

    ``client`` is the API server (through the framework handle; None
    outside a scheduler, when no PodGroup can be found);
    ``snapshot_shared_lister`` returns the current cycle's snapshot;
    ``schedule_timeout`` is ``permitWaitingTimeSeconds``.
    """

    def __init__(
        self,
        client: Any,
        snapshot_shared_lister: Callable[[], Any],
        schedule_timeout: float,
        *,
        clock: Clock | None = None,
    ) -> None:
        self._client = client
        self._snapshot = snapshot_shared_lister
        self.schedule_timeout = schedule_timeout
        clock = clock or RealClock()
        #: The groups that passed the minResources check recently (``permittedPG``).
        self.permitted_pg = ExpiringSet(PERMITTED_DEFAULT_TTL, clock)
        #: The groups that failed recently and are backing off (``backedOffPG``).
        self.backed_off_pg = ExpiringSet(BACKED_OFF_DEFAULT_TTL, clock)
        self._lock = threading.Lock()
        self._assigned_pods_by_pg: dict[str, set[str]] = {}
        # The pod informer's handlers: bound pods that appear, bound pods that go.
        self._pod_watch = client.watch(Pod, field_selector=NOT_TERMINATED) if client else None

    # --- the pod informer ---------------------------------------------------------------------

    def sync(self) -> None:
        """Apply the pod events seen since the last call (``AddPodFactory`` and the delete handler).

        A pod first seen with a node is assigned; a pod with a node that is
        deleted, or leaves the informer's view because it finished, is no
        longer. Updates are not looked at, as upstream registers no update
        handler: a pod this scheduler binds was assigned at its Permit.
        """
        if self._pod_watch is None:
            return
        with self._lock:
            for event in self._pod_watch.drain():
                pod = event.object
                if not isinstance(pod, Pod) or not pod.spec.node_name:
                    continue
                if event.type == ADDED:
                    self._assign(pod)
                elif event.type == DELETED:
                    self._unassign(pod)

    def _assign(self, pod: Pod) -> None:
        full_name = pod_group_full_name(pod)
        if full_name:
            self._assigned_pods_by_pg.setdefault(full_name, set()).add(pod.name)

    def _unassign(self, pod: Pod) -> None:
        full_name = pod_group_full_name(pod)
        assigned = self._assigned_pods_by_pg.get(full_name)
        if assigned is not None:
            assigned.discard(pod.name)
            if not assigned:
                del self._assigned_pods_by_pg[full_name]

    # --- reading the group -------------------------------------------------------------------

    def get_pod_group(self, pod: Pod) -> tuple[str, PodGroup | None]:
        """``(namespace/group, its PodGroup)``: ``("", None)`` for a pod in no group,
        ``(full name, None)`` for a group whose PodGroup does not exist."""
        name = pod_group_label(pod)
        if not name:
            return "", None
        full_name = f"{pod.namespace}/{name}"
        if self._client is None:
            return full_name, None
        try:
            pg = self._client.get(PodGroup, name, namespace=pod.namespace)
        except APIError:  # NotFound, or a server that does not serve PodGroups
            return full_name, None
        return full_name, pg

    def get_creation_timestamp(self, pod: Pod, ts: float) -> float:
        """The PodGroup's creation time for a pod in an existing group, else ``ts``."""
        _, pg = self.get_pod_group(pod)
        created = pg.created_at() if pg is not None else None
        return ts if created is None else created

    def sibling_pods(self, pod: Pod) -> list[Pod]:
        """The unfinished pods labelled with ``pod``'s group, in its namespace (``pod`` included)."""
        name = pod_group_label(pod)
        if self._client is None or not name:
            return []
        listed = self._client.list(
            Pod,
            namespace=pod.namespace,
            label_selector=f"{POD_GROUP_LABEL}={name}",
            field_selector=NOT_TERMINATED,
        )
        return list(listed.items)

    def get_assigned_pod_count(self, full_name: str) -> int:
        """How many of the group's members have a node, assumed or bound."""
        self.sync()
        with self._lock:
            return len(self._assigned_pods_by_pg.get(full_name, ()))

    def assigned_pods(self) -> dict[str, frozenset[str]]:
        """Every group's assigned members, by name (for tests and the curious)."""
        self.sync()
        with self._lock:
            return {k: frozenset(v) for k, v in sorted(self._assigned_pods_by_pg.items())}

    # --- PreFilter ------------------------------------------------------------------------------

    def pre_filter(self, pod: Pod) -> str | None:
        """Why the pod cannot be scheduled now (None: go on), checks in upstream's order.

        A pod in no group, or in a group whose PodGroup does not exist,
        passes: Permit turns the latter away.
        """
        self.sync()
        full_name, pg = self.get_pod_group(pod)
        if pg is None:
            return None
        if full_name in self.backed_off_pg:
            return MSG_FAILED_RECENTLY.format(group=full_name)
        count = len(self.sibling_pods(pod))
        if count < pg.spec.quorum:
            return MSG_NOT_ENOUGH_SIBLINGS.format(
                pod=pod.name, count=count, min_member=pg.spec.quorum
            )
        if not pg.spec.min_resources:
            return None
        # Passing this check does not promise that Filter will pass (affinity, taints...).
        if full_name in self.permitted_pg:
            return None
        snapshot = self._snapshot()
        nodes: Sequence[NodeInfo] = snapshot.node_infos().list() if snapshot is not None else ()
        min_resources = {k: GoQuantity.parse(str(q.raw)) for k, q in pg.spec.min_resources.items()}
        min_resources["pods"] = GoQuantity.new(pg.spec.quorum, DECIMAL_SI)
        gap = check_cluster_resource(nodes, min_resources, full_name)
        if gap is not None:
            return gap
        self.permitted_pg.add(full_name, self.schedule_timeout)
        return None

    # --- Permit, Unreserve ------------------------------------------------------------------------

    def permit(self, state: CycleState, pod: Pod) -> PermitStatus:
        """Count ``pod`` among its group's assigned members; return the manager's decision.

        You have: ``self.sync()`` (apply the pod informer's news first),
        ``self.get_pod_group(pod)`` (``("", None)`` for a pod in no group,
        ``(full_name, None)`` when its PodGroup does not exist, else
        ``(full_name, pg)``), ``pg.spec.quorum`` (``minMember``),
        ``self._assigned_pods_by_pg`` (group full name -> set of pod names)
        under ``with self._lock:``, and ``state.write(PERMIT_STATE_KEY,
        PermitState(activate=True))``.
        """
        # TODO 1: apply the informer's news, then find the pod's group. No group:
        #         POD_GROUP_NOT_SPECIFIED. A group without a PodGroup: POD_GROUP_NOT_FOUND.
        # TODO 2: add the pod's *name* to its group's assigned members (create the set
        #         if needed) and count them, all under the lock.
        # TODO 3: at least minMember: SUCCESS. Otherwise WAIT; and if the pod is the
        #         only one counted, write PermitState(activate=True) under PERMIT_STATE_KEY.
        raise NotImplementedError(
            "chapter 10 exercise: write PodGroupManager.permit in "
            "chapters/10_coscheduling/exercise.py (hints: python -m framework hint 10)"
        )

    def unreserve(self, pod: Pod) -> None:
        """The pod no longer has a node: it leaves its group's assigned members (idempotent)."""
        self.sync()
        with self._lock:
            self._unassign(pod)

    def activate_siblings(self, pod: Pod, state: CycleState) -> None:
        """Ask, through ``PodsToActivate``, for the pod's siblings to be moved to activeQ.

        Only when Permit asked for it (:class:`PermitState`); the siblings
        are every unfinished pod of the group but this one, bound ones too
        (activating a pod that is not queued does nothing).
        """
        if not pod_group_label(pod):
            return
        try:
            permit_state = state.read(PERMIT_STATE_KEY)
        except NotFound:
            return
        if not isinstance(permit_state, PermitState) or not permit_state.activate:
            return
        siblings = [p for p in self.sibling_pods(pod) if p.metadata.uid != pod.metadata.uid]
        if not siblings:
            return
        try:
            to_activate = state.read_as(PODS_TO_ACTIVATE_KEY, PodsToActivate)
        except (NotFound, TypeError):
            return
        with to_activate.lock:
            for sibling in siblings:
                to_activate.map[namespaced_name(sibling)] = sibling

    # --- the expiring sets ---------------------------------------------------------------------------

    def backoff_pod_group(self, full_name: str, backoff: float) -> None:
        """Turn the group away at PreFilter for ``backoff`` seconds (nothing for 0)."""
        if backoff == 0:
            return
        self.backed_off_pg.add(full_name, backoff)

    def delete_permitted_pod_group(self, full_name: str) -> None:
        """Forget that the group passed the resource check: PostFilter found it did not help."""
        self.permitted_pg.delete(full_name)


# --- the cluster's free room --------------------------------------------------------------------


def check_cluster_resource(
    nodes: Sequence[NodeInfo],
    resource_request: Mapping[str, GoQuantity],
    desired_pod_group_name: str,
) -> str | None:
    """None if the free room of ``nodes``, added up, covers ``resource_request``; else the gap.

    Free room counts the group's own pods as free (they would be replaced
    by members, not added). Node by node, what the node has free is taken
    off what is still missing, until nothing is; a resource is done once its
    remainder is zero or less. The message is ``resource gap: `` and the
    remainders, printed as Go prints a ``v1.ResourceList``
    (:mod:`framework.plugins.coscheduling.quantity`).
    """
    missing = {
        name: GoQuantity(q.value, q.scale, q.format, q.cached)
        for name, q in resource_request.items()
    }
    for info in nodes:
        if info.node is None:
            continue
        free = _resource_list(_node_resource(info, desired_pod_group_name))
        for name in list(missing):
            remaining = missing[name]
            remaining.sub(free.get(name, GoQuantity.new(0, "")))
            if remaining.sign() <= 0:
                del missing[name]
        if not missing:
            return None
    return MSG_RESOURCE_GAP.format(gap=go_resource_list(missing))


def _node_resource(info: NodeInfo, desired_pod_group_name: str) -> Resource:
    """What ``info``'s node has free, counting the desired group's pods as not there."""
    clone = info.clone()
    for pod_info in info.pods:
        if pod_group_full_name(pod_info.pod) == desired_pod_group_name:
            clone.remove_pod(pod_info.pod)
    allocatable, requested = clone.allocatable, clone.requested
    left = Resource(
        milli_cpu=allocatable.milli_cpu - requested.milli_cpu,
        memory=allocatable.memory - requested.memory,
        ephemeral_storage=allocatable.ephemeral_storage - requested.ephemeral_storage,
        allowed_pod_number=allocatable.allowed_pod_number - len(clone.pods),
    )
    for name, amount in allocatable.scalar_resources.items():
        left.scalar_resources[name] = amount - requested.scalar_resources.get(name, 0)
    return left


def _resource_list(r: Resource) -> dict[str, GoQuantity]:
    """A ``Resource`` as the ``v1.ResourceList`` Go would build of it (``util.ResourceList``)."""
    result = {
        "cpu": GoQuantity.milli(r.milli_cpu, DECIMAL_SI),
        "memory": GoQuantity.new(r.memory, BINARY_SI),
        "pods": GoQuantity.new(r.allowed_pod_number, BINARY_SI),
        "ephemeral-storage": GoQuantity.new(r.ephemeral_storage, BINARY_SI),
    }
    for name, amount in r.scalar_resources.items():
        result[name] = GoQuantity.new(
            amount, BINARY_SI if name.startswith("hugepages-") else DECIMAL_SI
        )
    return result


# --- given: the plugin (coscheduling.go); its Permit is yours -------------------------------------

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
        """Let the quorum through together: return ``(status, seconds to wait)``.

        You have: ``self.pg_mgr.permit(state, pod)`` (your method above),
        ``self.schedule_timeout`` (``permitWaitingTimeSeconds``),
        ``self.pg_mgr.get_pod_group(pod)``, ``get_wait_time_duration(pg,
        self.schedule_timeout)``, ``self.pg_mgr.activate_siblings(pod,
        state)``, ``self._waiting_pods()`` (every pod parked at Permit),
        ``pod_group_full_name(pod)`` and ``waiting.allow(NAME)``.
        """
        # TODO 4: not in a group: (FrameworkStatus.success(), 0).
        #         PodGroup not found: (FrameworkStatus.unschedulable(MSG_POD_GROUP_NOT_FOUND), 0).
        # TODO 5: WAIT: the wait is get_wait_time_duration(pg, self.schedule_timeout), unless
        #         that is 0 (then self.schedule_timeout). Activate the siblings, and return
        #         (FrameworkStatus.wait(), the wait).
        # TODO 6: SUCCESS: allow every waiting pod of the same group (same full name), then
        #         (FrameworkStatus.success(), 0).
        raise NotImplementedError(
            "chapter 10 exercise: write Coscheduling.permit in "
            "chapters/10_coscheduling/exercise.py (hints: python -m framework hint 10)"
        )

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


def new(args: Any, handle: Any) -> Coscheduling:
    """The factory the registry calls: the plugin with your manager. (Given.)"""
    decoded = coscheduling_args_from(args)
    manager = PodGroupManager(
        handle.client() if handle is not None else None,
        (lambda: handle.snapshot_shared_lister()) if handle is not None else (lambda: None),
        float(decoded.permit_waiting_time_seconds),
        clock=handle.clock() if handle is not None else None,
    )
    return Coscheduling(decoded, handle, manager)
