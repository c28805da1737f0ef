"""InterPodAffinity's filtering half: counts per topology domain, built in PreFilter, read in Filter.

Checking a node naively would look at every pod in the cluster for every
node. kube-scheduler instead counts once, in PreFilter, per *topology pair*
(``(topologyKey, value)``, such as ``("zone", "eu-1")``):

* ``existing_anti_affinity_counts``: for every existing pod with required
  anti-affinity, each of its terms that selects the incoming pod adds 1 to
  the pair of that pod's node. A node in a counted pair would break that
  pod's rule: ``node(s) didn't satisfy existing pods anti-affinity rules``.
* ``affinity_counts``: for every existing pod that matches *all* the
  incoming pod's required affinity terms, each term adds 1 to the pair of
  that pod's node. A node needs a positive count for every term's pair, or
  ``node(s) didn't match pod affinity rules``.
* ``anti_affinity_counts``: for every existing pod and every required
  anti-affinity term of the incoming pod that selects it, 1 for the pair.
  A node in a counted pair: ``node(s) didn't match pod anti-affinity rules``.

A counter that drops to zero is deleted, so "no entry" means zero. The
framework may add or remove pods (nominated pods, preemption victims) on a
clone of the state; :meth:`PreFilterState.update_with_pod` keeps the counts
true.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/filtering.go``
(v1.33). Simplified: the per-node work runs in a plain loop, where Go fans
it out over the parallelizer; the sums are the same. Added: the sums are
kept from one cycle to the next, and only the nodes that changed are
computed again (:class:`~framework.plugins.pernode.PerNodeTotals`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.plugins.interpodaffinity.terms import AffinityTerm, ParsedPodTerms, pod_info_terms
from framework.plugins.pernode import PerNodeTotals

__all__ = [
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "CountsPair",
    "PreFilterState",
    "TopologyPair",
    "TopologyToMatchedTermCount",
    "existing_anti_affinity_counts_on_node",
    "existing_anti_affinity_totals",
    "get_existing_anti_affinity_counts",
    "get_incoming_affinity_anti_affinity_counts",
    "incoming_affinity_anti_affinity_counts_on_node",
    "incoming_affinity_anti_affinity_totals",
    "pod_matches_all_affinity_terms",
    "satisfy_existing_pods_anti_affinity",
    "satisfy_pod_affinity",
    "satisfy_pod_anti_affinity",
    "term_key",
]

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = (
    "node(s) didn't satisfy existing pods anti-affinity rules"
)
"""An existing pod's required anti-affinity selects the incoming pod in this node's domain."""
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
"""The incoming pod's required affinity finds no matching pod in this node's domains."""
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
"""The incoming pod's required anti-affinity selects a pod in this node's domain."""

TopologyPair = tuple[str, str]
"""``(topologyKey, value)``: one topology domain."""


class TopologyToMatchedTermCount(dict[TopologyPair, int]):
    """Topology pair → count; an entry that reaches zero is removed (``topologyToMatchedTermCount``)."""

    def append(self, other: Mapping[TopologyPair, int]) -> None:
        for pair, count in other.items():
            self[pair] = self.get(pair, 0) + count

    def subtract(self, other: Mapping[TopologyPair, int]) -> None:
        """Undo :meth:`append` of ``other``; a pair that reaches zero is removed.

        A node's counts are all positive, so a pair reaches zero exactly when
        no node counts it any more: what a fresh sum would not hold either.
        """
        for pair, count in other.items():
            left = self[pair] - count
            if left:
                self[pair] = left
            else:
                del self[pair]

    def clone(self) -> TopologyToMatchedTermCount:
        return TopologyToMatchedTermCount(self)

    def update(self, node: Node, topology_key: str, value: int) -> None:  # type: ignore[override]
        """Add ``value`` to the node's pair for ``topology_key``; a node without the label counts nowhere."""
        topology_value = node.metadata.labels.get(topology_key)
        if topology_value is None:
            return
        pair = (topology_key, topology_value)
        count = self.get(pair, 0) + value
        if count == 0:
            self.pop(pair, None)
        else:
            self[pair] = count

    def update_with_affinity_terms(
        self, terms: Sequence[AffinityTerm], pod: Pod, node: Node, value: int
    ) -> None:
        """If ``pod`` matches *all* ``terms``, count it once per term in the node's pairs."""
        if pod_matches_all_affinity_terms(terms, pod):
            for term in terms:
                self.update(node, term.topology_key, value)

    def update_with_anti_affinity_terms(
        self,
        terms: Sequence[AffinityTerm],
        pod: Pod,
        ns_labels: Mapping[str, str] | None,
        node: Node,
        value: int,
    ) -> None:
        """Count ``pod`` once for every term that selects it, in the node's pair for that term."""
        for term in terms:
            if term.matches(pod, ns_labels):
                self.update(node, term.topology_key, value)


CountsPair = tuple[TopologyToMatchedTermCount, TopologyToMatchedTermCount]
"""The incoming pod's affinity counts and anti-affinity counts, in that order."""


def pod_matches_all_affinity_terms(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """True if there are terms and ``pod`` matches every one (namespace labels are not looked up).

    The incoming pod's terms have their namespace selector already unrolled
    into ``namespaces``, which is why no namespace labels are needed.
    """
    if not terms:
        return False
    for term in terms:  # noqa: SIM110 (a loop: all(<generator>) costs more, once per pod)
        if not term.matches(pod, None):
            return False
    return True


@dataclass(slots=True)
class PreFilterState:
    """What PreFilter computes and Filter reads; cloned per framework copy of the cycle state."""

    pod_info: ParsedPodTerms
    namespace_labels: Mapping[str, str]
    existing_anti_affinity_counts: TopologyToMatchedTermCount = field(
        default_factory=TopologyToMatchedTermCount
    )
    affinity_counts: TopologyToMatchedTermCount = field(default_factory=TopologyToMatchedTermCount)
    anti_affinity_counts: TopologyToMatchedTermCount = field(
        default_factory=TopologyToMatchedTermCount
    )

    def clone(self) -> PreFilterState:
        """The counters are copied; the pod's terms and namespace labels never change, so they are shared."""
        return PreFilterState(
            self.pod_info,
            self.namespace_labels,
            self.existing_anti_affinity_counts.clone(),
            self.affinity_counts.clone(),
            self.anti_affinity_counts.clone(),
        )

    def update_with_pod(self, other: ParsedPodTerms, node: Node, multiplier: int) -> None:
        """Count ``other`` on ``node`` in (multiplier 1) or out (-1) of all three counters."""
        self.existing_anti_affinity_counts.update_with_anti_affinity_terms(
            other.required_anti_affinity_terms,
            self.pod_info.pod,
            self.namespace_labels,
            node,
            multiplier,
        )
        self.affinity_counts.update_with_affinity_terms(
            self.pod_info.required_affinity_terms, other.pod, node, multiplier
        )
        self.anti_affinity_counts.update_with_anti_affinity_terms(
            self.pod_info.required_anti_affinity_terms, other.pod, None, node, multiplier
        )


def term_key(term: AffinityTerm) -> Hashable:
    """What a compiled term's matching depends on, as a dictionary key (for :class:`PerNodeTotals`)."""
    return (term.topology_key, term.selector, frozenset(term.namespaces), term.namespace_selector)


# [start-existing-anti-affinity]
def existing_anti_affinity_counts_on_node(
    pod: Pod, ns_labels: Mapping[str, str], node_info: NodeInfo
) -> TopologyToMatchedTermCount:
    """One node's share of :func:`get_existing_anti_affinity_counts` (Go's ``processNode``)."""
    topo_map = TopologyToMatchedTermCount()
    node = node_info.node
    assert node is not None
    for existing in node_info.pods_with_required_anti_affinity:
        topo_map.update_with_anti_affinity_terms(
            pod_info_terms(existing).required_anti_affinity_terms, pod, ns_labels, node, 1
        )
    return topo_map


def existing_anti_affinity_totals() -> PerNodeTotals[
    TopologyToMatchedTermCount, TopologyToMatchedTermCount
]:
    """Totals for :func:`get_existing_anti_affinity_counts`: the nodes' maps, added and taken out."""
    return PerNodeTotals(
        TopologyToMatchedTermCount,
        TopologyToMatchedTermCount.append,
        TopologyToMatchedTermCount.subtract,
    )


def get_existing_anti_affinity_counts(
    pod: Pod,
    ns_labels: Mapping[str, str],
    nodes: Sequence[NodeInfo],
    totals: PerNodeTotals[TopologyToMatchedTermCount, TopologyToMatchedTermCount] | None = None,
) -> TopologyToMatchedTermCount:
    """For the existing pods with required anti-affinity, the pairs whose terms select ``pod``.

    ``nodes`` are the nodes that have such pods
    (``HavePodsWithRequiredAntiAffinityList``), or all nodes: a node
    without such pods adds nothing. Only those pods are looked at, with
    their terms compiled once per pod (:func:`pod_info_terms`). As in Go,
    each node gets a map of its own and the maps are added up; with
    ``totals``, the sum is kept and only the nodes that changed are
    computed again.
    """

    def on_node(node_info: NodeInfo) -> TopologyToMatchedTermCount | None:
        if not node_info.pods_with_required_anti_affinity:
            return None  # most nodes, when all are walked: no map to build
        return existing_anti_affinity_counts_on_node(pod, ns_labels, node_info) or None

    if totals is not None:
        # What the maps depend on besides the node: the pod's namespace, labels, namespace labels.
        labels = frozenset(pod.metadata.labels.items())
        condition = ("existing", pod.namespace, labels, frozenset(ns_labels.items()))
        # A copy: the kept total must not change with the cycle's state.
        return TopologyToMatchedTermCount(totals.total(condition, nodes, on_node))
    result = TopologyToMatchedTermCount()
    for node_info in nodes:
        if node_info.node is None:
            continue
        topo_map = on_node(node_info)
        if topo_map:
            result.append(topo_map)
    return result


# [end-existing-anti-affinity]


def incoming_affinity_anti_affinity_counts_on_node(
    pod_info: ParsedPodTerms, node_info: NodeInfo
) -> tuple[TopologyToMatchedTermCount, TopologyToMatchedTermCount]:
    """One node's share of :func:`get_incoming_affinity_anti_affinity_counts` (Go's ``processNode``)."""
    affinity = TopologyToMatchedTermCount()
    anti_affinity = TopologyToMatchedTermCount()
    node = node_info.node
    assert node is not None
    affinity_terms = pod_info.required_affinity_terms
    anti_affinity_terms = pod_info.required_anti_affinity_terms
    for existing in node_info.pods:
        if affinity_terms:
            affinity.update_with_affinity_terms(affinity_terms, existing.pod, node, 1)
        if anti_affinity_terms:
            anti_affinity.update_with_anti_affinity_terms(
                anti_affinity_terms, existing.pod, None, node, 1
            )
    return affinity, anti_affinity


def _add_pair(total: CountsPair, share: CountsPair) -> None:
    total[0].append(share[0])
    total[1].append(share[1])


def _subtract_pair(total: CountsPair, share: CountsPair) -> None:
    total[0].subtract(share[0])
    total[1].subtract(share[1])


def incoming_affinity_anti_affinity_totals() -> PerNodeTotals[CountsPair, CountsPair]:
    """Totals for :func:`get_incoming_affinity_anti_affinity_counts`: both maps of each node."""
    return PerNodeTotals(
        lambda: (TopologyToMatchedTermCount(), TopologyToMatchedTermCount()),
        _add_pair,
        _subtract_pair,
    )


def get_incoming_affinity_anti_affinity_counts(
    pod_info: ParsedPodTerms,
    nodes: Sequence[NodeInfo],
    totals: PerNodeTotals[CountsPair, CountsPair] | None = None,
) -> CountsPair:
    """The pairs of the existing pods that the incoming pod's required (anti-)affinity selects.

    Every existing pod is looked at. As in Go, each node gets maps of its
    own and the maps are added up; with ``totals``, the sums are kept and
    only the nodes that changed are computed again.
    """
    if not pod_info.required_affinity_terms and not pod_info.required_anti_affinity_terms:
        return TopologyToMatchedTermCount(), TopologyToMatchedTermCount()

    def on_node(node_info: NodeInfo) -> CountsPair | None:
        affinity, anti_affinity = incoming_affinity_anti_affinity_counts_on_node(
            pod_info, node_info
        )
        return (affinity, anti_affinity) if affinity or anti_affinity else None

    if totals is not None:
        # What the maps depend on besides the node: the incoming pod's compiled terms.
        condition = (
            "incoming",
            tuple(term_key(t) for t in pod_info.required_affinity_terms),
            tuple(term_key(t) for t in pod_info.required_anti_affinity_terms),
        )
        affinity_total, anti_affinity_total = totals.total(condition, nodes, on_node)
        # Copies: the kept totals must not change with the cycle's state.
        return (
            TopologyToMatchedTermCount(affinity_total),
            TopologyToMatchedTermCount(anti_affinity_total),
        )
    affinity_counts = TopologyToMatchedTermCount()
    anti_affinity_counts = TopologyToMatchedTermCount()
    for node_info in nodes:
        if node_info.node is None:
            continue
        maps = on_node(node_info)
        if maps is not None:
            affinity_counts.append(maps[0])
            anti_affinity_counts.append(maps[1])
    return affinity_counts, anti_affinity_counts


def satisfy_existing_pods_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """False if any of the node's labels is a pair where an existing pod's anti-affinity forbids the pod."""
    if state.existing_anti_affinity_counts:
        for pair in node.metadata.labels.items():
            if state.existing_anti_affinity_counts.get(pair, 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """False if a pod the incoming pod must avoid runs in one of the node's domains."""
    if state.anti_affinity_counts:
        for term in state.pod_info.required_anti_affinity_terms:
            value = node.metadata.labels.get(term.topology_key)
            if (
                value is not None
                and state.anti_affinity_counts.get((term.topology_key, value), 0) > 0
            ):
                return False
    return True


def satisfy_pod_affinity(state: PreFilterState, node: Node) -> bool:
    """True if each required affinity term finds a matching pod in the node's domain for it.

    The node must carry every term's topology label. One exception lets a
    group of pods that want to be near each other start at all: when no
    pod anywhere matches (the counts are empty) and the incoming pod matches
    its own terms, it may go to any node that has the labels.
    """
    pods_exist = True
    for term in state.pod_info.required_affinity_terms:
        value = node.metadata.labels.get(term.topology_key)
        if value is None:
            return False
        if state.affinity_counts.get((term.topology_key, value), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        return not state.affinity_counts and pod_matches_all_affinity_terms(
            state.pod_info.required_affinity_terms, state.pod_info.pod
        )
    return True
