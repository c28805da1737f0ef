"""NodeResourcesFit's and BalancedAllocation's scores, reused per node while the node is unchanged.

The reuse is ours, not Kubernetes' (whose Score computes every node on every
cycle: ``resourceAllocationScorer.score`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/resource_allocation.go``,
v1.33), so the expectation is Kubernetes' own result: a plugin that has
scored many cycles, for pods of several shapes, on a cluster that changes
between them, must give every node exactly the score a fresh plugin gives.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.cache.cache import Cache
from framework.cache.snapshot import Snapshot
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from framework.plugins.noderesources.fit import Fit, fit_args_from
from framework.plugins.noderesources.resource_allocation import score_node_for
from framework.plugins.pernode import PerNodeCache
from framework.status import Status
from framework.types import PodInfo
from tests.plugins.noderesources.helpers import make_node, make_pod

Plugin = Fit | BalancedAllocation

PLUGINS: dict[str, Callable[[], Plugin]] = {
    "NodeResourcesFit LeastAllocated": Fit,
    "NodeResourcesFit MostAllocated": lambda: Fit(
        fit_args_from({"scoringStrategy": {"type": "MostAllocated"}})
    ),
    "NodeResourcesBalancedAllocation": BalancedAllocation,
}

# Pod shapes: the incoming pod is one of these each cycle, so the same
# requests come back after others, and the "non-zero" defaults matter.
SHAPES = [
    {"cpu": "500m", "memory": "1Gi"},
    {"cpu": "2", "memory": "256Mi"},
    {"memory": "3Gi"},
    {},
]
SIZES = [("4", "8Gi"), ("8", "16Gi"), ("2", "32Gi")]


def node(index: int, size: int) -> Node:
    cpu, memory = SIZES[size]
    return make_node(f"n{index}", {"cpu": cpu, "memory": memory, "pods": "110"})


def pod(name: str, shape: int, node_name: str = "") -> Pod:
    return make_pod(SHAPES[shape], name=name, uid=name, node_name=node_name)


def scores(plugin: Plugin, incoming: Pod, nodes: list[NodeInfo]) -> list[object]:
    state = CycleState()
    if plugin.pre_score(state, incoming, nodes) is not None:
        return ["Skip"]
    return [plugin.score(state, incoming, node_info) for node_info in nodes]


operations = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove", "resize"]),
        st.integers(0, 7),  # which pod, or which node to resize
        st.integers(0, 3),  # which node a pod goes to
        st.integers(0, 3),  # the shape of the pod added, or the node's new size (mod 3)
        st.integers(0, 3),  # the incoming pod's shape this cycle
    ),
    max_size=30,
)


@pytest.mark.parametrize("make_plugin", PLUGINS.values(), ids=PLUGINS.keys())
@given(ops=operations)
def test_a_long_lived_plugin_scores_as_a_fresh_one_would(
    make_plugin: Callable[[], Plugin], ops: list[tuple[str, int, int, int, int]]
) -> None:
    cache = Cache()
    nodes = [node(i, 0) for i in range(4)]
    for n in nodes:
        cache.add_node(n)
    snapshot = Snapshot()
    long_lived = make_plugin()
    placed: dict[int, Pod] = {}
    for op, index, node_index, shape, incoming in ops:
        current = placed.get(index)
        if op == "add" and current is None:
            placed[index] = pod(f"p{index}", shape, f"n{node_index}")
            cache.add_pod(placed[index])
        elif op == "remove" and current is not None:
            cache.remove_pod(placed.pop(index))
        elif op == "resize":
            i = index % len(nodes)
            resized = node(i, shape % len(SIZES))
            cache.update_node(nodes[i], resized)
            nodes[i] = resized
        cache.update_snapshot(snapshot)
        infos = list(snapshot.list())
        wanted = pod("incoming", incoming)
        assert scores(long_lived, wanted, infos) == scores(make_plugin(), wanted, infos)


def test_a_score_is_reused_until_the_node_changes() -> None:
    scorer = Fit().scorer
    computed: list[int] = []

    def counting(node_info: NodeInfo) -> tuple[int, Status | None]:
        computed.append(node_info.generation)
        return scorer.score(pod("a", 0), node_info, (500, 1 << 30))

    info = NodeInfo()
    info.set_node(node(0, 0))
    score_node = PerNodeCache[tuple[int, Status | None]]().per_node((500, 1 << 30), counting)
    first = score_node(info)
    assert score_node(info) == first
    assert len(computed) == 1
    info.add_pod(PodInfo(pod("b", 1, "n0")))
    assert score_node(info) != first
    assert len(computed) == 2


def test_score_node_for_is_the_scorer_on_the_node() -> None:
    fit = Fit()
    info = NodeInfo(pod("b", 1, "n0"))
    info.set_node(node(0, 1))
    incoming = pod("a", 0)
    requests = tuple(fit.scorer.calculate_pod_resource_request_list(incoming))
    score_node = score_node_for(fit.scorer, PerNodeCache(), incoming, requests)
    assert score_node(info) == fit.scorer.score(incoming, info, requests)
