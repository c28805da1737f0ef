"""PerNodeCache: a value is reused while the node's generation stays, and only then; PodTopologySpread counts as afresh.

The cache is ours, not Kubernetes' (which recounts every node each cycle,
``calPreFilterState`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``,
v1.33), so the expectation is Kubernetes' own result: a plugin that has
seen many cycles must compute exactly what a fresh one computes.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from framework.cache.cache import Cache
from framework.cache.snapshot import Snapshot
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.plugins.pernode import PerNodeCache
from framework.plugins.podtopologyspread import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    PodTopologySpread,
    PodTopologySpreadArgs,
)
from framework.plugins.podtopologyspread.filtering import PreFilterState
from framework.plugins.podtopologyspread.scoring import PreScoreState
from framework.types import PodInfo
from tests.plugins.podtopologyspread.cluster_steps import apply_pod_step
from tests.plugins.podtopologyspread.helpers import HOST, ZONE, Handle, node, pod, spread


def test_a_count_is_reused_until_the_node_changes() -> None:
    info = NodeInfo(pod("a", "n1"))
    info.set_node(node("n1", zone="z1"))
    calls: list[int] = []

    def count(node_info: NodeInfo) -> int:
        calls.append(node_info.generation)
        return len(node_info.pods)

    counted = PerNodeCache[int]().per_node("condition", count)
    assert (counted(info), counted(info)) == (1, 1)
    assert len(calls) == 1
    info.add_pod(PodInfo(pod("b", "n1")))
    assert counted(info) == 2
    assert len(calls) == 2


def test_a_table_of_too_many_node_names_starts_again() -> None:
    # Nodes come and go in a long-lived cluster; a deleted node's entry must
    # not stay for ever. Past the bound, the next cycle's table starts empty.
    cache = PerNodeCache[int](max_nodes=2)
    calls: list[str] = []

    def count(node_info: NodeInfo) -> int:
        calls.append(node_info.name)
        return len(node_info.pods)

    infos = []
    for name in ("n1", "n2", "n3"):
        info = NodeInfo(pod("a", name))
        info.set_node(node(name, zone="z1"))
        infos.append(info)
    counted = cache.per_node("condition", count)
    assert [counted(info) for info in infos] == [1, 1, 1]
    assert [counted(info) for info in infos] == [1, 1, 1]  # reused within the cycle's table
    assert calls == ["n1", "n2", "n3"]
    counted = cache.per_node("condition", count)  # the next cycle: three names > two
    assert counted(infos[0]) == 1
    assert calls == ["n1", "n2", "n3", "n1"]


def test_a_clone_shares_the_count_until_it_is_changed() -> None:
    info = NodeInfo(pod("a", "n1"))
    info.set_node(node("n1", zone="z1"))
    counted = PerNodeCache[int]().per_node("condition", lambda n: len(n.pods))
    assert counted(info) == 1
    copy = info.clone()
    assert counted(copy) == 1
    copy.remove_pod(copy.pods[0].pod)
    assert counted(copy) == 0
    assert counted(info) == 1


def test_only_the_most_recent_conditions_are_kept() -> None:
    info = NodeInfo()
    info.set_node(node("n1", zone="z1"))
    calls: list[str] = []
    cache = PerNodeCache[int](max_conditions=2)

    def counter(name: str) -> object:
        def count(node_info: NodeInfo) -> int:
            calls.append(name)
            return 0

        return cache.per_node(name, count)

    for name in ("a", "b", "a", "c", "a", "b"):
        counter(name)(info)  # type: ignore[operator]
    # "b" was the least recently used when "c" came, so it was counted again.
    assert calls == ["a", "b", "c", "b"]


# A cluster that changes between cycles: one long-lived plugin against a fresh one each time.
NODES = [node(f"n{i}", zone=f"z{i % 3}", host=f"n{i}") for i in range(6)]
INCOMING = pod(
    "incoming",
    "",
    spread(1, ZONE, selector={"matchLabels": {"app": "web"}}),
    spread(2, HOST, when="ScheduleAnyway", selector={"matchLabels": {"app": "web"}}),
    spread(1, ZONE, when="ScheduleAnyway", selector={"matchLabels": {"app": "web"}}),
    labels={"app": "web"},
)

operations = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove", "relabel", "terminate"]),
        st.integers(0, 11),
        st.integers(0, 5),
        st.sampled_from(["web", "db"]),
    ),
    max_size=25,
)


def _states(plugin: PodTopologySpread, snapshot: Snapshot) -> tuple[object, object]:
    nodes = list(snapshot.list())
    state = CycleState()
    plugin.pre_filter(state, INCOMING, nodes)
    plugin.pre_score(state, INCOMING, nodes)
    pre_filter = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
    pre_score = state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)
    return (
        (pre_filter.tp_value_to_match_num, [p.paths for p in pre_filter.critical_paths]),
        pre_score.topology_value_to_pod_counts,
    )


@given(operations)
def test_a_long_lived_plugin_counts_as_a_fresh_one_would(
    ops: list[tuple[str, int, int, str]],
) -> None:
    cache = Cache()
    for n in NODES:
        cache.add_node(n)
    snapshot = Snapshot()
    snapshot_lister = Handle(snapshot)
    args = PodTopologySpreadArgs(defaulting_type="List")
    long_lived = PodTopologySpread(snapshot_lister, args)
    placed: dict[int, Pod] = {}
    for op, index, node_index, app in ops:
        apply_pod_step(cache, placed, op, index, f"n{node_index}", app)
        cache.update_snapshot(snapshot)
        fresh = PodTopologySpread(snapshot_lister, args)
        assert _states(long_lived, snapshot) == _states(fresh, snapshot)
