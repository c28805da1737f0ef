"""PreFilter, AddPod/RemovePod and Filter of InterPodAffinity, case by case.

Each case names the Kubernetes test it comes from, in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go``
(v1.33): ``TestRequiredAffinitySingleNode``, ``TestRequiredAffinityMultipleNodes``,
``TestPreFilterDisabled``, ``TestPreFilterStateAddRemovePod``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    InterPodAffinity,
)
from framework.status import Code
from framework.types import PodInfo
from tests.plugins.interpodaffinity.helpers import filter_all, framework, node, pod, term

SECURITY_S1 = {"security": "S1"}
FITS = (Code.SUCCESS, ())
AFFINITY = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_AFFINITY_RULES_NOT_MATCH,))
ANTI = (Code.UNSCHEDULABLE, (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,))
EXISTING = (Code.UNSCHEDULABLE, (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,))


def outcome(status: object) -> tuple[Code, tuple[str, ...]]:
    if status is None:
        return FITS
    return status.code, tuple(status.reasons)  # type: ignore[attr-defined]


@dataclass
class Case:
    id: str
    incoming: Pod
    pods: list[Pod]
    nodes: list[Node]
    want: dict[str, tuple[Code, tuple[str, ...]]]
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)


N1 = node("node1", region="r1", zone="z11", hostname="h1")
SCAN = {"service": "securityscan"}
IN_SCAN = {"key": "service", "operator": "In", "values": ["securityscan", "value2"]}

CASES = [
    Case(
        # TestRequiredAffinitySingleNode: "satisfies with requiredDuringSchedulingIgnoredDuringExecution
        # in PodAffinity using In operator that matches the existing pod"
        "affinity In matches the existing pod",
        pod("in", affinity=[term(expressions=[IN_SCAN])]),
        [pod("e", labels=SCAN, node="node1")],
        [N1],
        {"node1": FITS},
    ),
    Case(
        # "... using not in operator in labelSelector that matches the existing pod"
        "affinity NotIn matches the existing pod",
        pod(
            "in",
            affinity=[
                term(
                    expressions=[
                        {"key": "service", "operator": "NotIn", "values": ["securityscan3"]}
                    ]
                )
            ],
        ),
        [pod("e", labels=SCAN, node="node1")],
        [N1],
        {"node1": FITS},
    ),
    Case(
        # "Does not satisfy the PodAffinity with labelSelector because of diff Namespace"
        "affinity in another namespace does not match",
        pod("in", affinity=[term(expressions=[IN_SCAN], namespaces=["DiffNameSpace"])]),
        [pod("e", labels=SCAN, node="node1")],
        [N1],
        {"node1": AFFINITY},
    ),
    Case(
        # "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod"
        "affinity selector that matches no pod",
        pod("in", affinity=[term({"service": "antivirusscan"})]),
        [pod("e", labels=SCAN, node="node1")],
        [N1],
        {"node1": AFFINITY},
    ),
    Case(
        # "Doesn't satisfy the PodAntiAffinity because of matching labelSelector with the existing pod"
        "anti-affinity selecting the existing pod",
        pod("in", anti_affinity=[term(SCAN, "zone")]),
        [pod("e", labels=SCAN, node="node1")],
        [N1],
        {"node1": ANTI},
    ),
    Case(
        # "satisfies the PodAffinity but doesn't satisfy PodAntiAffinity with the existing pod"
        "affinity holds but anti-affinity does not",
        pod("in", affinity=[term(SCAN)], anti_affinity=[term(SCAN, "zone")]),
        [pod("e", labels=SCAN, node="node1")],
        [N1],
        {"node1": ANTI},
    ),
    Case(
        # "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity
        # constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod"
        "an existing pod's anti-affinity is respected",
        pod("in", labels=SCAN),
        [pod("e", node="node1", anti_affinity=[term(SCAN, "zone")])],
        [N1],
        {"node1": EXISTING},
    ),
    Case(
        # "satisfies PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry
        # with the existing pod"
        "own rules hold, the existing pod's anti-affinity does not",
        pod("in", labels=SCAN, affinity=[term(SCAN)], anti_affinity=[term({"x": "y"}, "zone")]),
        [pod("e", labels=SCAN, node="node1", anti_affinity=[term(SCAN, "zone")])],
        [N1],
        {"node1": EXISTING},
    ),
    Case(
        # TestRequiredAffinityMultipleNodes: "A pod can be scheduled onto all the nodes that have
        # the same topology key & label value with one of them has an existing pod that matches
        # the affinity rules"
        "affinity: every node of the matching pod's region",
        pod("in", affinity=[term({"foo": "bar"})]),
        [pod("e", labels={"foo": "bar"}, node="machine1")],
        [
            node("machine1", region="r1", zone="z11"),
            node("machine2", region="r1", zone="z12"),
            node("machine3", region="r2", zone="z21"),
        ],
        {"machine1": FITS, "machine2": FITS, "machine3": AFFINITY},
    ),
    Case(
        # "The first pod of the collection should not be blocked" — plus a node without the label,
        # which no pod may use ("All topology labels must exist on the node").
        "the first pod of a collection may match its own affinity",
        pod(
            "in",
            labels={"foo": "123"},
            affinity=[term(expressions=[{"key": "foo", "operator": "Exists"}])],
        ),
        [],
        [node("nodeA", region="r1"), node("nodeB", region="r2"), node("nodeC", zone="z")],
        {"nodeA": FITS, "nodeB": FITS, "nodeC": AFFINITY},
    ),
    Case(
        # Not the first of its collection: a matching pod exists elsewhere, so only its region fits.
        "once a matching pod exists, the self-match exception no longer applies",
        pod(
            "in",
            labels={"foo": "123"},
            affinity=[term(expressions=[{"key": "foo", "operator": "Exists"}])],
        ),
        [pod("e", labels={"foo": "456"}, node="nodeA")],
        [node("nodeA", region="r1"), node("nodeB", region="r2")],
        {"nodeA": FITS, "nodeB": AFFINITY},
    ),
    Case(
        # "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that
        # matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB."
        "anti-affinity blocks the whole region",
        pod("in", anti_affinity=[term({"foo": "abc"})]),
        [pod("e", labels={"foo": "abc"}, node="nodeA")],
        [node("nodeA", region="r1"), node("nodeB", region="r1"), node("nodeC", region="r2")],
        {"nodeA": ANTI, "nodeB": ANTI, "nodeC": FITS},
    ),
    Case(
        # "... NodeA has an existing pod that matches the inter pod affinity rule [of the existing
        # pod's anti-affinity]. The pod can not be scheduled onto nodeA and nodeB but can be
        # scheduled onto nodeC"
        "an existing pod's anti-affinity blocks its whole region",
        pod("in", labels={"foo": "abc"}),
        [pod("e", node="nodeA", anti_affinity=[term({"foo": "abc"})])],
        [node("nodeA", region="r1"), node("nodeB", region="r1"), node("nodeC", region="r2")],
        {"nodeA": EXISTING, "nodeB": EXISTING, "nodeC": FITS},
    ),
    Case(
        # TestRequiredAffinitySingleNode: namespaceSelector cases
        # ("affinity with namespaceSelector, satisfies").
        "affinity namespaceSelector unrolled from the namespaces' labels",
        pod("in", affinity=[term(SCAN, namespace_selector={"matchLabels": {"team": "team1"}})]),
        [pod("e", namespace="subteam", labels=SCAN, node="node1")],
        [N1],
        {"node1": FITS},
        {"subteam": {"team": "team1"}},
    ),
    Case(
        # "affinity with namespaceSelector, doesn't satisfy": the namespace's labels differ.
        "affinity namespaceSelector matching no namespace",
        pod("in", affinity=[term(SCAN, namespace_selector={"matchLabels": {"team": "team1"}})]),
        [pod("e", namespace="subteam", labels=SCAN, node="node1")],
        [N1],
        {"node1": AFFINITY},
        {"subteam": {"team": "team2"}},
    ),
    Case(
        # An empty namespaceSelector ({}) selects every namespace.
        "an empty namespaceSelector selects all namespaces",
        pod("in", anti_affinity=[term(SCAN, namespace_selector={})]),
        [pod("e", namespace="subteam", labels=SCAN, node="node1")],
        [N1],
        {"node1": ANTI},
        {"subteam": {}},
    ),
    Case(
        # "anti-affinity of an existing pod with namespaceSelector": the *incoming* pod's
        # namespace labels decide.
        "an existing pod's namespaceSelector reads the incoming pod's namespace labels",
        pod("in", namespace="subteam", labels=SCAN),
        [
            pod(
                "e",
                node="node1",
                anti_affinity=[term(SCAN, namespace_selector={"matchLabels": {"team": "team1"}})],
            )
        ],
        [N1],
        {"node1": EXISTING},
        {"subteam": {"team": "team1"}},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_filter_matches_kubernetes(case: Case) -> None:
    pre, results = filter_all(case.incoming, case.pods, case.nodes, case.namespaces)
    assert pre is None
    assert {name: outcome(s) for name, s in results.items()} == case.want


def test_pre_filter_skips_without_anything_to_check() -> None:
    # "A pod that has no required pod affinity scheduling rules can schedule onto a node with
    # no existing pods": nothing can reject a node, so Filter does not even run.
    pre, _ = filter_all(pod("in", labels=SCAN), [pod("e", labels=SCAN, node="node1")], [N1])
    assert pre is not None and pre.code == Code.SKIP


def test_pre_filter_does_not_skip_when_only_an_existing_pod_has_rules() -> None:
    pre, _ = filter_all(
        pod("in", labels=SCAN), [pod("e", node="node1", anti_affinity=[term(SCAN, "zone")])], [N1]
    )
    assert pre is None


def test_a_selector_that_does_not_compile_is_unresolvable() -> None:
    incoming = pod("in", affinity=[term(expressions=[{"key": "a", "operator": "Bad"}])])
    pre, _ = filter_all(incoming, [], [N1])
    assert pre is not None and pre.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert pre.reasons[0].startswith("parsing pod: requiredAffinityTerms: ")


def test_filter_without_pre_filter_is_an_error() -> None:
    # TestPreFilterDisabled: Filter reads the state PreFilter writes.
    fwk = framework([], [N1])
    status = InterPodAffinity(fwk).filter(CycleState(), pod("in"), fwk.snapshot.get("node1"))
    assert status is not None and status.code == Code.ERROR
    assert 'error reading "PreFilterInterPodAffinity" from cycleState' in status.message()


def test_add_and_remove_pod_keep_the_counts_true() -> None:
    # TestPreFilterStateAddRemovePod: AddPod then RemovePod returns to the state after PreFilter,
    # and the clone the framework works on leaves the original alone.
    nodes = [node("nodeA", region="r1"), node("nodeB", region="r2")]
    incoming = pod("in", labels={"foo": "x"}, anti_affinity=[term({"foo": "bar"})])
    fwk = framework([], nodes)
    plugin = InterPodAffinity(fwk)
    state = CycleState()
    assert plugin.pre_filter(state, incoming, []) == (None, None)
    info_a: NodeInfo = fwk.snapshot.get("nodeA")
    assert plugin.filter(state, incoming, info_a) is None

    cloned = state.clone()
    victim = PodInfo(pod("bar", labels={"foo": "bar"}, node="nodeA"))
    assert plugin.add_pod(cloned, incoming, victim, info_a) is None
    assert outcome(plugin.filter(cloned, incoming, info_a)) == ANTI
    assert plugin.filter(state, incoming, info_a) is None  # the original is untouched
    assert plugin.remove_pod(cloned, incoming, victim, info_a) is None
    assert plugin.filter(cloned, incoming, info_a) is None

    # A pod whose own anti-affinity selects the incoming pod counts too.
    hater = PodInfo(pod("hater", node="nodeB", anti_affinity=[term({"foo": "x"})]))
    assert plugin.add_pod(cloned, incoming, hater, fwk.snapshot.get("nodeB")) is None
    assert outcome(plugin.filter(cloned, incoming, fwk.snapshot.get("nodeB"))) == EXISTING
