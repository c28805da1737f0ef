"""The dry run: which nodes are candidates, with which victims, after how many Filter calls.

Every case is a case of ``TestDryRunPreemption`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go``
(same pods, nodes of ``veryLargeRes`` capacity, same expected candidates and
Filter-call counts). Go draws the offsets from ``rand.NewSource(4)`` (4, 1,
3 for five nodes); our RNG differs, so the offsets are passed in, as
``DryRunPreemption`` takes them. Victims are compared sorted by name and
candidates by node, as the Go test does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from framework.interface import Plugin
from framework.node_info import NodeInfo, PodInfo
from framework.objects import Pod, PodDisruptionBudget, pod_priority
from framework.plugins.defaultpreemption import DefaultPreemption, DefaultPreemptionArgs
from framework.plugins.defaultpreemption.plugin import MSG_NO_VICTIMS
from framework.plugins.interpodaffinity import new as new_inter_pod_affinity
from framework.plugins.podtopologyspread import new as new_pod_topology_spread
from framework.status import Status
from tests.plugins.defaultpreemption.helpers import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    CountingFilter,
    build,
    by_name,
    epoch,
    make_node,
    make_pdb,
    make_pod,
)

FOO = {"app": "foo"}


def anti_affinity_to_foo() -> dict[str, object]:
    """``PodAntiAffinityExists("foo", "hostname", PodAntiAffinityWithRequiredReq)``."""
    term = {
        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
        "topologyKey": "hostname",
    }
    return {
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    }


def spread_on(*keys: str) -> dict[str, object]:
    """``SpreadConstraint(1, key, DoNotSchedule, Exists("foo"))`` per key."""
    return {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": key,
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
            }
            for key in keys
        ]
    }


@dataclass
class Case:
    node_names: list[str]
    test_pods: list[Pod]
    init_pods: list[Pod]
    expected: list[dict[str, tuple[list[str], int]]]
    filter_calls: list[int]
    fake_filter: Status | None = None
    plugins: str = "fit"  # "fit", "false", "true", "match", "affinity", "spread"
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    args: DefaultPreemptionArgs | None = None
    offsets: list[int] = field(default_factory=lambda: [0])


def pod(name: str, priority: int, **kwargs: object) -> Pod:
    return make_pod(name, priority, **kwargs)  # type: ignore[arg-type]


CASES = {
    "a pod that does not fit on any node": Case(
        ["node1", "node2"],
        [pod("p", HIGH)],
        [pod("p1", MID, node="node1"), pod("p2", MID, node="node2")],
        [{}],
        [2],
        plugins="false",
    ),
    "a pod that fits with no preemption": Case(
        ["node1", "node2"],
        [pod("p", HIGH)],
        [pod("p1", MID, node="node1"), pod("p2", MID, node="node2")],
        [{}],
        [2],
        fake_filter=Status.unschedulable(),
        plugins="true",
    ),
    "a pod that fits on one node with no preemption": Case(
        ["node1", "node2"],
        [pod("node1", HIGH)],  # named "node1" to fit MatchFilter
        [pod("p1", MID, node="node1"), pod("p2", MID, node="node2")],
        [{}],
        [2],
        fake_filter=Status.unschedulable(),
        plugins="match",
    ),
    "a pod that fits on both nodes when lower priority pods are preempted": Case(
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        [pod("p1", MID, node="node1", req=LARGE), pod("p2", MID, node="node2", req=LARGE)],
        [{"node1": (["p1"], 0), "node2": (["p2"], 0)}],
        [4],
    ),
    "a pod that would fit on the nodes, but other pods running are higher priority, no preemption would happen": Case(
        ["node1", "node2"],
        [pod("p", LOW, req=LARGE)],
        [pod("p1", MID, node="node1", req=LARGE), pod("p2", MID, node="node2", req=LARGE)],
        [{}],
        [0],
    ),
    "medium priority pod is preempted, but lower priority one stays as it is small": Case(
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        [
            pod("p1.1", LOW, node="node1", req=SMALL),
            pod("p1.2", MID, node="node1", req=LARGE),
            pod("p2", MID, node="node2", req=LARGE),
        ],
        [{"node1": (["p1.2"], 0), "node2": (["p2"], 0)}],
        [5],
    ),
    "mixed priority pods are preempted": Case(
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        [
            pod("p1.1", MID, node="node1", req=SMALL),
            pod("p1.2", LOW, node="node1", req=SMALL),
            pod("p1.3", MID, node="node1", req=MEDIUM),
            pod("p1.4", HIGH, node="node1", req=SMALL),
            pod("p2", HIGH, node="node2", req=LARGE),
        ],
        [{"node1": (["p1.2", "p1.3"], 0)}],
        [4],
    ),
    "mixed priority pods are preempted, pick later StartTime one when priorities are equal": Case(
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        [
            pod("p1.1", LOW, node="node1", req=SMALL, start=epoch(5)),
            pod("p1.2", LOW, node="node1", req=SMALL, start=epoch(4)),
            pod("p1.3", MID, node="node1", req=MEDIUM, start=epoch(3)),
            pod("p1.4", HIGH, node="node1", req=SMALL, start=epoch(2)),
            pod("p2", HIGH, node="node2", req=LARGE, start=epoch(1)),
        ],
        [{"node1": (["p1.1", "p1.3"], 0)}],
        [4],
    ),
    "pod with anti-affinity is preempted": Case(
        ["node1", "node2"],
        [pod("p", HIGH, req=SMALL, labels={"foo": ""})],
        [
            pod(
                "p1.1",
                LOW,
                node="node1",
                req=SMALL,
                labels={"foo": ""},
                spec=anti_affinity_to_foo(),
            ),
            pod("p1.2", MID, node="node1", req=SMALL),
            pod("p1.3", HIGH, node="node1", req=SMALL),
            pod("p2", HIGH, node="node2", req=SMALL),
        ],
        [{"node1": (["p1.1"], 0)}],
        [3],
        plugins="affinity",
    ),
    "preemption to resolve pod topology spread filter failure": Case(
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        [pod("p", HIGH, labels={"foo": ""}, spec=spread_on("zone", "hostname"))],
        [
            pod("pod-a1", MID, node="node-a", labels={"foo": ""}),
            pod("pod-a2", LOW, node="node-a", labels={"foo": ""}),
            pod("pod-b1", LOW, node="node-b", labels={"foo": ""}),
            pod("pod-x1", HIGH, node="node-x", labels={"foo": ""}),
            pod("pod-x2", HIGH, node="node-x", labels={"foo": ""}),
        ],
        [{"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)}],
        [5],
        plugins="spread",
    ),
    "get Unschedulable in the preemption phase when the filter plugins filtering the nodes": Case(
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        [pod("p1", MID, node="node1", req=LARGE), pod("p2", MID, node="node2", req=LARGE)],
        [{}],
        [2],
        fake_filter=Status.unschedulable(),
    ),
    "preemption with violation of same pdb": Case(
        ["node1"],
        [pod("p", HIGH, req=VERY_LARGE)],
        [
            pod("p1.1", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.2", MID, node="node1", req=MEDIUM, labels=FOO),
        ],
        [{"node1": (["p1.1", "p1.2"], 1)}],
        [3],
        pdbs=[make_pdb("pdb", FOO, allowed=1)],
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was processed, "
        "the victim doesn't belong to DisruptedPods"
    ): Case(
        ["node1"],
        [pod("p", HIGH, req=VERY_LARGE)],
        [
            pod("p1.1", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.2", MID, node="node1", req=MEDIUM, labels=FOO),
        ],
        [{"node1": (["p1.1", "p1.2"], 1)}],
        [3],
        pdbs=[make_pdb("pdb", FOO, allowed=1, disrupted={"p2": epoch(0)})],
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was processed, "
        "the victim belongs to DisruptedPods"
    ): Case(
        ["node1"],
        [pod("p", HIGH, req=VERY_LARGE)],
        [
            pod("p1.1", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.2", MID, node="node1", req=MEDIUM, labels=FOO),
        ],
        [{"node1": (["p1.1", "p1.2"], 0)}],
        [3],
        pdbs=[make_pdb("pdb", FOO, allowed=1, disrupted={"p1.2": epoch(0)})],
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was processed, "
        "the victim which belongs to DisruptedPods is treated as 'nonViolating'"
    ): Case(
        ["node1"],
        [pod("p", HIGH, req=VERY_LARGE)],
        [
            pod("p1.1", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.2", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.3", MID, node="node1", req=MEDIUM, labels=FOO),
        ],
        [{"node1": (["p1.1", "p1.2", "p1.3"], 1)}],
        [4],
        pdbs=[make_pdb("pdb", FOO, allowed=1, disrupted={"p1.3": epoch(0)})],
    ),
    "all nodes are possible candidates, but DefaultPreemptionArgs limits to 2": Case(
        ["node1", "node2", "node3", "node4", "node5"],
        [pod("p", HIGH, req=LARGE)],
        [pod(f"p{i}", MID, node=f"node{i}", req=LARGE) for i in range(1, 6)],
        # offset=4 => node5 (yes), node1 (yes)
        [{"node1": (["p1"], 0), "node5": (["p5"], 0)}],
        [4],
        args=DefaultPreemptionArgs(40, 1),
        offsets=[4],
    ),
    "some nodes are not possible candidates, DefaultPreemptionArgs limits to 2": Case(
        ["node1", "node2", "node3", "node4", "node5"],
        [pod("p", HIGH, req=LARGE)],
        [
            pod("p1", MID, node="node1", req=LARGE),
            pod("p2", VERY_HIGH, node="node2", req=LARGE),
            pod("p3", MID, node="node3", req=LARGE),
            pod("p4", MID, node="node4", req=LARGE),
            pod("p5", VERY_HIGH, node="node5", req=LARGE),
        ],
        # offset=4 => node5 (no), node1 (yes), node2 (no), node3 (yes)
        [{"node1": (["p1"], 0), "node3": (["p3"], 0)}],
        [4],
        args=DefaultPreemptionArgs(40, 1),
        offsets=[4],
    ),
    "preemption offset across multiple scheduling cycles and wrap around": Case(
        ["node1", "node2", "node3", "node4", "node5"],
        [pod("tp1", HIGH, req=LARGE), pod("tp2", HIGH, req=LARGE), pod("tp3", HIGH, req=LARGE)],
        [pod(f"p{i}", MID, node=f"node{i}", req=LARGE) for i in range(1, 6)],
        [
            {"node1": (["p1"], 0), "node5": (["p5"], 0)},  # offset=4 => node5, node1
            {"node2": (["p2"], 0), "node3": (["p3"], 0)},  # offset=1 => node2, node3
            {"node4": (["p4"], 0), "node5": (["p5"], 0)},  # offset=3 => node4, node5
        ],
        [4, 4, 4],
        args=DefaultPreemptionArgs(40, 1),
        offsets=[4, 1, 3],
    ),
    "preemption looks past numCandidates until a non-PDB violating node is found": Case(
        ["node1", "node2", "node3", "node4", "node5"],
        [pod("p", HIGH, req=LARGE)],
        [
            pod("p1", MID, node="node1", req=LARGE, labels=FOO),
            pod("p2", MID, node="node2", req=LARGE, labels=FOO),
            pod("p3", MID, node="node3", req=LARGE),
            pod("p4", MID, node="node4", req=LARGE),
            pod("p5", MID, node="node5", req=LARGE, labels=FOO),
        ],
        # offset=4 => node5 (yes, pdb), node1 (yes, pdb), node2 (no: the list is full), node3 (yes)
        [{"node1": (["p1"], 1), "node3": (["p3"], 0), "node5": (["p5"], 1)}],
        [8],
        pdbs=[make_pdb("pdb", FOO, allowed=0)],
        args=DefaultPreemptionArgs(40, 2),
        offsets=[4],
    ),
}


def _plugins(case: Case) -> tuple[list[Plugin], list[Plugin], bool]:
    """(pre_filters, filters, with NodeResourcesFit) for a case's ``registerPlugins``."""
    if case.plugins == "false":
        return [], [CountingFilter("FalseFilter", lambda p, n: Status.unschedulable())], False
    if case.plugins == "true":
        return [], [CountingFilter("TrueFilter")], False
    if case.plugins == "match":
        matches = CountingFilter(
            "MatchFilter", lambda p, n: None if p.name == n.name else Status.unschedulable()
        )
        return [], [matches], False
    return [], [], True


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_dry_run_preemption(case: Case) -> None:
    nodes = []
    for spec in case.node_names:
        parts = spec.split("/")
        labels = dict(zip(("hostname", "zone", "region"), parts, strict=False))
        nodes.append(make_node(parts[0], VERY_LARGE, labels))
    fake = CountingFilter(decide=lambda p, n: case.fake_filter)
    pre_filters, filters, resources = _plugins(case)
    harness = build(
        nodes,
        case.init_pods,
        counter=fake,
        pre_filters=pre_filters,
        filters=filters,
        resources=resources,
        args=case.args,
    )
    if case.plugins in ("affinity", "spread"):
        fwk = harness.fwk
        extra = (
            new_inter_pod_affinity(None, fwk)
            if case.plugins == "affinity"
            else new_pod_topology_spread(None, fwk)
        )
        fwk.set_plugins(
            {
                "preFilter": [*fwk.plugins["preFilter"], extra],
                "filter": [*fwk.plugins["filter"], extra],
            },
            {},
        )
    node_infos = harness.node_infos()
    previous = 0
    for cycle, preemptor in enumerate(case.test_pods):
        state = harness.pre_filtered_state(preemptor)
        _, num_candidates = harness.plugin.get_offset_and_num_candidates(len(node_infos))
        candidates, _, _ = harness.plugin.evaluator.dry_run_preemption(
            state, preemptor, node_infos, case.pdbs, case.offsets[cycle], num_candidates
        )
        assert by_name(candidates) == case.expected[cycle], f"cycle {cycle}"
        assert fake.calls - previous == case.filter_calls[cycle], f"cycle {cycle}"
        previous = fake.calls


def test_non_violating_candidates_come_first_whatever_the_order_they_were_found_in() -> None:
    """DryRunPreemption returns ``append(nonViolatingCandidates, violatingCandidates...)``."""
    case = CASES["preemption looks past numCandidates until a non-PDB violating node is found"]
    nodes = [make_node(name, VERY_LARGE) for name in case.node_names]
    harness = build(nodes, case.init_pods, args=case.args)
    preemptor = case.test_pods[0]
    candidates, statuses, error = harness.plugin.evaluator.dry_run_preemption(
        harness.pre_filtered_state(preemptor), preemptor, harness.node_infos(), case.pdbs, 4, 2
    )
    assert [c.name for c in candidates] == ["node3", "node5", "node1"]
    assert len(statuses) == 0 and error is None


def test_a_node_where_the_pod_fits_without_evicting_anyone_is_an_error() -> None:
    """A success with no victims: ``expected at least one victim pod on node "node1"``."""
    nodes = [make_node("node1", VERY_LARGE)]
    pods = [make_pod("p1", LOW, node="node1", req=SMALL)]
    harness = build(nodes, pods)
    preemptor = make_pod("p", HIGH, req=SMALL)
    candidates, statuses, error = harness.plugin.evaluator.dry_run_preemption(
        harness.pre_filtered_state(preemptor), preemptor, harness.node_infos(), [], 0, 1
    )
    assert candidates == []
    assert statuses.get("node1").code.name == "ERROR"
    assert str(error) == 'expected at least one victim pod on node "node1"'


def test_a_node_with_no_lower_priority_pod_is_answered_without_a_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same statuses as SelectVictimsOnNode's, without cloning the nodes that have none.

    Go's DryRunPreemption clones every node it tries (``nodeInfoCopy :=
    ....Snapshot()``); SelectVictimsOnNode then returns "No preemption
    victims found for incoming pod" for a node with no lower-priority pod.
    On a full cluster of equals that is every node, each attempt.
    """
    nodes = [make_node(f"node{i}", VERY_LARGE) for i in (1, 2, 3)]
    pods = [
        make_pod("low", LOW, node="node1", req=LARGE),
        make_pod("equal", MID, node="node2", req=LARGE),
        make_pod("high", HIGH, node="node3", req=LARGE),
    ]
    harness = build(nodes, pods)
    preemptor = make_pod("p", MID, req=VERY_LARGE)
    copies: list[str] = []
    clone = NodeInfo.clone

    def counting(self: NodeInfo) -> NodeInfo:
        copies.append(self.name)
        return clone(self)

    monkeypatch.setattr(NodeInfo, "clone", counting)
    for _ in range(2):  # the second time from what it kept of each node
        candidates, statuses, error = harness.plugin.evaluator.dry_run_preemption(
            harness.pre_filtered_state(preemptor), preemptor, harness.node_infos(), [], 0, 3
        )
        assert by_name(candidates) == {"node1": (["low"], 0)} and error is None
        assert {name: status for name, status in statuses.items()} == {
            "node2": Status.unresolvable(MSG_NO_VICTIMS),
            "node3": Status.unresolvable(MSG_NO_VICTIMS),
        }
    assert copies == ["node1", "node1"]


def test_a_plugin_that_changes_who_may_be_preempted_still_copies_every_node() -> None:
    """A subclass allowing equal priorities: node2's equal pod becomes a victim."""

    class Equals(DefaultPreemption):
        def is_preemption_allowed(
            self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod
        ) -> bool:
            return pod_priority(victim.pod) <= pod_priority(preemptor)

    nodes = [make_node(f"node{i}", VERY_LARGE) for i in (1, 2)]
    pods = [
        make_pod("high", HIGH, node="node1", req=LARGE),
        make_pod("equal", MID, node="node2", req=LARGE),
    ]
    harness = build(nodes, pods)
    harness.plugin.__class__ = Equals
    preemptor = make_pod("p", MID, req=VERY_LARGE)
    candidates, _, _ = harness.plugin.evaluator.dry_run_preemption(
        harness.pre_filtered_state(preemptor), preemptor, harness.node_infos(), [], 0, 2
    )
    assert by_name(candidates) == {"node2": (["equal"], 0)}
