"""The batch engine: the reference's search, with arrays where the reference calls per node.

:class:`BatchSchedulingAlgorithm` is a
:class:`~framework.scheduler.algorithm.SchedulingAlgorithm` that overrides
three steps of a cycle and keeps everything else (PreFilter, the nominated
node, extenders, the FitError, the bookkeeping of ``next_start_node_index``):

* **Filter**: every enabled Filter plugin's batch form
  (:mod:`framework.batch.forms`) marks the nodes it rejects and those it
  cannot decide, over a window of the nodes the search may reach (twice
  ``numFeasibleNodesToFind`` from ``next_start_node_index``; every node if
  that window might not hold enough). Then the search walks the nodes in the reference's
  round-robin order from ``next_start_node_index``, takes exactly the
  first ``numFeasibleNodesToFind`` feasible ones (filtering the undecided
  ones one by one with the reference runner as it reaches them), and stops
  where the reference stops. Each rejected node the walk passed gets its
  status from the reference runner itself, so the diagnosis — reasons,
  plugins, the FitError message, what preemption and requeueing read — is
  the reference's by construction.
* **Score**: PreScore as usual, then each Score plugin's scores as a column
  (its batch form, or its own ``score`` per node), NormalizeScore on the
  column, weights, and the totals, without building a ``NodePluginScores``
  per node (:class:`BatchScores` builds them only when asked, for a trace).
* **select_host**: the same reservoir draw over the tied nodes, in the
  same order, from the same RNG, so the random stream stays in step; the
  report of the best nodes is built only if it is read.

When a cycle is outside what the forms cover (a Filter plugin without a
batch form, a pod PreFilter narrowed to a few nodes, a value too large for
int64) the cycle runs the reference, and the algorithm's ``stats``
(:class:`EngineStats`) count why. When anything unusual happens while scoring (a plugin that
raises or returns an odd value), the reference scores the nodes again, so
its error statuses are the ones reported.

:class:`DifferentialSchedulingAlgorithm` (``--engine both``) runs both
engines in every cycle on the same inputs and raises
:class:`EngineMismatchError` at the first difference; what it returns is
the reference's.

Not in Kubernetes, whose plugins run per node on 16 goroutines
(``Parallelizer.Until``). Kubernetes v1.35's opportunistic batching
(KEP-5598) reuses one cycle's results for the next pods with the same
signature; this engine reuses between pods only what depends on a node
alone (the arrays, and Fit's and BalancedAllocation's per-node score
columns, :meth:`~framework.batch.arrays.NodeArrays.per_node`), and computes
every cycle's search, statuses and totals afresh.
"""

from __future__ import annotations

import random
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

import numpy as np

from framework.batch.arrays import IntArray, NodeArrays, NodeWindow
from framework.batch.forms import (
    FilterVerdict,
    ScoreVerdict,
    filter_form,
    normalize_constant,
    normalize_form,
    pre_score_form,
    pre_score_skip,
    reads_whole_arrays,
    score_form,
)
from framework.batch.preemption import (
    BatchCandidateFinder,
    ComparedCandidateFinder,
    attach_candidate_finders,
)
from framework.cache.snapshot import Snapshot
from framework.cycle_state import CycleState
from framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Diagnosis,
    NodePluginScores,
    NodeScore,
    PluginScore,
)
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.preemption.evaluator import Evaluator
from framework.runtime.framework import Framework
from framework.scheduler.algorithm import (
    ScheduleResult,
    SchedulingAlgorithm,
    SchedulingError,
)
from framework.scheduler.extenders import has_scoring
from framework.scheduler.scoring import EmptyPriorityListError
from framework.scheduler.tracing import SharedStatuses
from framework.status import Code, Status

__all__ = [
    "BatchSchedulingAlgorithm",
    "BatchScores",
    "DifferentialSchedulingAlgorithm",
    "EngineMismatchError",
    "EngineStats",
]

_T = TypeVar("_T")


_CLASS_SPAN = 2**40
"""Status classes: a Filter plugin's index times this, plus its reason class (below it)."""


class EngineMismatchError(AssertionError):
    """The batch engine and the reference decided differently: a bug in the batch engine."""


@dataclass(slots=True)
class EngineStats:
    """How many searches and scorings the batch engine did itself, and why it handed others over."""

    batch_filters: int = 0
    batch_scores: int = 0
    reference: Counter[str] = field(default_factory=Counter)

    def handed_over(self, why: str) -> None:
        self.reference[why] += 1


class BatchScores(Sequence[NodePluginScores]):
    """Each feasible node's weighted score per plugin and total, as arrays.

    Reads as the reference's ``list[NodePluginScores]`` (same names, same
    numbers, same order), building each entry only when it is read.
    """

    __slots__ = ("names", "plugins", "totals", "weighted")

    def __init__(
        self, names: Sequence[str], plugins: list[str], weighted: IntArray, totals: IntArray
    ) -> None:
        self.names = names
        self.plugins = plugins
        self.weighted = weighted  # plugins × nodes
        self.totals = totals

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> NodePluginScores: ...
    @overload
    def __getitem__(self, index: slice) -> list[NodePluginScores]: ...
    def __getitem__(self, index: int | slice) -> NodePluginScores | list[NodePluginScores]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        column = self.weighted[:, index].tolist()
        return NodePluginScores(
            self.names[index],
            [
                PluginScore(plugin, score)
                for plugin, score in zip(self.plugins, column, strict=True)
            ],
            int(self.totals[index]),
        )

    def __iter__(self) -> Iterator[NodePluginScores]:
        return (self[i] for i in range(len(self)))

    def name_totals(self) -> list[tuple[str, int]]:
        """Each node's name and total, in order, without building the entries (for a tracer)."""
        return list(zip(self.names, self.totals.tolist(), strict=True))


class _LazyNames(Sequence[str]):
    """The feasible nodes' names, read from the arrays one at a time until the whole list is wanted.

    A cycle reads one name (the chosen node's); a trace or a report reads them all.
    """

    __slots__ = ("_list", "_names", "_rows")

    def __init__(self, names: Any, rows: IntArray) -> None:
        self._names, self._rows = names, rows
        self._list: list[str] | None = None

    def _all(self) -> list[str]:
        if self._list is None:
            self._list = self._names[self._rows].tolist()
        return self._list

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice) or self._list is not None:
            return self._all()[index]
        name: str = self._names[self._rows[index]]
        return name

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())


class _Abnormal(Exception):
    """A plugin answered in a way the batch path does not reproduce: let the reference redo it."""


class BatchSchedulingAlgorithm(SchedulingAlgorithm):
    """The scheduling algorithm with the batch engine; see the module docstring."""

    engine = "batch"

    def __init__(
        self,
        percentage_of_nodes_to_score: int = 0,
        rng: random.Random | None = None,
        extenders: Any = None,
    ) -> None:
        super().__init__(percentage_of_nodes_to_score, rng, extenders)
        self.arrays = NodeArrays()
        self.stats = EngineStats()
        self._snapshot: Any = None
        # The feasible list the last batch Filter returned, and its rows in the arrays.
        self._feasible: list[NodeInfo] | None = None
        self._feasible_rows: IntArray = np.zeros(0, dtype=np.int64)
        # Per profile (a Framework, by identity): its Filter plugins and their forms; its Score
        # plugins' names and weights.
        self._filter_tables: weakref.WeakKeyDictionary[
            Framework, list[tuple[int, str, Any, Any, bool]]
        ] = weakref.WeakKeyDictionary()
        self._score_tables: weakref.WeakKeyDictionary[Framework, list[tuple[str, Any, int]]] = (
            weakref.WeakKeyDictionary()
        )
        # The profiles whose DefaultPreemption has this engine's candidate finder.
        self._preempting: weakref.WeakSet[Framework] = weakref.WeakSet()

    def schedule_pod(
        self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot
    ) -> ScheduleResult:
        """The reference's ``schedule_pod``, with the snapshot kept for the batch Filter."""
        if fwk not in self._preempting:
            self._preempting.add(fwk)
            attach_candidate_finders(fwk, self._candidate_finder)
        self._snapshot, self._feasible = snapshot, None
        try:
            return super().schedule_pod(fwk, state, pod, snapshot)
        finally:
            self._snapshot = self._feasible = None

    def _candidate_finder(self, evaluator: Evaluator) -> Callable[..., Any]:
        """DefaultPreemption's search for candidates over these arrays (:mod:`framework.batch.preemption`)."""
        return BatchCandidateFinder(evaluator, self.arrays)

    # --- Filter -----------------------------------------------------------------------------------

    def find_nodes_that_pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: list[NodeInfo],
    ) -> list[NodeInfo]:
        num_all = len(nodes)
        to_find = self.num_nodes_to_find(fwk, num_all) if num_all else 0
        # First the nodes the search is likely to reach (twice what it looks for, from where
        # it starts); all of them when that window might not hold enough feasible nodes.
        size = num_all if 2 * to_find >= num_all else 2 * to_find
        while True:
            verdict = self._batch_verdict(fwk, state, pod, nodes, size)
            if isinstance(verdict, str):
                self.stats.handed_over(verdict)
                return super().find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes)
            window, rejected, undecided, status_class = verdict
            if len(window) == num_all or _sure_to_pass(rejected, undecided) >= to_find:
                break
            size = num_all
        self.stats.batch_filters += 1
        return self._walk(
            fwk, state, pod, diagnosis, window, rejected, undecided, status_class, to_find
        )

    def _batch_verdict(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo], size: int
    ) -> tuple[NodeWindow, Any, Any, Any] | str:
        """Per node of the window, rejected, undecided and the status class; or why not.

        The window is the first ``size`` nodes of the search's walk. The
        status class of a rejected node is its rejecting plugin's index
        times :data:`_CLASS_SPAN` plus that plugin's reason class (-1: none),
        so nodes of one class share one status from the reference runner.
        A string says why this cycle goes to the reference.
        """
        snapshot = self._snapshot
        if snapshot is None or nodes is not getattr(snapshot, "node_info_list", None):
            return "not the whole node list (nominated node, or PreFilter narrowed it)"
        if not nodes or not fwk.has_filter_plugins():
            return "nothing to filter"
        nominated = getattr(fwk.nominator, "nominated_node_names", None)
        if fwk.nominator is not None and nominated is None:
            return "a nominator that cannot list its nodes"
        arrays = self.arrays
        arrays.refresh(snapshot)
        if not arrays.usable:
            return "a node value too large for int64"
        skip = state.skip_filter_plugins
        plugins = [entry for entry in self._filter_table(fwk) if entry[1] not in skip]
        if any(whole for _, _, _, _, whole in plugins):
            size = len(arrays)  # a plugin's own form answers for every row, in row order
        window = NodeWindow(arrays, self.next_start_node_index, size)
        # In plugin order: a node the first plugin to have an answer for it rejects is
        # rejected, with that plugin's reason class; one it cannot decide is filtered by
        # the reference runner.
        rejected: Any = None
        status_class: Any = None
        undecided: Any = ~window.has_node
        for name in nominated() if nominated is not None else ():
            position = window.position.get(name)
            if position is not None:
                undecided[position] = True  # filtered with its nominated pods, by the reference
        for index, _, plugin, form, whole in plugins:
            if form is None:
                return f"Filter plugin {plugin.name()} has no batch form"
            if whole:
                answer = form(plugin, state, pod, arrays)
                if answer is not None:
                    rows = window.rows
                    answer = FilterVerdict(
                        None if answer.rejected is None else answer.rejected[rows],
                        None if answer.undecided is None else answer.undecided[rows],
                        None if answer.reason_class is None else answer.reason_class[rows],
                    )
            else:
                answer = form(plugin, state, pod, window)
            if answer is None:
                return f"Filter plugin {plugin.name()}'s batch form declined this pod"
            if answer.rejected is not None:
                newly = answer.rejected & ~(
                    undecided if rejected is None else rejected | undecided
                )
                rejected = newly if rejected is None else rejected | newly
                if answer.reason_class is not None and np.count_nonzero(newly):
                    if status_class is None:
                        status_class = np.full(len(window), -1, dtype=np.int64)
                    status_class[newly] = index * _CLASS_SPAN + answer.reason_class[newly]
            if answer.undecided is not None:
                fresh = answer.undecided if rejected is None else answer.undecided & ~rejected
                undecided = undecided | fresh
        if rejected is None:
            rejected = np.zeros(len(window), dtype=bool)
        return window, rejected, undecided, status_class

    def _filter_table(self, fwk: Framework) -> list[tuple[int, str, Any, Any, bool]]:
        """Per Filter plugin of the profile: index, name, plugin, batch form, reads whole arrays.

        Built once per profile: which plugins are enabled, and their forms,
        do not change while the scheduler runs.
        """
        table = self._filter_tables.get(fwk)
        if table is None:
            table = self._filter_tables[fwk] = [
                (index, plugin.name(), plugin, filter_form(plugin), reads_whole_arrays(plugin))
                for index, plugin in enumerate(fwk.plugins["filter"])
            ]
        return table

    def _walk(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        window: NodeWindow,
        rejected: Any,
        undecided: Any,
        status_class: Any = None,
        to_find: int | None = None,
    ) -> list[NodeInfo]:
        """The reference's round-robin search over the verdicts; see the module docstring.

        Walk position ``w`` is window index ``w``, row ``window.rows[w]``:
        the window starts where the search starts and follows its round robin.
        """
        arrays = self.arrays
        infos = arrays.infos
        num_all = len(infos)
        if to_find is None:
            to_find = self.num_nodes_to_find(fwk, num_all)
        rows_of = window.rows
        walk_length = len(window)

        def row_of(position: int) -> int:
            return int(rows_of[position])

        run_filters = fwk.run_filter_plugins_with_nominated_pods
        found: list[int] | IntArray = []  # walk positions of the feasible nodes
        failed: dict[int, Status] = {}  # walk position -> status, for undecided nodes
        processed = walk_length
        error: tuple[int, Status] | None = None
        any_rejected = bool(np.count_nonzero(rejected))
        any_undecided = bool(np.count_nonzero(undecided))
        if not any_undecided and not any_rejected:
            # Every node passes (an empty cluster): the first to_find of the walk.
            found = np.arange(min(to_find, walk_length), dtype=np.int64)
            if len(found) >= to_find:
                processed = to_find
        elif not any_undecided:
            found = np.flatnonzero(~rejected)[:to_find]
            if len(found) >= to_find:
                processed = int(found[-1]) + 1
        else:
            candidates = np.flatnonzero(~rejected).tolist()
            walked: list[int] = []
            found = walked
            for position in candidates:
                if undecided[position]:
                    status = run_filters(state, pod, infos[row_of(position)])
                    if status.code is Code.ERROR:
                        error = (position, status)
                        processed = position + 1
                        break
                    if status.code is not Code.SUCCESS:
                        failed[position] = status
                        continue
                walked.append(position)
                if len(walked) >= to_find:
                    processed = position + 1
                    break
        # The rejected nodes the walk passed, in walk order, with the reference's statuses.
        # (An error there comes before any error the walk met: it is earlier in the walk.)
        # Nodes of one status class share the status the runner gives the first of them; a
        # node without a class is a class of its own.
        positions = np.flatnonzero(rejected[:processed]) if any_rejected else _NO_POSITIONS
        firsts, class_keys, index = _classes(
            positions,
            status_class[positions]
            if status_class is not None
            else np.full(len(positions), -1, dtype=np.int64),
        )
        class_status: list[Status] = []
        for position, status_key in zip(firsts, class_keys, strict=True):  # in walk order
            status = run_filters(state, pod, infos[row_of(position)])
            if status.code is Code.SUCCESS:
                name = infos[row_of(position)].name
                raise EngineMismatchError(
                    f"batch Filter rejected node {name!r} for pod {pod.key}; the reference passes it"
                )
            if status.code is Code.ERROR:
                error, processed = (position, status), position + 1
                break
            if status_key >= 0:
                expected = fwk.plugins["filter"][status_key // _CLASS_SPAN].name()
                if status.plugin != expected:
                    raise EngineMismatchError(
                        f"batch Filter took {expected} for the first to reject node "
                        f"{infos[row_of(position)].name!r} for pod {pod.key}; the reference "
                        f"says {status.plugin}"
                    )
            class_status.append(status)
        # Each told node's status as an index into the distinct ones: the classes', then the
        # nodes the walk filtered one by one.
        distinct = list(class_status)
        if error is not None:  # nothing past the error is told
            kept = positions < error[0]
            positions, index = positions[kept], index[kept]
            failed = {
                position: status for position, status in failed.items() if position < error[0]
            }
        if failed:
            positions = np.concatenate([positions, np.fromiter(failed, dtype=np.int64)])
            index = np.concatenate(
                [index, np.arange(len(distinct), len(distinct) + len(failed), dtype=np.int64)]
            )
            distinct += failed.values()
            in_walk_order = np.argsort(positions, kind="stable")
            positions, index = positions[in_walk_order], index[in_walk_order]
        if self.tracer is not None:
            self._trace_walk(fwk, state, window, processed, positions, index, distinct, error)
        if len(positions):
            by_index = np.empty(len(distinct), dtype=object)
            by_index[:] = distinct
            counts = np.bincount(index, minlength=len(distinct)).tolist()
            diagnosis.node_to_status.set_each(
                arrays.name_array[rows_of[positions]].tolist(),
                by_index[index].tolist(),
                [(status, count) for status, count in zip(distinct, counts, strict=True) if count],
            )
            told: set[int] = set()  # the statuses Diagnosis has seen: thousands share a few
            for seen in distinct:
                if id(seen) not in told:
                    told.add(id(seen))
                    diagnosis.add_plugin_status(seen)
        if error is not None:
            raise SchedulingError(error[1])
        rows = rows_of[np.asarray(found, dtype=np.int64)]
        feasible: list[NodeInfo] = arrays.info_array[rows].tolist()
        self._feasible, self._feasible_rows = feasible, rows
        return feasible

    def _trace_walk(
        self,
        fwk: Framework,
        state: CycleState,
        window: NodeWindow,
        processed: int,
        positions: IntArray,
        index: IntArray,
        distinct: list[Status],
        error: tuple[int, Status] | None,
    ) -> None:
        """Tell the tracer every node the walk passed, in walk order, in one call.

        The nodes the walk passed are feasible, rejected (``distinct[index]``
        at ``positions``) or the ``error``.
        """
        assert self.tracer is not None
        names = self.arrays.name_array[window.rows[:processed]].tolist()
        statuses = [Status.success(), *distinct]
        told = np.zeros(processed, dtype=np.int64)
        told[positions] = index + 1
        if error is not None and error[0] < processed:
            told[error[0]] = len(statuses)
            statuses.append(error[1])
        self.tracer.nodes_filtered(fwk, state, names, SharedStatuses(statuses, told))

    # --- Score ------------------------------------------------------------------------------------

    def prioritize_nodes(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> list[NodePluginScores]:
        if nodes is not self._feasible:
            self.stats.handed_over("scoring nodes the batch Filter did not find")
            return super().prioritize_nodes(fwk, state, pod, nodes)
        if any(extender.is_prioritizer() for extender in self.extenders):
            self.stats.handed_over("a prioritizing extender")
            return super().prioritize_nodes(fwk, state, pod, nodes)
        if not has_scoring(fwk, self.extenders):
            return super().prioritize_nodes(fwk, state, pod, nodes)
        status = self._run_pre_score_plugins(fwk, state, pod, nodes)
        if not status.is_success():
            raise SchedulingError(status)
        try:
            scores = self._batch_scores(fwk, state, pod, nodes)
        except _Abnormal as why:
            self.stats.handed_over(str(why))
            return super().prioritize_nodes(fwk, state, pod, nodes)
        self.stats.batch_scores += 1
        # A Sequence that reads as the list; select_host below knows it by its type.
        return scores  # type: ignore[return-value]

    def _run_pre_score_plugins(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> Status:
        """The PreScore runner, where a plugin whose Skip is known beforehand is not called.

        Which plugins skip is all a Skip leaves behind (no state is written),
        so the Score phase that follows is the reference's. A plugin with a
        batch PreScore form (PodTopologySpread) has it write the state its
        own PreScore would. Anything but
        success or Skip from a plugin that runs: the reference runner runs
        them all again, and its error is the one reported.
        """
        skip: set[str] = set()
        for plugin in fwk.plugins["preScore"]:
            skips = pre_score_skip(plugin)
            if skips is not None and skips(plugin, state, pod, self._snapshot):
                skip.add(plugin.name())
                continue
            try:
                out = self._pre_score(plugin, state, pod, nodes)
            except Exception:
                return fwk.run_pre_score_plugins(state, pod, nodes)
            if out is None:
                continue
            if not isinstance(out, Status) or out.code not in (Code.SUCCESS, Code.SKIP):
                return fwk.run_pre_score_plugins(state, pod, nodes)
            if out.code is Code.SKIP:
                skip.add(plugin.name())
        state.skip_score_plugins = skip
        return Status.success()

    def _pre_score(
        self, plugin: Any, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> Status | None:
        """The plugin's PreScore: its batch form's (same state, same status), or its own."""
        form = pre_score_form(plugin)
        if form is not None:
            verdict = form(plugin, state, pod, self.arrays, self._feasible_rows)
            if verdict is not None:
                return verdict.status
        out: Status | None = getattr(plugin, "pre_score")(state, pod, nodes)  # noqa: B009 (a PreScorePlugin)
        return out

    def _batch_scores(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> BatchScores:
        rows = self._feasible_rows
        skip = state.skip_score_plugins
        plugins = [entry for entry in self._score_table(fwk) if entry[0] not in skip]
        names = _LazyNames(self.arrays.name_array, rows)
        matrix = np.empty((len(plugins), len(nodes)), dtype=np.int64)
        columns_checked = True
        for i, (_, plugin, _) in enumerate(plugins):
            verdict = self._score_column(plugin, state, pod, rows, nodes)
            if verdict.constant is not None and len(nodes):
                value = self._normalized_constant(plugin, verdict.constant)
                if value is not None:
                    if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                        raise _Abnormal("a score outside [0, 100] (the reference words the error)")
                    matrix[i] = value
                    continue
            matrix[i] = self._normalized(plugin, state, pod, verdict.scores, names)
            columns_checked = False
        if (
            not columns_checked
            and matrix.size
            and (matrix.min() < MIN_NODE_SCORE or matrix.max() > MAX_NODE_SCORE)
        ):
            raise _Abnormal("a score outside [0, 100] (the reference words the error)")
        plugin_names = [name for name, _, _ in plugins]
        weights = np.array([weight for _, _, weight in plugins], dtype=np.int64).reshape(-1, 1)
        weighted = matrix * weights
        return BatchScores(names, plugin_names, weighted, weighted.sum(axis=0))

    def _score_table(self, fwk: Framework) -> list[tuple[str, Any, int]]:
        """Per Score plugin of the profile: its name, the plugin and its weight (built once)."""
        table = self._score_tables.get(fwk)
        if table is None:
            table = self._score_tables[fwk] = [
                (plugin.name(), plugin, fwk.score_plugin_weight[plugin.name()])
                for plugin in fwk.plugins["score"]
            ]
        return table

    def _score_column(
        self, plugin: Any, state: CycleState, pod: Pod, rows: IntArray, nodes: list[NodeInfo]
    ) -> ScoreVerdict:
        """The plugin's raw scores of ``nodes``: its batch form's, with the undecided ones filled in."""
        form = score_form(plugin)
        verdict = form(plugin, state, pod, self.arrays, rows) if form is not None else None
        if verdict is None:
            return ScoreVerdict(
                np.array(
                    [_plugin_score(plugin, state, pod, info) for info in nodes], dtype=np.int64
                )
            )
        if verdict.undecided is None:
            return verdict
        scores = verdict.scores.copy()
        for i in np.flatnonzero(verdict.undecided).tolist():
            scores[i] = _plugin_score(plugin, state, pod, nodes[i])
        return ScoreVerdict(scores)

    def _normalized_constant(self, plugin: Any, score: int) -> int | None:
        """Every node's normalized score when every node scored ``score`` (None: normalize the column)."""
        extensions = _answer(lambda: plugin.score_extensions())
        if extensions is None:
            return score
        return normalize_constant(normalize_form(plugin), score)

    def _normalized(
        self, plugin: Any, state: CycleState, pod: Pod, raw: IntArray, names: Sequence[str]
    ) -> IntArray:
        extensions = _answer(lambda: plugin.score_extensions())
        if extensions is None:
            return raw
        form = normalize_form(plugin)
        if form is not None:
            return form(plugin, state, pod, raw)
        scores = [NodeScore(name, score) for name, score in zip(names, raw.tolist(), strict=True)]
        status = _answer(lambda: extensions.normalize_score(state, pod, scores))
        if status is not None and not (isinstance(status, Status) and status.is_success()):
            raise _Abnormal(f"plugin {plugin.name()}'s NormalizeScore did not succeed")
        if len(scores) != len(names) or any(
            type(s) is not NodeScore or type(s.score) is not int for s in scores
        ):
            raise _Abnormal(f"plugin {plugin.name()}'s NormalizeScore left an odd list")
        return np.array([s.score for s in scores], dtype=np.int64)

    def rank_by_total(self, scores: Sequence[NodePluginScores]) -> list[str]:
        if not isinstance(scores, BatchScores):
            return super().rank_by_total(scores)
        # A stable argsort of the negated totals is the reference's stable sort, highest first.
        return [scores.names[i] for i in np.argsort(-scores.totals, kind="stable").tolist()]

    # --- select_host --------------------------------------------------------------------------------

    def select_host(
        self, scores: list[NodePluginScores], count: int
    ) -> tuple[str, list[NodePluginScores]]:
        if not isinstance(scores, BatchScores):
            return super().select_host(scores, count)
        if not len(scores):
            raise SchedulingError(Status.as_error(EmptyPriorityListError()))
        totals = scores.totals
        # The reference sorts by total, highest first, keeping node order among equals: the
        # tied nodes come first, in node order, and the reservoir draws among them.
        tied = np.flatnonzero(totals == totals.max())
        selected = _reservoir(self.rng, len(tied))
        chosen = int(tied[selected])
        # The report is built when read (schedule_pod drops it).
        report = _Report(scores, chosen, selected, count)
        return scores.names[chosen], report  # type: ignore[return-value]


class _Report(Sequence[NodePluginScores]):
    """select_host's report: the best ``count``, the chosen node swapped to the front, on demand."""

    __slots__ = ("_chosen", "_count", "_entries", "_scores", "_selected")

    def __init__(self, scores: BatchScores, chosen: int, selected: int, count: int) -> None:
        self._scores, self._chosen, self._selected, self._count = scores, chosen, selected, count
        self._entries: list[NodePluginScores] | None = None

    def _built(self) -> list[NodePluginScores]:
        if self._entries is None:
            ordered = np.argsort(-self._scores.totals, kind="stable")
            report = [int(i) for i in ordered[: self._count]]
            if self._selected < len(report):
                report[self._selected] = report[0]
            report[0] = self._chosen
            self._entries = [self._scores[i] for i in report]
        return self._entries

    def __len__(self) -> int:
        return len(self._built())

    @overload
    def __getitem__(self, index: int) -> NodePluginScores: ...
    @overload
    def __getitem__(self, index: slice) -> list[NodePluginScores]: ...
    def __getitem__(self, index: int | slice) -> NodePluginScores | list[NodePluginScores]:
        return self._built()[index]

    def __eq__(self, other: object) -> bool:
        return list(self._built()) == (list(other) if isinstance(other, Sequence) else other)

    __hash__ = None  # type: ignore[assignment]


_NO_POSITIONS: IntArray = np.zeros(0, dtype=np.int64)

_FEW = 64
"""Up to this many rejected nodes a walk groups them by class in a loop; past it, with numpy."""


def _classes(positions: IntArray, keys: IntArray) -> tuple[list[int], list[int], IntArray]:
    """The rejected nodes' status classes, in the order the walk first meets them.

    ``keys`` are the nodes' class keys (-1: a class of its own). Returns
    each class's first walk position and key, and each node's class (its
    index in those lists).
    """
    if len(positions) <= _FEW:
        seen: dict[int, int] = {}
        firsts: list[int] = []
        class_keys: list[int] = []
        index: list[int] = []
        for position, key in zip(positions.tolist(), keys.tolist(), strict=True):
            own = key if key >= 0 else -2 - position
            found = seen.get(own)
            if found is None:
                found = seen[own] = len(firsts)
                firsts.append(position)
                class_keys.append(key)
            index.append(found)
        return firsts, class_keys, np.array(index, dtype=np.int64)
    own_keys = np.where(keys < 0, -2 - positions, keys)
    classes, first, inverse = np.unique(own_keys, return_index=True, return_inverse=True)
    in_walk_order = np.argsort(first, kind="stable")
    rank = np.empty(len(classes), dtype=np.int64)
    rank[in_walk_order] = np.arange(len(classes), dtype=np.int64)
    class_at = first[in_walk_order]
    return (
        positions[class_at].tolist(),
        keys[class_at].tolist(),
        rank[inverse.reshape(-1)],
    )


def _sure_to_pass(rejected: Any, undecided: Any) -> int:
    """How many nodes of a window pass for certain (neither rejected nor left to the reference)."""
    return len(rejected) - int(np.count_nonzero(rejected | undecided))


def _reservoir(rng: random.Random, tied: int) -> int:
    """Which of ``tied`` equal nodes the reference's reservoir picks, drawing exactly its numbers.

    The reference calls ``rng.randrange(k)`` for k = 2..tied. For a plain
    ``random.Random`` that is ``getrandbits(k.bit_length())`` until the
    value is below k (CPython's ``_randbelow_with_getrandbits``), written
    out here because a cycle over 5,000 empty nodes ties hundreds of them:
    k is walked in blocks of one bit length (2-3, 4-7, 8-15, ...), so no
    ``bit_length`` is computed per tie. Any other RNG gets the calls
    themselves. ``tests/batch/test_reservoir.py`` and the differential
    engine compare the RNG's state after both.

    (Drawing the words in bulk, ``getrandbits(32 * n)``, gives the same
    stream, but the loop over them in Python cost more than the calls.)
    """
    selected = 0
    if type(rng) is random.Random and _PLAIN_RANDBELOW:
        getrandbits = rng.getrandbits
        for bits in range(2, tied.bit_length() + 1):
            for count_of_max in range(1 << (bits - 1), min(tied + 1, 1 << bits)):
                drawn = getrandbits(bits)
                while drawn >= count_of_max:
                    drawn = getrandbits(bits)
                if drawn == 0:
                    selected = count_of_max - 1
        return selected
    for count_of_max in range(2, tied + 1):
        if rng.randrange(count_of_max) == 0:
            selected = count_of_max - 1
    return selected


# randrange(n) is _randbelow_with_getrandbits(n) in the CPython versions this project supports.
_PLAIN_RANDBELOW = getattr(random.Random, "_randbelow", None) is getattr(
    random.Random, "_randbelow_with_getrandbits", object()
)


def _answer(call: Callable[[], _T]) -> _T:
    try:
        return call()
    except Exception as exc:
        raise _Abnormal(f"a plugin raised {type(exc).__name__}") from exc


def _plugin_score(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> int:
    out = _answer(lambda: plugin.score(state, pod, info))
    if type(out) is tuple and len(out) == 2 and type(out[0]) is int and out[1] is None:
        return out[0]
    if type(out) is tuple and len(out) == 2 and type(out[0]) is int:
        status = out[1]
        if isinstance(status, Status) and status.code is Code.SUCCESS:
            return out[0]
    raise _Abnormal(f"plugin {plugin.name()}'s Score gave {type(out).__name__}, not (int, None)")


# --- both engines, compared ---------------------------------------------------------------------


def _statuses(diagnosis: Diagnosis) -> list[tuple[str, str, tuple[str, ...], str]]:
    return [
        (name, status.code.name, tuple(status.reasons), status.plugin)
        for name, status in diagnosis.node_to_status.items()
    ]


def _copy(diagnosis: Diagnosis) -> Diagnosis:
    copy = Diagnosis(
        unschedulable_plugins=set(diagnosis.unschedulable_plugins),
        pending_plugins=set(diagnosis.pending_plugins),
        pre_filter_msg=diagnosis.pre_filter_msg,
        post_filter_msg=diagnosis.post_filter_msg,
    )
    statuses = diagnosis.node_to_status
    absent = statuses.absent_nodes_status()
    copy.node_to_status.set_absent_nodes_status(absent)
    for name, status in statuses.items():
        copy.node_to_status.set(name, status)
    return copy


def _outcome(run: Callable[[], _T]) -> tuple[_T | None, BaseException | None]:
    try:
        return run(), None
    except (SchedulingError, EngineMismatchError) as error:
        return None, error


def _described(error: BaseException | None) -> str:
    return "" if error is None else f"{type(error).__name__}: {error}"


def _scores_of(scores: Sequence[NodePluginScores]) -> list[Any]:
    return [(s.name, [(p.name, p.score) for p in s.scores], s.total_score) for s in scores]


class DifferentialSchedulingAlgorithm(BatchSchedulingAlgorithm):
    """Both engines in every cycle, compared; the reference's answer is the one used.

    Each difference is appended to :attr:`mismatches` and raised as
    :class:`EngineMismatchError` (which fails that pod's attempt); the
    simulator and ``bench`` refuse to report a run that had any.
    PreScore plugins run twice per cycle, once per engine.
    """

    engine = "both"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mismatches: list[str] = []
        self.compared = 0
        #: The comparing searches for preemption candidates, one per DefaultPreemption.
        self.dry_runs: list[ComparedCandidateFinder] = []
        self._reference_scores: list[NodePluginScores] | None = None
        self._pod_key = ""

    def _mismatch(self, pod_key: str, what: str, batch: Any, reference: Any) -> None:
        message = (
            f"engines differ on {what} for pod {pod_key}: batch {batch!r}, reference {reference!r}"
        )
        self.mismatches.append(message)
        raise EngineMismatchError(message)

    def _candidate_finder(self, evaluator: Evaluator) -> Callable[..., Any]:
        def mismatch(pod_key: str, what: str, batch: Any, reference: Any) -> None:
            self._mismatch(pod_key, what, batch, reference)

        finder = ComparedCandidateFinder(BatchCandidateFinder(evaluator, self.arrays), mismatch)
        self.dry_runs.append(finder)
        return finder

    def find_nodes_that_pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: list[NodeInfo],
    ) -> list[NodeInfo]:
        shadow = _copy(diagnosis)
        tracer, self.tracer = self.tracer, None
        try:
            batch, batch_error = _outcome(
                lambda: BatchSchedulingAlgorithm.find_nodes_that_pass_filters(
                    self, fwk, state, pod, shadow, nodes
                )
            )
        finally:
            self.tracer = tracer
        rows = self._feasible_rows
        reference, reference_error = _outcome(
            lambda: SchedulingAlgorithm.find_nodes_that_pass_filters(
                self, fwk, state, pod, diagnosis, nodes
            )
        )
        self.compared += 1
        if _described(batch_error) != _described(reference_error):
            self._mismatch(
                pod.key, "the Filter error", _described(batch_error), _described(reference_error)
            )
        if reference_error is not None:
            raise reference_error
        assert reference is not None and batch is not None
        if [n.name for n in batch] != [n.name for n in reference]:
            self._mismatch(
                pod.key, "the feasible nodes", [n.name for n in batch], [n.name for n in reference]
            )
        for what, got, want in (
            ("the node statuses", _statuses(shadow), _statuses(diagnosis)),
            (
                "the rejecting plugins",
                shadow.unschedulable_plugins,
                diagnosis.unschedulable_plugins,
            ),
            ("the pending plugins", shadow.pending_plugins, diagnosis.pending_plugins),
        ):
            if got != want:
                self._mismatch(pod.key, what, got, want)
        if self._feasible is not None:
            self._feasible, self._feasible_rows = reference, rows
        return reference

    def prioritize_nodes(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> list[NodePluginScores]:
        self._pod_key = pod.key
        batch = BatchSchedulingAlgorithm.prioritize_nodes(self, fwk, state, pod, nodes)
        batch_skip = set(state.skip_score_plugins)
        reference = SchedulingAlgorithm.prioritize_nodes(self, fwk, state, pod, nodes)
        if batch_skip != state.skip_score_plugins:
            self._mismatch(pod.key, "the PreScore skips", batch_skip, state.skip_score_plugins)
        if _scores_of(batch) != _scores_of(reference):
            self._mismatch(pod.key, "the scores", _scores_of(batch), _scores_of(reference))
        self._reference_scores = reference
        return batch

    def select_host(
        self, scores: list[NodePluginScores], count: int
    ) -> tuple[str, list[NodePluginScores]]:
        reference_scores = self._reference_scores if isinstance(scores, BatchScores) else scores
        self._reference_scores = None
        before = self.rng.getstate()
        batch = BatchSchedulingAlgorithm.select_host(self, scores, count)
        after_batch = self.rng.getstate()
        self.rng.setstate(before)
        reference = SchedulingAlgorithm.select_host(self, reference_scores or [], count)
        if batch[0] != reference[0] or after_batch != self.rng.getstate():
            self._mismatch(self._pod_key, "the chosen host or the RNG", batch[0], reference[0])
        return reference
