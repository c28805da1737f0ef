"""InterPodAffinity's batch forms: PreFilter's and PreScore's maps, read for every node at once.

The reference's Filter and Score look a node up in maps that PreFilter and
PreScore built, keyed by topology domain, ``(topologyKey, value)``. So a
node's answer depends only on its values of the few label keys those maps
and the pod's terms name, and a map becomes, per key, a vector indexed by
the id of a label value (:meth:`~framework.batch.arrays.NodeArrays.label_values`):
every node's count is one gather, ``vector[ids of the nodes' values]``.

* **Filter** (``filtering.go``'s three checks, as
  :meth:`~framework.plugins.interpodaffinity.plugin.InterPodAffinity.filter`
  makes them, in the same order): the incoming pod's required affinity
  (a node without a term's topology label fails; so does one where some
  term's domain counts no matching pod, unless no pod matches anywhere and
  the pod matches its own terms), its required anti-affinity (a term's
  domain counts a matching pod), and the existing pods' required
  anti-affinity (one of the node's domains counts an existing pod whose
  term selects the incoming pod). The first check a node fails is its
  reason class, 0, 1 or 2: each has one status, which the engine asks the
  reference runner for.
* **Score** (``scoring.go``): the sum, over PreScore's topology keys, of
  the points of the node's value, in int64.
* **NormalizeScore**: min to max, ``int64(100 * (float64(s - min) / float64(max - min)))``,
  the same float64 operations in the same order, and 0 everywhere when
  all scores are equal.

Counts and points are Python integers in the reference; a value the int64
sums could not hold exactly makes the form decline (the reference decides).
Not in Kubernetes; see :mod:`framework.batch.forms` for the contract.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from operator import itemgetter
from typing import Any

import numpy as np

from framework.batch.arrays import IntArray, NodeArrays, has_label
from framework.batch.forms import FilterForm, FilterVerdict, NormalizeForm, ScoreForm, ScoreVerdict
from framework.cycle_state import CycleState, NotFound
from framework.interface import MAX_NODE_SCORE
from framework.objects import Pod
from framework.plugins.interpodaffinity import filtering, scoring
from framework.plugins.interpodaffinity import plugin as interpodaffinity

__all__ = ["FILTER_FORMS", "NORMALIZE_FORMS", "SCORE_FORMS"]

_BOUND = 2**53
"""Counts and points at or past this (in size) send the cycle to the reference: int64 sums of
them, and their float64 differences in NormalizeScore, must stay exact."""

_AFFINITY, _ANTI_AFFINITY, _EXISTING_ANTI_AFFINITY = 0, 1, 2
"""Reason classes: which of Filter's three checks a node failed first."""


Ids = Mapping[tuple[str, str | None], int]
"""Label-value ids of one topology key, by ``(key, value)`` (:meth:`NodeArrays.label_values`)."""


def _vector(pairs: Iterable[tuple[str, str]], counts: list[int], ids: Ids) -> IntArray:
    """A count per label-value id: ``counts[i]`` at the id of ``pairs[i]``.

    Pairs of another key, or of a value no node has, go to a slot past the
    ids; the last slot, left 0, is the one the id -1 (a row without a
    node) reads.
    """
    vector = np.zeros(len(ids) + 2, dtype=np.int64)
    if counts:
        nowhere = len(ids)
        vector[[ids.get(pair, nowhere) for pair in pairs]] = counts
    return vector


_Kept = tuple[Ids, int, dict[tuple[str, str], int], IntArray]
"""A vector kept from the last cycle: the ids and their number, the map it was built from, it."""

_KEPT: weakref.WeakKeyDictionary[NodeArrays, OrderedDict[tuple[str, str], _Kept]] = (
    weakref.WeakKeyDictionary()
)
_MAX_KEPT = 16


class _Counts:
    """One of PreFilter's ``(key, value) -> count`` maps, read per key as a count per window row.

    The map is built afresh each cycle, but from totals that change by a few
    entries between cycles (:class:`~framework.plugins.pernode.PerNodeTotals`),
    so each key's vector is kept, per :class:`NodeArrays` and map (``slot``),
    with a copy of the map it was built from; the next cycle sets only the
    entries of pairs whose count differs (a set difference of the two maps'
    items, in C), while the ids it is indexed by stay the same.
    """

    __slots__ = ("_arrays", "_map", "_per_key", "_slot")

    def __init__(self, arrays: Any, slot: str, counts: Mapping[tuple[str, str], int]) -> None:
        self._arrays, self._slot, self._map = arrays, slot, counts
        self._per_key: dict[str, tuple[IntArray, IntArray, Ids]] = {}

    def exact(self) -> bool:
        """Whether every count fits the int64 vectors (else the reference decides)."""
        counts = self._map.values()
        return not counts or (max(counts) < _BOUND and min(counts) > -_BOUND)

    def topology_keys(self) -> set[str]:
        return set(map(itemgetter(0), self._map))

    def of(self, key: str) -> tuple[IntArray, IntArray, Ids]:
        """Per row, the count of the node's domain for ``key``; the rows' value ids; the ids."""
        found = self._per_key.get(key)
        if found is None:
            column, ids = self._arrays.label_values(key)
            vector = self._vector(key, ids)
            found = self._per_key[key] = (vector[column], column, ids)
        return found

    def _vector(self, key: str, ids: Ids) -> IntArray:
        counts = self._map
        base = getattr(self._arrays, "base", self._arrays)  # a NodeWindow's NodeArrays
        kept = _KEPT.get(base)
        if kept is None:
            kept = _KEPT[base] = OrderedDict()
        entry = kept.get((self._slot, key))
        if entry is not None and entry[0] is ids and entry[1] == len(ids):
            _, _, source, vector = entry
            kept.move_to_end((self._slot, key))
            if counts == source:
                return vector
            for pair, _ in counts.items() ^ source.items():
                index = ids.get(pair)
                if index is not None:
                    vector[index] = counts.get(pair, 0)
        else:
            vector = _vector(counts, list(counts.values()), ids)
            if len(kept) >= _MAX_KEPT:
                kept.popitem(last=False)
        kept[(self._slot, key)] = (ids, len(ids), dict(counts), vector)
        return vector


def _filter(plugin: Any, state: CycleState, pod: Pod, arrays: Any) -> FilterVerdict | None:
    try:
        s = state.read_as(interpodaffinity.PRE_FILTER_STATE_KEY, filtering.PreFilterState)
    except (NotFound, TypeError):
        return None  # the reference gives this its Error status
    size = len(arrays)
    reason = np.full(size, -1, dtype=np.int64)

    # satisfy_pod_affinity: every term's label present, and a matching pod in each term's
    # domain, or else no matching pod anywhere and the pod matching its own terms.
    terms = s.pod_info.required_affinity_terms
    if terms:
        affinity = _Counts(arrays, "affinity", s.affinity_counts)
        if not affinity.exact():
            return None
        fails = np.zeros(size, dtype=bool)
        pods_exist = np.ones(size, dtype=bool)
        for term in terms:
            counts, column, ids = affinity.of(term.topology_key)
            fails |= ~has_label(term.topology_key, column, ids)
            pods_exist &= counts > 0
        if not (
            not s.affinity_counts
            and filtering.pod_matches_all_affinity_terms(terms, s.pod_info.pod)
        ):
            fails |= ~pods_exist
        reason[fails] = _AFFINITY

    # satisfy_pod_anti_affinity: no pod it must avoid in any of its terms' domains.
    if s.anti_affinity_counts:
        anti_affinity = _Counts(arrays, "anti-affinity", s.anti_affinity_counts)
        if not anti_affinity.exact():
            return None
        fails = np.zeros(size, dtype=bool)
        for term in s.pod_info.required_anti_affinity_terms:
            fails |= anti_affinity.of(term.topology_key)[0] > 0
        reason[fails & (reason < 0)] = _ANTI_AFFINITY

    # satisfy_existing_pods_anti_affinity: no domain of the node where an existing pod's
    # term selects the pod (the map's keys are the only labels that can count).
    if s.existing_anti_affinity_counts:
        existing = _Counts(arrays, "existing", s.existing_anti_affinity_counts)
        if not existing.exact():
            return None
        fails = np.zeros(size, dtype=bool)
        for key in existing.topology_keys():
            fails |= existing.of(key)[0] > 0
        reason[fails & (reason < 0)] = _EXISTING_ANTI_AFFINITY

    rejected = reason >= 0
    if not np.count_nonzero(rejected):
        return FilterVerdict(None)
    return FilterVerdict(rejected, None, reason)


def _score(
    plugin: Any, state: CycleState, pod: Pod, arrays: Any, rows: IntArray
) -> ScoreVerdict | None:
    try:
        s = state.read_as(interpodaffinity.PRE_SCORE_STATE_KEY, scoring.PreScoreState)
    except (NotFound, TypeError):
        return None  # the plugin's own score gives the Error
    totals = np.zeros(len(rows), dtype=np.int64)
    # Each node adds at most one value per key: the sum stays below the bound.
    bound = _BOUND // max(len(s.topology_score), 1)
    for key, values in s.topology_score.items():
        points = list(values.values())
        if points and not -bound < min(points) <= max(points) < bound:
            return None
        column, ids = arrays.label_values(key)
        totals += _vector([(key, value) for value in values], points, ids)[column[rows]]
    return ScoreVerdict(totals)


def _normalize(plugin: Any, state: CycleState, pod: Pod, scores: IntArray) -> IntArray:
    # The Score form has just read this state for the same cycle (without it, the plugin's
    # own score failed the cycle over to the reference before NormalizeScore).
    s = state.read_as(interpodaffinity.PRE_SCORE_STATE_KEY, scoring.PreScoreState)
    if not s.topology_score or not len(scores):
        return scores
    low = int(scores.min())
    spread = int(scores.max()) - low
    if spread <= 0:
        return np.zeros_like(scores)
    scaled = float(MAX_NODE_SCORE) * ((scores - low).astype(np.float64) / float(spread))
    # int64() of a non-negative float64 truncates, as astype does.
    normalized: IntArray = scaled.astype(np.int64)
    return normalized


FILTER_FORMS: dict[type, FilterForm] = {interpodaffinity.InterPodAffinity: _filter}
SCORE_FORMS: dict[type, ScoreForm] = {interpodaffinity.InterPodAffinity: _score}
NORMALIZE_FORMS: dict[type, NormalizeForm] = {interpodaffinity.InterPodAffinity: _normalize}
