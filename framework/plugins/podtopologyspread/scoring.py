"""PreScore, Score and NormalizeScore: the soft constraints (``ScheduleAnyway``).

**PreScore** keeps the pod's soft constraints (or the default ones, for a
pod with no constraints at all) and, for every constraint whose key is not
the hostname, counts matching pods per domain over *all* nodes, but only in
domains that some filtered node belongs to. Filtered nodes lacking a
topology key are *ignored*: they score 0. Each constraint gets a weight
``log(number of domains + 2)``, so that a constraint over few big domains
does not drown one over many small ones. With no soft constraint,
PreScore returns ``Skip`` and Score does not run.

**Score** sums, per constraint, ``count × weight + (maxSkew − 1)`` for the
node's domain (for the hostname key, the count is the node's own pods) and
rounds. Fewer matching pods is better, so **NormalizeScore** turns it
around: ``100 × (max + min − score) // max``; ignored nodes get 0, and if
every score is 0, every node gets 100.

>>> round(topology_normalizing_weight(3), 4)
1.6094
>>> score_for_count(2, 1, topology_normalizing_weight(3))
3.2188758248682006

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/scoring.go``
(v1.33). Simplified: counts are plain integers, not atomics (no parallelizer).
Added: each node's counts, and their sums per domain, are kept from one
cycle to the next, and only the nodes that changed are counted again
(:class:`~framework.plugins.podtopologyspread.counts.NodeCountsCache`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from framework.interface import MAX_NODE_SCORE, NodeScore
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.nodeaffinity import get_required_node_affinity
from framework.plugins.helper import go_div
from framework.plugins.podtopologyspread.common import (
    LABEL_HOSTNAME,
    SpreadConstraint,
    count_pods_match_selector,
    node_labels_match_spread_constraints,
)
from framework.plugins.podtopologyspread.counts import NodeCountsCache

__all__ = [
    "INVALID_SCORE",
    "PreScoreState",
    "count_in_domains",
    "init_pre_score_state",
    "normalize_scores",
    "score_for_count",
    "score_node",
    "topology_normalizing_weight",
]

INVALID_SCORE = -1
"""Marks an ignored node during NormalizeScore (``invalidScore``)."""


@dataclass(slots=True)
class PreScoreState:
    """What PreScore computes for Score and NormalizeScore."""

    constraints: list[SpreadConstraint] = field(default_factory=list)
    ignored_nodes: set[str] = field(default_factory=set)
    """The filtered nodes lacking a topology key, which score 0."""
    topology_value_to_pod_counts: list[dict[str, int]] = field(default_factory=list)
    """For each constraint, domain value → matching pods (never filled for the hostname key)."""
    topology_normalizing_weight: list[float] = field(default_factory=list)

    def clone(self) -> PreScoreState:
        return self  # read-only after PreScore, shared as in Go


def topology_normalizing_weight(size: int) -> float:
    """``log(size + 2)``: the weight of a constraint whose key has ``size`` domains."""
    return math.log(size + 2)


def score_for_count(count: int, max_skew: int, weight: float) -> float:
    """``count × weight + (maxSkew − 1)``: a larger maxSkew waters down the differences."""
    return count * weight + (max_skew - 1)


def init_pre_score_state(
    constraints: list[SpreadConstraint],
    filtered_nodes: list[NodeInfo],
    require_all_topologies: bool,
) -> PreScoreState:
    """Ignored nodes, the domains of the filtered nodes and each constraint's weight (``initPreScoreState``)."""
    state = PreScoreState(constraints=constraints)
    if not constraints:
        return state
    state.topology_value_to_pod_counts = [{} for _ in constraints]
    topo_size = [0] * len(constraints)
    for node_info in filtered_nodes:
        node = node_info.node
        if node is None:
            continue
        labels = node.metadata.labels
        if require_all_topologies and not node_labels_match_spread_constraints(
            labels, constraints
        ):
            state.ignored_nodes.add(node.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue  # per-node counts are taken in Score
            value = labels.get(c.topology_key, "")
            if value not in state.topology_value_to_pod_counts[i]:
                state.topology_value_to_pod_counts[i][value] = 0
                topo_size[i] += 1
    for i, c in enumerate(constraints):
        size = topo_size[i]
        if c.topology_key == LABEL_HOSTNAME:
            size = len(filtered_nodes) - len(state.ignored_nodes)
        state.topology_normalizing_weight.append(topology_normalizing_weight(size))
    return state


def count_in_domains(
    state: PreScoreState,
    pod: Pod,
    all_nodes: list[NodeInfo],
    require_all_topologies: bool,
    cache: NodeCountsCache | None = None,
) -> None:
    """Add every node's matching pods to its domain's count, for the domains PreScore keeps.

    With ``cache``, a node's counts are reused from an earlier cycle when
    the node has not changed since, and so are the sums per domain when
    no node moved between domains (:class:`~.counts.NodeCountsCache`).
    """
    required = get_required_node_affinity(pod)
    constraints = state.constraints
    # Decided once per cycle, not once per node: most pods' policies include every node.
    check_inclusion = [not c.inclusion_policies_always_match(required) for c in constraints]
    cache = cache if cache is not None else NodeCountsCache()
    if require_all_topologies and not any(check_inclusion):
        # Every node with all the keys counts: the sums the cache keeps,
        # read for the domains some filtered node is in.
        domains = cache.domain_counts(all_nodes, constraints, pod.namespace)
        for pod_counts, sums in zip(state.topology_value_to_pod_counts, domains, strict=True):
            for value in pod_counts:
                pod_counts[value] += sums.get(value, 0)
        return
    walked = cache.node_counts(all_nodes, constraints, pod.namespace)
    for node_info, (has_all_keys, values, counts) in zip(all_nodes, walked, strict=True):
        node = node_info.node
        if node is None or (require_all_topologies and not has_all_keys):
            continue
        for i, c in enumerate(constraints):
            if check_inclusion[i] and not c.match_node_inclusion_policies(pod, node, required):
                continue
            pod_counts = state.topology_value_to_pod_counts[i]
            # No filtered node in the domain (and never for the hostname key): not kept.
            if values[i] in pod_counts:
                pod_counts[values[i]] += counts[i]


def score_node(state: PreScoreState, pod: Pod, node_info: NodeInfo) -> int:
    """The node's raw score: the weighted matching pods of its domains, rounded (lower is better)."""
    node = node_info.node
    assert node is not None
    if node.name in state.ignored_nodes:
        return 0
    labels = node.metadata.labels
    score = 0.0
    for i, c in enumerate(state.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            count = count_pods_match_selector(node_info, c.selector, pod.namespace)
        else:
            count = state.topology_value_to_pod_counts[i][value]
        score += score_for_count(count, c.max_skew, state.topology_normalizing_weight[i])
    return _go_round(score)


def _go_round(value: float) -> int:
    """``math.Round``: halves away from zero (Python's ``round`` goes to even)."""
    return math.floor(abs(value) + 0.5) * (1 if value >= 0 else -1)


def normalize_scores(state: PreScoreState, scores: list[NodeScore]) -> None:
    """Ignored → 0; all zero → 100 each; else ``100 × (max + min − s) // max``."""
    min_score = 2**63 - 1
    max_score = 0
    for node_score in scores:
        if node_score.name in state.ignored_nodes:
            node_score.score = INVALID_SCORE
            continue
        min_score = min(min_score, node_score.score)
        max_score = max(max_score, node_score.score)
    for node_score in scores:
        if node_score.score == INVALID_SCORE:
            node_score.score = 0
        elif max_score == 0:
            node_score.score = MAX_NODE_SCORE
        else:
            node_score.score = go_div(
                MAX_NODE_SCORE * (max_score + min_score - node_score.score), max_score
            )
