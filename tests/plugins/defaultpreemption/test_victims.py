"""``SelectVictimsOnNode``, the PDB split it reprieves by, and who may preempt at all.

Expectations come from ``default_preemption.go`` (``SelectVictimsOnNode``,
``filterPodsWithPDBViolation``, ``PodEligibleToPreemptOthers``,
``podTerminatingByPreemption``) and the cases of ``TestCustomSelection``
and ``TestPodEligibleToPreemptOthers`` in ``default_preemption_test.go``
(``kubernetes/kubernetes:pkg/scheduler/framework/plugins/defaultpreemption``, v1.33).
"""

from __future__ import annotations

import pytest

from framework.cycle_state import CycleState
from framework.featuregate import new_feature_gates
from framework.node_info import NodeInfo
from framework.objects import Pod, PodDisruptionBudget
from framework.plugins.defaultpreemption import (
    MSG_NO_VICTIMS,
    MSG_NOT_ELIGIBLE_POLICY_NEVER,
    MSG_NOT_ELIGIBLE_TERMINATING,
    filter_pods_with_pdb_violation,
    pod_terminating_by_preemption,
)
from framework.status import Code, Status
from framework.types import PodInfo
from tests.plugins.defaultpreemption.helpers import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    SMALL,
    VERY_LARGE,
    Harness,
    build,
    epoch,
    make_node,
    make_pdb,
    make_pod,
    names,
)

FOO = {"app": "foo"}
DISRUPTION = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}


def select(harness: Harness, preemptor: Pod, node: str, pdbs: list[PodDisruptionBudget] = []):  # noqa: B006
    state = harness.pre_filtered_state(preemptor)
    node_info = harness.fwk.snapshot.get(node).clone()
    return harness.plugin.select_victims_on_node(state, preemptor, node_info, pdbs)


# --- SelectVictimsOnNode ---------------------------------------------------------------------


def test_victims_are_the_fewest_lower_priority_pods_most_important_first() -> None:
    # Evicting the two big pods is enough; the small low one is reprieved (it still fits).
    pods = [
        make_pod("small-low", LOW, node="n1", req=SMALL, start=epoch(1)),
        make_pod("big-mid", MID, node="n1", req=MEDIUM, start=epoch(1)),
        make_pod("big-low", LOW, node="n1", req=MEDIUM, start=epoch(2)),
        make_pod("vip", HIGH, node="n1", req=SMALL),
    ]
    harness = build([make_node("n1", VERY_LARGE)], pods)
    victims, violations, status = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert status.is_success() and violations == 0
    assert names(victims) == ["big-mid", "big-low"]


def test_a_node_without_lower_priority_pods_has_no_victims() -> None:
    pods = [make_pod("same", HIGH, node="n1", req=LARGE)]
    harness = build([make_node("n1", VERY_LARGE)], pods)
    victims, _, status = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert victims == []
    assert status == Status.unresolvable(MSG_NO_VICTIMS)


@pytest.mark.parametrize(
    ("version", "code"),
    [
        ("1.33", Code.UNSCHEDULABLE),
        # From v1.34 a node too small in total is UnschedulableAndUnresolvable (kubernetes#131345).
        ("1.37", Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
    ],
)
def test_when_evicting_everyone_is_not_enough_the_filter_status_is_the_answer(
    version: str, code: Code
) -> None:
    pods = [make_pod("low", LOW, node="n1", req=SMALL)]
    harness = build(
        [make_node("n1", {"cpu": "200m", "memory": "400"})],
        pods,
        feature_gates=new_feature_gates(version),
    )
    victims, _, status = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert victims == []
    assert (status.code, status.reasons, status.plugin) == (
        code,
        ("Insufficient cpu",),
        "NodeResourcesFit",
    )


def test_pdb_violating_pods_are_reprieved_first_and_counted_when_they_cannot_be() -> None:
    # Room for exactly one of the two: the protected one is reprieved, the other goes.
    pods = [
        make_pod("protected", LOW, node="n1", req=MEDIUM, labels=FOO, start=epoch(5)),
        make_pod("plain", MID, node="n1", req=MEDIUM, start=epoch(1)),
    ]
    pdb = make_pdb("foo", FOO, allowed=0)
    harness = build([make_node("n1", VERY_LARGE)], pods)
    victims, violations, _ = select(harness, make_pod("p", HIGH, req=LARGE), "n1", [pdb])
    assert names(victims) == ["plain"]
    assert violations == 0


def test_victims_stay_most_important_first_after_the_two_groups_are_merged() -> None:
    pods = [
        make_pod("v-low", LOW, node="n1", req=MEDIUM, labels=FOO),
        make_pod("n-mid", MID, node="n1", req=MEDIUM),
        make_pod("n-low", LOW, node="n1", req=SMALL),
    ]
    pdb = make_pdb("foo", FOO, allowed=0)
    harness = build([make_node("n1", VERY_LARGE)], pods)
    victims, violations, _ = select(harness, make_pod("p", HIGH, req=VERY_LARGE), "n1", [pdb])
    assert names(victims) == ["n-mid", "v-low", "n-low"]
    assert violations == 1


CUSTOM_SELECTION = {
    # TestCustomSelection: an IsEligiblePod hook on top of the priority rule.
    "filter for matching pod label: high priority": (
        lambda node_info, victim, preemptor: (
            victim.pod.metadata.labels.get("preemptible") == "yes"
        ),
        make_pod("p1", HIGH, req=LARGE),
        {"n2": ["v2"], "n3": ["v3"]},
    ),
    "filter for matching pod label: mid priority": (
        lambda node_info, victim, preemptor: (
            victim.pod.metadata.labels.get("preemptible") == "yes"
        ),
        make_pod("p2", MID, req=LARGE),
        {"n3": ["v3"]},
    ),
    "filter for matching pod label: low priority": (
        lambda node_info, victim, preemptor: (
            victim.pod.metadata.labels.get("preemptible") == "yes"
        ),
        make_pod("p3", LOW, req=LARGE),
        {},
    ),
    "filter for matching victim node: high priority": (
        lambda node_info, victim, preemptor: node_info.name == "n1",
        make_pod("p3", HIGH, req=LARGE),
        {"n1": ["v1"]},
    ),
}


@pytest.mark.parametrize(
    ("eligible", "preemptor", "expected"), CUSTOM_SELECTION.values(), ids=CUSTOM_SELECTION.keys()
)
def test_is_eligible_pod_narrows_the_victims(eligible, preemptor, expected) -> None:  # type: ignore[no-untyped-def]
    pods = [
        make_pod("v1", MID, node="n1", req=LARGE, labels={"preemptible": "no"}),
        make_pod("v2", MID, node="n2", req=LARGE, labels={"preemptible": "yes"}),
        make_pod("v3", LOW, node="n3", req=LARGE, labels={"preemptible": "yes"}),
        make_pod("v4", LOW, node="n4", req=LARGE),
    ]
    harness = build([make_node(f"n{i}", VERY_LARGE) for i in range(1, 5)], pods)
    harness.plugin.is_eligible_pod = eligible
    found = {}
    for node in ("n1", "n2", "n3", "n4"):
        victims, _, status = select(harness, preemptor, node)
        if status.is_success():
            found[node] = names(victims)
    assert found == expected


def test_more_important_pod_decides_the_reprieve_order() -> None:
    """TestCustomOrdering: reverse alphabetical importance keeps "bar", evicts the others."""
    pods = [
        make_pod("foo", LOW, node="n1", req=MEDIUM),
        make_pod("bar", LOW, node="n1", req=MEDIUM),
        make_pod("baz", MID, node="n1", req=MEDIUM),
    ]
    harness = build([make_node("n1", VERY_LARGE)], pods)
    harness.plugin.more_important_pod = lambda a, b: a.name < b.name
    victims, _, _ = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert names(victims) == ["baz", "foo"]


# --- filterPodsWithPDBViolation ---------------------------------------------------------------

PDB_SPLIT = {
    "no budget: nothing violates": ([], ["a", "b"], [], ["a", "b"]),
    "one allowed, two matching: the second violates": (
        [make_pdb("x", FOO, allowed=1)],
        ["a", "b"],
        ["b"],
        ["a"],
    ),
    "budget of another namespace does not count": (
        [make_pdb("x", FOO, allowed=0, namespace="other")],
        ["a", "b"],
        [],
        ["a", "b"],
    ),
    "a pod already in disruptedPods does not spend the budget": (
        [make_pdb("x", FOO, allowed=1, disrupted={"a": epoch(0)})],
        ["a", "b"],
        [],
        ["a", "b"],
    ),
    "an empty selector matches nothing here": (
        [make_pdb("x", {}, allowed=0)],
        ["a", "b"],
        [],
        ["a", "b"],
    ),
    "a pod violating one of two budgets violates": (
        [make_pdb("x", FOO, allowed=5), make_pdb("y", {"tier": "db"}, allowed=0)],
        ["a", "db"],
        ["db"],
        ["a"],
    ),
}


@pytest.mark.parametrize(
    ("pdbs", "pods", "violating", "non_violating"), PDB_SPLIT.values(), ids=PDB_SPLIT.keys()
)
def test_filter_pods_with_pdb_violation(
    pdbs: list[PodDisruptionBudget],
    pods: list[str],
    violating: list[str],
    non_violating: list[str],
) -> None:
    labels = {"a": FOO, "b": FOO, "db": {**FOO, "tier": "db"}}
    infos = [PodInfo(make_pod(name, labels=labels[name])) for name in pods]
    got_violating, got_non_violating = filter_pods_with_pdb_violation(infos, pdbs)
    assert [p.pod.name for p in got_violating] == violating
    assert [p.pod.name for p in got_non_violating] == non_violating


def test_a_pod_without_labels_matches_no_budget() -> None:
    pdb = PodDisruptionBudget.from_dict(
        {"metadata": {"name": "all", "namespace": "default"}, "spec": {"selector": {}}}
    )
    violating, _ = filter_pods_with_pdb_violation([PodInfo(make_pod("bare"))], [pdb])
    assert violating == []


# --- PodEligibleToPreemptOthers ---------------------------------------------------------------

ELIGIBLE = {
    "Pod with nominated node": (
        make_pod("p", HIGH, nominated="node1"),
        [make_pod("p1", LOW, node="node1", terminating=True)],
        Status.unresolvable("node(s) had untolerated taint"),
        (True, ""),
    ),
    "Pod without nominated node": (make_pod("p", HIGH), [], Status.success(), (True, "")),
    "Pod with 'PreemptNever' preemption policy": (
        make_pod("p", HIGH, preemption_policy="Never"),
        [],
        Status.success(),
        (False, MSG_NOT_ELIGIBLE_POLICY_NEVER),
    ),
    "preemption victim pod terminating, as indicated by the dedicated DisruptionTarget condition": (
        make_pod("p", HIGH, nominated="node1"),
        [make_pod("p1", LOW, node="node1", terminating=True, conditions=[DISRUPTION])],
        Status.unschedulable(),
        (False, MSG_NOT_ELIGIBLE_TERMINATING),
    ),
    "non-victim Pods terminating": (
        make_pod("p", HIGH, nominated="node1"),
        [make_pod("p1", LOW, node="node1", terminating=True)],
        Status.unschedulable(),
        (True, ""),
    ),
    "a terminating victim of equal priority is not ours to wait for": (
        make_pod("p", HIGH, nominated="node1"),
        [make_pod("p1", HIGH, node="node1", terminating=True, conditions=[DISRUPTION])],
        Status.unschedulable(),
        (True, ""),
    ),
}


@pytest.mark.parametrize(
    ("pod", "pods", "nominated_status", "expected"), ELIGIBLE.values(), ids=ELIGIBLE.keys()
)
def test_pod_eligible_to_preempt_others(
    pod: Pod, pods: list[Pod], nominated_status: Status, expected: tuple[bool, str]
) -> None:
    harness = build([make_node("node1")], pods)
    assert harness.plugin.pod_eligible_to_preempt_others(pod, nominated_status) == expected


@pytest.mark.parametrize(
    ("pod", "expected"),
    [
        (make_pod("a", terminating=True, conditions=[DISRUPTION]), True),
        (make_pod("b", conditions=[DISRUPTION]), False),
        (make_pod("c", terminating=True), False),
        (make_pod("d", terminating=True, conditions=[{**DISRUPTION, "status": "False"}]), False),
        (make_pod("e", terminating=True, conditions=[{**DISRUPTION, "reason": "Evicted"}]), False),
    ],
    ids=[
        "deleted after preemption",
        "condition but not deleted",
        "deleted, not by preemption",
        "condition False",
        "another reason",
    ],
)
def test_pod_terminating_by_preemption(pod: Pod, expected: bool) -> None:
    assert pod_terminating_by_preemption(pod) is expected


def test_remove_pod_errors_are_errors_of_the_node() -> None:
    """A RemovePod extension's error fails the node (TestPostFilter "only one node but failed")."""

    class Failing:
        def name(self) -> str:
            return "test-plugin"

        def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]):  # type: ignore[no-untyped-def]
            return None, None

        def pre_filter_extensions(self) -> Failing:
            return self

        def add_pod(self, state, pod, info, node_info):  # type: ignore[no-untyped-def]
            return Status.as_error(RuntimeError(f"failed to add pod: {pod.name}"))

        def remove_pod(self, state, pod, info, node_info):  # type: ignore[no-untyped-def]
            return Status.as_error(RuntimeError(f"failed to remove pod: {pod.name}"))

    harness = build([make_node("n1", LARGE)], [make_pod("p1", node="n1")], pre_filters=[Failing()])
    _, _, status = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert status.code is Code.ERROR
    assert status.message() == (
        'running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p'
    )
