"""DefaultPreemption: when no node fits a pod, make room by evicting lower-priority pods.

The only PostFilter plugin of the default profile. It runs after Filter
found no node, and hands the work to the
:class:`~framework.preemption.evaluator.Evaluator`, deciding for it:

* **who may preempt** (:meth:`~DefaultPreemption.pod_eligible_to_preempt_others`):
  not a pod with ``preemptionPolicy: Never``; not a pod whose nominated
  node still has a victim terminating because of an earlier preemption
  (it waits for that room instead of evicting more), unless the nominated
  node was rejected as ``UnschedulableAndUnresolvable`` (then it looks
  elsewhere);
* **whom it may evict** (:meth:`~DefaultPreemption.is_preemption_allowed`):
  pods of *strictly* lower priority;
* **which of them on a node** (:meth:`~DefaultPreemption.select_victims_on_node`):
  remove every lower-priority pod from a copy of the node; if the pod
  still does not fit, the node is no candidate. Otherwise put pods back
  (*reprieve* them), most important first, those whose eviction would
  break a PodDisruptionBudget before the others, keeping each one the pod
  still fits with; the rest are the victims;
* **how many candidates to look for**
  (:meth:`~DefaultPreemption.get_offset_and_num_candidates`).

Its messages are prefixed ``preemption:``, so a pod's FailedScheduling
reads ``0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes
are available: 3 No preemption victims found for incoming pod.``

Asynchronous preemption (``SchedulerAsyncPreemption``, on in v1.33) also
makes it a **PreEnqueue** plugin: a pod whose evictions are still being
made waits at the gate (``waiting for the preemption for this pod to be
finished``); it registers pod deletions with a hint that always says
``QueueSkip``, because the plugins that rejected the pod decide when it is
worth another try. See :mod:`framework.preemption.evaluator` for how that
work runs here.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``
(v1.33). Differences: the ``SchedulerAsyncPreemption`` feature gate is the
``enable_async_preemption`` argument; the random offset comes from the
framework's seeded RNG (Go: ``rand.Int31n``); victims of equal importance
keep their node order (Go's ``sort.Slice`` is not stable).

What later releases change: the plugin interfaces move to
``k8s.io/kube-scheduler/framework`` (v1.34); the async preemption gate also
waits for the last victim's deletion to start, and victims already being
deleted get no second API call (see :mod:`framework.preemption.evaluator`);
the newest code answers ``preemptionPolicy: Never`` with
``UnschedulableAndUnresolvable``.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from framework.cache.errors import NodeInfoNotFound
from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.config.args_defaultpreemption import (
    DefaultPreemptionArgs,
    InvalidArgsError,
    aggregate,
    default_preemption_args_from,
    validate_default_preemption_args,
)
from framework.cycle_state import CycleState
from framework.extender.types import Victims
from framework.interface import NodeToStatus, PostFilterResult
from framework.node_info import NodeInfo
from framework.objects import Pod, PodDisruptionBudget, pod_priority
from framework.plugins import names
from framework.plugins.defaultpreemption.pdb import filter_pods_with_pdb_violation
from framework.preemption.candidate import Candidate
from framework.preemption.evaluator import (
    DISRUPTION_TARGET,
    REASON_PREEMPTION_BY_SCHEDULER,
    Evaluator,
    PreemptionError,
)
from framework.preemption.pick_one_node import ScoreFunc
from framework.status import Code, Status, as_status, is_success
from framework.types import PodInfo
from framework.util import more_important_pod

__all__ = [
    "ENABLE_ASYNC_PREEMPTION",
    "MSG_NOT_ELIGIBLE_POLICY_NEVER",
    "MSG_NOT_ELIGIBLE_TERMINATING",
    "MSG_NO_VICTIMS",
    "MSG_WAITING_FOR_PREEMPTION",
    "NAME",
    "DefaultPreemption",
    "IsEligiblePodFunc",
    "MoreImportantPodFunc",
    "new",
    "pod_terminating_by_preemption",
]

NAME = names.DEFAULT_PREEMPTION
ENABLE_ASYNC_PREEMPTION = True
"""``SchedulerAsyncPreemption``: beta and on by default in v1.33."""

MSG_NO_VICTIMS = "No preemption victims found for incoming pod"
MSG_NOT_ELIGIBLE_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
MSG_WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"
# A Status is immutable, so one serves every node without victims.
_NO_VICTIMS = Status.unresolvable(MSG_NO_VICTIMS)

IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Pod], bool]
"""``(node_info, victim, preemptor)``: may this victim be preempted, beyond the priority rule?"""
MoreImportantPodFunc = Callable[[Pod, Pod], bool]
"""``(pod1, pod2)``: does ``pod1`` matter more (it is reprieved first)?"""


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """Being deleted, with ``DisruptionTarget=True`` (``PreemptionByScheduler``) (``podTerminatingByPreemption``)."""
    if pod.metadata.deletion_timestamp is None:
        return False
    for condition in pod.status.conditions:
        if condition.type == DISRUPTION_TARGET:
            return (
                condition.status == "True" and condition.reason == REASON_PREEMPTION_BY_SCHEDULER
            )
    return False


class DefaultPreemption:
    """The PostFilter (and, with async preemption, PreEnqueue) plugin; see the module docstring.

    ``is_eligible_pod`` and ``more_important_pod`` are the hooks Kubernetes
    exposes (``IsEligiblePod``, ``MoreImportantPod``): the defaults allow
    every lower-priority victim and order by priority, then start time.
    """

    def __init__(
        self,
        handle: Any,
        args: DefaultPreemptionArgs | None = None,
        *,
        enable_async_preemption: bool = ENABLE_ASYNC_PREEMPTION,
        run_async: Callable[[Callable[[], None]], None] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.args = args or DefaultPreemptionArgs()
        causes = validate_default_preemption_args(self.args)
        if causes:
            raise InvalidArgsError(aggregate(causes))
        self._handle = handle
        self.enable_async_preemption = enable_async_preemption
        handle_rng = getattr(handle, "rng", None)
        self._rng = rng or (handle_rng() if callable(handle_rng) else random.Random())
        self.is_eligible_pod: IsEligiblePodFunc = lambda node_info, victim, preemptor: True
        # node name -> (NodeInfo generation, lowest pod priority there): see without_victims.
        self._lowest_priority: dict[str, tuple[int, int | None]] = {}
        self.more_important_pod: MoreImportantPodFunc = lambda pod1, pod2: more_important_pod(
            pod1, pod2, self._handle.clock().now()
        )
        self.evaluator = Evaluator(
            NAME,
            handle,
            self,
            enable_async_preemption=enable_async_preemption,
            run_async=run_async,
        )

    def name(self) -> str:
        return NAME

    # --- the extension points -------------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """Preempt for ``pod``; a message, if any, is prefixed with ``preemption:`` and a space."""
        result, status = self.evaluator.preempt(state, pod, filtered_node_status_map)
        message = status.message()
        if message:
            return result, Status(status.code, (f"preemption: {message}",))
        return result, status

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Hold back a pod whose asynchronous preemption is still evicting its victims."""
        if not self.enable_async_preemption:
            return None
        if self.evaluator.is_pod_running_preemption(pod.metadata.uid):
            return Status.unresolvable(MSG_WAITING_FOR_PREEMPTION)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Pod deletions, only to reach pods it gates; none without async preemption."""
        if not self.enable_async_preemption:
            return []
        deleted = ClusterEvent(EventResource.POD, ActionType.DELETE)
        return [ClusterEventWithHint(deleted, self.is_pod_schedulable_after_pod_deletion)]

    def is_pod_schedulable_after_pod_deletion(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Always ``QueueSkip``: the plugins that rejected the pod decide whether it may retry."""
        return QueueingHint.QUEUE_SKIP

    # --- the PreemptionInterface the Evaluator calls ---------------------------------------------

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """``max(numNodes * percentage // 100, absolute)``, but at most ``num_nodes``."""
        n = num_nodes * self.args.min_candidate_nodes_percentage // 100
        n = max(n, self.args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random start in ``[0, num_nodes)`` and :meth:`calculate_num_candidates`."""
        return self._rng.randrange(num_nodes), self.calculate_num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> list[ScoreFunc]:
        """None of its own: the six criteria of ``pick_one_node_for_preemption``."""
        return []

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        """Strictly lower priority, and whatever ``is_eligible_pod`` adds."""
        return pod_priority(victim.pod) < pod_priority(preemptor) and self.is_eligible_pod(
            node_info, victim, preemptor
        )

    def without_victims(self, node_info: NodeInfo, preemptor: Pod) -> Status | None:
        """:meth:`select_victims_on_node`'s answer for a node with no pod of lower priority, or None.

        The dry run asks before it copies the node and the cycle state: on a
        full cluster of pods as important as the preemptor it visits every
        node, thousands per failed attempt, and no copy is needed to see
        that none has a victim. The lowest priority on each node is kept
        until the node's NodeInfo changes (its ``generation``). None (copy
        and select as usual) when a subclass changes who may be preempted.
        """
        own = type(self)
        if (
            own.is_preemption_allowed is not DefaultPreemption.is_preemption_allowed
            or own.select_victims_on_node is not DefaultPreemption.select_victims_on_node
        ):
            return None
        known = self._lowest_priority.get(node_info.name)
        if known is None or known[0] != node_info.generation:
            lowest = min((pod_priority(p.pod) for p in node_info.pods), default=None)
            known = self._lowest_priority[node_info.name] = (node_info.generation, lowest)
        lowest = known[1]
        # is_preemption_allowed asks for a strictly lower priority before anything else.
        if lowest is None or lowest >= pod_priority(preemptor):
            return _NO_VICTIMS
        return None

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status
    ) -> tuple[bool, str]:
        """Whether ``pod`` may preempt now, and if not why (``PodEligibleToPreemptOthers``)."""
        if pod.spec.preemption_policy == "Never":
            return False, MSG_NOT_ELIGIBLE_POLICY_NEVER
        nominated = pod.status.nominated_node_name
        if nominated:
            # The nominated node will not do anyway: look for room elsewhere.
            if nominated_node_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            try:
                node_info = self._handle.snapshot_shared_lister().node_infos().get(nominated)
            except NodeInfoNotFound:
                node_info = None
            if node_info is not None:
                for pod_info in node_info.pods:
                    if self.is_preemption_allowed(
                        node_info, pod_info, pod
                    ) and pod_terminating_by_preemption(pod_info.pod):
                        return False, MSG_NOT_ELIGIBLE_TERMINATING
        return True, ""

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status]:
        """The fewest pods to evict from ``node_info`` for ``pod`` to fit, and how many break a PDB.

        ``node_info`` and ``state`` are copies, changed freely. Returns the
        victims most important first, the number of them that violate a
        budget, and the status: ``UnschedulableAndUnresolvable`` when no pod
        here may be preempted, the Filter status when even evicting all of
        them is not enough, an error from a plugin's AddPod/RemovePod.
        """
        # [start ch13-no-victims]
        # First find every pod that may be preempted. A node with none (every
        # node, for a pod no node can ever hold) is answered before any
        # closure or status is built: the dry run asks thousands of nodes.
        potential = [p for p in node_info.pods if self.is_preemption_allowed(node_info, p, pod)]
        if not potential:
            return [], 0, _NO_VICTIMS
        # [end ch13-no-victims]
        handle = self._handle

        def remove(pod_info: PodInfo) -> Status:
            if not node_info.remove_pod(pod_info.pod):
                return Status.as_error(
                    PreemptionError(
                        f"no corresponding pod {pod_info.pod.name} in pods of node {node_info.name}"
                    )
                )
            return as_status(
                handle.run_pre_filter_extension_remove_pod(state, pod, pod_info, node_info)
            )

        def add(pod_info: PodInfo) -> Status:
            node_info.add_pod(pod_info)
            return as_status(
                handle.run_pre_filter_extension_add_pod(state, pod, pod_info, node_info)
            )

        # Remove them all, and see whether the pod fits at all.
        for pod_info in potential:
            status = remove(pod_info)
            if not status.is_success():
                return [], 0, status
        # Affinity to a would-be victim is not considered (as in Kubernetes): it is not
        # recommended between pods that may preempt each other, and costly to check.
        status = as_status(handle.run_filter_plugins_with_nominated_pods(state, pod, node_info))
        if not status.is_success():
            return [], 0, status

        more_important = self._order()
        potential.sort(key=more_important)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []

        def reprieve(pod_info: PodInfo) -> tuple[bool, Status]:
            status = add(pod_info)
            if not status.is_success():
                return False, status
            fits = is_success(handle.run_filter_plugins_with_nominated_pods(state, pod, node_info))
            if not fits:
                status = remove(pod_info)
                if not status.is_success():
                    return False, status
                victims.append(pod_info)
            return fits, Status.success()

        num_violating = 0
        for pod_info in violating:
            fits, status = reprieve(pod_info)
            if not status.is_success():
                return [], 0, status
            if not fits:
                num_violating += 1
        for pod_info in non_violating:
            _, status = reprieve(pod_info)
            if not status.is_success():
                return [], 0, status
        if violating and non_violating:
            # Keep the victims most important first, as pickOneNodeForPreemption expects.
            victims.sort(key=more_important)
        return [p.pod for p in victims], num_violating, Status.success()

    def _order(self) -> Callable[[PodInfo], Any]:
        """A sort key putting the more important pods first, ties in their current order."""

        def compare(a: PodInfo, b: PodInfo) -> int:
            if self.more_important_pod(a.pod, b.pod):
                return -1
            if self.more_important_pod(b.pod, a.pod):
                return 1
            return 0

        return functools.cmp_to_key(compare)


def new(args: Any, handle: Any) -> DefaultPreemption:
    """The factory the registry calls; ``args`` is a ``DefaultPreemptionArgs`` dict or None."""
    return DefaultPreemption(handle, default_preemption_args_from(args))


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_enqueue: type[interface.PreEnqueuePlugin] = DefaultPreemption
    _post_filter: type[interface.PostFilterPlugin] = DefaultPreemption
    _enqueue_extensions: type[interface.EnqueueExtensions] = DefaultPreemption
