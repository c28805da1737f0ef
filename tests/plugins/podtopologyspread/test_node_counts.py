"""NodeCountsCache: each node's counts kept by generation, and the walks that read them.

Kubernetes recounts every node on every cycle (``processNode`` in
``calPreFilterState``, ``processAllNode`` in ``PreScore``:
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``
and ``scoring.go``, v1.33). The cache is ours, so the expectation is
Kubernetes' result, written here as a plain model of those two loops: a
plugin that has lived through many cycles, with pods and nodes coming,
going and changing between them, must count exactly what the model counts,
domain by domain and in the same order (the critical paths are read in that
order, so ties must break the same way).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from framework.cache.cache import Cache
from framework.cache.snapshot import Snapshot
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.nodeaffinity import get_required_node_affinity
from framework.plugins.pernode import MAX_CONDITIONS
from framework.plugins.podtopologyspread import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    PodTopologySpread,
    PodTopologySpreadArgs,
    counts,
)
from framework.plugins.podtopologyspread.common import SpreadConstraint, count_pods_match_selector
from framework.plugins.podtopologyspread.counts import NodeCounts, NodeCountsCache, node_counts
from framework.plugins.podtopologyspread.filtering import CriticalPaths, PreFilterState
from framework.plugins.podtopologyspread.scoring import PreScoreState
from framework.types import PodInfo
from tests.plugins.podtopologyspread.cluster_steps import apply_pod_step
from tests.plugins.podtopologyspread.helpers import HOST, ZONE, Handle, node, pod, spread

WEB = {"matchLabels": {"app": "web"}}


def _node_info(name: str, *pods: Pod, **labels: str) -> NodeInfo:
    info = NodeInfo(*pods)
    info.set_node(node(name, **labels))
    return info


def _constraints(incoming: Pod, plugin: PodTopologySpread) -> list[SpreadConstraint]:
    return plugin.get_constraints(incoming)


def test_a_node_counts_its_values_and_matching_pods_per_constraint() -> None:
    incoming = pod("in", "", spread(1, ZONE, selector=WEB), spread(1, "rack", selector=WEB))
    constraints = _constraints(incoming, PodTopologySpread())
    info = _node_info(
        "n1",
        pod("a", "n1", labels={"app": "web"}),
        pod("b", "n1", labels={"app": "db"}),
        pod("c", "n1", labels={"app": "web"}, namespace="other"),
        zone="z1",
    )
    # No "rack" label: "" as Go's map lookup gives, and the node lacks a key.
    assert node_counts(info, constraints, "default") == NodeCounts(False, ("z1", ""), (1, 1))


def test_a_node_info_without_its_node_counts_for_nothing() -> None:
    incoming = pod("in", "", spread(1, ZONE, selector=WEB))
    constraints = _constraints(incoming, PodTopologySpread())
    assert node_counts(NodeInfo(pod("a", "n1")), constraints, "default") == NodeCounts(
        False, ("",), (0,)
    )


def test_a_node_is_counted_again_only_when_its_generation_moves() -> None:
    incoming = pod("in", "", spread(1, ZONE, selector={"matchLabels": {"foo": ""}}))
    constraints = _constraints(incoming, PodTopologySpread())
    nodes = [_node_info("n1", pod("a", "n1"), zone="z1"), _node_info("n2", zone="z2")]
    cache = NodeCountsCache()
    first = cache.node_counts(nodes, constraints, "default")
    again = cache.node_counts(nodes, constraints, "default")
    assert [a is b for a, b in zip(first, again, strict=True)] == [True, True]
    nodes[1].add_pod(PodInfo(pod("b", "n2")))
    changed = cache.node_counts(nodes, constraints, "default")
    assert changed[0] is first[0]
    assert changed[1] == NodeCounts(True, ("z2",), (1,))


def test_the_sums_follow_a_pod_added_and_start_again_when_a_node_moves() -> None:
    incoming = pod("in", "", spread(1, ZONE, selector={"matchLabels": {"foo": ""}}))
    constraints = _constraints(incoming, PodTopologySpread())
    nodes = [
        _node_info("n1", pod("a", "n1"), zone="z1"),
        _node_info("n2", zone="z2"),
        _node_info("n3", zone="z1"),
    ]
    cache = NodeCountsCache()
    assert cache.domain_counts(nodes, constraints, "default") == [{"z1": 1, "z2": 0}]
    nodes[1].add_pod(PodInfo(pod("b", "n2")))
    assert cache.domain_counts(nodes, constraints, "default") == [{"z1": 1, "z2": 1}]
    # n2 moves to z1: z2 has no node left, and is no domain any more.
    nodes[1].set_node(node("n2", zone="z1"))
    assert cache.domain_counts(nodes, constraints, "default") == [{"z1": 2}]


def test_the_sums_handed_out_are_copies() -> None:
    incoming = pod("in", "", spread(1, ZONE, selector={"matchLabels": {"foo": ""}}))
    constraints = _constraints(incoming, PodTopologySpread())
    nodes = [_node_info("n1", pod("a", "n1"), zone="z1")]
    cache = NodeCountsCache()
    cache.domain_counts(nodes, constraints, "default")[0]["z1"] = 99  # as AddPod would
    assert cache.domain_counts(nodes, constraints, "default") == [{"z1": 1}]


def test_another_namespace_or_selector_is_another_condition() -> None:
    incoming = pod("in", "", spread(1, ZONE, selector=WEB))
    constraints = _constraints(incoming, PodTopologySpread())
    nodes = [_node_info("n1", pod("a", "n1", labels={"app": "web"}), zone="z1")]
    cache = NodeCountsCache()
    assert cache.node_counts(nodes, constraints, "default")[0].counts == (1,)
    assert cache.node_counts(nodes, constraints, "other")[0].counts == (0,)
    db = _constraints(
        pod("in", "", spread(1, ZONE, selector={"matchLabels": {"app": "db"}})),
        PodTopologySpread(),
    )
    assert cache.node_counts(nodes, db, "default")[0].counts == (0,)


def test_only_the_most_recent_conditions_are_kept() -> None:
    nodes = [_node_info("n1", pod("a", "n1"), zone="z1")]
    cache = NodeCountsCache()
    calls: list[str] = []
    namespaces = [f"ns{i}" for i in range(MAX_CONDITIONS + 1)]
    incoming = pod("in", "", spread(1, ZONE, selector={"matchLabels": {"foo": ""}}))
    constraints = _constraints(incoming, PodTopologySpread())
    original = counts.node_counts

    def counting(node_info: NodeInfo, cs: list[SpreadConstraint], namespace: str) -> NodeCounts:
        calls.append(namespace)
        return original(node_info, cs, namespace)

    counts.node_counts = counting  # type: ignore[assignment]
    try:
        for namespace in [*namespaces, namespaces[-1], namespaces[0]]:
            cache.node_counts(nodes, constraints, namespace)
    finally:
        counts.node_counts = original  # type: ignore[assignment]
    # The last one was kept; the first, the least recently used, was dropped and counted again.
    assert calls == [*namespaces, namespaces[0]]


# --- the model: Go's two loops, written plainly, without any cache ---------------------------


def _model_pre_filter(
    incoming: Pod, constraints: list[SpreadConstraint], nodes: list[NodeInfo]
) -> Any:
    """``calPreFilterState``'s counts and critical paths, one node at a time."""
    required = get_required_node_affinity(incoming)
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for info in nodes:
        n = info.node
        if n is None or any(c.topology_key not in n.metadata.labels for c in constraints):
            continue
        for i, c in enumerate(constraints):
            if not c.match_node_inclusion_policies(incoming, n, required):
                continue
            value = n.metadata.labels[c.topology_key]
            matching = count_pods_match_selector(info, c.selector, incoming.namespace)
            counts[i][value] = counts[i].get(value, 0) + matching
    paths = []
    for match_num in counts:
        p = CriticalPaths()
        for value, num in match_num.items():
            p.update(value, num)
        paths.append(p.paths)
    return [list(m.items()) for m in counts], paths


def _model_pre_score_counts(
    incoming: Pod, state: PreScoreState, nodes: list[NodeInfo], require_all: bool
) -> list[list[tuple[str, int]]]:
    """``PreScore``'s ``processAllNode``, over the domains ``initPreScoreState`` kept."""
    required = get_required_node_affinity(incoming)
    counts = [dict.fromkeys(m, 0) for m in state.topology_value_to_pod_counts]
    for info in nodes:
        n = info.node
        if n is None:
            continue
        labels = n.metadata.labels
        if require_all and any(c.topology_key not in labels for c in state.constraints):
            continue
        for i, c in enumerate(state.constraints):
            if not c.match_node_inclusion_policies(incoming, n, required):
                continue
            value = labels.get(c.topology_key, "")
            if value in counts[i]:
                counts[i][value] += count_pods_match_selector(info, c.selector, incoming.namespace)
    return [list(m.items()) for m in counts]


INCOMING = [
    # The next one's hard constraint, with a node selector: the same counts, read node by node
    # (first, so that it meets each change before the next one does).
    pod(
        "zone-with-selector",
        "",
        spread(1, ZONE, selector=WEB),
        labels={"app": "web"},
        spec={"nodeSelector": {"pool": "a"}},
    ),
    # Hard zone spread and soft spread by host and zone.
    pod(
        "zone-and-host",
        "",
        spread(1, ZONE, selector=WEB),
        spread(2, HOST, when="ScheduleAnyway", selector=WEB),
        spread(1, ZONE, when="ScheduleAnyway", selector=WEB),
        labels={"app": "web"},
    ),
    # Two hard constraints, and a node selector the inclusion policy honours.
    pod(
        "honours-affinity",
        "",
        spread(1, ZONE, selector=WEB),
        spread(1, "rack", selector={"matchLabels": {"app": "db"}}),
        spread(1, "rack", when="ScheduleAnyway", selector=WEB),
        labels={"app": "web"},
        spec={"nodeSelector": {"pool": "a"}},
    ),
    # The same key as the first, another selector.
    pod("db", "", spread(2, ZONE, selector={"matchLabels": {"app": "db"}}), labels={"app": "db"}),
    # Another namespace: nothing of "default" counts for it.
    pod("elsewhere", "", spread(1, ZONE, selector=WEB), namespace="other", labels={"app": "web"}),
    # No constraints of its own: the System defaults (hostname and zone, soft), owned by a ReplicaSet.
    pod(
        "defaulted",
        "",
        labels={"app": "web"},
        metadata={
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "web",
                    "uid": "rs",
                    "controller": True,
                }
            ]
        },
    ),
]

NODE_NAMES = [f"n{i}" for i in range(6)]

node_labels = st.fixed_dictionaries(
    {},
    optional={
        ZONE: st.sampled_from(["z0", "z1", "z2"]),
        "rack": st.sampled_from(["r0", "r1"]),
        "pool": st.sampled_from(["a", "b"]),
    },
)

operations = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from(["add", "remove", "relabel", "terminate"]),
            st.integers(0, 11),
            st.sampled_from(NODE_NAMES),
            st.sampled_from(["web", "db"]),
        ),
        st.tuples(st.just("node"), st.sampled_from(NODE_NAMES), node_labels),
        st.tuples(st.just("drop-node"), st.sampled_from(NODE_NAMES)),
    ),
    max_size=25,
)


def _node(name: str, labels: dict[str, str]) -> Node:
    return Node.from_dict({"metadata": {"name": name, "labels": {HOST: name, **labels}}})


def _check(plugin: PodTopologySpread, snapshot: Snapshot) -> None:
    nodes = list(snapshot.list())
    for incoming in INCOMING:
        state = CycleState()
        _, status = plugin.pre_filter(state, incoming, nodes)
        if status is None:  # not skipped
            pre_filter = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
            got = (
                [list(m.items()) for m in pre_filter.tp_value_to_match_num],
                [p.paths for p in pre_filter.critical_paths],
            )
            assert got == _model_pre_filter(incoming, pre_filter.constraints, nodes), incoming.name
        if not nodes:
            continue
        if plugin.pre_score(state, incoming, nodes) is None:  # not skipped
            pre_score = state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)
            require_all = bool(incoming.spec.topology_spread_constraints)
            expected = _model_pre_score_counts(incoming, pre_score, nodes, require_all)
            got_counts = [list(m.items()) for m in pre_score.topology_value_to_pod_counts]
            assert got_counts == expected, incoming.name


@settings(max_examples=60)
@given(operations)
def test_a_long_lived_plugin_counts_as_kubernetes_loops_do(ops: list[tuple[Any, ...]]) -> None:
    cache = Cache()
    current_nodes: dict[str, Node] = {}
    for name in NODE_NAMES[:4]:
        current_nodes[name] = _node(
            name, {ZONE: f"z{int(name[1:]) % 3}", "rack": "r0", "pool": "a"}
        )
        cache.add_node(current_nodes[name])
    snapshot = Snapshot()
    plugin = PodTopologySpread(Handle(snapshot), PodTopologySpreadArgs())
    placed: dict[int, Pod] = {}
    cache.update_snapshot(snapshot)
    _check(plugin, snapshot)
    for op in ops:
        if op[0] == "node":
            _, name, labels = op
            new = _node(name, labels)
            if name in current_nodes:
                cache.update_node(current_nodes[name], new)
            else:
                cache.add_node(new)
            current_nodes[name] = new
        elif op[0] == "drop-node":
            name = op[1]
            if name in current_nodes:
                cache.remove_node(current_nodes.pop(name))
        else:
            kind, index, node_name, app = op
            apply_pod_step(cache, placed, kind, index, node_name, app)
        cache.update_snapshot(snapshot)
        _check(plugin, snapshot)
