"""GangScheduling: kube-scheduler's own gangs, all or nothing (KEP-4671, v1.35 and later).

A gang's pods are scheduled one by one, as any pods are, but none of them
binds before ``minCount`` of them have a node. The plugin holds them at two
barriers:

1. **PreEnqueue**: a member is not even queued until its group exists (the
   Workload in v1.35, the PodGroup from v1.36) and ``minCount`` of its pods
   do: ``waiting for minCount pods from a gang to appear in scheduling
   queue`` (``UnschedulableAndUnresolvable``: nothing but a new pod helps).
2. **Permit**: a member that got a node waits there (``Wait``, up to the
   gang's scheduling timeout, 5 minutes) until ``minCount`` members are
   assumed or bound; the one that completes the quorum allows every waiting
   sibling. Waiting, it asks for its unscheduled siblings to be activated.
   A member that times out is rejected, and its node is freed (Unreserve).

**Reserve / Unreserve** mark a member *assumed* in the scheduler's workload
manager (:mod:`framework.cache.workload_manager`; v1.35's ``WorkloadManager``,
from v1.36 the cache marks it itself, here still the plugin). The manager,
fed by the scheduler's pod informer, is also where both barriers count the
gang's pods: no question reaches the API server, as Go's plugin reads the
manager and a PodGroup lister.
**Queueing hints**: a new pod of the same group, or the group's object
appearing, requeues a member PreEnqueue turned away; from v1.36, a PodGroup
whose ``minCount`` went down does too.

Which API it reads follows the emulated release: v1.35 reads the pod's
``spec.workloadRef`` and the Workload's ``podGroups``; v1.36 and later the
pod's ``spec.schedulingGroup`` and the standalone PodGroup. From v1.36 the
scheduler also pops a group's members together into a **PodGroup
scheduling cycle** (:mod:`framework.scheduler.podgroup_cycle`), which runs
this plugin's Permit for each of them before any binds.

Mirrors ``GangScheduling``, ``EventsToRegister``, ``isSchedulableAfterPodAdded``,
``isSchedulableAfterWorkloadAdded``, ``PreEnqueue``, ``Reserve``,
``Unreserve`` and ``Permit`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go``
(a v1.35-era copy with ``workloadRef``, index id 1021253207; and a later copy
with ``schedulingGroup``, index id 54548552818, for v1.36+), and
its ``handle.WorkloadManager()``. Simplified: the Workload or PodGroup is
read from the API server (Go reads the informer's lister; the in-process
server answers from memory); no ``PlacementFeasible`` (the v1.37 placement
point) and no CompositePodGroup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import NotFound
from framework.cache.workload_manager import (
    DEFAULT_SCHEDULING_TIMEOUT_SECONDS,
    GroupKey,
    GroupState,
    WorkloadManager,
)
from framework.clock import RealClock
from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.cycle_state import CycleState
from framework.featuregate import features_of
from framework.objects import Pod
from framework.objects.workload import (
    PodGroupSchedulingPolicy,
    SchedulingPodGroup,
    Workload,
    pod_group_key,
)
from framework.plugins import names
from framework.status import Status

# GroupState, WorkloadManager and DEFAULT_SCHEDULING_TIMEOUT_SECONDS, imported above, are
# framework.cache.workload_manager's (documented there); the plugin's readers may import
# them from here.
__all__ = [
    "MSG_MIN_COUNT_NOT_IN_QUEUE",
    "NAME",
    "GangScheduling",
    "gang_permit",
    "new",
]

NAME = names.GANG_SCHEDULING
MSG_MIN_COUNT_NOT_IN_QUEUE = "waiting for minCount pods from a gang to appear in scheduling queue"
# v1.35 says the quorum is counted at Permit; the later copy says "scheduled" (assumed or bound).
MSG_PERMIT_WAIT_V135 = "waiting for minCount pods from a gang to be waiting on permit"
MSG_PERMIT_WAIT = "waiting for minCount pods from a gang to be scheduled"


def _quote(text: str) -> str:
    """Go's ``%q`` of a plain name."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gang_permit(group: GroupState, min_count: int) -> tuple[bool, list[Pod]]:
    """Is the gang's quorum scheduled? If not, which members to bring back to activeQ.

    The quorum counts the members assumed (they passed Reserve and wait at
    Permit) or already bound, each once, and only members that still exist.
    When it is short, the members neither assumed nor bound are the ones to
    activate: they may be what the gang is waiting for.
    """
    if group.scheduled_count() >= min_count:
        return True, []
    return False, group.unscheduled()


class GangScheduling:
    """PreEnqueue, Reserve and Permit plugin for ``scheduling.k8s.io`` gangs."""

    def __init__(self, handle: Any, manager: WorkloadManager, *, v136: bool) -> None:
        self._handle = handle
        self.manager = manager
        #: Whether it reads ``schedulingGroup`` and PodGroups (v1.36+), not ``workloadRef`` (v1.35).
        self.v136 = v136

    def name(self) -> str:
        return NAME

    # --- the group's policy -------------------------------------------------------------------

    def _client(self) -> Any:
        return self._handle.client() if self._handle is not None else None

    def _policy(self, pod: Pod) -> tuple[PodGroupSchedulingPolicy | None, Status | None]:
        """The policy of ``pod``'s group, or the status that says why there is none."""
        client = self._client()
        if self.v136:
            group = pod.spec.scheduling_group
            assert group is not None
            pg = _get(client, SchedulingPodGroup, group.pod_group_name, pod.namespace)
            if pg is None:
                name = _quote(group.pod_group_name)
                return None, Status.unresolvable(
                    f"waiting for pods's pod group {name} to appear in scheduling queue"
                )
            return pg.spec.scheduling_policy, None
        ref = pod.spec.workload_ref
        assert ref is not None
        workload = _get(client, Workload, ref.name, pod.namespace)
        if workload is None:
            return None, Status.unresolvable(
                f"waiting for pods's workload {_quote(ref.name)} to appear in scheduling queue"
            )
        policy = workload.policy_for(ref.pod_group)
        if policy is None:
            return None, Status.unresolvable(
                f"pod group {_quote(ref.pod_group)} doesn't exist for a workload "
                f"{_quote(workload.metadata.name)}"
            )
        return policy, None

    def _key(self, pod: Pod) -> GroupKey | None:
        """The gang of ``pod`` in the API this release reads; None if it names none there."""
        key = pod_group_key(pod)
        if key is None or (key[0] == "podgroup") != self.v136:
            return None
        return key

    # --- PreEnqueue ------------------------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Not queued until the group exists and ``minCount`` of its pods do."""
        key = self._key(pod)
        if key is None:
            return None
        policy, status = self._policy(pod)
        if status is not None:
            return status
        assert policy is not None
        if policy.gang is None:
            return None
        if len(self.manager.state(key).all_pods) < (policy.gang.min_count or 0):
            return Status.unresolvable(MSG_MIN_COUNT_NOT_IN_QUEUE)
        return None

    # --- Reserve, Unreserve ------------------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """The member is assumed: it counts towards the quorum at Permit."""
        key = self._key(pod)
        if key is not None:
            self.manager.assume_pod(key, pod.metadata.uid)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """The member lost its node: it no longer counts."""
        key = self._key(pod)
        if key is not None:
            self.manager.forget_pod(key, pod.metadata.uid)

    # --- Permit ------------------------------------------------------------------------------------

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """Wait until ``minCount`` members are assumed or bound; the last one lets them all go."""
        key = self._key(pod)
        if key is None:
            return None, 0
        policy, status = self._policy(pod)
        if status is not None:
            # The group vanished since PreEnqueue: an error retries the pod when it is back.
            return Status.as_error(RuntimeError(status.message())), 0
        assert policy is not None
        if policy.gang is None:
            return None, 0
        group = self.manager.state(key)
        met, to_activate = gang_permit(group, policy.gang.min_count or 0)
        if not met:
            # With the PodGroup cycle the scheduler pops the siblings itself: asking for them
            # here would requeue those in flight at once, and loop.
            if self._handle is not None and not self.v136:
                self._handle.activate(to_activate)
            if self.v136:
                return Status.wait(MSG_PERMIT_WAIT), DEFAULT_SCHEDULING_TIMEOUT_SECONDS
            return Status.wait(MSG_PERMIT_WAIT_V135), self.manager.scheduling_timeout(key)
        if self._handle is not None:
            for uid in sorted(group.assumed):
                waiting = self._handle.get_waiting_pod(uid)
                if waiting is not None:
                    waiting.allow(NAME)
        return None, 0

    # --- queueing hints ----------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A new member may complete a gang; the group's object appearing may unblock it."""
        if not self.v136:
            return [
                ClusterEventWithHint(
                    ClusterEvent(EventResource.POD, ActionType.ADD),
                    self.is_schedulable_after_pod_added,
                ),
                ClusterEventWithHint(
                    ClusterEvent(EventResource.WORKLOAD, ActionType.ADD),
                    self.is_schedulable_after_workload_added,
                ),
            ]
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD),
                self.is_schedulable_after_pod_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD),
                self.is_schedulable_after_pod_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.SCHEDULING_POD_GROUP, ActionType.ADD),
                self.is_schedulable_after_pod_group_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.SCHEDULING_POD_GROUP, ActionType.UPDATE),
                self.is_schedulable_after_pod_group_updated,
            ),
        ]

    def is_schedulable_after_pod_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A pod of the very same group (the whole reference, same namespace) was added."""
        if not isinstance(new, Pod):
            return QueueingHint.QUEUE
        mine = pod_group_key(pod)
        if mine is not None and mine == pod_group_key(new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_workload_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if not isinstance(new, Workload):
            return QueueingHint.QUEUE
        ref = pod.spec.workload_ref
        if ref is None or pod.namespace != new.namespace or ref.name != new.metadata.name:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_group_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if not isinstance(new, SchedulingPodGroup):
            return QueueingHint.QUEUE
        group = pod.spec.scheduling_group
        if (
            group is None
            or pod.namespace != new.namespace
            or group.pod_group_name != new.metadata.name
        ):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_group_updated(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """The group's ``minCount`` went down: fewer members may now be enough."""
        if not isinstance(old, SchedulingPodGroup) or not isinstance(new, SchedulingPodGroup):
            return QueueingHint.QUEUE
        if self.is_schedulable_after_pod_group_added(pod, None, new) is QueueingHint.QUEUE_SKIP:
            return QueueingHint.QUEUE_SKIP
        old_gang, new_gang = old.spec.scheduling_policy.gang, new.spec.scheduling_policy.gang
        if old_gang is None or new_gang is None:
            return QueueingHint.QUEUE  # "this is unexpected, enqueuing pod"
        if (new_gang.min_count or 0) >= (old_gang.min_count or 0):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def _get(client: Any, kind: type[Any], name: str, namespace: str) -> Any:
    if client is None:
        return None
    try:
        return client.get(kind, name, namespace=namespace)
    except NotFound:
        return None


def new(args: Any, handle: Any) -> GangScheduling:
    """The factory the registry calls; the release decides which API it reads."""
    gates = features_of(handle)
    if handle is None:  # built bare (the registry's own checks): nothing to read, nothing fed
        return GangScheduling(None, WorkloadManager(RealClock()), v136=gates.at_least("1.36"))
    manager = handle.workload_manager()
    if manager is None:
        raise ValueError(
            "GangScheduling reads the scheduler's workload manager, fed by its pod informer, "
            "and this framework has none: build it with Scheduler, or pass workload_manager= "
            "to Framework and feed it each pod change"
        )
    return GangScheduling(handle, manager, v136=gates.at_least("1.36"))


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.PermitPlugin = &X{}"
    from framework import interface

    _pre_enqueue: type[interface.PreEnqueuePlugin] = GangScheduling
    _reserve: type[interface.ReservePlugin] = GangScheduling
    _permit: type[interface.PermitPlugin] = GangScheduling
    _enqueue_extensions: type[interface.EnqueueExtensions] = GangScheduling
