"""PerNodeTotals: a total kept across cycles equals the shares of every node added up afresh.

Kubernetes adds up every node's map on every cycle (``processNode`` and
``append``/``mergeMaps`` in ``getExistingAntiAffinityCounts``,
``getIncomingAffinityAntiAffinityCounts`` and ``PreScore``,
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/``
``filtering.go`` and ``scoring.go``, v1.33). Ours keeps the sum and
recomputes only the nodes whose generation moved, so the expectation is
that plain sum, entry for entry, including a score entry whose points add
up to zero (Go's map keeps it, and InterPodAffinity's PreScore skips only an
empty map).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from hypothesis import example, given
from hypothesis import strategies as st

from framework.cache.snapshot import Snapshot
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.plugins.interpodaffinity import InterPodAffinity
from framework.plugins.interpodaffinity.filtering import (
    PreFilterState,
    TopologyToMatchedTermCount,
    existing_anti_affinity_totals,
    get_existing_anti_affinity_counts,
    get_incoming_affinity_anti_affinity_counts,
)
from framework.plugins.interpodaffinity.plugin import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    get_namespace_labels_snapshot,
)
from framework.plugins.interpodaffinity.scoring import (
    PreScoreState,
    ScoreMap,
    ScoreTotal,
    score_map_on_node,
    score_totals,
)
from framework.plugins.interpodaffinity.terms import parse_pod_terms
from framework.plugins.pernode import PerNodeTotals, changed_positions
from framework.types import PodInfo
from tests.plugins.interpodaffinity import test_per_node_cache as per_node_cache
from tests.plugins.interpodaffinity.cluster_steps import ChangingCluster, Step


def _node(name: str, zone: str) -> Node:
    return Node.from_dict({"metadata": {"name": name, "labels": {"zone": zone}}})


def _pod(name: str, points: int) -> Pod:
    return Pod.from_dict(
        {"metadata": {"name": name, "uid": name, "labels": {"points": str(points)}}}
    )


def _scores(node_info: NodeInfo) -> ScoreMap | None:
    """A node's share: each pod's points in the node's zone (they may cancel out to zero)."""
    assert node_info.node is not None
    share = ScoreMap()
    for info in node_info.pods:
        zone = share.setdefault("zone", {})
        value = node_info.node.metadata.labels["zone"]
        zone[value] = zone.get(value, 0) + int(info.pod.metadata.labels["points"])
        hostname = share.setdefault("hostname", {})
        hostname[node_info.name] = hostname.get(node_info.name, 0) + 1
    return share or None


def _nodes_in_z0(count: int) -> list[NodeInfo]:
    """Nodes ``n0``, ``n1``, ... in zone ``z0``, each with one pod worth one point."""
    nodes = []
    for i in range(count):
        info = NodeInfo(_pod(f"p{i}", 1))
        info.set_node(_node(f"n{i}", "z0"))
        nodes.append(info)
    return nodes


def _counts(node_info: NodeInfo) -> TopologyToMatchedTermCount | None:
    """A node's share: one per pod in the node's zone."""
    assert node_info.node is not None
    share = TopologyToMatchedTermCount()
    for _ in node_info.pods:
        share.update(node_info.node, "zone", 1)
    return share or None


class _Sum(Protocol):
    def append(self, other: Any, /) -> None: ...


_SumT = TypeVar("_SumT", bound=_Sum)


def _fresh_sum(
    nodes: list[NodeInfo], share: Callable[[NodeInfo], _SumT | None], total: _SumT
) -> _SumT:
    """Every listed node's share added up afresh, as Kubernetes does each cycle."""
    for node_info in nodes:
        part = share(node_info) if node_info.node is not None else None
        if part:
            total.append(part)
    return total


operations = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove", "zone", "drop", "new", "clone", "swap", "unset"]),
        st.integers(0, 5),
        st.integers(-2, 2),
    ),
    max_size=25,
)


@given(operations, st.sampled_from(["a", "b"]))
# +1 then -1 in one zone: the entry stays, at zero, while its pods are there.
@example([("add", 0, 1), ("add", 1, -1)], "a")
# A node leaves the list, and one comes: another length, a fresh table.
@example([("add", 0, 2), ("drop", 0, 0), ("new", 0, 0), ("add", 1, 1)], "a")
# A snapshot's copy of a node keeps its generation, then diverges.
@example([("add", 0, 2), ("clone", 0, 0), ("add", 0, -2)], "a")
def test_the_kept_total_is_the_fresh_sum_after_any_changes(
    ops: list[tuple[str, int, int]], condition: str
) -> None:
    nodes = []
    for i in range(4):
        info = NodeInfo()
        info.set_node(_node(f"n{i}", f"z{i % 2}"))
        nodes.append(info)
    scores = score_totals()
    counts = existing_anti_affinity_totals()
    serial = 0
    for op, index, points in ops:
        if not nodes and op != "new":
            continue
        target = nodes[index % len(nodes)] if nodes else None
        serial += 1
        if op == "add" and target is not None:
            target.add_pod(PodInfo(_pod(f"p{serial}", points)))
        elif op == "remove" and target is not None and target.pods:
            target.remove_pod(target.pods[points % len(target.pods)].pod)
        elif op == "zone" and target is not None and target.node is not None:
            zone = "z0" if target.node.metadata.labels["zone"] == "z1" else "z1"
            target.set_node(_node(target.name, zone))
        elif op == "drop":
            nodes.pop(index % len(nodes))
        elif op == "new":
            info = NodeInfo()
            info.set_node(_node(f"m{serial}", f"z{serial % 2}"))
            nodes.insert(index % (len(nodes) + 1), info)
        elif op == "clone" and target is not None:
            nodes[nodes.index(target)] = target.clone()
        elif op == "swap" and len(nodes) > 1:
            i, j = index % len(nodes), (index + 1) % len(nodes)
            nodes[i], nodes[j] = nodes[j], nodes[i]
        elif op == "unset" and target is not None:
            target.remove_node()
        assert scores.total(condition, nodes, _scores).scores == _fresh_sum(
            nodes, _scores, ScoreMap()
        )
        assert counts.total(condition, nodes, _counts) == _fresh_sum(
            nodes, _counts, TopologyToMatchedTermCount()
        )


@given(
    st.lists(st.integers(1, 5), max_size=300).flatmap(
        lambda seen: st.tuples(
            st.just(seen), st.lists(st.integers(1, 5), min_size=len(seen), max_size=len(seen))
        )
    )
)
def test_changed_positions_are_those_that_differ_across_blocks(
    lists: tuple[list[int], list[int]],
) -> None:
    seen, now = lists
    assert changed_positions(seen, now) == [i for i in range(len(now)) if seen[i] != now[i]]


def test_an_unchanged_node_is_not_computed_again() -> None:
    nodes = _nodes_in_z0(3)
    computed: list[str] = []

    def share(node_info: NodeInfo) -> TopologyToMatchedTermCount | None:
        computed.append(node_info.name)
        return _counts(node_info)

    totals = existing_anti_affinity_totals()
    assert totals.total("c", nodes, share) == {("zone", "z0"): 3}
    nodes[1].add_pod(PodInfo(_pod("q", 1)))
    assert totals.total("c", nodes, share) == {("zone", "z0"): 4}
    assert computed == ["n0", "n1", "n2", "n1"]


def test_a_failing_share_leaves_the_total_consistent() -> None:
    nodes = _nodes_in_z0(2)
    totals = existing_anti_affinity_totals()
    assert totals.total("c", nodes, _counts) == {("zone", "z0"): 2}
    nodes[0].add_pod(PodInfo(_pod("q", 1)))
    nodes[1].add_pod(PodInfo(_pod("r", 1)))

    def failing(node_info: NodeInfo) -> TopologyToMatchedTermCount | None:
        if node_info is nodes[1]:
            raise RuntimeError("boom")
        return _counts(node_info)

    with contextlib.suppress(RuntimeError):
        totals.total("c", nodes, failing)
    assert totals.total("c", nodes, _counts) == {("zone", "z0"): 4}


def test_only_the_most_recent_conditions_are_kept() -> None:
    info = NodeInfo(_pod("p", 1))
    info.set_node(_node("n1", "z0"))
    computed: list[str] = []
    totals: PerNodeTotals[TopologyToMatchedTermCount, TopologyToMatchedTermCount] = PerNodeTotals(
        TopologyToMatchedTermCount,
        TopologyToMatchedTermCount.append,
        TopologyToMatchedTermCount.subtract,
        max_conditions=2,
    )

    def counting(name: str) -> Any:
        def share(node_info: NodeInfo) -> TopologyToMatchedTermCount | None:
            computed.append(name)
            return _counts(node_info)

        return share

    for name in ("a", "b", "a", "c", "a", "b"):
        totals.total(name, [info], counting(name))
    # "b" was the least recently used when "c" came, so it was computed again.
    assert computed == ["a", "b", "c", "b"]


def test_a_score_entry_stays_while_a_node_holds_it_even_at_zero() -> None:
    total = ScoreTotal()
    total.add({"zone": {"z0": 5}})
    total.add({"zone": {"z0": -5}})
    assert total.scores == {"zone": {"z0": 0}}
    total.remove({"zone": {"z0": 5}})
    assert total.scores == {"zone": {"z0": -5}}
    total.remove({"zone": {"z0": -5}})
    assert total.scores == {}


def _reference_states(
    plugin: InterPodAffinity, snapshot: Snapshot, incoming: Pod
) -> tuple[Any, ...]:
    """Kubernetes' computation, shaped as Go's: every listed node's maps, added up, no totals kept."""
    pod_info, _ = parse_pod_terms(incoming)
    for term in (*pod_info.required_affinity_terms, *pod_info.required_anti_affinity_terms):
        plugin.merge_affinity_term_namespaces_if_not_empty(term)
    ns_labels = get_namespace_labels_snapshot(plugin._namespace_lister(), incoming.namespace)
    existing = get_existing_anti_affinity_counts(
        incoming, ns_labels, snapshot.have_pods_with_required_anti_affinity_list()
    )
    affinity, anti_affinity = get_incoming_affinity_anti_affinity_counts(pod_info, snapshot.list())
    counts: Any = (existing, affinity, anti_affinity)
    if not (existing or pod_info.required_affinity_terms or pod_info.required_anti_affinity_terms):
        counts = None  # PreFilter's Skip
    for weighted in (*pod_info.preferred_affinity_terms, *pod_info.preferred_anti_affinity_terms):
        plugin.merge_affinity_term_namespaces_if_not_empty(weighted.term)
    has_constraints = bool(
        pod_info.preferred_affinity_terms or pod_info.preferred_anti_affinity_terms
    )
    state = PreScoreState(pod_info, ns_labels)
    weight = plugin.args.hard_pod_affinity_weight
    nodes = snapshot.list() if has_constraints else snapshot.have_pods_with_affinity_list()
    for node_info in nodes:
        if node_info.node is not None:
            state.topology_score.append(
                score_map_on_node(state, node_info, incoming, weight, has_constraints)
            )
    return counts, state.topology_score or None


def _plugin_states(plugin: InterPodAffinity, snapshot: Snapshot, incoming: Pod) -> tuple[Any, ...]:
    state = CycleState()
    _, pre_filter = plugin.pre_filter(state, incoming, [])
    counts: Any = None
    if pre_filter is None:
        s = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
        counts = (s.existing_anti_affinity_counts, s.affinity_counts, s.anti_affinity_counts)
    scores: Any = None
    if plugin.pre_score(state, incoming, []) is None:
        scores = state.read_as(PRE_SCORE_STATE_KEY, PreScoreState).topology_score
    return counts, scores


@given(per_node_cache.operations)
# A node moves to the other zone.
@example([("add", 1, 0, 1, "web"), ("add", 2, 1, 3, "db"), ("node", 0, 0, 0, "web")])
# A pod with required anti-affinity leaves; another stays on the next node.
@example([("add", 1, 0, 2, "db"), ("add", 4, 1, 2, "db"), ("remove", 1, 0, 0, "web")])
# The incoming pod's namespace starts matching an existing pod's namespaceSelector.
@example([("add", 1, 0, 5, "web"), ("namespace", 0, 0, 0, "web")])
def test_the_plugin_with_kept_totals_computes_what_go_computes(
    ops: list[Step],
) -> None:
    cluster = ChangingCluster(per_node_cache.NODES, per_node_cache.SHAPES)
    snapshot = cluster.snapshot
    long_lived = InterPodAffinity(cluster.fwk)
    for step in ops:
        cluster.step(step)
        for incoming in per_node_cache.INCOMING:
            reference = _reference_states(InterPodAffinity(cluster.fwk), snapshot, incoming)
            assert _plugin_states(long_lived, snapshot, incoming) == reference
