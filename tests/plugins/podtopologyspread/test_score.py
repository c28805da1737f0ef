"""PreScore, Score and NormalizeScore: the soft constraints and the System defaults.

The tables follow ``TestPodTopologySpreadScore`` and ``TestPreScoreStateEmptyNodes``
of ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go``
(v1.33), in our own words. Each case shows its arithmetic: a node's raw
score is ``round(Σ count × log(#domains + 2) + (maxSkew − 1))``, then
``100 × (max + min − raw) // max``.
"""

from __future__ import annotations

import math

import pytest

from framework.cycle_state import CycleState
from framework.interface import NodeScore
from framework.objects import Node, Pod, TopologySpreadConstraint
from framework.objects.workloads import ReplicaSet
from framework.plugins.podtopologyspread import (
    PRE_SCORE_STATE_KEY,
    PodTopologySpread,
    PodTopologySpreadArgs,
)
from framework.plugins.podtopologyspread.scoring import PreScoreState
from framework.status import Code
from tests.plugins.podtopologyspread.helpers import (
    FOO_EXISTS,
    HOST,
    ZONE,
    Handle,
    cluster_with,
    node,
    pod,
    snapshot,
    spread,
)

SOFT_HOST = spread(1, HOST, "ScheduleAnyway")
SOFT_ZONE = spread(1, ZONE, "ScheduleAnyway")
OWNED = {
    "ownerReferences": [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "rs",
            "uid": "rs1",
            "controller": True,
        }
    ]
}


# TestPodTopologySpreadScore's informer objects: the ReplicaSet "rs" selecting foo.
RS = ReplicaSet.from_dict({"metadata": {"name": "rs"}, "spec": {"selector": FOO_EXISTS}})


def place(counts: dict[str, int], **kwargs: object) -> list[Pod]:
    return [pod(f"{n}-{i}", n, **kwargs) for n, k in counts.items() for i in range(k)]  # type: ignore[arg-type]


def run_score(
    incoming: Pod,
    existing: list[Pod],
    nodes: list[Node],
    filtered: list[str] | None = None,
    args: PodTopologySpreadArgs | None = None,
) -> dict[str, int]:
    snap = snapshot(existing, nodes)
    pl = PodTopologySpread(
        Handle(snap, cluster_with(RS)), args or PodTopologySpreadArgs(defaulting_type="List")
    )
    candidates = [i for i in snap.list() if filtered is None or i.name in filtered]
    state = CycleState()
    status = pl.pre_score(state, incoming, candidates)
    assert status is None, status
    scores = []
    for info in candidates:
        raw, status = pl.score(state, incoming, info)
        assert status is None
        scores.append(NodeScore(info.name, raw))
    assert pl.normalize_score(state, incoming, scores) is None
    return {s.name: s.score for s in scores}


HOSTS = [
    node(n, host=n, zone=z)
    for n, z in [
        ("node-a", "zone1"),
        ("node-b", "zone1"),
        ("node-c", "zone2"),
        ("node-d", "zone2"),
    ]
]

CASES = [
    pytest.param(
        pod("p", "", SOFT_HOST),
        [],
        HOSTS[:2],
        None,
        {"node-a": 100, "node-b": 100},
        id="one constraint on node, no existing pods",  # all raw 0: everybody 100
    ),
    pytest.param(
        pod("p", "", SOFT_HOST),
        place({"node-a": 2, "node-b": 1}),
        HOSTS[:2],
        ["node-a"],
        {"node-a": 100},
        id="one constraint on node, only one node is candidate",
    ),
    pytest.param(
        pod("p", "", SOFT_HOST),
        place({"node-a": 6, "node-b": 3, "node-d": 1}),
        HOSTS,
        None,
        # weight log(4+2)=1.79: raw 11, 5, 0, 2; max 11, min 0: 0, 54, 100, 81.
        {"node-a": 0, "node-b": 54, "node-c": 100, "node-d": 81},
        id="one constraint on node, all 4 nodes are candidates",
    ),
    pytest.param(
        pod("p", "", SOFT_ZONE),
        place({"node-a": 1, "node-b": 2, "node-c": 1}),
        HOSTS,
        None,
        # zones 3/1, weight log(2+2)=1.39: raw 4, 4, 1, 1 -> 100*(4+1-s)/4: 25, 25, 100, 100.
        {"node-a": 25, "node-b": 25, "node-c": 100, "node-d": 100},
        id="one constraint on zone, zones 3/1",
    ),
    pytest.param(
        pod("p", "", SOFT_ZONE),
        place({"node-a": 1, "node-b": 2, "node-c": 1}),
        [*HOSTS, node("node-x", host="node-x")],
        None,
        # node-x has no zone: ignored, 0. The rest as above.
        {"node-a": 25, "node-b": 25, "node-c": 100, "node-d": 100, "node-x": 0},
        id="one constraint on zone, a node without the zone label is ignored",
    ),
    pytest.param(
        pod("p", "", SOFT_ZONE),
        place({"node-a": 1, "node-b": 2, "node-c": 1}),
        HOSTS,
        ["node-a", "node-c"],
        # Only zone1 and zone2 domains of the candidates count, over all nodes:
        # zone1 3, zone2 1; weight log(4): raw 4, 1 -> 25, 100.
        {"node-a": 25, "node-c": 100},
        id="one constraint on zone, counts come from all nodes, not only the candidates",
    ),
    pytest.param(
        pod("p", "", SOFT_ZONE, SOFT_HOST),
        place({"node-a": 2, "node-b": 1, "node-c": 1}),
        HOSTS,
        None,
        # zone (w=log 4=1.386): zone1 3, zone2 1; host (w=log 6=1.792): 2/1/1/0.
        # raw: a 4.16+3.58=7.74->8, b 4.16+1.79=5.95->6, c 1.39+1.79=3.18->3, d 1.39->1.
        # max 8, min 1: 100*(9-s)/8 -> 12, 37, 75, 100.
        {"node-a": 12, "node-b": 37, "node-c": 75, "node-d": 100},
        id="two constraints on zone and node",
    ),
    pytest.param(
        pod("p", "", spread(3, HOST, "ScheduleAnyway")),
        place({"node-a": 2}),
        HOSTS[:2],
        None,
        # maxSkew 3 adds 2 to each: weight log(4)=1.39: raw round(2.77+2)=5, 2 -> 100*(7-s)/5: 40, 100.
        {"node-a": 40, "node-b": 100},
        id="maxSkew waters the difference down",
    ),
]


@pytest.mark.parametrize(("incoming", "existing", "nodes", "filtered", "want"), CASES)
def test_score(
    incoming: Pod,
    existing: list[Pod],
    nodes: list[Node],
    filtered: list[str] | None,
    want: dict[str, int],
) -> None:
    assert run_score(incoming, existing, nodes, filtered) == want


def test_pre_score_state_weights_and_ignored_nodes() -> None:
    # TestPreScoreStateEmptyNodes "normal case": weights log(#domains + 2).
    incoming = pod("p", "", SOFT_ZONE, SOFT_HOST)
    snap = snapshot([], [*HOSTS, node("node-x", host="node-x")])
    pl = PodTopologySpread(Handle(snap), PodTopologySpreadArgs(defaulting_type="List"))
    state = CycleState()
    assert pl.pre_score(state, incoming, list(snap.list())) is None
    s = state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)
    assert s.ignored_nodes == {"node-x"}
    assert s.topology_normalizing_weight == [math.log(4), math.log(6)]
    assert s.topology_value_to_pod_counts == [{"zone1": 0, "zone2": 0}, {}]


def test_pre_score_skips_without_soft_constraints() -> None:
    snap = snapshot([], HOSTS)
    pl = PodTopologySpread(Handle(snap), PodTopologySpreadArgs(defaulting_type="List"))
    status = pl.pre_score(CycleState(), pod("p", "", spread(1, ZONE)), list(snap.list()))
    assert status is not None and status.code is Code.SKIP


REAL_ZONES = [
    node(n, host=n, **{"topology.kubernetes.io/zone": z})
    for n, z in [
        ("node-a", "zone1"),
        ("node-b", "zone1"),
        ("node-c", "zone2"),
        ("node-d", "zone2"),
    ]
]


def test_system_defaults_spread_pods_owned_by_a_replicaset() -> None:
    # "System defaulting" in TestPodTopologySpreadScore: hostname maxSkew 3, zone maxSkew 5.
    existing = place({"node-a": 2}, metadata=OWNED)
    incoming = pod("p", "", metadata=OWNED)
    got = run_score(incoming, existing, REAL_ZONES, args=PodTopologySpreadArgs())
    # host (w=log 6=1.79): 2/0/0/0 +2; zone (w=log 4=1.39): 2/0 +4.
    # raw: a 3.58+2+2.77+4=12.36->12, b 0+2+2.77+4=8.77->9, c, d 6.
    # max 12, min 6: 100*(18-s)/12 -> 50, 75, 100, 100.
    assert got == {"node-a": 50, "node-b": 75, "node-c": 100, "node-d": 100}


def test_system_defaults_do_not_apply_to_pods_without_an_owner() -> None:
    snap = snapshot([], HOSTS)
    pl = PodTopologySpread(Handle(snap), PodTopologySpreadArgs())
    status = pl.pre_score(CycleState(), pod("p"), list(snap.list()))
    assert status is not None and status.code is Code.SKIP


def test_system_defaults_keep_nodes_without_a_zone() -> None:
    # requireAllTopologies is off for System defaults: a node without a zone
    # still gets hostname spreading (its zone is the empty value).
    nodes = [node("node-a", host="node-a"), node("node-b", host="node-b")]
    existing = place({"node-a": 1}, metadata=OWNED)
    got = run_score(pod("p", "", metadata=OWNED), existing, nodes, args=PodTopologySpreadArgs())
    # host (w=log 4=1.39): 1/0 +2 -> 3.39->3, 2; no zone labels: nothing else.
    # max 3, min 2: 100*(5-s)/3 -> 66, 100.
    assert got == {"node-a": 66, "node-b": 100}


def test_list_defaulting_uses_the_configured_constraints() -> None:
    args = PodTopologySpreadArgs(
        default_constraints=(
            TopologySpreadConstraint(
                max_skew=1, topology_key=HOST, when_unsatisfiable="ScheduleAnyway"
            ),
        ),
        defaulting_type="List",
    )
    existing = place({"node-a": 2}, metadata=OWNED)
    got = run_score(pod("p", "", metadata=OWNED), existing, HOSTS[:2], args=args)
    # w=log 4: raw 3, 0 -> 0, 100.
    assert got == {"node-a": 0, "node-b": 100}
