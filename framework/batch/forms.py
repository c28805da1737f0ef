"""Batch forms of the default plugins' Filter and Score: the same answers, for every node at once.

A **batch Filter form** returns, for every row of a
:class:`~framework.batch.arrays.NodeWindow` (the nodes a search may reach,
in its order; it reads as the :class:`~framework.batch.arrays.NodeArrays`),
whether the plugin rejects the
node, and which nodes it cannot decide from the arrays (those are filtered
one by one by the reference runner). It never builds a Status: the engine
asks the reference runner for the exact status of each rejected node that
the search actually evaluates, so reasons, messages and plugin names are the
reference's own by construction, and a node where the two disagree is a
loud :class:`~framework.batch.engine.EngineMismatchError`.

A **batch PreScore form** writes to the CycleState what the plugin's
PreScore writes, field for field, and returns its status (PodTopologySpread's,
whose PreScore counts matching pods over every node of the cluster).

A **batch Score form** returns the plugin's raw scores of the feasible nodes
as int64, and the nodes it cannot decide (scored one by one with the
plugin's own ``score``). A **normalize form** rescales a score column as
the plugin's NormalizeScore rescales its list.

Three kinds of form, from the most general to the most specific:

* *by class*: a plugin whose answer depends only on a node's spec
  (TaintToleration, NodeUnschedulable) or on the labels the pod's rules read
  (NodeAffinity; PodTopologySpread's Filter, which reads the topology keys of
  the hard constraints and counts kept in the CycleState) is called once per
  distinct value, on a representative
  node, with its own ``filter``/``score`` — the per-node code, not a copy;
* *arithmetic*: NodeResourcesFit's Filter (extended resources included,
  each from its own pair of columns, a DRA-backed one skipped where the node
  does not advertise it) and its LeastAllocated and
  MostAllocated scores, and BalancedAllocation (an extended resource in
  their ``resources`` too, left out where the node has none or the pod asks
  for none, as ``calculateResourceAllocatableRequest`` does), as int64 and float64 array
  expressions of exactly the reference's operations, in the same order
  (``(capacity - requested) * 100 // capacity`` truncates as Go's int64
  ``/`` does for the non-negative values here; the balance is computed
  with the same float64 steps, never ``np.std``, whose pairwise summation
  can differ in the last bit); the two scores are kept as per-node columns
  (:meth:`~framework.batch.arrays.NodeArrays.per_node`) and computed again
  only for the nodes that changed;
* *by topology value*: InterPodAffinity's Filter and Score look a node's
  label values up in the maps PreFilter and PreScore built, as vectors by
  value id (:mod:`framework.batch.interpodaffinity`); PodTopologySpread's
  Score does the same with PreScore's counts per domain, and reads the
  node's own matching pods from a kept column
  (:mod:`framework.batch.podtopologyspread`);
* *trivial*: NodeName (one node can pass), NodePorts (a node with no host
  port in use cannot conflict), ImageLocality (a node that holds no image
  scores as a sum of 0), DynamicResources' Score (a pod without claims
  scores 0 on every node).

Forms are looked up by the plugin's exact class (:func:`filter_form`,
:func:`score_form`, :func:`normalize_form`, :func:`pre_score_form`), so a
subclass or an out-of-tree plugin with the same name never borrows one; a
plugin may offer its own as methods
``filter_batch``/``score_batch``/``normalize_score_batch`` with the
signatures below. A form may return None: "not for this pod", and the
engine runs the reference for the cycle (Filter), the plugin's own
``pre_score`` (PreScore) or its per-node ``score`` (Score).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np

from framework.batch.arrays import LIMIT, BoolArray, IntArray, NodeArrays, NodeWindow
from framework.config.args_noderesources import LEAST_ALLOCATED, MOST_ALLOCATED
from framework.cycle_state import CycleState, NotFound
from framework.interface import MAX_NODE_SCORE
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.pod import SCHEDULE_ANYWAY
from framework.objects.resource_names import is_extended_resource_name, is_scalar_resource_name
from framework.objects.resources import CPU, EPHEMERAL_STORAGE, MEMORY
from framework.plugins import (
    imagelocality,
    nodename,
    nodeports,
    nodeunschedulable,
    tainttoleration,
)
from framework.plugins.dynamicresources import plugin as dynamicresources
from framework.plugins.interpodaffinity import plugin as interpodaffinity
from framework.plugins.nodeaffinity import plugin as nodeaffinity
from framework.plugins.noderesources import balanced_allocation, fit
from framework.plugins.podtopologyspread import filtering as spread_filtering
from framework.plugins.podtopologyspread import plugin as spread
from framework.status import Code, Status

__all__ = [
    "FilterForm",
    "FilterVerdict",
    "NormalizeForm",
    "PreScoreForm",
    "PreScoreVerdict",
    "ScoreForm",
    "ScoreVerdict",
    "filter_form",
    "normalize_constant",
    "normalize_form",
    "pre_score_form",
    "pre_score_skip",
    "reads_whole_arrays",
    "score_form",
]


class FilterVerdict(NamedTuple):
    """Per node: rejected by the plugin; undecided (filter it one by one). None: no node.

    ``reason_class``, if given, promises that two nodes this plugin rejects
    with the same value get the same status from it (the same reasons): the
    engine then asks the reference runner once per value, not once per node.
    """

    rejected: BoolArray | None
    undecided: BoolArray | None = None
    reason_class: IntArray | None = None


class ScoreVerdict(NamedTuple):
    """Per feasible node: the raw score; undecided (score it with the plugin's ``score``).

    ``constant``, if given, says every node scored that (``scores`` is then
    that value everywhere): the engine normalizes one value, not a column.
    """

    scores: IntArray
    undecided: BoolArray | None = None
    constant: int | None = None


class PreScoreVerdict(NamedTuple):
    """What the plugin's PreScore returned (None: success), its state written as the plugin writes it."""

    status: Status | None


FilterForm = Callable[[Any, CycleState, Pod, NodeArrays], FilterVerdict | None]
PreScoreForm = Callable[[Any, CycleState, Pod, NodeArrays, IntArray], PreScoreVerdict | None]
ScoreForm = Callable[[Any, CycleState, Pod, NodeArrays, IntArray], ScoreVerdict | None]
NormalizeForm = Callable[[Any, CycleState, Pod, IntArray], IntArray]


# --- by class: the plugin's own per-node method, once per distinct node -----------------------------


def _filter_answer(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> int:
    """0 pass, 1 reject, 2 undecided (an error, an exception, an odd answer: the reference decides)."""
    if info.node is None:
        return 2
    try:
        out = plugin.filter(state, pod, info)
    except Exception:  # the reference runner will turn it into this node's Error
        return 2
    if out is None:
        return 0
    if isinstance(out, Status) and isinstance(out.code, Code):
        if out.code is Code.SUCCESS:
            return 0
        if out.is_rejected():
            return 1
    return 2


def _score_answer(plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> int | None:
    """The plugin's score of a representative node, or None if it is anything but ``(int, None)``."""
    if info.node is None:
        return None
    try:
        out = plugin.score(state, pod, info)
    except Exception:
        return None
    if type(out) is tuple and len(out) == 2 and type(out[0]) is int and out[1] is None:
        return out[0]
    return None


LabelKeys = Callable[[Any, CycleState, Pod], tuple[str, ...] | None]
"""The node labels a plugin reads for this pod, or None if it reads more than labels."""


def _classes_of(
    arrays: NodeArrays, state: CycleState, pod: Pod, plugin: Any, column: str | LabelKeys
) -> Any:
    if callable(column):
        keys = column(plugin, state, pod)
        return None if keys is None else arrays.label_classes(keys)
    return arrays.classes(column)


def _filter_by_class(column: str | LabelKeys) -> FilterForm:
    def form(plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays) -> FilterVerdict | None:
        classes = _classes_of(arrays, state, pod, plugin, column)
        if classes is None:
            return None
        infos = arrays.infos
        answers = [
            _filter_answer(plugin, state, pod, infos[r]) for r in classes.representatives.tolist()
        ]
        if not any(answers):
            return FilterVerdict(None)  # every class passes (one class: no taints, say)
        per_node = np.array(answers, dtype=np.int8)[classes.inverse]
        return FilterVerdict(per_node == 1, per_node == 2, classes.inverse)

    return form


def _score_by_class(column: str | LabelKeys) -> ScoreForm:
    def form(
        plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays, rows: IntArray
    ) -> ScoreVerdict | None:
        classes = _classes_of(arrays, state, pod, plugin, column)
        if classes is None:
            return None
        infos = arrays.infos
        answers = [
            _score_answer(plugin, state, pod, infos[r]) for r in classes.representatives.tolist()
        ]
        first = answers[0] if answers else None
        if first is not None and all(a == first for a in answers):
            # One score for every class (one class: no taints, say), so for every node.
            return ScoreVerdict(np.full(len(rows), first, dtype=np.int64), None, first)
        values = np.array([0 if a is None else a for a in answers], dtype=np.int64)
        unknown = np.array([a is None for a in answers], dtype=bool)
        per_row = classes.inverse[rows]
        undecided = unknown[per_row]
        return ScoreVerdict(values[per_row], undecided if undecided.any() else None)

    return form


def _node_affinity_label_keys(plugin: Any, state: CycleState, pod: Pod) -> tuple[str, ...] | None:
    """The node labels NodeAffinity reads for this pod, or None if it reads more than labels.

    ``matchFields`` (a node's name) and the args' ``addedAffinity`` make
    the answer depend on more than these keys; those pods go the reference
    way.
    """
    if plugin.added_node_selector is not None or plugin.added_pref_sched_terms is not None:
        return None
    keys = set(pod.spec.node_selector)
    affinity = pod.spec.affinity
    node_affinity = affinity.node_affinity if affinity is not None else None
    terms: list[Any] = []
    if node_affinity is not None:
        required = node_affinity.required_during_scheduling_ignored_during_execution
        if required is not None:
            terms.extend(required.node_selector_terms)
        for preferred in node_affinity.preferred_during_scheduling_ignored_during_execution:
            terms.append(preferred.preference)
    for term in terms:
        if term.match_fields:
            return None
        keys.update(requirement.key for requirement in term.match_expressions)
    return tuple(sorted(keys))


def _topology_spread_label_keys(
    plugin: Any, state: CycleState, pod: Pod
) -> tuple[str, ...] | None:
    """The topology keys of the pod's hard constraints: PodTopologySpread's Filter reads only those.

    (Its Score also reads the node's pods: its forms are in :mod:`framework.batch.podtopologyspread`.)
    """
    try:
        s = state.read_as(spread.PRE_FILTER_STATE_KEY, spread_filtering.PreFilterState)
    except (NotFound, TypeError):
        return None
    return tuple(sorted({c.topology_key for c in s.constraints}))


# --- arithmetic: NodeResourcesFit and BalancedAllocation --------------------------------------------


def _fit_filter(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays
) -> FilterVerdict | None:
    try:
        fit_state = state.read_as(fit.PRE_FILTER_STATE_KEY, fit.PreFilterState)
    except (NotFound, TypeError):
        return None  # the reference gives this its Error status
    request = fit_state.request
    extended = _extended_checks(plugin, request.scalar_resources, arrays, fit_state.dra_backed)
    if extended is None:
        return None  # a value too large for int64, or too many names for the reason bits
    a = arrays
    # fits_request: a pod slot, then each requested resource against allocatable - requested.
    # Since v1.34 a request above the whole allocatable makes the status unresolvable
    # (kubernetes#131345).
    too_small = getattr(plugin, "unresolvable_when_too_small", False)
    checks = [
        (bit, wanted, free, alloc)
        for bit, wanted, free, alloc in (
            (2, request.milli_cpu, "free_cpu", "alloc_cpu"),
            (4, request.memory, "free_mem", "alloc_mem"),
            (8, request.ephemeral_storage, "free_eph", "alloc_eph"),
        )
        if wanted > 0
    ]
    # First whether any node falls short, as booleans (usually none does).
    rejected = a["free_pods"] < 1
    for _, wanted, free, alloc in checks:
        rejected |= a[free] < wanted
        if too_small:
            rejected |= a[alloc] < wanted
    for _, short, beyond in extended:
        rejected |= short
        if too_small:
            rejected |= beyond
    if not np.count_nonzero(rejected):
        return FilterVerdict(None)
    # Which shortages, as bits: the reasons (and so the status) follow from them alone;
    # a request above the allocatable is a bit of the reason class too.
    shortages = (a["free_pods"] < 1).astype(np.int64)
    for bit, wanted, free, alloc in checks:
        shortages[a[free] < wanted] |= bit
        if too_small:
            shortages[a[alloc] < wanted] |= 16
    for bit, short, beyond in extended:
        shortages[short] |= bit
        if too_small:
            shortages[beyond] |= 16
    return FilterVerdict(rejected, None, shortages)


# Reason bits of the extended resources a pod requests, in name order: 32, 64, ... below
# the engine's span of reason classes (2**40).
_MAX_EXTENDED = 34


def _extended_checks(
    plugin: Any,
    scalar: dict[str, int],
    arrays: NodeArrays | NodeWindow,
    dra_backed: frozenset[str],
) -> list[tuple[int, BoolArray, BoolArray]] | None:
    """Per extended resource ``fits_request`` checks: (reason bit, short of it, beyond allocatable).

    As the reference walks them: in name order, skipping a request of 0 and
    the ignored resources and groups; a node that does not advertise one has
    0 of it, unless a DeviceClass serves it (``dra_backed``), when a node
    with none (absent or 0) leaves it to DynamicResources. None when the
    columns cannot hold a value, or the pod asks for more names than bits.
    """
    checks: list[tuple[int, BoolArray, BoolArray]] = []
    if not scalar:
        return checks
    ignored, groups = plugin.ignored_resources, plugin.ignored_resource_groups
    names = [
        name
        for name in sorted(scalar)
        if scalar[name] != 0
        and not (
            is_extended_resource_name(name)
            and (name in ignored or (groups and name.split("/")[0] in groups))
        )
    ]
    if len(names) > _MAX_EXTENDED:
        return None
    for index, name in enumerate(names):
        columns = _scalar_columns(arrays, name)
        if columns is None:
            return None
        have, taken = columns
        wanted = scalar[name]
        short = have - taken < wanted
        beyond = have < wanted
        if name in dra_backed:
            served = have > 0
            short &= served
            beyond &= served
        checks.append((32 << index, short, beyond))
    return checks


def _scalar_columns(
    arrays: NodeArrays | NodeWindow, name: str
) -> tuple[IntArray, IntArray] | None:
    """Allocatable and requested of ``name`` for the rows of the arrays or of a window."""
    if isinstance(arrays, NodeWindow):
        found = arrays.base.scalar(name)
        if found is None:
            return None
        rows = arrays.rows
        return found[0][rows], found[1][rows]
    return arrays.scalar(name)


# The node columns a resource's score reads: allocatable, and requested for Fit (non-zero
# requests for cpu and memory) and for BalancedAllocation (real requests).
_SCORE_COLUMNS = {
    CPU: ("alloc_cpu", "nz_cpu", "req_cpu"),
    MEMORY: ("alloc_mem", "nz_mem", "req_mem"),
    EPHEMERAL_STORAGE: ("alloc_eph", "req_eph", "req_eph"),
}


def _requested_and_allocatable(
    resources: Sequence[Any],
    requests: Sequence[int],
    arrays: NodeArrays | _Gather,
    rows: IntArray,
    real: bool,
) -> list[tuple[IntArray, IntArray]] | None:
    """Per configured resource, (requested with the pod, allocatable) over ``rows``; (0, 0) where none."""
    columns = []
    for resource, pod_request in zip(resources, requests, strict=True):
        names = _SCORE_COLUMNS.get(resource.name)
        if names is None:
            if not is_scalar_resource_name(resource.name):
                return None
            if pod_request == 0:
                # An extended resource the pod does not ask for is left out of the score.
                nothing = np.zeros(len(rows), dtype=np.int64)
                columns.append((nothing, nothing))
                continue
            found = arrays.scalar(resource.name)
            if found is None:
                return None
            # Real requests, for Fit's scores too; a node without it has 0 (and is skipped).
            alloc, requested = found[0][rows], found[1][rows] + pod_request
        else:
            alloc = arrays.take(names[0], rows)
            requested = arrays.take(names[2] if real else names[1], rows) + pod_request
        columns.append((requested, alloc))
    if not _all_present(arrays, rows, resources):
        # A resource the node has none of stays (0, 0): the scorers skip it.
        columns = [(np.where(alloc == 0, 0, req), alloc) for req, alloc in columns]
    return columns


def _scorable(resources: Sequence[Any], requests: Sequence[int], arrays: NodeArrays) -> bool:
    """Whether the arrays hold every configured resource the pod asks for (else: one by one).

    A resource beyond cpu, memory and ephemeral-storage must be an extended
    (scalar) one, with columns that hold every node's value and a request
    below :data:`~framework.batch.arrays.LIMIT`.
    """
    for resource, request in zip(resources, requests, strict=True):
        if resource.name in _SCORE_COLUMNS:
            continue
        if not is_scalar_resource_name(resource.name):
            return False
        if request != 0 and (not -LIMIT < request < LIMIT or arrays.scalar(resource.name) is None):
            return False
    return True


def _allocation_score(
    columns: list[tuple[IntArray, IntArray]], weights: Sequence[int], most: bool
) -> IntArray:
    node_score = np.zeros_like(columns[0][1])
    weight_sum = np.zeros_like(columns[0][1])
    for (requested, capacity), weight in zip(columns, weights, strict=True):
        has = capacity != 0
        safe = np.where(has, capacity, 1)
        if most:
            score = np.minimum(requested, capacity) * MAX_NODE_SCORE // safe
        else:
            score = np.where(
                requested > capacity, 0, (capacity - requested) * MAX_NODE_SCORE // safe
            )
        node_score += np.where(has, score * weight, 0)
        weight_sum += np.where(has, weight, 0)
    return np.where(weight_sum == 0, 0, node_score // np.where(weight_sum == 0, 1, weight_sum))


def _allocation_score_all_present(
    columns: list[tuple[IntArray, IntArray]], weights: Sequence[int], most: bool
) -> IntArray:
    """:func:`_allocation_score` when every node has every resource: fewer array passes.

    ``max(capacity - requested, 0)`` is 0 exactly when the reference's
    ``requested > capacity`` gives 0, so LeastAllocated needs no ``where``.
    """
    total: Any = 0
    for (requested, capacity), weight in zip(columns, weights, strict=True):
        if most:
            score = np.minimum(requested, capacity) * MAX_NODE_SCORE // capacity
        else:
            score = np.maximum(capacity - requested, 0) * MAX_NODE_SCORE // capacity
        total = total + (score * weight if weight != 1 else score)
    weight_sum = sum(weights)
    result: IntArray = total // weight_sum if weight_sum != 1 else total
    return result


def _fit_score(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays, rows: IntArray
) -> ScoreVerdict | None:
    scorer = plugin.scorer
    if scorer.name not in (LEAST_ALLOCATED, MOST_ALLOCATED):
        return None  # RequestedToCapacityRatio's broken-line shape: scored one by one
    try:
        requests = state.read_as(fit.PRE_SCORE_STATE_KEY, fit.PreScoreState).pod_requests
    except (NotFound, TypeError):
        return None
    resources = scorer.resources
    if not _scorable(resources, requests, arrays):
        return None
    weights = [resource.weight for resource in resources]
    most = scorer.name == MOST_ALLOCATED

    def compute(some: IntArray) -> IntArray:
        source = _Gather(arrays)
        columns = _requested_and_allocatable(resources, requests, source, some, real=False)
        assert columns is not None
        if _all_present(source, some, resources):
            return _allocation_score_all_present(columns, weights, most)
        return _allocation_score(columns, weights, most)

    # A node's score depends on its columns, the pod's requests and the scorer's arguments
    # only: kept per node, recomputed for the nodes that changed.
    key = (fit.NAME, scorer.name, tuple((r.name, r.weight) for r in resources), tuple(requests))
    return ScoreVerdict(arrays.per_node(key, compute)[rows])


class _Gather:
    """``take`` and ``memo`` of a :class:`NodeArrays` for rows other than the cycle's feasible ones.

    (Its own ``take`` keeps one set of rows, the feasible nodes; a per-node
    column computed for other rows must not evict them.)
    """

    __slots__ = ("_arrays", "_memo")

    def __init__(self, arrays: NodeArrays) -> None:
        self._arrays = arrays
        self._memo: dict[Hashable, Any] = {}

    def take(self, column: str, rows: IntArray) -> IntArray:
        taken: IntArray = self._arrays[column][rows]
        return taken

    def scalar(self, name: str) -> tuple[IntArray, IntArray] | None:
        return self._arrays.scalar(name)

    def memo(self, rows: IntArray) -> dict[Hashable, Any]:
        return self._memo


_ZERO_CAPACITY_BIT = {CPU: 1, MEMORY: 2, EPHEMERAL_STORAGE: 4}


def _all_present(arrays: NodeArrays | _Gather, rows: IntArray, resources: Sequence[Any]) -> bool:
    """Whether every node of ``rows`` has capacity of every one of ``resources``.

    False for an extended resource (no node need have it): the slower path
    then skips it node by node, as the reference does.
    """
    bits = 0
    for resource in resources:
        bit = _ZERO_CAPACITY_BIT.get(resource.name)
        if bit is None:
            return False
        bits |= bit
    memo = arrays.memo(rows)
    key = ("all present", bits)
    found = memo.get(key)
    if found is None:
        found = memo[key] = not (arrays.take("zero_capacity", rows) & bits).any()
    return bool(found)


def _balanced_score(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays, rows: IntArray
) -> ScoreVerdict | None:
    key = balanced_allocation.PRE_SCORE_STATE_KEY
    try:
        requests = state.read_as(
            key, balanced_allocation.BalancedAllocationPreScoreState
        ).pod_requests
    except (NotFound, TypeError):
        return None
    resources = plugin.scorer.resources
    if not _scorable(resources, requests, arrays):
        return None
    score_change = plugin.score_change

    def compute(some: IntArray) -> IntArray:
        source = _Gather(arrays)
        columns = _requested_and_allocatable(resources, requests, source, some, real=True)
        assert columns is not None
        all_present = _all_present(source, some, resources)
        with_pod = _balance(columns, all_present, len(some))
        if not score_change:
            return with_pod
        # v1.36: the change in balance (balanced_change_scorer), from the same lists less the pod.
        without = [
            (np.where(capacity == 0, 0, requested - request), capacity)
            for (requested, capacity), request in zip(columns, requests, strict=True)
        ]
        without_pod = _balance(without, all_present, len(some))
        half = MAX_NODE_SCORE // 2
        changed: IntArray = half + (half + with_pod - without_pod) // 2
        return changed

    # As Fit's: a node's balance depends on its columns and the pod's requests only.
    column_key = (
        balanced_allocation.NAME,
        tuple(resource.name for resource in resources),
        tuple(requests),
        score_change,
    )
    return ScoreVerdict(arrays.per_node(column_key, compute)[rows])


def _balance(columns: list[tuple[IntArray, IntArray]], all_present: bool, size: int) -> IntArray:
    """``balanced_resource_scorer`` over every node: ``int((1 - std) * 100)`` of its fractions."""
    if len(columns) == 2 and all_present:
        # The usual case, cpu and memory on every node: std of two fractions.
        (req0, cap0), (req1, cap1) = columns
        first = np.minimum(req0.astype(np.float64) / cap0.astype(np.float64), 1.0)
        second = np.minimum(req1.astype(np.float64) / cap1.astype(np.float64), 1.0)
        std = np.abs((first - second) / 2)
        result: IntArray = ((1 - std) * MAX_NODE_SCORE).astype(np.int64)
        return result
    present = [capacity != 0 for _, capacity in columns]
    counts = np.sum(present, axis=0) if present else np.zeros(size, dtype=np.int64)
    # The reference's float64 steps, elementwise and in the same order, for every node
    # whose fraction count is 2 (the usual cpu and memory) or more; fewer gives std 0.
    fractions = []
    for (requested, capacity), has in zip(columns, present, strict=True):
        fraction = requested.astype(np.float64) / np.where(has, capacity, 1).astype(np.float64)
        fractions.append((np.minimum(fraction, 1.0), has))
    std = np.zeros(size, dtype=np.float64)
    two = counts == 2
    if two.any():
        first, second = _first_two(fractions, size)
        std = np.where(two, np.abs((first - second) / 2), std)
    more = counts > 2
    if more.any():
        total = np.zeros(size, dtype=np.float64)
        for fraction, has in fractions:
            total = np.where(has, total + fraction, total)
        mean = total / np.where(more, counts, 1)
        variance = np.zeros(size, dtype=np.float64)
        for fraction, has in fractions:
            variance = np.where(has, variance + (fraction - mean) * (fraction - mean), variance)
        std = np.where(more, np.sqrt(variance / np.where(more, counts, 1)), std)
    # int() of a non-negative float64 truncates, as astype does.
    truncated: IntArray = ((1 - std) * MAX_NODE_SCORE).astype(np.int64)
    return truncated


def _first_two(fractions: list[tuple[Any, BoolArray]], size: int) -> tuple[Any, Any]:
    """Per node, its first and second fraction among the resources it has."""
    first = np.zeros(size, dtype=np.float64)
    second = np.zeros(size, dtype=np.float64)
    seen = np.zeros(size, dtype=np.int64)
    for fraction, has in fractions:
        first = np.where(has & (seen == 0), fraction, first)
        second = np.where(has & (seen == 1), fraction, second)
        seen = seen + has
    return first, second


# --- trivial ------------------------------------------------------------------------------------


def _node_name_filter(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays
) -> FilterVerdict | None:
    wanted = pod.spec.node_name
    if not wanted:
        return FilterVerdict(None)
    rejected = np.ones(len(arrays), dtype=bool)
    position = arrays.position.get(wanted)
    if position is not None:
        rejected[position] = False
    return FilterVerdict(rejected, None, np.zeros(len(arrays), dtype=np.int64))


def _node_ports_filter(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays
) -> FilterVerdict | None:
    # No port in use on a node: nothing to conflict with. Others are checked one by one.
    return FilterVerdict(None, arrays["used_ports"] > 0)


def _dynamic_resources_filter(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays
) -> FilterVerdict | None:
    # A node with no free device cannot take claims that each need one (the allocator would
    # find nothing there); the others are allocated one by one, by the reference.
    allocator = plugin.batch_allocator(state)
    if allocator is None or not allocator.needs_a_free_device():
        return FilterVerdict(None, np.ones(len(arrays), dtype=bool))
    infos = arrays.infos
    rows = getattr(arrays, "rows", None)
    rejected = np.zeros(len(arrays), dtype=bool)
    for position in range(len(arrays)):
        node = infos[int(rows[position]) if rows is not None else position].node
        if node is not None and allocator.has_free_device(node) is False:
            rejected[position] = True
    # Every other node is the allocator's to decide (and its allocation is kept for Reserve).
    return FilterVerdict(rejected, ~rejected, np.zeros(len(arrays), dtype=np.int64))


def _dynamic_resources_score(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays, rows: IntArray
) -> ScoreVerdict | None:
    # A pod without claims (most pods) scores 0 on every node; the others node by node.
    if not plugin.scores_zero(state):
        return None
    return ScoreVerdict(np.zeros(len(rows), dtype=np.int64), None, 0)


def _image_locality_score(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays, rows: IntArray
) -> ScoreVerdict | None:
    num_containers = len(pod.spec.init_containers) + len(pod.spec.containers)
    if num_containers == 0:
        return None
    empty = imagelocality.calculate_priority(0, num_containers)
    scores = np.full(len(rows), empty, dtype=np.int64)
    if not np.count_nonzero(arrays["images"]):
        return ScoreVerdict(scores, None, empty)  # no node holds an image: one score for all
    holds_images = arrays.take("images", rows) > 0
    return ScoreVerdict(scores, holds_images if np.count_nonzero(holds_images) else None)


# --- normalizing ------------------------------------------------------------------------------


def default_normalize(scores: IntArray, reverse: bool) -> IntArray:
    """``default_normalize_score`` of :mod:`framework.plugins.helper` on a column."""
    highest = max(int(scores.max(initial=0)), 0)
    if highest == 0:
        return np.full_like(scores, MAX_NODE_SCORE) if reverse else scores
    scaled = MAX_NODE_SCORE * scores
    # Go's "/" truncates toward zero; numpy's // floors, which differs below zero.
    score = np.where(scaled >= 0, scaled // highest, -((-scaled) // highest))
    return MAX_NODE_SCORE - score if reverse else score


def default_normalize_one(score: int, reverse: bool) -> int:
    """:func:`default_normalize` of a column whose every score is ``score``: that one value.

    Each node's normalized score depends on its own and on the column's
    highest, here the same number, so one Python integer gives it exactly.
    """
    highest = max(score, 0)
    if highest == 0:
        return MAX_NODE_SCORE if reverse else score
    scaled = MAX_NODE_SCORE * score
    normalized = scaled // highest if scaled >= 0 else -((-scaled) // highest)
    return MAX_NODE_SCORE - normalized if reverse else normalized


def _reverse_normalize(plugin: Any, state: CycleState, pod: Pod, scores: IntArray) -> IntArray:
    return default_normalize(scores, reverse=True)


def _normalize(plugin: Any, state: CycleState, pod: Pod, scores: IntArray) -> IntArray:
    return default_normalize(scores, reverse=False)


# --- PreScore: Skip decided without building the state ------------------------------------------


def _inter_pod_affinity_skips(plugin: Any, state: CycleState, pod: Pod, snapshot: Any) -> bool:
    """InterPodAffinity's PreScore skips a pod without pod (anti-)affinity when no pod has any.

    The reference then walks no node (no preferred terms of its own, no
    node in ``HavePodsWithAffinityList``), builds an empty score map and
    returns Skip; without terms, parsing them cannot fail either.
    """
    affinity = pod.spec.affinity
    if affinity is not None and (
        affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None
    ):
        return False
    return not snapshot.node_infos().have_pods_with_affinity_list()


def _topology_spread_skips(plugin: Any, state: CycleState, pod: Pod, snapshot: Any) -> bool:
    """PodTopologySpread's PreScore skips a pod with no constraints of its own and no default ones.

    Without constraints of its own, the pod gets the default ones, each with
    the selector ``DefaultSelector`` deduces from the Services and
    controllers that select the pod: none of them, no constraint, Skip. The
    plugin's own ``build_default_constraints`` decides, so the check reads
    the cluster exactly as the reference does.
    """
    if pod.spec.topology_spread_constraints:
        return False
    if not snapshot.node_infos().list():
        return False  # the reference's Skip for no nodes: left to it
    return not plugin.build_default_constraints(pod, SCHEDULE_ANYWAY)


PreScoreSkip = Callable[[Any, CycleState, Pod, Any], bool]
"""Whether the plugin's PreScore would return Skip for this pod (False: run it to know)."""

_PRE_SCORE_SKIPS: dict[type, PreScoreSkip] = {
    interpodaffinity.InterPodAffinity: _inter_pod_affinity_skips,
    spread.PodTopologySpread: _topology_spread_skips,
}


def pre_score_skip(plugin: Any) -> PreScoreSkip | None:
    """The plugin's PreScore Skip check: the table's for its exact class, or None."""
    return _PRE_SCORE_SKIPS.get(type(plugin))


# --- the tables ---------------------------------------------------------------------------------

_FILTER_FORMS: dict[type, FilterForm] = {
    nodeunschedulable.NodeUnschedulable: _filter_by_class("spec_class"),
    tainttoleration.TaintToleration: _filter_by_class("spec_class"),
    nodeaffinity.NodeAffinity: _filter_by_class(_node_affinity_label_keys),
    spread.PodTopologySpread: _filter_by_class(_topology_spread_label_keys),
    nodename.NodeName: _node_name_filter,
    nodeports.NodePorts: _node_ports_filter,
    fit.Fit: _fit_filter,
    dynamicresources.DynamicResources: _dynamic_resources_filter,
}

_SCORE_FORMS: dict[type, ScoreForm] = {
    tainttoleration.TaintToleration: _score_by_class("spec_class"),
    nodeaffinity.NodeAffinity: _score_by_class(_node_affinity_label_keys),
    fit.Fit: _fit_score,
    balanced_allocation.BalancedAllocation: _balanced_score,
    imagelocality.ImageLocality: _image_locality_score,
    dynamicresources.DynamicResources: _dynamic_resources_score,
}

_NORMALIZE_FORMS: dict[type, NormalizeForm] = {
    tainttoleration.TaintToleration: _reverse_normalize,
    nodeaffinity.NodeAffinity: _normalize,
    dynamicresources.DynamicResources: _normalize,
}


def normalize_constant(form: NormalizeForm | None, score: int) -> int | None:
    """The normalized score of a column whose every score is ``score``; None if only the column tells.

    The table's forms (``default_normalize``) map each score from it and
    the column's highest alone; a plugin's own form may read the whole column.
    """
    if form is _normalize:
        return default_normalize_one(score, reverse=False)
    if form is _reverse_normalize:
        return default_normalize_one(score, reverse=True)
    return None


def _own(plugin: Any, method: str) -> Any:
    bound = getattr(plugin, method, None)
    if bound is None:
        return None
    return lambda _plugin, *args: bound(*args)


def reads_whole_arrays(plugin: Any) -> bool:
    """Whether the plugin's batch Filter is its own ``filter_batch``, given the whole arrays.

    The table's forms answer for a :class:`~framework.batch.arrays.NodeWindow`
    (the nodes a search may reach); a plugin's own form keeps the documented
    contract, every row of the :class:`~framework.batch.arrays.NodeArrays`.
    """
    return getattr(plugin, "filter_batch", None) is not None


def filter_form(plugin: Any) -> FilterForm | None:
    """The plugin's batch Filter: its own ``filter_batch``, the table's for its class, or None."""
    return (
        _own(plugin, "filter_batch")
        or _FILTER_FORMS.get(type(plugin))
        or _volume_filter_forms().get(type(plugin))
        or _affinity_forms()[0].get(type(plugin))
    )


@functools.cache
def _volume_filter_forms() -> dict[type, FilterForm]:
    """The volume plugins' forms (:mod:`framework.batch.volumes`, built on the helpers here)."""
    from framework.batch import volumes

    return volumes.FILTER_FORMS


@functools.cache
def _affinity_forms() -> tuple[
    dict[type, FilterForm], dict[type, ScoreForm], dict[type, NormalizeForm]
]:
    """InterPodAffinity's Filter, Score and NormalizeScore (:mod:`framework.batch.interpodaffinity`)."""
    from framework.batch import interpodaffinity

    return (
        interpodaffinity.FILTER_FORMS,
        interpodaffinity.SCORE_FORMS,
        interpodaffinity.NORMALIZE_FORMS,
    )


@functools.cache
def _spread_forms() -> tuple[
    dict[type, PreScoreForm], dict[type, ScoreForm], dict[type, NormalizeForm]
]:
    """PodTopologySpread's PreScore, Score and NormalizeScore (:mod:`framework.batch.podtopologyspread`)."""
    from framework.batch import podtopologyspread

    return (
        podtopologyspread.PRE_SCORE_FORMS,
        podtopologyspread.SCORE_FORMS,
        podtopologyspread.NORMALIZE_FORMS,
    )


def pre_score_form(plugin: Any) -> PreScoreForm | None:
    """The plugin's batch PreScore: the table's for its exact class, or None (its own ``pre_score``)."""
    return _spread_forms()[0].get(type(plugin))


def score_form(plugin: Any) -> ScoreForm | None:
    """The plugin's batch Score: its own ``score_batch``, the table's for its class, or None."""
    return (
        _own(plugin, "score_batch")
        or _SCORE_FORMS.get(type(plugin))
        or _affinity_forms()[1].get(type(plugin))
        or _spread_forms()[1].get(type(plugin))
    )


def normalize_form(plugin: Any) -> NormalizeForm | None:
    """The plugin's batch NormalizeScore, or None (its own ``normalize_score`` on a list is used)."""
    return (
        _own(plugin, "normalize_score_batch")
        or _NORMALIZE_FORMS.get(type(plugin))
        or _affinity_forms()[2].get(type(plugin))
        or _spread_forms()[2].get(type(plugin))
    )
