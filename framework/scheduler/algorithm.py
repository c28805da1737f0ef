"""Choosing a node for one pod: filter, score, select — the heart of the scheduling cycle.

:meth:`SchedulingAlgorithm.schedule_pod` answers "which node?" for one pod
against one snapshot of the cluster:

1. **PreFilter** once; a rejection here rejects every node at once.
2. If the pod was **nominated** to a node by an earlier preemption, try that
   node alone first; with ``OpportunisticBatching`` (v1.35+), a pod whose
   signature matches the previous pod's tries the next node of that pod's
   sorted list the same way (:mod:`framework.runtime.batch`).
3. **Filter** the nodes, starting where the previous pod's search stopped
   (round robin, so every node gets its turn) and stopping as soon as
   *enough* feasible nodes are found — in a big cluster, scoring every node
   costs more than it gains (:func:`num_feasible_nodes_to_find`).
4. **One feasible node** is the answer, without scoring.
5. Otherwise **PreScore** and **Score** the feasible nodes and **select** one
   of the best at random (reservoir sampling, from an injected RNG so a seed
   reproduces a run). With batching, the other scored nodes are kept for the
   next pod, best first and in a random order among equal totals, as Go's
   heap of scores (v1.35+) pops them (:meth:`SchedulingAlgorithm.rank_kept_list`).

When no node fits, :class:`FitError` carries the diagnosis, and its message
is exactly kube-scheduler's: ``0/3 nodes are available: 1 Insufficient cpu,
2 node(s) had untolerated taint {...}.``

Mirrors ``schedulePod``, ``findNodesThatFitPod``, ``evaluateNominatedNode``,
``findNodesThatPassFilters``, ``numFeasibleNodesToFind``, ``prioritizeNodes``
and ``selectHost`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``,
(v1.33, with v1.35's ``GetNodeHint``/``StoreScheduleResults`` calls); ``FitError``
and ``Diagnosis`` are in :mod:`framework.interface`.
Extenders are consulted through :mod:`framework.scheduler.extenders`.
Simplified: nodes are filtered one after another in the
round-robin order instead of by 16 goroutines, which is one of the orders the
parallel search can produce; a PreFilterResult's nodes are taken in snapshot
order (Go iterates a set, in random order).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import overload

from framework.cache.snapshot import Snapshot
from framework.cycle_state import CycleState
from framework.extender.interface import Extender as SchedulerExtender  # config has one too
from framework.extender.interface import ExtenderError
from framework.featuregate import features_of
from framework.interface import Diagnosis, FitError, NodePluginScores
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.runtime.framework import Framework
from framework.scheduler.extenders import (
    add_extender_scores,
    filter_with_extenders,
    find_nodes_that_pass_extenders,
    has_extender_filters,
    has_scoring,
)
from framework.scheduler.scoring import EmptyPriorityListError, select_host
from framework.scheduler.tracing import SchedulingTracer
from framework.status import Code, Status

__all__ = [
    "ERR_NO_NODES_AVAILABLE",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT",
    "NoNodesAvailable",
    "RankedNodes",
    "ScheduleResult",
    "SchedulingAlgorithm",
    "SchedulingError",
    "name_totals",
    "num_feasible_nodes_to_find",
    "rank_by_total",
    "shuffle_ties",
]

OPPORTUNISTIC_BATCHING = "OpportunisticBatching"

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT = 3
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"


class SchedulingError(Exception):
    """The attempt failed for a reason that is not "no node fits" (a plugin error)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


class NoNodesAvailable(SchedulingError):
    """The snapshot has no nodes at all (``ErrNoNodesAvailable``)."""

    def __init__(self) -> None:
        super().__init__(Status.unresolvable(ERR_NO_NODES_AVAILABLE))


@dataclass(frozen=True, slots=True)
class ScheduleResult:
    """The chosen node, how many nodes were evaluated, and how many were feasible."""

    suggested_host: str
    evaluated_nodes: int
    feasible_nodes: int


def num_feasible_nodes_to_find(percentage_of_nodes_to_score: int, num_all_nodes: int) -> int:
    """How many feasible nodes are enough before the search stops.

    Below 100 nodes, all of them. Above, a percentage — by default (0) an
    adaptive one, 50 % minus 1 % per 125 nodes, at least 5 % — and never
    fewer than 100 nodes.

    >>> [num_feasible_nodes_to_find(0, n) for n in (50, 500, 1000, 5000, 6000)]
    [50, 230, 420, 500, 300]
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    percentage = percentage_of_nodes_to_score
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


class RankedNodes(Sequence[str]):
    """The scored nodes but the chosen one, highest total first: the list batching keeps.

    Sorted on first read, like Go's heap popped node by node: a pod that
    cannot be signed never needs the order, and sorting thousands of nodes
    for nothing would cost more than batching saves. ``rank`` returns the
    names in order (:meth:`SchedulingAlgorithm.rank_kept_list`: by total,
    and at random among equal totals, as Go's heap leaves them); ``length``
    is known without it.
    """

    def __init__(self, length: int, rank: Callable[[], list[str]]) -> None:
        self._length, self._rank = length, rank
        self._names: list[str] | None = None

    def _ranked(self) -> list[str]:
        if self._names is None:
            self._names = self._rank()
        return self._names

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self._ranked()[index]


def rank_by_total(scores: Sequence[NodePluginScores]) -> list[str]:
    """Node names by total score, highest first; equal totals keep their order."""
    ordered = sorted(scores, key=lambda node_scores: node_scores.total_score, reverse=True)
    return [node_scores.name for node_scores in ordered]


def name_totals(scores: Sequence[NodePluginScores]) -> list[tuple[str, int]]:
    """Each scored node's name and total, in order.

    The batch engine's scores hand the pairs over from their arrays
    (``BatchScores.name_totals``) without building a row per node.
    """
    from_arrays = getattr(scores, "name_totals", None)
    if from_arrays is not None:
        pairs: list[tuple[str, int]] = from_arrays()
        return pairs
    return [(s.name, s.total_score) for s in scores]


def shuffle_ties(ranked: list[str], totals: dict[str, int], rng: random.Random) -> list[str]:
    """``ranked`` (highest total first) with each run of equal totals in a random order.

    Go's ``nodeScoreHeap`` pops equal totals by their ``Randomizer``, or in
    the order the parallel Filter left them: in no fixed order. A uniform
    shuffle of each run is that, reproducibly.
    """
    out: list[str] = []
    start = 0
    while start < len(ranked):
        end = start + 1
        while end < len(ranked) and totals[ranked[end]] == totals[ranked[start]]:
            end += 1
        run = ranked[start:end]
        if len(run) > 1:
            rng.shuffle(run)
        out.extend(run)
        start = end
    return out


class SchedulingAlgorithm:
    """The node-choosing half of the scheduler, with the state that outlives one pod.

    ``next_start_node_index`` is where the next search starts; ``rng``
    breaks ties between equally scored nodes; ``extenders`` are consulted
    after the Filter and Score plugins.
    """

    def __init__(
        self,
        percentage_of_nodes_to_score: int = 0,
        rng: random.Random | None = None,
        extenders: list[SchedulerExtender] | None = None,
    ) -> None:
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.rng = rng or random.Random()
        self.extenders = extenders or []
        self.next_start_node_index = 0
        # Ties in batching's kept list are broken by a draw of their own, seeded from the run's
        # RNG without advancing it: the choice of hosts stays what it was for every seed.
        peek = random.Random()
        peek.setstate(self.rng.getstate())
        self._tie_salt = peek.getrandbits(64)
        #: The scheduler's current cycle (the queue's count), which batching compares across pods.
        self.cycle_source: Callable[[], int] | None = None
        self._cycles = 0
        #: Told each node's Filter status and the scores, for the simulator's trace (None costs nothing).
        self.tracer: SchedulingTracer | None = None

    def schedule_pod(
        self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot
    ) -> ScheduleResult:
        """Choose a node; raise :class:`FitError` if none fits, :class:`SchedulingError` on errors."""
        all_nodes = snapshot.list()  # the Snapshot is its own NodeInfoLister
        if not all_nodes:
            raise NoNodesAvailable()
        cycle = self.current_cycle()
        feasible, diagnosis, hint, signature = self.find_nodes_that_fit_pod(
            fwk, state, pod, snapshot, all_nodes, cycle
        )
        if not feasible:
            raise FitError(pod, len(all_nodes), diagnosis)
        batching = features_of(fwk).enabled(OPPORTUNISTIC_BATCHING)
        if len(feasible) == 1:
            if batching:
                fwk.store_schedule_results(signature, hint, feasible[0].name, None, cycle)
            return ScheduleResult(feasible[0].name, 1 + len(diagnosis.node_to_status), 1)
        scores = self.prioritize_nodes(fwk, state, pod, feasible)
        if self.tracer is not None:
            self.tracer.nodes_scored(fwk, scores)
        host, _ = self.select_host(scores, NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT)
        if batching:
            others = RankedNodes(
                len(scores) - 1,  # the chosen node is one of them
                lambda: self.rank_kept_list(scores, host, cycle),
            )
            fwk.store_schedule_results(signature, hint, host, others, cycle)
        return ScheduleResult(host, len(feasible) + len(diagnosis.node_to_status), len(feasible))

    def current_cycle(self) -> int:
        """The scheduling cycle this pod is in: the queue's count, or this algorithm's own."""
        if self.cycle_source is not None:
            return self.cycle_source()
        self._cycles += 1
        return self._cycles

    def find_nodes_that_fit_pod(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        snapshot: Snapshot,
        all_nodes: list[NodeInfo],
        cycle: int = 0,
    ) -> tuple[list[NodeInfo], Diagnosis, str, str | None]:
        """The feasible nodes and why the others failed; with batching on, the hint and signature too."""
        diagnosis = Diagnosis()
        pre_result, status, narrowing = fwk.run_pre_filter_plugins(state, pod, all_nodes)
        diagnosis.unschedulable_plugins = set(narrowing)
        if not status.is_success():
            if not status.is_rejected():
                raise SchedulingError(status)
            diagnosis.node_to_status.set_absent_nodes_status(status)
            diagnosis.pre_filter_msg = status.message()
            diagnosis.add_plugin_status(status)
            return [], diagnosis, "", None

        hint, signature = "", None
        if features_of(fwk).enabled(OPPORTUNISTIC_BATCHING):
            # Asked even for a nominated pod, as Go does (the nomination wins below).
            hint, signature = fwk.get_node_hint(state, pod, cycle)

        # A nominated node (from an earlier preemption), or else the hint, is tried alone first.
        first = pod.status.nominated_node_name or hint
        if first:
            nominated = self._evaluate_nominated_node(fwk, state, pod, snapshot, diagnosis, first)
            if nominated:
                return nominated, diagnosis, hint, signature

        nodes = all_nodes
        if pre_result is not None and not pre_result.all_nodes():
            # Looked up by name, as Go does: a DaemonSet pod's one node costs one lookup.
            nodes = snapshot.in_list_order(pre_result.node_names or ())
            diagnosis.node_to_status.set_absent_nodes_status(
                Status.unresolvable(
                    f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(narrowing))}]"
                )
            )
        feasible: list[NodeInfo] = []
        try:
            feasible = self.find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes)
        finally:
            # Move the start even after an error, so that every node gets searched in turn.
            processed = len(feasible) + len(diagnosis.node_to_status)
            self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        return self._filter_with_extenders(pod, feasible, diagnosis), diagnosis, hint, signature

    def _filter_with_extenders(
        self, pod: Pod, feasible: list[NodeInfo], diagnosis: Diagnosis
    ) -> list[NodeInfo]:
        try:
            return filter_with_extenders(self.extenders, pod, feasible, diagnosis)
        except ExtenderError as error:  # a non-ignorable extender failed: this attempt fails
            raise SchedulingError(Status.as_error(error)) from error

    def _evaluate_nominated_node(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        snapshot: Snapshot,
        diagnosis: Diagnosis,
        node_name: str,
    ) -> list[NodeInfo]:
        try:
            node_info = snapshot.get(node_name)
        except LookupError:
            return []
        try:
            feasible = self.find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [node_info])
            return find_nodes_that_pass_extenders(
                self.extenders, pod, feasible, diagnosis.node_to_status
            )
        except (SchedulingError, ExtenderError):
            return []  # kube logs the error and goes on with the full search

    def num_nodes_to_find(self, fwk: Framework, num_all_nodes: int) -> int:
        """How many feasible nodes this search looks for: the profile's share, or 1 with nothing to score."""
        percentage = fwk.percentage_of_nodes_to_score
        if percentage is None:
            percentage = self.percentage_of_nodes_to_score
        if not has_extender_filters(self.extenders) and not has_scoring(fwk, self.extenders):
            return 1  # nothing to compare nodes by: the first feasible one will do
        return num_feasible_nodes_to_find(percentage, num_all_nodes)

    def find_nodes_that_pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: list[NodeInfo],
    ) -> list[NodeInfo]:
        """Filter nodes in round-robin order until enough are feasible; record why the others failed."""
        num_all = len(nodes)
        if num_all == 0:
            return []
        to_find = self.num_nodes_to_find(fwk, num_all)
        start = self.next_start_node_index
        tracer = self.tracer
        if not fwk.has_filter_plugins():
            chosen = [nodes[(start + i) % num_all] for i in range(min(to_find, num_all))]
            if tracer is not None:
                for node_info in chosen:
                    tracer.node_filtered(fwk, state, node_info.name, Status.success())
            return chosen
        feasible = []
        for i in range(num_all):
            node_info = nodes[(start + i) % num_all]
            status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)
            if tracer is not None:
                tracer.node_filtered(fwk, state, node_info.name, status)
            if status.code is Code.ERROR:
                raise SchedulingError(status)
            if status.is_success():
                feasible.append(node_info)
                if len(feasible) >= to_find:
                    break
            else:
                diagnosis.node_to_status.set(node_info.name, status)
                diagnosis.add_plugin_status(status)
        return feasible

    def prioritize_nodes(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> list[NodePluginScores]:
        """Every feasible node's total score (1 each when there is nothing to score by)."""
        if not has_scoring(fwk, self.extenders):
            return [NodePluginScores(n.name, total_score=1) for n in nodes]
        status = fwk.run_pre_score_plugins(state, pod, nodes)
        if not status.is_success():
            raise SchedulingError(status)
        scores, status = fwk.run_score_plugins(state, pod, nodes)
        if not status.is_success():
            raise SchedulingError(status)
        add_extender_scores(self.extenders, pod, nodes, scores)
        return scores

    def rank_kept_list(
        self, scores: Sequence[NodePluginScores], host: str, cycle: int
    ) -> list[str]:
        """The list batching keeps: every scored node but ``host``, as Go's heap pops them.

        Highest total first (:meth:`rank_by_total`), equal totals in a random
        order (:func:`shuffle_ties`) drawn from this cycle's own RNG, seeded
        from the run's seed and the cycle: the same seed gives the same order,
        whichever engine ranked the totals, and the host choices are untouched.
        """
        ranked = [name for name in self.rank_by_total(scores) if name != host]
        totals = dict(name_totals(scores))
        return shuffle_ties(ranked, totals, random.Random(f"{self._tie_salt}/{cycle}"))

    def rank_by_total(self, scores: Sequence[NodePluginScores]) -> list[str]:
        """Node names by total, highest first (:func:`rank_by_total`); the batch engine reads arrays."""
        return rank_by_total(scores)

    def select_host(
        self, scores: list[NodePluginScores], count: int
    ) -> tuple[str, list[NodePluginScores]]:
        """One of the highest-scored nodes, uniformly at random, and the top ``count`` for reports.

        :func:`framework.scheduler.scoring.select_host` with this algorithm's
        RNG; no scores at all is a :class:`SchedulingError`.
        """
        try:
            return select_host(scores, count, self.rng)
        except EmptyPriorityListError as error:
            raise SchedulingError(Status.as_error(error)) from error
