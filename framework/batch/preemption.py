"""DefaultPreemption's search for candidates, with the batch engine's arrays: the same answer.

When no node passes Filter, DefaultPreemption's
:class:`~framework.preemption.evaluator.Evaluator` dry-runs preemption on
every node whose Filter status is ``Unschedulable``, from a random offset,
until it has enough candidates (``findCandidates`` and ``DryRunPreemption``
in ``kubernetes/kubernetes:pkg/scheduler/framework/preemption/preemption.go``).
On each node ``SelectVictimsOnNode``
(``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``)
first lists the pods the preemptor may evict, those of strictly lower
priority; a node with none answers ``No preemption victims found for
incoming pod`` (``UnschedulableAndUnresolvable``) and is no candidate.

On a full cluster of pods as important as the preemptor that is every
node, every failed attempt: the reference asks 5,000 nodes one by one.
:class:`BatchCandidateFinder` answers the same from columns:

* the potential nodes, from the Filter statuses, looked at once per
  distinct status (thousands of nodes share a few);
* the lowest pod priority of each node, a
  :meth:`~framework.batch.arrays.NodeArrays.derived` column kept up to date
  as nodes change: a node whose lowest priority is not below the
  preemptor's gets that status without a copy or a call;
* the other nodes, in the dry run's order from the same offset (the same
  draw from the plugin's RNG), each copied and given to the plugin's
  ``select_victims_on_node`` as the reference does, until the same
  stopping rule holds.

The candidates, the statuses of the nodes the dry run passed (in its
order) and the errors are the reference's. A plugin that changes who may
be preempted (overrides ``is_preemption_allowed`` or
``select_victims_on_node``), an evaluator that overrides the dry run, or a
node list that is not the arrays' goes to
:meth:`~framework.preemption.evaluator.Evaluator.find_candidates`.

The batch engine puts a finder on each DefaultPreemption evaluator of the
profiles it schedules with (:func:`attach_candidate_finders`, through the
evaluator's ``candidate_finder`` seam). With ``--engine both``,
:class:`ComparedCandidateFinder` runs both and reports any difference.

Not in Kubernetes, which runs ``SelectVictimsOnNode`` per node on 16 goroutines.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from framework.batch.arrays import NodeArrays
from framework.cycle_state import CycleState
from framework.extender.types import Victims
from framework.interface import NodeToStatus
from framework.node_info import NodeInfo
from framework.objects import Pod, PodDisruptionBudget, pod_priority
from framework.objects.errors import aggregate
from framework.plugins.defaultpreemption.plugin import MSG_NO_VICTIMS, DefaultPreemption
from framework.preemption.candidate import Candidate, CandidateList
from framework.preemption.evaluator import Evaluator, PreemptionError
from framework.runtime.framework import Framework
from framework.status import Code, Status

__all__ = [
    "BatchCandidateFinder",
    "ComparedCandidateFinder",
    "attach_candidate_finders",
]

Found = tuple[list[Candidate], NodeToStatus | None, PreemptionError | None]

_NO_POD = 2**62
"""The lowest priority of a node without pods: above any pod's (priorities are int32)."""

_LOWEST_PRIORITY = "lowest pod priority"
"""The key of the derived column of each node's lowest pod priority."""

# One status for every node without victims, as the plugin has one (a Status is immutable).
_NO_VICTIMS = Status.unresolvable(MSG_NO_VICTIMS)


def _lowest_priority(info: NodeInfo) -> int:
    """The node's lowest pod priority, held to ±_NO_POD (a preemptor's within it compares alike)."""
    lowest = min((pod_priority(p.pod) for p in info.pods), default=_NO_POD)
    return max(-_NO_POD, min(lowest, _NO_POD))


def _default_victims(evaluator: Evaluator) -> bool:
    """Whether the evaluator and its plugin choose victims as DefaultPreemption does."""
    plugin = evaluator.interface
    if not isinstance(plugin, DefaultPreemption):
        return False
    own = type(plugin)
    kind = type(evaluator)
    return (
        own.is_preemption_allowed is DefaultPreemption.is_preemption_allowed
        and own.select_victims_on_node is DefaultPreemption.select_victims_on_node
        and kind.find_candidates is Evaluator.find_candidates
        and kind.dry_run_preemption is Evaluator.dry_run_preemption
    )


class BatchCandidateFinder:
    """``Evaluator.find_candidates`` over the batch engine's arrays; see the module docstring.

    ``last`` holds what the last search drew, for :class:`ComparedCandidateFinder`:
    the potential nodes' names, the PDBs, the offset and the number of
    candidates (None when it drew nothing or left the search to the evaluator).
    """

    def __init__(self, evaluator: Evaluator, arrays: NodeArrays) -> None:
        self.evaluator = evaluator
        self.arrays = arrays
        self.last: tuple[list[str], Sequence[PodDisruptionBudget], int, int] | None = None
        #: Whether it answered the last search itself, or left it to the evaluator.
        self.answered = False
        #: How many searches it answered itself, and how many it left to the evaluator.
        self.searches = 0
        self.handed_over = 0

    def __call__(
        self, state: CycleState, all_nodes: Sequence[NodeInfo], pod: Pod, statuses: NodeToStatus
    ) -> Found:
        self.last, self.answered = None, False
        evaluator = self.evaluator
        if (
            not all_nodes
            or not -_NO_POD < pod_priority(pod) < _NO_POD
            or not self._usable(all_nodes)
            or not _default_victims(evaluator)
        ):
            self.handed_over += 1
            return evaluator.find_candidates(state, all_nodes, pod, statuses)
        self.searches, self.answered = self.searches + 1, True
        arrays = self.arrays
        potential = self._potential_rows(statuses)
        if not len(potential):
            return [], NodeToStatus(), None
        pdbs = evaluator.pdb_lister()
        interface = evaluator.interface
        offset, num_candidates = interface.get_offset_and_num_candidates(len(potential))
        self.last = (arrays.name_array[potential].tolist(), pdbs, offset, num_candidates)
        # The dry run's order: potential node (offset + i) % len at step i.
        order = np.roll(potential, -offset)
        lowest = arrays.derived(_LOWEST_PRIORITY, _lowest_priority)[order]
        # is_preemption_allowed asks for a strictly lower priority before anything else.
        with_victims = np.flatnonzero(lowest < pod_priority(pod)).tolist()
        non_violating = CandidateList(num_candidates)
        violating = CandidateList(num_candidates)
        visited: dict[int, Status | None] = {}  # step -> its status (None: a candidate)
        errors: list[BaseException] = []
        stop = len(order)
        infos = arrays.infos
        for step in with_victims:
            node_info = infos[int(order[step])].clone()
            pods, num_violations, status = interface.select_victims_on_node(
                state.clone(), pod, node_info, pdbs
            )
            if status.code is not Code.SUCCESS:
                if status.code is Code.ERROR:
                    errors.append(status.error or PreemptionError(status.message()))
                visited[step] = status
                continue
            if pods:
                candidate = Candidate(node_info.name, Victims(tuple(pods), num_violations))
                (violating if num_violations else non_violating).add(candidate)
                visited[step] = None
                found_non_violating = len(non_violating)
                if (
                    found_non_violating > 0
                    and found_non_violating + len(violating) >= num_candidates
                ):
                    stop = step + 1
                    break
                continue
            error = PreemptionError(f'expected at least one victim pod on node "{node_info.name}"')
            errors.append(error)
            visited[step] = Status.as_error(error)
        names: list[str] = arrays.name_array[order[:stop]].tolist()
        found: list[Status] = [_NO_VICTIMS] * stop
        if visited:
            for step, answer in visited.items():
                if answer is not None:
                    found[step] = answer
            candidates = {step for step, answer in visited.items() if answer is None}
            if candidates:
                kept = [step for step in range(stop) if step not in candidates]
                names = [names[step] for step in kept]
                found = [found[step] for step in kept]
        node_statuses = NodeToStatus()
        node_statuses.set_each(names, found, None if visited else [(_NO_VICTIMS, len(names))])
        errors_met = PreemptionError(aggregate(errors)) if errors else None
        return non_violating.get() + violating.get(), node_statuses, errors_met

    def _usable(self, all_nodes: Sequence[NodeInfo]) -> bool:
        """Whether the arrays are the snapshot's, row for row ``all_nodes``."""
        snapshot = self.evaluator.handle.snapshot_shared_lister()
        if getattr(snapshot, "node_info_list", None) is None:
            return False
        arrays = self.arrays
        arrays.refresh(snapshot)
        return (
            arrays.usable
            and len(arrays.infos) == len(all_nodes)
            and all(map(operator.is_, arrays.infos, all_nodes))
        )

    def _potential_rows(self, statuses: NodeToStatus) -> Any:
        """The rows whose status is ``Unschedulable`` (``nodesWherePreemptionMightHelp``)."""
        per_row = statuses.statuses_of(self.arrays.names)
        # Thousands of nodes share a few statuses: their codes are read once per status.
        ids = np.fromiter(map(id, per_row), dtype=np.intp, count=len(per_row))
        distinct, first = np.unique(ids, return_index=True)
        wanted = np.array(
            [per_row[row].code is Code.UNSCHEDULABLE for row in first.tolist()], dtype=bool
        )
        if wanted.all():
            return np.arange(len(per_row), dtype=np.int64)
        if not wanted.any():
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(np.isin(ids, distinct[wanted]))


def _candidates(found: Sequence[Candidate]) -> list[tuple[str, list[str], int]]:
    return [(c.name, [p.key for p in c.victims.pods], c.victims.num_pdb_violations) for c in found]


def _statuses(statuses: NodeToStatus | None) -> list[tuple[str, str, tuple[str, ...], str]] | None:
    if statuses is None:
        return None
    return [
        (name, status.code.name, tuple(status.all_reasons()), status.plugin)
        for name, status in statuses.items()
    ]


class ComparedCandidateFinder:
    """Both searches (``--engine both``): the batch finder's, then the reference's from its draw.

    The reference is given the potential nodes, PDBs, offset and number of
    candidates the batch finder drew (one draw from the plugin's RNG, as
    one search makes), and every difference goes to ``mismatch(pod key,
    what, batch, reference)``, which raises. What it returns is the
    reference's.
    """

    def __init__(
        self, finder: BatchCandidateFinder, mismatch: Callable[[str, str, Any, Any], None]
    ) -> None:
        self.finder = finder
        self.mismatch = mismatch
        self.compared = 0

    def __call__(
        self, state: CycleState, all_nodes: Sequence[NodeInfo], pod: Pod, statuses: NodeToStatus
    ) -> Found:
        finder = self.finder
        evaluator = finder.evaluator
        try:
            batch = finder(state, all_nodes, pod, statuses)
        except Exception as error:  # a bug of the batch search: say so, not just "Error"
            self.mismatch(pod.key, "the search for candidates", repr(error), "no exception")
            raise
        if not finder.answered:
            return batch  # the evaluator searched itself: nothing to compare
        potential = statuses.nodes_for_status_code(all_nodes, Code.UNSCHEDULABLE)
        names = [n.name for n in potential]
        self.compared += 1
        if finder.last is None:  # it found no potential node, and drew nothing
            if names:
                self.mismatch(pod.key, "the potential preemption nodes", [], names)
            return batch
        drawn_names, pdbs, offset, num_candidates = finder.last
        if drawn_names != names:
            self.mismatch(pod.key, "the potential preemption nodes", drawn_names, names)
        reference = evaluator.dry_run_preemption(
            state, pod, potential, pdbs, offset, num_candidates
        )
        for what, got, want in (
            ("the preemption candidates", _candidates(batch[0]), _candidates(reference[0])),
            ("the dry run's node statuses", _statuses(batch[1]), _statuses(reference[1])),
            (
                "the dry run's errors",
                None if batch[2] is None else str(batch[2]),
                None if reference[2] is None else str(reference[2]),
            ),
        ):
            if got != want:
                self.mismatch(pod.key, what, got, want)
        return reference


def attach_candidate_finders(fwk: Framework, finder: Callable[[Evaluator], Any]) -> None:
    """Put ``finder(evaluator)`` on each DefaultPreemption evaluator of the profile.

    ``finder(evaluator)`` is a ``CandidateFinder`` (the evaluator's
    ``candidate_finder``).
    """
    for plugin in fwk.plugins.get("postFilter", ()):
        evaluator = getattr(plugin, "evaluator", None)
        if isinstance(plugin, DefaultPreemption) and isinstance(evaluator, Evaluator):
            evaluator.candidate_finder = finder(evaluator)
