"""Chapter 9 exercise: DefaultPreemption's dry run on one node, ``SelectVictimsOnNode``.

Preemption asks of each candidate node: which of its pods, at the least,
would have to go for the preemptor to fit? The procedure around that
question is the framework's (:class:`~framework.preemption.evaluator.Evaluator`:
the candidate nodes, the random offset, picking one node, evicting), and
the rest of the plugin is written out below for you (who may preempt, whom
it may evict, how many candidates to look for). This file stands alone: it
imports nothing of the reference plugin, so neither deleting your method
nor asking a parent class answers for you. You write the answer for one
node, :meth:`DefaultPreemption.select_victims_on_node`:

1. remove from the (copied) node every pod the preemptor may preempt
   (strictly lower priority); if there is none, the node is no candidate;
2. check that the preemptor fits now; if it does not, even with all of them
   gone, the node is no candidate either;
3. put the pods back one at a time (*reprieve* them), those whose eviction
   would break a PodDisruptionBudget first, the most important first within
   each group; a pod the preemptor no longer fits with is taken off again
   and becomes a victim;
4. return the victims, most important first, and how many of them break a
   budget.

Then check it::

    python -m pytest chapters/09_preemption --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/defaultpreemption/plugin.py``. Stuck?
``python -m framework hint 9`` shows the hints one at a time.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

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
from framework.interface import NodeToStatus, PostFilterResult
from framework.node_info import NodeInfo
from framework.objects import Pod, PodDisruptionBudget, pod_priority
from framework.objects.labels import SelectorError, label_selector_as_selector
from framework.plugins import names
from framework.preemption.candidate import Candidate, Victims
from framework.preemption.evaluator import (
    DISRUPTION_TARGET,
    REASON_PREEMPTION_BY_SCHEDULER,
    Evaluator,
    PreemptionError,
)
from framework.preemption.pick_one_node import ScoreFunc
from framework.status import Code, Status, as_status
from framework.types import PodInfo
from framework.util import more_important_pod

__all__ = [
    "MSG_NO_VICTIMS",
    "NAME",
    "DefaultPreemption",
    "filter_pods_with_pdb_violation",
    "new",
]

# --- given: the plugin's names, messages and the PodDisruptionBudget split -----------------------

NAME = names.DEFAULT_PREEMPTION
ENABLE_ASYNC_PREEMPTION = True
"""``SchedulerAsyncPreemption``: beta and on by default in v1.33."""

MSG_NO_VICTIMS = "No preemption victims found for incoming pod"
MSG_NOT_ELIGIBLE_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
MSG_WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"

IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Pod], bool]
MoreImportantPodFunc = Callable[[Pod, Pod], bool]


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


def filter_pods_with_pdb_violation(
    pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """``(violating, non_violating)``, each in the order given (the function is stable)."""
    allowed = [pdb.status.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pod_info in pod_infos:
        pod = pod_info.pod
        violated = False
        if pod.metadata.labels:  # a pod without labels matches no budget
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                try:
                    selector = label_selector_as_selector(pdb.spec.selector)
                except SelectorError:
                    continue  # an invalid selector matches nothing
                if selector.empty() or not selector.matches(pod.metadata.labels):
                    continue
                if pod.name in pdb.status.disrupted_pods:
                    continue  # already counted by the Eviction API: spending again would over-count
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod_info)
    return violating, non_violating


# --- the plugin: everything but the dry run on one node is given ---------------------------------


class DefaultPreemption:
    """The PostFilter (and PreEnqueue) plugin; you write :meth:`select_victims_on_node`.

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

    # --- given: the three moves of the dry run on one node, and the order -----------------------

    def remove_from_node(
        self, state: CycleState, pod: Pod, victim: PodInfo, node_info: NodeInfo
    ) -> Status:
        """Take ``victim`` off the copied node and tell the PreFilter extensions (``removePod``).

        The extensions keep the cycle state in step with the node: InterPodAffinity,
        for instance, forgets the victim's anti-affinity terms. Anything but
        success is an error to return as it is.
        """
        if not node_info.remove_pod(victim.pod):
            return Status.as_error(
                PreemptionError(
                    f"no corresponding pod {victim.pod.name} in pods of node {node_info.name}"
                )
            )
        return as_status(
            self._handle.run_pre_filter_extension_remove_pod(state, pod, victim, node_info)
        )

    def add_to_node(
        self, state: CycleState, pod: Pod, victim: PodInfo, node_info: NodeInfo
    ) -> Status:
        """Put ``victim`` back on the copied node and tell the PreFilter extensions (``addPod``)."""
        node_info.add_pod(victim)
        return as_status(
            self._handle.run_pre_filter_extension_add_pod(state, pod, victim, node_info)
        )

    def fits(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter ``pod`` on the node as it is now, with the pods nominated to it.

        ``RunFilterPluginsWithNominatedPods``: success, or the status of the
        Filter plugin that rejected the pod.
        """
        return as_status(
            self._handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        )

    def importance(self) -> Callable[[PodInfo], Any]:
        """A sort key that puts the more important pods first (``self.more_important_pod``).

        Ties keep their current order (``sorted`` is stable).
        """

        def compare(a: PodInfo, b: PodInfo) -> int:
            if self.more_important_pod(a.pod, b.pod):
                return -1
            if self.more_important_pod(b.pod, a.pod):
                return 1
            return 0

        return functools.cmp_to_key(compare)

    # --- yours ------------------------------------------------------------------------------------

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status]:
        """The fewest pods to evict from ``node_info`` for ``pod`` to fit, and how many break a PDB.

        ``node_info`` and ``state`` are copies: change them freely. Return
        ``(victims, number of PDB-violating victims, status)``:

        * ``([], 0, Status.unresolvable(MSG_NO_VICTIMS))`` when no pod here may be preempted;
        * ``([], 0, status)`` with the Filter status when even removing all of them
          is not enough, or with the Error a helper returned;
        * ``(victims most important first, violations, Status.success())`` otherwise.

        You have: ``node_info.pods`` (the node's PodInfos), ``self.is_preemption_allowed(
        node_info, pod_info, pod)``, the helpers above, ``filter_pods_with_pdb_violation(
        pod_infos, pdbs)`` (returns ``(violating, non_violating)``, each in the order given)
        and ``sorted(..., key=self.importance())``.
        """
        # TODO 1: collect the pod infos the preemptor may preempt; remove each from the node
        #         (an error status from a helper is the answer, with no victims). None at
        #         all: ([], 0, Status.unresolvable(MSG_NO_VICTIMS)).
        # TODO 2: does the preemptor fit now? If not, this node is no candidate: return the
        #         status self.fits gave.
        # TODO 3: sort the potential victims most important first and split them by PDB
        #         violation.
        # TODO 4: reprieve: add each back (violating ones first) and check the fit; if the pod
        #         no longer fits, remove it again and make it a victim. Count the victims of
        #         the violating group.
        # TODO 5: victims most important first (when both groups gave some, sort again), as
        #         Pods, not PodInfos.
        raise NotImplementedError(
            "chapter 9 exercise: write DefaultPreemption.select_victims_on_node in "
            "chapters/09_preemption/exercise.py (hints: python -m framework hint 9)"
        )


def new(args: Any, handle: Any) -> DefaultPreemption:
    """The factory the registry calls: your plugin, under the name DefaultPreemption. (Given.)"""
    return DefaultPreemption(handle, default_preemption_args_from(args))
