"""InterPodAffinity's per-node maps, kept across cycles: a long-lived plugin computes what a fresh one does.

Kubernetes computes each node's maps afresh every cycle (``processNode`` in
``getExistingAntiAffinityCounts``, ``getIncomingAffinityAntiAffinityCounts``
and ``PreScore``, ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/``
``filtering.go`` and ``scoring.go``, v1.33). Ours keeps them while a node's
generation stays the same, so the expectation is Kubernetes' own result: a
plugin that has seen many cycles of a changing cluster must compute exactly
what a fresh plugin computes.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from framework.cache.snapshot import Snapshot
from framework.cycle_state import CycleState
from framework.objects import Pod
from framework.plugins.interpodaffinity import InterPodAffinity
from framework.plugins.interpodaffinity.filtering import PreFilterState
from framework.plugins.interpodaffinity.plugin import PRE_FILTER_STATE_KEY, PRE_SCORE_STATE_KEY
from framework.plugins.interpodaffinity.scoring import PreScoreState
from tests.plugins.interpodaffinity.cluster_steps import ChangingCluster, Step
from tests.plugins.interpodaffinity.helpers import node, pod, term, weighted

HOST = "kubernetes.io/hostname"
NODES = [node(f"n{i}", zone=f"z{i % 2}", **{HOST: f"n{i}"}) for i in range(4)]

SHAPES: list[dict[str, Any]] = [
    {},
    {"affinity": [term({"app": "web"}, "zone")]},
    {"anti_affinity": [term({"app": "db"}, HOST)]},
    {"preferred_affinity": [weighted(5, term({"app": "web"}, "zone"))]},
    {"preferred_anti_affinity": [weighted(3, term({"app": "db"}, HOST))]},
    {
        "anti_affinity": [
            term({"app": "web"}, "zone", namespace_selector={"matchLabels": {"team": "a"}})
        ]
    },
]
INCOMING = [
    pod("in-web", labels={"app": "web"}, affinity=[term({"app": "web"}, "zone")]),
    pod("in-db", labels={"app": "db"}, anti_affinity=[term({"app": "db"}, HOST)]),
    pod(
        "in-pref",
        namespace="other",
        labels={"app": "web"},
        preferred_affinity=[weighted(7, term({"app": "db"}, "zone", namespaces=["default"]))],
    ),
    pod("in-plain", labels={"app": "db"}),
]

operations = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove", "relabel", "namespace", "node"]),
        st.integers(0, 7),
        st.integers(0, len(NODES) - 1),
        st.integers(0, len(SHAPES) - 1),
        st.sampled_from(["web", "db"]),
    ),
    max_size=20,
)


def _states(plugin: InterPodAffinity, snapshot: Snapshot, incoming: Pod) -> tuple[Any, ...]:
    nodes = list(snapshot.list())
    state = CycleState()
    _, pre_filter = plugin.pre_filter(state, incoming, nodes)
    pre_score = plugin.pre_score(state, incoming, nodes)
    counts: Any = None
    if pre_filter is None:
        s = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
        counts = (s.existing_anti_affinity_counts, s.affinity_counts, s.anti_affinity_counts)
    scores: Any = None
    if pre_score is None:
        scores = state.read_as(PRE_SCORE_STATE_KEY, PreScoreState).topology_score
    return str(pre_filter), counts, str(pre_score), scores


@given(operations)
# The incoming pod's namespace starts matching an existing pod's namespaceSelector.
@example([("add", 1, 0, 5, "web"), ("namespace", 0, 0, 0, "web")])
# A node moves to the other zone.
@example([("add", 1, 0, 1, "web"), ("add", 2, 1, 3, "db"), ("node", 0, 0, 0, "web")])
def test_a_long_lived_plugin_computes_what_a_fresh_one_would(
    ops: list[Step],
) -> None:
    cluster = ChangingCluster(NODES, SHAPES)
    snapshot = cluster.snapshot
    long_lived = InterPodAffinity(cluster.fwk)
    for step in ops:
        cluster.step(step)
        for incoming in INCOMING:
            fresh = InterPodAffinity(cluster.fwk)
            assert _states(long_lived, snapshot, incoming) == _states(fresh, snapshot, incoming)
