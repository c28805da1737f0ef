"""InterPodAffinity's scoring half: weights summed per topology domain, then scaled min to max.

PreScore walks the existing pods once and builds a *score map*, topology
key → value → points. For an existing pod on a node with labels:

* each preferred affinity term of the incoming pod that selects it adds the
  term's weight to that node's domain; each preferred anti-affinity term
  subtracts it;
* each required affinity term *of the existing pod* that selects the
  incoming pod adds ``hardPodAffinityWeight`` (when above 0);
* each preferred affinity term of the existing pod that selects the incoming
  pod adds its weight; each preferred anti-affinity term subtracts it.

Score sums, over the map's topology keys, the points of the node's value
for that key. The sums can be negative; NormalizeScore maps the lowest to 0
and the highest to 100, linearly, truncating the float as Go's ``int64()``.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/scoring.go``
(v1.33). Simplified: a plain loop over nodes instead of the parallelizer.
Added: the sum of the nodes' maps is kept from one cycle to the next, and
only the nodes that changed are computed again
(:class:`~framework.plugins.pernode.PerNodeTotals` and :class:`ScoreTotal`;
the plugin holds them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from framework.interface import MAX_NODE_SCORE, NodeScore
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.plugins.interpodaffinity.terms import (
    AffinityTerm,
    ParsedPodTerms,
    WeightedAffinityTerm,
    pod_info_terms,
)
from framework.plugins.pernode import PerNodeTotals

__all__ = [
    "PreScoreState",
    "ScoreMap",
    "ScoreTotal",
    "normalize",
    "process_existing_pod",
    "score_map_on_node",
    "score_node",
    "score_totals",
]


class ScoreMap(dict[str, dict[str, int]]):
    """Topology key → topology value → points (``scoreMap``)."""

    def process_term(
        self,
        term: AffinityTerm,
        weight: int,
        pod: Pod,
        ns_labels: Mapping[str, str] | None,
        node: Node,
        multiplier: int,
    ) -> None:
        if term.matches(pod, ns_labels):
            value = node.metadata.labels.get(term.topology_key)
            if value is not None:
                values = self.setdefault(term.topology_key, {})
                values[value] = values.get(value, 0) + weight * multiplier

    def process_terms(
        self,
        terms: Sequence[WeightedAffinityTerm],
        pod: Pod,
        ns_labels: Mapping[str, str] | None,
        node: Node,
        multiplier: int,
    ) -> None:
        for weighted in terms:
            self.process_term(weighted.term, weighted.weight, pod, ns_labels, node, multiplier)

    def append(self, other: Mapping[str, Mapping[str, int]]) -> None:
        for key, scores in other.items():
            mine = self.setdefault(key, {})
            for value, points in scores.items():
                mine[value] = mine.get(value, 0) + points

    def copy_map(self) -> ScoreMap:
        """A copy whose inner maps are copies too."""
        return ScoreMap({key: dict(scores) for key, scores in self.items()})


class ScoreTotal:
    """The nodes' score maps added up, with how many of them hold each entry, so one can be taken out.

    A sum of points can be zero while nodes still hold the entry (one pod's
    +5 and another's -5); a fresh sum keeps such an entry, and so must a
    total from which a node's map was taken out. So each ``(key, value)``
    entry counts the maps that hold it, and goes only when none does.
    """

    __slots__ = ("holders", "scores")

    def __init__(self) -> None:
        self.scores = ScoreMap()
        self.holders: dict[tuple[str, str], int] = {}

    def add(self, share: Mapping[str, Mapping[str, int]]) -> None:
        self.scores.append(share)
        for key, scores in share.items():
            for value in scores:
                entry = (key, value)
                self.holders[entry] = self.holders.get(entry, 0) + 1

    def remove(self, share: Mapping[str, Mapping[str, int]]) -> None:
        for key, scores in share.items():
            mine = self.scores[key]
            for value, points in scores.items():
                entry = (key, value)
                left = self.holders[entry] - 1
                if left:
                    self.holders[entry] = left
                    mine[value] -= points
                else:
                    del self.holders[entry]
                    del mine[value]
            if not mine:
                del self.scores[key]


def score_totals() -> PerNodeTotals[ScoreMap, ScoreTotal]:
    """Totals for PreScore: each node's :func:`score_map_on_node`, added and taken out."""
    return PerNodeTotals(ScoreTotal, ScoreTotal.add, ScoreTotal.remove)


@dataclass(slots=True)
class PreScoreState:
    """What PreScore computes and Score and NormalizeScore read; never changed, so shared by clones."""

    pod_info: ParsedPodTerms
    namespace_labels: Mapping[str, str]
    topology_score: ScoreMap = field(default_factory=ScoreMap)

    def clone(self) -> PreScoreState:
        return self


def process_existing_pod(
    state: PreScoreState,
    existing: ParsedPodTerms,
    node: Node,
    incoming: Pod,
    hard_pod_affinity_weight: int,
    topo_score: ScoreMap,
) -> None:
    """Add what one existing pod, on ``node``, contributes to the score map."""
    if not node.metadata.labels:
        return
    # Most lists are empty: testing them first saves a call per pod per list.
    mine = state.pod_info
    # The incoming pod's terms have their namespace selector unrolled: no labels needed.
    if mine.preferred_affinity_terms:
        topo_score.process_terms(mine.preferred_affinity_terms, existing.pod, None, node, 1)
    if mine.preferred_anti_affinity_terms:
        topo_score.process_terms(mine.preferred_anti_affinity_terms, existing.pod, None, node, -1)
    if hard_pod_affinity_weight > 0:
        for term in existing.required_affinity_terms:
            topo_score.process_term(
                term, hard_pod_affinity_weight, incoming, state.namespace_labels, node, 1
            )
    if existing.preferred_affinity_terms:
        topo_score.process_terms(
            existing.preferred_affinity_terms, incoming, state.namespace_labels, node, 1
        )
    if existing.preferred_anti_affinity_terms:
        topo_score.process_terms(
            existing.preferred_anti_affinity_terms, incoming, state.namespace_labels, node, -1
        )


def score_map_on_node(
    state: PreScoreState,
    node_info: NodeInfo,
    incoming: Pod,
    hard_pod_affinity_weight: int,
    all_pods: bool,
) -> ScoreMap:
    """One node's share of the score map (Go's ``processNode`` in PreScore).

    Only the node's pods with affinity can contribute unless the incoming
    pod has preferred terms of its own (``all_pods``).
    """
    topo_score = ScoreMap()
    node = node_info.node
    assert node is not None
    for existing in node_info.pods if all_pods else node_info.pods_with_affinity:
        process_existing_pod(
            state, pod_info_terms(existing), node, incoming, hard_pod_affinity_weight, topo_score
        )
    return topo_score


def score_node(state: PreScoreState, node: Node) -> int:
    """The points of the node's domains, summed over the map's topology keys."""
    score = 0
    for key, values in state.topology_score.items():
        value = node.metadata.labels.get(key)
        if value is not None:
            score += values.get(value, 0)
    return score


def normalize(scores: list[NodeScore]) -> None:
    """Min-max scaling to [0, 100] in place; all equal scores become 0, as in Go."""
    if not scores:
        return
    # One plain loop, as Go's: min() and max() over generators cost a resumption per node each.
    low = high = scores[0].score
    for node_score in scores:
        score = node_score.score
        if score < low:
            low = score
        elif score > high:
            high = score
    spread = high - low
    for node_score in scores:
        scaled = 0.0
        if spread > 0:
            scaled = float(MAX_NODE_SCORE) * (float(node_score.score - low) / float(spread))
        node_score.score = int(scaled)
