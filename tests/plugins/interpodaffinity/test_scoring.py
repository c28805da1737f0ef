"""PreScore, Score and NormalizeScore of InterPodAffinity, case by case.

Each case names the Kubernetes test it comes from, in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go``
(v1.33): ``TestPreferredAffinity`` and ``TestPreferredAffinityWithHardPodAffinitySymmetricWeight``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from framework.cycle_state import CycleState
from framework.interface import NodeScore
from framework.objects import Node, Pod
from framework.plugins.interpodaffinity import InterPodAffinity, InterPodAffinityArgs
from framework.status import Code
from tests.plugins.interpodaffinity.helpers import framework, node, pod, score_all, term, weighted

S1 = {"security": "S1"}
S2 = {"security": "S2"}
NODES = [
    node("node1", region="China", az="az1"),
    node("node2", region="India", az="az2"),
    node("node3", region="China", az="az3"),
]


@dataclass
class Case:
    id: str
    incoming: Pod
    pods: list[Pod]
    want: list[int] | None  # None: PreScore returns Skip
    args: InterPodAffinityArgs = field(default_factory=InterPodAffinityArgs)
    nodes: list[Node] = field(default_factory=lambda: NODES)
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)


CASES = [
    Case(
        # TestPreferredAffinity: "all nodes are same priority as Affinity is nil"
        "no affinity anywhere: nothing to score",
        pod("in", labels=S1),
        [pod("e", labels=S1, node="node1")],
        None,
    ),
    Case(
        # "Affinity: pod that matches topology key & pods in nodes will get high score comparing
        # to others which doesn't match either pods in nodes or in topology key"
        "preferred affinity favours the matching pod's region",
        pod("in", preferred_affinity=[weighted(5, term(S1))]),
        [pod("e", labels=S1, node="node1")],
        [100, 0, 100],
    ),
    Case(
        # "Anti Affinity: pod that does not match existing pods in node will get high score"
        "preferred anti-affinity disfavours the matching pod's region",
        pod("in", preferred_anti_affinity=[weighted(5, term(S1))]),
        [pod("e", labels=S1, node="node1")],
        [0, 100, 0],
    ),
    Case(
        # "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to
        # schedule and existing pods have the same labels" — here with different weights, to show
        # the min-max scaling: raw [8, -5, 0] → [100, 0, int(100 * 5 / 13)].
        "affinity and anti-affinity together, scaled min to max",
        pod(
            "in",
            preferred_affinity=[weighted(8, term(S1, "az"))],
            preferred_anti_affinity=[weighted(5, term(S2, "az"))],
        ),
        [pod("e1", labels=S1, node="node1"), pod("e2", labels=S2, node="node2")],
        [100, 0, 38],
    ),
    Case(
        # "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution
        # in pod affinity symmetry"
        "an existing pod's preferred affinity for the incoming pod",
        pod("in", labels=S1),
        [pod("e", node="node2", preferred_affinity=[weighted(5, term(S1))])],
        [0, 100, 0],
    ),
    Case(
        # "Anti Affinity symmetry: the existing pods in node which has anti affinity match will
        # get high score"
        "an existing pod's preferred anti-affinity against the incoming pod",
        pod("in", labels=S1),
        [pod("e", node="node1", preferred_anti_affinity=[weighted(5, term(S1))])],
        [0, 100, 0],
    ),
    Case(
        # TestPreferredAffinityWithHardPodAffinitySymmetricWeight: "with default weight"
        "an existing pod's required affinity counts hardPodAffinityWeight",
        pod("in", labels=S1),
        [pod("e", node="node1", affinity=[term(S1)])],
        [100, 0, 100],
    ),
    Case(
        # "with zero weight": nothing contributes, so PreScore skips.
        "hardPodAffinityWeight 0 turns symmetry off",
        pod("in", labels=S1),
        [pod("e", node="node1", affinity=[term(S1)])],
        None,
        InterPodAffinityArgs(hard_pod_affinity_weight=0),
    ),
    Case(
        # TestPreferredAffinity: "Affinity: ignorePreferredTermsOfExistingPods"
        "ignorePreferredTermsOfExistingPods skips a pod without preferred terms",
        pod("in", labels=S1),
        [pod("e", node="node2", preferred_affinity=[weighted(5, term(S1))])],
        None,
        InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=True),
    ),
    Case(
        # Same, but the incoming pod has a preferred term: everything counts again.
        "ignorePreferredTermsOfExistingPods with preferred terms of its own",
        pod("in", labels=S1, preferred_affinity=[weighted(1, term(S2, "az"))]),
        [pod("e", node="node2", preferred_affinity=[weighted(5, term(S1))])],
        [0, 100, 0],
        InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=True),
    ),
    Case(
        # "Affinity: nodes in one region has more matching pods comparing to other region, so
        # the region which has more matches will get high score"
        "more matching pods, more points",
        pod("in", preferred_affinity=[weighted(5, term(S1))]),
        [
            pod("e1", labels=S1, node="node1"),
            pod("e2", labels=S1, node="node3"),
            pod("e3", labels=S1, node="node2"),
        ],
        [100, 0, 100],  # raw 10, 5, 10: min-max scaling puts India at 0
    ),
    Case(
        # Equal raw scores: every node gets 0 (max - min is 0).
        "equal scores all become 0",
        pod("in", preferred_affinity=[weighted(5, term(S1, "az"))]),
        [
            pod("e1", labels=S1, node="node1"),
            pod("e2", labels=S1, node="node2"),
            pod("e3", labels=S1, node="node3"),
        ],
        [0, 0, 0],
    ),
    Case(
        # TestPreferredAffinity: "Affinity: namespaceSelector" — the selector is unrolled
        # into namespace names in PreScore.
        "preferred affinity with a namespaceSelector",
        pod(
            "in",
            preferred_affinity=[
                weighted(5, term(S1, namespace_selector={"matchLabels": {"team": "a"}}))
            ],
        ),
        [
            pod("e1", namespace="ns-a", labels=S1, node="node2"),
            pod("e2", namespace="ns-b", labels=S1, node="node1"),
        ],
        [0, 100, 0],
        namespaces={"ns-a": {"team": "a"}, "ns-b": {"team": "b"}},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_scores_match_kubernetes(case: Case) -> None:
    pre, scores = score_all(case.incoming, case.pods, case.nodes, case.args, case.namespaces)
    if case.want is None:
        assert pre is not None and pre.code == Code.SKIP
    else:
        assert pre is None
        assert [score for _, score in scores] == case.want


def test_raw_scores_can_be_negative() -> None:
    fwk = framework([pod("e", labels=S1, node="node1")], NODES)
    plugin = InterPodAffinity(fwk)
    state = CycleState()
    incoming = pod("in", preferred_anti_affinity=[weighted(7, term(S1))])
    assert plugin.pre_score(state, incoming, list(fwk.snapshot.list())) is None
    assert [plugin.score(state, incoming, i)[0] for i in fwk.snapshot.list()] == [-7, 0, -7]


def test_score_without_pre_score_is_an_error() -> None:
    fwk = framework([], NODES)
    plugin = InterPodAffinity(fwk)
    _, status = plugin.score(CycleState(), pod("in"), fwk.snapshot.get("node1"))
    assert status is not None and status.code == Code.ERROR
    status = plugin.normalize_score(CycleState(), pod("in"), [NodeScore("node1", 3)])
    assert status is not None and status.code == Code.ERROR
