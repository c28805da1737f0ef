"""PodTopologySpread's batch forms: PreScore's counts, Score and NormalizeScore for every node at once.

The soft constraints (``ScheduleAnyway``, and the System defaults every
Deployment's pod gets) are scored from two things only: per constraint, the
matching pods of each topology domain, over the whole cluster, and, for the
hostname key, the matching pods of the node itself
(:mod:`framework.plugins.podtopologyspread.scoring`). Both come from one
column per ``(namespace, selector)``: each node's
:func:`~framework.plugins.podtopologyspread.common.count_pods_match_selector`,
computed by that very function and kept from cycle to cycle, read again only
for the nodes that changed (:meth:`~framework.batch.arrays.NodeArrays.per_info`).

* **PreScore** (``initPreScoreState`` and the counting of ``PreScore`` in
  ``scoring.go``): the ignored nodes (filtered nodes lacking a key, when
  every key is required), each constraint's domains among the filtered nodes
  in the order the reference meets them, the weights ``log(size + 2)`` by the
  same :func:`~framework.plugins.podtopologyspread.scoring.topology_normalizing_weight`,
  and each domain's matching pods summed over the nodes the reference counts:
  a node's topology values are label-value ids
  (:meth:`~framework.batch.arrays.NodeArrays.label_values`), and the sums
  per id one ``bincount``. The inclusion policies (the pod's node selector
  and required node affinity under ``nodeAffinityPolicy: Honor``, taints
  under ``nodeTaintsPolicy: Honor``) are asked once per class of nodes
  alike in what they read (the labels of the keys the pod's rules name, the
  taints), with the plugin's own ``match_node_inclusion_policies``. The
  result is the reference's ``PreScoreState``, field for field, in the
  CycleState where Score reads it.
* **Score**: per constraint, ``count × weight + (maxSkew − 1)`` added in the
  reference's order, in float64 as Python's floats are, and rounded half
  away from zero; 0 for an ignored node.
* **NormalizeScore**: ``100 × (max + min − s) // max`` over the nodes not
  ignored, 100 everywhere when the highest is 0, 0 for the ignored ones.
  Which nodes those are, Score tells it through the CycleState (a
  NormalizeScore form sees the scores, not the nodes).

A form answers None ("the reference, please") where the reference's answer
is an error or depends on more than the columns: a selector that does not
compile, ``matchFields`` in the pod's required node affinity, a snapshot
that is not the arrays'. Score leaves to the plugin's own ``score`` any node
it cannot reproduce (a count too large for exact float64, a domain PreScore
did not keep, which the reference answers with an error).

Not in Kubernetes, whose PreScore counts every node on 16 goroutines and
whose Score is called per node; see :mod:`framework.batch.forms` for the
contract and ``tests/batch/test_spread_forms.py`` for the comparison with
the reference, node by node.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from framework.batch.arrays import BoolArray, IntArray, NodeArrays, has_label
from framework.batch.forms import (
    NormalizeForm,
    PreScoreForm,
    PreScoreVerdict,
    ScoreForm,
    ScoreVerdict,
)
from framework.cycle_state import CycleState, NotFound
from framework.interface import MAX_NODE_SCORE
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.labels import DOUBLE_EQUALS, EQUALS, IN, Selector, SelectorError
from framework.objects.nodeaffinity import RequiredNodeAffinity, get_required_node_affinity
from framework.objects.pod import SCHEDULE_ANYWAY
from framework.plugins.podtopologyspread import plugin as spread
from framework.plugins.podtopologyspread.common import (
    HONOR,
    LABEL_HOSTNAME,
    SpreadConstraint,
    count_pods_match_selector,
)
from framework.plugins.podtopologyspread.scoring import (
    PreScoreState,
    topology_normalizing_weight,
)
from framework.status import Status

__all__ = ["NORMALIZE_FORMS", "PRE_SCORE_FORMS", "SCORE_FORMS"]

_BOUND = 2**40
"""Matching pods at or past this (in one node, or all told) leave the answer to the reference:
the float64 sums and products must stay those of Python's exact integers."""

_IGNORED_KEY = spread.PRE_SCORE_STATE_KEY + "/batch ignored"
"""Where Score leaves NormalizeScore the scored nodes that PreScore ignored."""

Ids = Mapping[tuple[str, str | None], int]

_ONE_OF = frozenset({EQUALS, DOUBLE_EQUALS, IN})
"""Operators under which a label set matches only if it has the key, with one of the values."""


@dataclass(slots=True)
class _Ignored:
    """Per scored node, in the Score column's order: whether PreScore ignored it."""

    nodes: BoolArray

    def clone(self) -> _Ignored:
        return self  # read-only, one cycle's


def matching_pods(arrays: NodeArrays, selector: Selector, namespace: str) -> IntArray:
    """Per row, the node's pods in ``namespace``, not terminating, that ``selector`` matches.

    The reference's own :func:`count_pods_match_selector`, per NodeInfo (0
    for a row without a node, as the reference's walk counts it), kept by
    the arrays and read again only for the rows that changed. A selector
    that requires a label value (``app=web``, ``app in (web)``) can match
    only where some pod has it: the function is called on those nodes
    alone (:meth:`~framework.batch.arrays.NodeArrays.pod_label_rows`), so a
    new workload's first column costs its nodes, not the cluster's.
    """

    def count(info: NodeInfo) -> int:
        if info.node is None:
            return 0
        return count_pods_match_selector(info, selector, namespace)

    required = next((r for r in selector.requirements if r.operator in _ONE_OF), None)
    if required is None:
        return arrays.per_info((spread.NAME, namespace, selector), count)

    def nonzero() -> BoolArray:
        assert required is not None
        return arrays.pod_label_rows(namespace, required.key, required.values)

    return arrays.per_info((spread.NAME, namespace, selector), count, nonzero)


def _affinity_keys(pod: Pod, required: RequiredNodeAffinity) -> tuple[str, ...] | None:
    """The node labels ``required.match`` reads; None if it reads more (``matchFields``)."""
    keys = set(required.node_selector or ())
    affinity = pod.spec.affinity
    node_affinity = affinity.node_affinity if affinity is not None else None
    if node_affinity is not None:
        terms = node_affinity.required_during_scheduling_ignored_during_execution
        for term in terms.node_selector_terms if terms is not None else ():
            if term.match_fields:
                return None
            keys.update(requirement.key for requirement in term.match_expressions)
    return tuple(sorted(keys))


def _included(
    arrays: NodeArrays, constraint: SpreadConstraint, pod: Pod, required: RequiredNodeAffinity
) -> BoolArray | None:
    """Per row, whether the node passes the constraint's inclusion policies; None: cannot tell.

    The plugin's own ``match_node_inclusion_policies``, once per class of
    nodes with the same values of the keys the pod's rules read (for
    ``Honor`` of node affinity) and the same taints (for ``Honor`` of taints).
    """
    classes: IntArray = np.zeros(len(arrays), dtype=np.int64)
    if constraint.node_affinity_policy == HONOR:
        keys = _affinity_keys(pod, required)
        if keys is None:
            return None
        classes = arrays.label_classes(keys).inverse.astype(np.int64)
    if constraint.node_taints_policy == HONOR:
        spec = arrays.classes("spec_class").inverse.astype(np.int64)
        classes = classes * (int(spec.max(initial=0)) + 1) + spec
    _, representatives, inverse = np.unique(classes, return_index=True, return_inverse=True)
    infos = arrays.infos
    answers = []
    for row in representatives.tolist():
        node = infos[row].node
        answers.append(
            node is not None and constraint.match_node_inclusion_policies(pod, node, required)
        )
    included: BoolArray = np.array(answers, dtype=bool)[inverse.reshape(-1)]
    return included


def _values_by_id(ids: Ids) -> dict[int, str]:
    """Each id's topology value as the reference reads it, ``labels.get(key, "")``."""
    return {index: "" if value is None else value for (_, value), index in ids.items()}


def _domains(kept_ids: IntArray, ids: Ids) -> dict[str, int]:
    """The domains of the kept filtered nodes, each at 0, in the order the reference meets them."""
    domains: dict[str, int] = {}
    if not len(kept_ids):
        return domains
    distinct, first = np.unique(kept_ids, return_index=True)
    values = _values_by_id(ids)
    for index in distinct[np.argsort(first, kind="stable")].tolist():
        domains.setdefault(values[index], 0)
    return domains


def _pre_score(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays, rows: IntArray
) -> PreScoreVerdict | None:
    """``PreScore``, as :meth:`~framework.plugins.podtopologyspread.plugin.PodTopologySpread.pre_score`."""
    handle = getattr(plugin, "_handle", None)
    lister = handle.snapshot_shared_lister() if handle is not None else None
    if lister is None or lister.node_infos().list() is not arrays.infos or not len(arrays):
        return None  # the reference's error or Skip, or nodes the arrays do not hold
    require_all = bool(pod.spec.topology_spread_constraints) or not plugin.system_defaulted
    try:
        constraints: list[SpreadConstraint] = plugin._constraints(pod, SCHEDULE_ANYWAY)
    except SelectorError:
        return None  # the plugin words the error
    if not constraints:
        return PreScoreVerdict(Status.skip())
    required = get_required_node_affinity(pod)
    included: list[BoolArray | None] = []
    for c in constraints:
        inclusion = None
        if not c.inclusion_policies_always_match(required):
            inclusion = _included(arrays, c, pod, required)
            if inclusion is None:
                return None
        included.append(inclusion)
    labels = {c.topology_key: arrays.label_values(c.topology_key) for c in constraints}
    all_keys = arrays.has_node.copy()
    for key, (column, ids) in labels.items():
        all_keys &= has_label(key, column, ids)

    # initPreScoreState, over the filtered nodes.
    s = PreScoreState(constraints=constraints)
    s.topology_value_to_pod_counts = [{} for _ in constraints]
    kept = rows
    if require_all:
        has_all = all_keys[rows]
        kept = rows[has_all]
        s.ignored_nodes = set(arrays.name_array[rows[~has_all]].tolist())
    for i, c in enumerate(constraints):
        if c.topology_key == LABEL_HOSTNAME:
            size = len(rows) - len(s.ignored_nodes)
        else:
            column, ids = labels[c.topology_key]
            s.topology_value_to_pod_counts[i] = _domains(column[kept], ids)
            size = len(s.topology_value_to_pod_counts[i])
        s.topology_normalizing_weight.append(topology_normalizing_weight(size))

    # The counting, over every node: those with every key when they are required, and
    # those each constraint's inclusion policies keep.
    for i, c in enumerate(constraints):
        domains = s.topology_value_to_pod_counts[i]
        if not domains:
            continue  # the hostname key, or no filtered node: nothing kept to add to
        column, ids = labels[c.topology_key]
        counted = all_keys if require_all else arrays.has_node
        inclusion = included[i]
        if inclusion is not None:
            counted = counted & inclusion
        counts = matching_pods(arrays, c.selector, pod.namespace)[counted]
        if len(counts) and int(counts.sum()) >= _BOUND:
            return None
        sums = np.bincount(column[counted], weights=counts, minlength=len(ids))
        absent = ids.get((c.topology_key, None))
        for value in domains:
            # labels.get(key, ""): a node without the key counts toward the domain "".
            total = 0.0
            for index in (ids.get((c.topology_key, value)), absent if value == "" else None):
                if index is not None:
                    total += sums[index]
            domains[value] += int(total)
    state.write(spread.PRE_SCORE_STATE_KEY, s)
    return PreScoreVerdict(None)


def _vector(domains: Mapping[str, int], key: str, ids: Ids) -> tuple[IntArray, BoolArray]:
    """Per label-value id: the domain's count, and whether PreScore kept that domain.

    A node without the label (the id of ``(key, None)``) is never looked up:
    Score skips it. The last slot is the one the id -1 (no node) reads.
    """
    counts = np.zeros(len(ids) + 1, dtype=np.int64)
    known = np.zeros(len(ids) + 1, dtype=bool)
    for value, count in domains.items():
        index = ids.get((key, value))
        if index is not None:
            counts[index] = count
            known[index] = True
    return counts, known


def _score(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays, rows: IntArray
) -> ScoreVerdict | None:
    try:
        s = state.read_as(spread.PRE_SCORE_STATE_KEY, PreScoreState)
    except (NotFound, TypeError):
        return None  # the plugin's own score gives the Error
    ignored = np.zeros(len(rows), dtype=bool)
    if s.ignored_nodes:
        names = arrays.name_array[rows].tolist()
        ignored = np.fromiter((name in s.ignored_nodes for name in names), bool, len(names))
    undecided = np.zeros(len(rows), dtype=bool)
    scores = np.zeros(len(rows), dtype=np.float64)
    for i, c in enumerate(s.constraints):
        column, ids = arrays.label_values(c.topology_key)
        value_ids = column[rows]
        has = has_label(c.topology_key, value_ids, ids) & ~ignored
        if c.topology_key == LABEL_HOSTNAME:
            counts = matching_pods(arrays, c.selector, pod.namespace)[rows]
        else:
            vector, known = _vector(s.topology_value_to_pod_counts[i], c.topology_key, ids)
            counts = vector[value_ids]
            undecided |= has & ~known[value_ids]  # the reference's KeyError, its own to raise
        undecided |= has & (counts >= _BOUND)
        # score_for_count: count × weight + (maxSkew − 1), the same float64 steps.
        term = counts.astype(np.float64) * s.topology_normalizing_weight[i] + float(c.max_skew - 1)
        scores = np.where(has, scores + term, scores)
    # _go_round: halves away from zero.
    magnitude = np.floor(np.abs(scores) + 0.5)
    rounded = np.where(scores >= 0, magnitude, -magnitude)
    undecided |= np.abs(rounded) >= _BOUND
    raw: IntArray = np.where(ignored | undecided, 0, rounded).astype(np.int64)
    state.write(_IGNORED_KEY, _Ignored(ignored))
    return ScoreVerdict(raw, undecided if undecided.any() else None)


def _normalize(plugin: Any, state: CycleState, pod: Pod, scores: IntArray) -> IntArray:
    """``normalize_scores``: ignored → 0; highest 0 → 100; else ``100 × (max + min − s) // max``."""
    # The Score form wrote it for this cycle's column (without the PreScore state, the plugin's
    # own score failed the cycle over to the reference before NormalizeScore).
    ignored = state.read_as(_IGNORED_KEY, _Ignored).nodes
    assert len(ignored) == len(scores)
    counted = scores[~ignored]
    result: IntArray = np.zeros_like(scores)
    if not len(counted):
        return result
    low = int(counted.min())
    high = max(int(counted.max()), 0)
    if high == 0:
        result[:] = MAX_NODE_SCORE
    else:
        scaled = MAX_NODE_SCORE * (high + low - scores)
        # go_div: Go's "/" truncates toward zero.
        result = np.where(scaled >= 0, scaled // high, -((-scaled) // high))
    result[ignored] = 0
    return result


PRE_SCORE_FORMS: dict[type, PreScoreForm] = {spread.PodTopologySpread: _pre_score}
SCORE_FORMS: dict[type, ScoreForm] = {spread.PodTopologySpread: _score}
NORMALIZE_FORMS: dict[type, NormalizeForm] = {spread.PodTopologySpread: _normalize}
