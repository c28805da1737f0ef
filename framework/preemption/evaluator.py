"""The preemption evaluator: find nodes where evicting lower-priority pods makes room, pick one, evict.

When no node passes Filter, DefaultPreemption's PostFilter calls
:meth:`Evaluator.preempt`, which runs these steps (each a method here,
named as in Kubernetes):

0. read the **latest** version of the pod (it may have been nominated
   meanwhile);
1. ask whether the pod is **eligible** to preempt at all
   (``pod_eligible_to_preempt_others``: not with ``preemptionPolicy:
   Never``, nor while victims it already chose are still terminating);
2. :meth:`~Evaluator.find_candidates`: the nodes whose Filter status was
   ``Unschedulable`` (an ``UnschedulableAndUnresolvable`` node cannot be
   fixed by evicting pods), tried in :meth:`~Evaluator.dry_run_preemption`
   from a **random offset**, each on a *copy* of its NodeInfo and of the
   CycleState, until enough candidates are found;
3. :meth:`~Evaluator.call_extenders`: the extenders
   that take part in preemption may drop candidates or change victims;
4. :meth:`~Evaluator.select_candidate`: the best candidate
   (:func:`~framework.preemption.pick_one_node.pick_one_node_for_preemption`);
5. :meth:`~Evaluator.prepare_candidate`: evict the victims — a victim
   waiting at Permit is rejected, any other gets the ``DisruptionTarget``
   condition and is deleted — and clear the nomination of lower-priority
   pods nominated to the same node.

The result nominates the node (``ModeOverride``); the pod's attempt still
fails, and it tries again once the victims are gone. When no candidate is
found the message is a FitError over the dry run's statuses, in which
every node not tried reads "Preemption is not helpful for scheduling".

What is specific to one preemption plugin (how victims are chosen on a
node, who is eligible, how many candidates) comes from the plugin, through
the :class:`PreemptionInterface` it implements.

Mirrors ``Evaluator``, ``Interface``, ``NewEvaluator`` (``PreemptPod``),
``Preempt``, ``findCandidates``, ``callExtenders``, ``DryRunPreemption``, ``SelectCandidate``,
``prepareCandidate``, ``prepareCandidateAsync``, ``IsPodRunningPreemption``,
``getLowerPriorityNominatedPods`` and ``getPodDisruptionBudgets`` in
``kubernetes/kubernetes:pkg/scheduler/framework/preemption/preemption.go``
(v1.33). Differences:

* **Async preemption** (``SchedulerAsyncPreemption``, beta and on by
  default in v1.33) makes the API calls of step 5 on a goroutine and keeps
  the preemptor out of activeQ (DefaultPreemption's PreEnqueue) until they
  are done. Here that work is handed to ``run_async``, which by default
  runs it at once, on the scheduling thread: the interleaving in which the
  goroutine finishes before the cycle does. Deterministic, and a test can
  pass a ``run_async`` that holds the work back to see the gate. (Later
  releases also keep the gate closed until the last victim's deletion has
  started, and make no API call for a victim already being deleted.)
* The dry run visits nodes one after another from the offset (Go spreads
  them over 16 goroutines, so which nodes it sees past the stopping point
  varies); candidates keep the order they were found in, which is what
  criterion 6 of :func:`pick_one_node_for_preemption` sees (Go: map order).
* The latest pod and the PDBs are read from the API server (the handle's
  client), where kube-scheduler reads its informers' caches.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from framework import util
from framework.apiserver.errors import APIError, NotFound
from framework.apiserver.pods import update_pod_condition
from framework.clock import rfc3339
from framework.cycle_state import CycleState
from framework.extender.interface import ExtenderError
from framework.extender.types import Victims
from framework.interface import Diagnosis, FitError, NodeToStatus, PostFilterResult
from framework.node_info import NodeInfo
from framework.objects import Pod, PodCondition, PodDisruptionBudget, pod_priority
from framework.objects.errors import aggregate
from framework.preemption.candidate import Candidate, CandidateList
from framework.preemption.pick_one_node import ScoreFunc, pick_one_node_for_preemption
from framework.status import Code, Status
from framework.types import NominatingInfo, NominatingMode

__all__ = [
    "DISRUPTION_TARGET",
    "MSG_NO_CANDIDATE",
    "MSG_PREEMPTED",
    "MSG_PREEMPTING",
    "MSG_PREEMPTION_NOT_HELPFUL",
    "REASON_PREEMPTION_BY_SCHEDULER",
    "CandidateFinder",
    "Evaluator",
    "PreemptionError",
    "PreemptionInterface",
    "get_lower_priority_nominated_pods",
    "get_pod_disruption_budgets",
]

logger = logging.getLogger(__name__)

DISRUPTION_TARGET = "DisruptionTarget"
"""The pod condition a victim gets before it is deleted (``v1.DisruptionTarget``)."""
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
MSG_PREEMPTING = "{scheduler}: preempting to accommodate a higher priority pod"
"""The DisruptionTarget condition's message; ``scheduler`` is the preemptor's schedulerName."""
MSG_PREEMPTED = "preempted"
"""What a victim waiting at Permit is rejected with."""
MSG_PREEMPTED_EVENT = "Preempted by pod {uid} on node {node}"
MSG_PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NO_CANDIDATE = "no candidate node for preemption"


def disrupt_and_delete(client: Any, victim: Pod, preemptor: Pod, now: float) -> bool:
    """Give the victim ``DisruptionTarget=True``, then delete it; False if it was already gone.

    The part of ``PreemptPod`` that writes to the API server, shared by
    DefaultPreemption and the preemption of pod groups.
    """
    condition = PodCondition(
        type=DISRUPTION_TARGET,
        status="True",
        reason=REASON_PREEMPTION_BY_SCHEDULER,
        message=MSG_PREEMPTING.format(scheduler=preemptor.spec.scheduler_name),
    )
    stamp = rfc3339(now)
    # UpdatePodCondition on the victim as the cache has it decides whether to write.
    if update_pod_condition(victim.status, condition, stamp) != victim.status:
        util.patch_pod_status(
            client, victim, lambda status: update_pod_condition(status, condition, stamp)
        )
    try:
        util.delete_pod(client, victim)
    except NotFound:
        logger.info("victim %s is already deleted", victim.key)
        return False
    return True


class PreemptionError(Exception):
    """A preemption step failed for a reason other than "no room" (an API error, a plugin error)."""


class PreemptionInterface(Protocol):
    """What a preemption plugin decides; the :class:`Evaluator` does the rest (``Interface``)."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random offset into the potential nodes, and how many candidates to look for."""
        ...

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        """Node name to its victims."""
        ...

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status
    ) -> tuple[bool, str]:
        """Whether the pod may preempt now, and why not."""
        ...

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status]:
        """The fewest pods to evict from this (copied) node; ``state`` is a copy too."""
        ...

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> list[ScoreFunc]:
        """Criteria to pick the node with; empty for the default six."""
        ...


CandidateFinder = Callable[
    [CycleState, Sequence[NodeInfo], Pod, NodeToStatus],
    tuple[list[Candidate], NodeToStatus | None, PreemptionError | None],
]
"""``(state, all_nodes, pod, statuses)``: :meth:`Evaluator.find_candidates`'s signature."""


def get_pod_disruption_budgets(client: Any) -> list[PodDisruptionBudget]:
    """Every PDB of the cluster (``getPodDisruptionBudgets``); none without a client."""
    if client is None:
        return []
    return list(client.list(PodDisruptionBudget).items)


def get_lower_priority_nominated_pods(handle: Any, pod: Pod, node_name: str) -> list[Pod]:
    """Pods nominated to ``node_name`` with a priority below ``pod``'s.

    Once ``pod`` takes the room on that node they may not fit any more;
    Kubernetes does not check, it clears their nominations.
    """
    priority = pod_priority(pod)
    return [
        info.pod
        for info in handle.nominated_pods_for_node(node_name)
        if pod_priority(info.pod) < priority
    ]


def _aggregate(errors: Sequence[BaseException]) -> PreemptionError | None:
    """``utilerrors.NewAggregate``, as a PreemptionError; None when there are no errors."""
    return PreemptionError(aggregate(errors)) if errors else None


def _run_now(work: Callable[[], None]) -> None:
    work()


class Evaluator:
    """Preemption for one plugin: the steps of the module docstring, on the plugin's handle.

    ``enable_async_preemption`` plays the ``SchedulerAsyncPreemption`` gate
    (on in v1.33); ``run_async`` runs the asynchronous part (default: at
    once, see the module docstring).
    """

    def __init__(
        self,
        plugin_name: str,
        handle: Any,
        interface: PreemptionInterface,
        *,
        enable_async_preemption: bool = True,
        run_async: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.enable_async_preemption = enable_async_preemption
        self._run_async = run_async or _run_now
        #: Where the PDBs come from (``PdbLister``); tests replace it to give budgets any status.
        self.pdb_lister: Callable[[], list[PodDisruptionBudget]] = lambda: (
            get_pod_disruption_budgets(self.handle.client())
        )
        #: Where :meth:`preempt` finds the candidates: :meth:`find_candidates`, unless the batch
        #: engine put its own here (:mod:`framework.batch.preemption`: the same candidates and
        #: statuses, from its arrays). Tests may replace it as they replace ``pdb_lister``.
        self.candidate_finder: CandidateFinder = self.find_candidates
        self._lock = threading.Lock()
        self._preempting: set[str] = set()

    # --- step 0 to 5 ---------------------------------------------------------------------------

    def preempt(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """Preempt for ``pod``: a nomination and Success, or why not.

        ``(None, Error)`` is a transient failure and ``(None, Unschedulable)``
        "not now" (both keep the pod's nomination as it is);
        ``(result, Unschedulable)`` means preemption cannot help, and the
        result clears the nomination.
        """
        client = self.handle.client()
        if client is not None:
            try:
                pod = client.get(Pod, pod.name, namespace=pod.namespace)
            except APIError as read_error:
                return None, Status.as_error(read_error)

        nominated_status = statuses.get(pod.status.nominated_node_name)
        eligible, message = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not eligible:
            return None, Status.unschedulable(message)

        all_nodes = list(self.handle.snapshot_shared_lister().node_infos().list())
        candidates, node_statuses, error = self.candidate_finder(state, all_nodes, pod, statuses)
        if error is not None and not candidates:
            return None, Status.as_error(error)
        if not candidates:
            assert node_statuses is not None
            fit_error = FitError(pod, len(all_nodes), Diagnosis(node_to_status=node_statuses))
            node_statuses.set_absent_nodes_status(Status.unresolvable(MSG_PREEMPTION_NOT_HELPFUL))
            clear = PostFilterResult(NominatingInfo("", NominatingMode.OVERRIDE))
            return clear, Status.unschedulable(str(fit_error))

        candidates, status = self.call_extenders(pod, candidates)
        if not status.is_success():
            return None, status

        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status.unschedulable(MSG_NO_CANDIDATE)

        if self.enable_async_preemption:
            self.prepare_candidate_async(best, pod, self.plugin_name)
        else:
            status = self.prepare_candidate(best, pod, self.plugin_name)
            if not status.is_success():
                return None, status
        return PostFilterResult(
            NominatingInfo(best.name, NominatingMode.OVERRIDE)
        ), Status.success()

    def find_candidates(
        self,
        state: CycleState,
        all_nodes: Sequence[NodeInfo],
        pod: Pod,
        statuses: NodeToStatus,
    ) -> tuple[list[Candidate], NodeToStatus | None, PreemptionError | None]:
        """Dry-run preemption on the nodes where it might help (``findCandidates``)."""
        if not all_nodes:
            return [], None, PreemptionError("no nodes available")
        potential = statuses.nodes_for_status_code(all_nodes, Code.UNSCHEDULABLE)
        if not potential:
            return [], NodeToStatus(), None
        pdbs = self.pdb_lister()
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num_candidates)

    def dry_run_preemption(
        self,
        state: CycleState,
        pod: Pod,
        potential_nodes: Sequence[NodeInfo],
        pdbs: Sequence[PodDisruptionBudget],
        offset: int,
        num_candidates: int,
    ) -> tuple[list[Candidate], NodeToStatus, PreemptionError | None]:
        """Try nodes from ``offset`` (wrapping) until enough candidates are found.

        Stops once there is at least one candidate violating no PDB and at
        least ``num_candidates`` in all; candidates that violate none come
        first. Each node is tried on a copy of its NodeInfo and of ``state``.
        Returns the candidates, the status of every node tried that is not
        one, and the errors met on the way.
        """
        non_violating = CandidateList(num_candidates)
        violating = CandidateList(num_candidates)
        node_statuses = NodeToStatus()
        errors: list[BaseException] = []
        select_victims_on_node = self.interface.select_victims_on_node
        # DefaultPreemption answers a node without lower-priority pods before any copy.
        without_victims = getattr(self.interface, "without_victims", None)
        num_nodes = len(potential_nodes)
        for i in range(num_nodes):
            original = potential_nodes[(offset + i) % num_nodes]
            answer = without_victims(original, pod) if without_victims is not None else None
            if answer is not None:
                node_statuses.set(original.name, answer)
                continue
            node_info = original.clone()
            state_copy = state.clone()
            pods, num_violations, status = select_victims_on_node(state_copy, pod, node_info, pdbs)
            # Most nodes end here, without victims: this loop may visit every node.
            if status.code is not Code.SUCCESS:
                if status.code is Code.ERROR:
                    errors.append(status.error or PreemptionError(status.message()))
                node_statuses.set(node_info.name, status)
                continue
            if pods:
                candidate = Candidate(node_info.name, Victims(tuple(pods), num_violations))
                (violating if num_violations else non_violating).add(candidate)
                found_non_violating, found_all = (
                    len(non_violating),
                    len(non_violating) + len(violating),
                )
                if found_non_violating > 0 and found_all >= num_candidates:
                    break
                continue
            error = PreemptionError(f'expected at least one victim pod on node "{node_info.name}"')
            errors.append(error)
            node_statuses.set(node_info.name, Status.as_error(error))
        return non_violating.get() + violating.get(), node_statuses, _aggregate(errors)

    def call_extenders(
        self, pod: Pod, candidates: Sequence[Candidate]
    ) -> tuple[list[Candidate], Status]:
        """The candidates after every interested extender that preempts has trimmed them.

        Go's ``callExtenders``: each extender that supports preemption and is
        interested in the pod gets the victims map and answers with its own,
        which may drop nodes or change their victims. An extender that fails
        is skipped when ignorable; otherwise the attempt ends with its error.
        A node left without victims is an error too (or dropped, when the
        extender is ignorable). Once no node is left, no later extender can
        add one back.
        """
        extenders = self.handle.extenders() if hasattr(self.handle, "extenders") else []
        if not extenders:
            return list(candidates), Status.success()
        victims_map = self.interface.candidates_to_victims_map(candidates)
        if not victims_map:
            return list(candidates), Status.success()
        node_infos = self.handle.snapshot_shared_lister().node_infos()
        for extender in extenders:
            if not extender.supports_preemption() or not extender.is_interested(pod):
                continue
            try:
                node_to_victims = extender.process_preemption(pod, victims_map, node_infos)
            except Exception as error:
                if extender.is_ignorable():
                    logger.info(
                        "Skipped extender %s as it returned error and has ignorable flag set: %s",
                        extender.name(),
                        error,
                    )
                    continue
                return [], Status.as_error(error)
            for node_name, victims in list(node_to_victims.items()):
                if victims is None or not victims.pods:
                    if extender.is_ignorable():
                        del node_to_victims[node_name]
                        continue
                    return [], Status.as_error(
                        ExtenderError(f'expected at least one victim pod on node "{node_name}"')
                    )
            victims_map = node_to_victims
            if not victims_map:
                break
        return [
            Candidate(name, victims) for name, victims in victims_map.items()
        ], Status.success()

    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """The best candidate (``SelectCandidate``); the only one, when there is one."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims_map = self.interface.candidates_to_victims_map(candidates)
        score_funcs = self.interface.ordered_score_funcs(victims_map)
        node = pick_one_node_for_preemption(victims_map, self.handle.clock().now(), score_funcs)
        if node in victims_map:
            return Candidate(node, victims_map[node])
        logger.error("no candidate selected among %s; taking the first", candidates)
        return candidates[0]

    # --- evicting -------------------------------------------------------------------------------

    def preempt_pod(
        self, candidate: Candidate, preemptor: Pod, victim: Pod, plugin_name: str
    ) -> None:
        """Evict one victim (``PreemptPod``); raise :class:`~framework.apiserver.errors.APIError`.

        A victim waiting at Permit is rejected (its binding cycle fails);
        any other gets ``DisruptionTarget=True`` (reason
        ``PreemptionByScheduler``) and is deleted with its own grace
        period. Either way the victim gets a ``Preempted`` Event, unless it
        was already gone.
        """
        waiting = self.handle.get_waiting_pod(victim.metadata.uid)
        client = self.handle.client()
        if waiting is not None:
            waiting.reject(plugin_name, MSG_PREEMPTED)
        elif client is None:
            # A framework built without an API client (a unit test): nothing to write to.
            logger.warning("no API client: victim %s is not evicted", victim.key)
            return
        elif not disrupt_and_delete(client, victim, preemptor, self.handle.clock().now()):
            return
        recorder = self.handle.event_recorder()
        if recorder is not None:
            message = MSG_PREEMPTED_EVENT.format(uid=preemptor.metadata.uid, node=candidate.name)
            recorder.event(victim, "Normal", "Preempted", "Preempting", message)

    def prepare_candidate(self, candidate: Candidate, pod: Pod, plugin_name: str) -> Status:
        """Evict the victims, then clear lower-priority nominations (``prepareCandidate``)."""
        for victim in candidate.victims.pods:
            try:
                self.preempt_pod(candidate, pod, victim, plugin_name)
            except APIError as error:
                return Status.as_error(error)  # Go cancels the other evictions too
        for failure in self._clear_lower_priority_nominations(pod, candidate.name):
            logger.error("cannot clear 'NominatedNodeName' field: %s", failure)
        return Status.success()

    def prepare_candidate_async(self, candidate: Candidate, pod: Pod, plugin_name: str) -> None:
        """What ``prepareCandidateAsync`` does on its goroutine, handed to ``run_async``.

        The pod is marked as preempting (DefaultPreemption's PreEnqueue
        keeps it out of activeQ meanwhile); lower-priority nominations are
        cleared first; every victim but the last is evicted; the mark is
        removed *before* the last victim goes, so that the last deletion's
        event finds the pod free to move. On any error the pod is activated,
        lest it wait among the unschedulable pods for an event that came.
        """
        victims = candidate.victims.pods
        uid = pod.metadata.uid
        with self._lock:
            self._preempting.add(uid)

        def work() -> None:
            failed = False
            try:
                errors = self._clear_lower_priority_nominations(pod, candidate.name)
                for error in errors:
                    logger.error("cannot clear 'NominatedNodeName' field: %s", error)
                failed = bool(errors)
                if not victims:
                    return
                for victim in victims[:-1]:
                    try:
                        self.preempt_pod(candidate, pod, victim, plugin_name)
                    except APIError as error:
                        logger.error("error occurred during async preemption: %s", error)
                        failed = True
                        break  # Go cancels the other evictions of this batch
                self._done_preempting(uid)
                try:
                    self.preempt_pod(candidate, pod, victims[-1], plugin_name)
                except APIError as error:
                    logger.error("error occurred during async preemption: %s", error)
                    failed = True
            finally:
                self._done_preempting(uid)
                if failed:
                    self.handle.activate([pod])

        self._run_async(work)

    def _clear_lower_priority_nominations(self, pod: Pod, node_name: str) -> list[APIError]:
        """Clear the nomination of lower-priority pods nominated to ``node_name``; the errors."""
        client = self.handle.client()
        if client is None:
            return []
        nominated = get_lower_priority_nominated_pods(self.handle, pod, node_name)
        return util.clear_nominated_node_name(client, nominated)

    def _done_preempting(self, uid: str) -> None:
        with self._lock:
            self._preempting.discard(uid)

    def is_pod_running_preemption(self, uid: str) -> bool:
        """Whether the pod's asynchronous preemption is still under way (``IsPodRunningPreemption``)."""
        with self._lock:
            return uid in self._preempting
