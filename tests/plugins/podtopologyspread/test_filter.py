"""PreFilter, AddPod/RemovePod and Filter: the hard constraints.

The tables follow ``TestPreFilterState``, ``TestSingleConstraint``,
``TestMultipleConstraints`` and ``TestPreFilterStateAddPod`` /
``TestPreFilterStateRemovePod`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go``
(v1.33), in our own words; each case names the Go case it follows and
shows its arithmetic (matching pods in the node's domain + 1 if the pod
matches itself − the global minimum, against maxSkew).
"""

from __future__ import annotations

import pytest

from framework.cycle_state import CycleState
from framework.objects import Node, Pod
from framework.plugins.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
    PodTopologySpread,
    PodTopologySpreadArgs,
)
from framework.plugins.podtopologyspread.filtering import CriticalPaths, PreFilterState
from framework.status import Code
from framework.types import PodInfo
from tests.plugins.podtopologyspread.helpers import HOST, ZONE, node, pod, snapshot, spread

OK, NO, UNRESOLVABLE = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE

FOUR_NODES = [
    node("node-a", zone="zone1", host="node-a"),
    node("node-b", zone="zone1", host="node-b"),
    node("node-x", zone="zone2", host="node-x"),
    node("node-y", zone="zone2", host="node-y"),
]


def plugin() -> PodTopologySpread:
    # List defaulting with no constraints: only the pods' own constraints count.
    return PodTopologySpread(None, PodTopologySpreadArgs(defaulting_type="List"))


def place(counts: dict[str, int], labels: dict[str, str] | None = None) -> list[Pod]:
    return [
        pod(f"{name}-{i}", name, labels=labels) for name, n in counts.items() for i in range(n)
    ]


def run_filter(incoming: Pod, existing: list[Pod], nodes: list[Node]) -> dict[str, Code]:
    snap = snapshot(existing, nodes)
    pl, state = plugin(), CycleState()
    _, status = pl.pre_filter(state, incoming, list(snap.list()))
    assert status is None or status.is_success(), status
    result = {}
    for info in snap.list():
        got = pl.filter(state, incoming, info)
        result[info.name] = Code.SUCCESS if got is None else got.code
        if got is not None and got.code is UNRESOLVABLE:
            assert list(got.reasons) == [ERR_REASON_NODE_LABEL_NOT_MATCH]
        elif got is not None:
            assert list(got.reasons) == [ERR_REASON_CONSTRAINTS_NOT_MATCH]
    return result


ZONE_1 = spread(1, ZONE)
HOST_1 = spread(1, HOST)

SINGLE = [
    pytest.param(
        pod("p", "", ZONE_1),
        [],
        FOUR_NODES,
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
        id="no existing pods",  # 0 + 1 - 0 <= 1 everywhere
    ),
    pytest.param(
        pod("p", "", ZONE_1, labels={"bar": ""}),
        [],
        FOUR_NODES,
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
        id="no existing pods, incoming pod doesn't match itself",
    ),
    pytest.param(
        pod("p", "", ZONE_1),
        [
            pod("a1", "node-a", namespace="ns1"),
            pod("x1", "node-x", namespace="ns1"),
            *place({"node-b": 1}),
        ],
        FOUR_NODES,
        # zone1 has 1 (ns1 pods do not count), zone2 has 0: zone1 would reach 2 - 0 > 1.
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": OK},
        id="existing pods in a different namespace do not count",
    ),
    pytest.param(
        pod("p", "", ZONE_1),
        place({"node-a": 1, "node-b": 2, "node-x": 2, "node-y": 1}),
        FOUR_NODES,
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
        id="pods spread across zones as 3/3, all nodes fit",
    ),
    pytest.param(
        pod("p", "", ZONE_1),
        place({"node-a": 1, "node-b": 1, "node-x": 1, "node-y": 1}),
        [
            node("node-a", zone="zone1"),
            node("node-b", host="node-b"),
            node("node-x", zone="zone2"),
            node("node-y", zone="zone2"),
        ],
        # node-b has no zone: zone1 counts 1, zone2 counts 2, the minimum is 1.
        {"node-a": OK, "node-b": UNRESOLVABLE, "node-x": NO, "node-y": NO},
        id="pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
    ),
    pytest.param(
        pod("p", "", spread(1, "rack")),
        [],
        FOUR_NODES,
        {
            "node-a": UNRESOLVABLE,
            "node-b": UNRESOLVABLE,
            "node-x": UNRESOLVABLE,
            "node-y": UNRESOLVABLE,
        },
        id="pod cannot be scheduled as all nodes don't have label 'rack'",
    ),
    pytest.param(
        pod("p", "", HOST_1),
        place({"node-a": 2, "node-b": 1, "node-y": 3}),
        FOUR_NODES,
        # minimum 0 (node-x): 2+1, 1+1 and 3+1 exceed 1.
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": NO},
        id="pods spread across nodes as 2/1/0/3, only node-x fits",
    ),
    pytest.param(
        pod("p", "", spread(2, HOST)),
        place({"node-a": 2, "node-b": 1, "node-y": 3}),
        FOUR_NODES,
        {"node-a": NO, "node-b": OK, "node-x": OK, "node-y": NO},
        id="pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
    ),
    pytest.param(
        pod("p", "", HOST_1),
        place({"node-a": 2, "node-b": 1, "node-y": 3}, labels={"bar": ""}),
        FOUR_NODES,
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
        id="pods spread across nodes as 2/1/0/3, but pods don't match",
    ),
    pytest.param(
        pod("p", "", spread(2, HOST, minDomains=4)),
        place({"node-a": 2, "node-b": 2, "node-x": 1}),
        FOUR_NODES[:3],
        # 3 domains < minDomains 4: the minimum counts as 0; 2+1-0 > 2, 1+1-0 <= 2.
        {"node-a": NO, "node-b": NO, "node-x": OK},
        id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains",
    ),
    pytest.param(
        pod("p", "", spread(2, HOST, minDomains=2)),
        place({"node-a": 2, "node-b": 2, "node-x": 1}),
        FOUR_NODES[:3],
        # 3 domains >= 2: the minimum is 1; 2+1-1 <= 2 everywhere.
        {"node-a": OK, "node-b": OK, "node-x": OK},
        id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains",
    ),
    pytest.param(
        pod("p", "", spread(1, ZONE, minDomains=3)),
        place({"node-a": 1, "node-x": 1}),
        FOUR_NODES,
        # 2 zones < 3: the minimum is 0, so any zone with a pod is full.
        {"node-a": NO, "node-b": NO, "node-x": NO, "node-y": NO},
        id="pods spread across zone as 1/1, the number of domains < minDomains, no node fits",
    ),
    pytest.param(
        pod("p", "", ZONE_1, spec={"nodeSelector": {"foo": ""}}),
        place({"node-a": 1, "node-y": 3}),
        [
            node("node-a", zone="zone1", foo=""),
            node("node-b", zone="zone1", foo=""),
            node("node-x", zone="zone2"),
            node("node-y", zone="zone3", foo=""),
        ],
        # Honor (the default): node-x is outside the pod's nodeSelector, so zone2
        # is no domain; zone1 has 1 (the minimum), zone3 has 3. Filter finds no
        # count for zone2 and takes 0: 0+1-1 fits (NodeAffinity rejects node-x).
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": NO},
        id="NodeAffinityPolicy honored with nodeSelector",
    ),
    pytest.param(
        pod(
            "p",
            "",
            spread(1, ZONE, nodeAffinityPolicy="Ignore"),
            spec={"nodeSelector": {"foo": ""}},
        ),
        place({"node-a": 1, "node-y": 3}),
        [
            node("node-a", zone="zone1", foo=""),
            node("node-b", zone="zone1", foo=""),
            node("node-x", zone="zone2"),
            node("node-y", zone="zone3", foo=""),
        ],
        # Ignore: zone2 counts, with 0 pods; zone1 would reach 1+1-0 > 1.
        # (Filter here sees every node: NodeAffinity, not this plugin, rejects node-x.)
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": NO},
        id="NodeAffinityPolicy ignored with nodeSelector",
    ),
    pytest.param(
        pod("p", "", spread(1, ZONE, nodeTaintsPolicy="Honor")),
        place({"node-a": 1, "node-b": 1}),
        [
            node("node-a", zone="zone1"),
            node("node-b", zone="zone2"),
            node("node-x", [{"key": "k", "effect": "NoSchedule"}], zone="zone3"),
        ],
        # Honor: the tainted node-x is no domain; zone1 and zone2 have 1 each.
        {"node-a": OK, "node-b": OK, "node-x": OK},
        id="NodeTaintsPolicy honored",
    ),
    pytest.param(
        pod("p", "", ZONE_1),
        place({"node-a": 1, "node-b": 1}),
        [
            node("node-a", zone="zone1"),
            node("node-b", zone="zone2"),
            node("node-x", [{"key": "k", "effect": "NoSchedule"}], zone="zone3"),
        ],
        # Ignore (the default): zone3 counts with 0 pods: zone1/zone2 reach 2 - 0 > 1.
        {"node-a": NO, "node-b": NO, "node-x": OK},
        id="NodeTaintsPolicy ignored",
    ),
    pytest.param(
        pod("p", "", spread(1, ZONE, matchLabelKeys=["bar"]), labels={"foo": "", "bar": "a"}),
        place({"node-a": 1}, labels={"foo": "", "bar": "b"})
        + place({"node-x": 1}, labels={"foo": "", "bar": "a"}),
        FOUR_NODES,
        # matchLabelKeys adds bar=a to the selector: only node-x's pod counts.
        {"node-a": OK, "node-b": OK, "node-x": NO, "node-y": NO},
        id="matchLabelKeys narrows the selector to the pod's own value",
    ),
]


@pytest.mark.parametrize(("incoming", "existing", "nodes", "want"), SINGLE)
def test_single_constraint(
    incoming: Pod, existing: list[Pod], nodes: list[Node], want: dict[str, Code]
) -> None:
    assert run_filter(incoming, existing, nodes) == want


MULTIPLE = [
    pytest.param(
        pod("p", "", ZONE_1, HOST_1),
        place({"node-a": 3, "node-b": 2, "node-x": 1, "node-y": 1}),
        FOUR_NODES,
        # zones 5/2: zone1 fails (5+1-2); hosts 3/2/1/1: node-x and node-y reach 1+1-1 <= 1.
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": OK},
        id="two Constraints on zone and node, spreads = [5/2, 3/2/1/1]",
    ),
    pytest.param(
        pod("p", "", ZONE_1, HOST_1),
        place({"node-a": 1, "node-x": 2, "node-y": 1}),
        FOUR_NODES,
        # zones 1/3: only zone1 fits; hosts 1/0/2/1: only node-b (0+1-0).
        {"node-a": NO, "node-b": OK, "node-x": NO, "node-y": NO},
        id="two Constraints on zone and node, spreads = [1/3, 1/0/2/1]",
    ),
    pytest.param(
        pod("p", "", ZONE_1, HOST_1),
        place({"node-a": 1, "node-y": 3}),
        FOUR_NODES,
        # zones 1/3: zone1 only; hosts 1/0/0/3: node-b only.
        {"node-a": NO, "node-b": OK, "node-x": NO, "node-y": NO},
        id="two Constraints on zone and node, spreads = [1/3, 1/0/0/3], only node-b fits",
    ),
    pytest.param(
        pod(
            "p",
            "",
            ZONE_1,
            spread(1, HOST, selector={"matchExpressions": [{"key": "bar", "operator": "Exists"}]}),
            labels={"foo": "", "bar": ""},
        ),
        place({"node-a": 1, "node-x": 2}) + place({"node-b": 1}, labels={"bar": ""}),
        FOUR_NODES,
        # zone on foo: 1/2 -> zone1 only. host on bar: 0/1/0/0 -> node-b fails.
        {"node-a": OK, "node-b": NO, "node-x": NO, "node-y": NO},
        id="two Constraints on zone and node, with different labelSelectors",
    ),
]


@pytest.mark.parametrize(("incoming", "existing", "nodes", "want"), MULTIPLE)
def test_multiple_constraints(
    incoming: Pod, existing: list[Pod], nodes: list[Node], want: dict[str, Code]
) -> None:
    assert run_filter(incoming, existing, nodes) == want


def test_pre_filter_state_counts_domains_and_critical_paths() -> None:
    # TestPreFilterState "normal case with two spreadConstraints".
    incoming = pod("p", "", ZONE_1, HOST_1)
    existing = place({"node-a": 2, "node-b": 1, "node-x": 3, "node-y": 2})
    snap = snapshot(existing, FOUR_NODES)
    state = CycleState()
    plugin().pre_filter(state, incoming, list(snap.list()))
    s = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
    assert s.tp_value_to_match_num == [
        {"zone1": 3, "zone2": 5},
        {"node-a": 2, "node-b": 1, "node-x": 3, "node-y": 2},
    ]
    assert s.critical_paths[0].paths == [("zone1", 3), ("zone2", 5)]
    assert s.critical_paths[1].paths[0] == ("node-b", 1)


def test_pre_filter_skips_pods_without_hard_constraints() -> None:
    # TestPreFilterState "clean cluster with one spreadConstraint" / Skip when none are hard.
    snap = snapshot([], FOUR_NODES)
    status = plugin().pre_filter(
        CycleState(), pod("p", "", spread(1, ZONE, "ScheduleAnyway")), list(snap.list())
    )[1]
    assert status is not None and status.code is Code.SKIP


def test_filter_without_pre_filter_is_an_error() -> None:
    snap = snapshot([], FOUR_NODES)
    status = plugin().filter(CycleState(), pod("p", "", ZONE_1), snap.list()[0])
    assert status is not None and status.code is Code.ERROR
    assert "PreFilterPodTopologySpread" in status.message()


def test_critical_paths_keep_the_two_smallest() -> None:
    paths = CriticalPaths()
    for value, num in [("a", 5), ("b", 3), ("c", 4), ("d", 1)]:
        paths.update(value, num)
    assert paths.paths == [("d", 1), ("b", 3)]
    paths.update("d", 6)  # an existing path grows: swapped behind
    assert paths.paths == [("b", 3), ("d", 6)]


def test_add_and_remove_pod_update_a_cloned_state() -> None:
    # TestPreFilterStateAddPod / TestPreFilterStateRemovePod: a nominated pod
    # added on node-b, then a victim removed from node-a, on clones.
    incoming = pod("p", "", ZONE_1, HOST_1)
    existing = place({"node-a": 1, "node-x": 1})
    snap = snapshot(existing, FOUR_NODES)
    pl, state = plugin(), CycleState()
    pl.pre_filter(state, incoming, list(snap.list()))
    original = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)

    added = state.clone()
    node_b = snap.node_infos().get("node-b")
    assert pl.add_pod(added, incoming, PodInfo(pod("nominated", "node-b")), node_b) is None
    s = added.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
    assert s.tp_value_to_match_num == [
        {"zone1": 2, "zone2": 1},
        {"node-a": 1, "node-b": 1, "node-x": 1, "node-y": 0},
    ]
    assert s.critical_paths[0].paths[0] == ("zone2", 1)

    removed = state.clone()
    node_a = snap.node_infos().get("node-a")
    assert pl.remove_pod(removed, incoming, PodInfo(existing[0]), node_a) is None
    s = removed.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
    assert s.tp_value_to_match_num[0] == {"zone1": 0, "zone2": 1}
    assert s.critical_paths[0].paths[0] == ("zone1", 0)
    # The original state is untouched by either clone.
    assert original.tp_value_to_match_num[0] == {"zone1": 1, "zone2": 1}


def test_add_pod_ignores_other_namespaces_and_non_matching_pods() -> None:
    incoming = pod("p", "", ZONE_1)
    snap = snapshot([], FOUR_NODES)
    pl, state = plugin(), CycleState()
    pl.pre_filter(state, incoming, list(snap.list()))
    node_a = snap.node_infos().get("node-a")
    pl.add_pod(state, incoming, PodInfo(pod("other-ns", "node-a", namespace="ns1")), node_a)
    pl.add_pod(state, incoming, PodInfo(pod("other-labels", "node-a", labels={"bar": ""})), node_a)
    s = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
    assert s.tp_value_to_match_num[0] == {"zone1": 0, "zone2": 0}


def test_terminating_pods_do_not_count() -> None:
    # kubernetes#87621, "terminating Pods should be excluded" in TestPreFilterState.
    terminating = pod("t", "node-a", metadata={"deletionTimestamp": "2026-01-01T00:00:00Z"})
    assert run_filter(pod("p", "", HOST_1), [terminating], FOUR_NODES)["node-a"] is OK
