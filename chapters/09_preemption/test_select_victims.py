"""Chapter 9: DefaultPreemption's ``SelectVictimsOnNode``, the dry run of preemption on one node.

First the dry run over whole clusters, as ``TestDryRunPreemption`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go``
(v1.33) runs it: the same pods, nodes of ``veryLargeRes``, the same
candidates and the same number of Filter calls (one after removing every
lower-priority pod, one per reprieve: no more, no fewer). Then
``SelectVictimsOnNode`` itself (``default_preemption.go``), case by case: no
victims, not enough room, the order of the victims, PodDisruptionBudgets
first, nominated pods, errors, and the ``IsEligiblePod`` and
``MoreImportantPod`` hooks (``TestCustomSelection``, ``TestCustomOrdering``).
Then the choice of node, which depends on the victims found
(``TestSelectBestCandidate``), a Hypothesis property (every victim is needed,
and without them the pod fits), and last a whole scheduler on the fake API
server with your plugin as its DefaultPreemption.

Go's ``epochTime1..6`` are 1 to 6 nanoseconds after the epoch; the helpers
make them 1 to 6 seconds. Run against your code with
``python -m pytest chapters/09_preemption --exercise``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Pod, PodDisruptionBudget
from framework.objects.manifest import loads
from framework.plugins.defaultpreemption import DefaultPreemptionArgs
from framework.plugins.interpodaffinity import new as new_inter_pod_affinity
from framework.plugins.podtopologyspread import new as new_pod_topology_spread
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.status import Code, Status
from framework.types import NominatingInfo, NominatingMode, PodInfo
from tests.plugins.defaultpreemption.helpers import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    NEG,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    CountingFilter,
    Harness,
    build,
    by_name,
    epoch,
    make_node,
    make_pdb,
    make_pod,
    names,
)

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.defaultpreemption",
    skeleton="exercise.py",
    asks=["DefaultPreemption.select_victims_on_node"],
)

FOO = {"app": "foo"}
NODE_400M = {"cpu": "400m", "memory": "1000"}
"""A node with room for two MEDIUM pods (200m each), and memory to spare."""


def with_plugin_of(impl: ModuleType, harness: Harness, args: Any = None) -> Harness:
    """The harness with ``impl``'s DefaultPreemption (yours, or the reference) as its plugin."""
    plugin = impl.DefaultPreemption(harness.fwk, args)
    plugin.evaluator.pdb_lister = lambda: list(harness.pdbs)
    harness.fwk.set_plugins({"postFilter": [plugin]}, {})
    harness.plugin = plugin
    return harness


def select(
    harness: Harness, preemptor: Pod, node: str, pdbs: list[PodDisruptionBudget] | None = None
) -> tuple[list[Pod], int, Status]:
    """``SelectVictimsOnNode`` on a copy of the node, after PreFilter, as the dry run calls it."""
    state = harness.pre_filtered_state(preemptor)
    node_info = harness.fwk.snapshot.get(node).clone()
    return harness.plugin.select_victims_on_node(state.clone(), preemptor, node_info, pdbs or [])


# --- the dry run: TestDryRunPreemption -----------------------------------------------------------


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
    """``SpreadConstraint(1, key, DoNotSchedule, Exists("foo"))`` for each key."""
    selector = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
    return {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": key,
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": selector,
            }
            for key in keys
        ]
    }


@dataclass
class DryRun:
    nodes: list[str]  # "name" or "name/zone"
    preemptor: Pod
    pods: list[Pod]
    expected: dict[str, tuple[list[str], int]]  # node: (victims by name, PDB violations)
    filter_calls: int
    extra: str = ""  # "affinity" or "spread": that plugin at PreFilter and Filter too
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    args: DefaultPreemptionArgs | None = None
    offset: int = 0


def pod(name: str, priority: int, **kwargs: Any) -> Pod:
    return make_pod(name, priority, **kwargs)


DRY_RUNS = {
    "a pod that fits on both nodes when lower priority pods are preempted": DryRun(
        ["node1", "node2"],
        pod("p", HIGH, req=LARGE),
        [pod("p1", MID, node="node1", req=LARGE), pod("p2", MID, node="node2", req=LARGE)],
        {"node1": (["p1"], 0), "node2": (["p2"], 0)},
        4,
    ),
    "a pod that would fit on the nodes, but other pods running are higher priority, no preemption would happen": DryRun(
        ["node1", "node2"],
        pod("p", LOW, req=LARGE),
        [pod("p1", MID, node="node1", req=LARGE), pod("p2", MID, node="node2", req=LARGE)],
        {},
        0,
    ),
    "medium priority pod is preempted, but lower priority one stays as it is small": DryRun(
        ["node1", "node2"],
        pod("p", HIGH, req=LARGE),
        [
            pod("p1.1", LOW, node="node1", req=SMALL),
            pod("p1.2", MID, node="node1", req=LARGE),
            pod("p2", MID, node="node2", req=LARGE),
        ],
        {"node1": (["p1.2"], 0), "node2": (["p2"], 0)},
        5,
    ),
    "mixed priority pods are preempted": DryRun(
        ["node1", "node2"],
        pod("p", HIGH, req=LARGE),
        [
            pod("p1.1", MID, node="node1", req=SMALL),
            pod("p1.2", LOW, node="node1", req=SMALL),
            pod("p1.3", MID, node="node1", req=MEDIUM),
            pod("p1.4", HIGH, node="node1", req=SMALL),
            pod("p2", HIGH, node="node2", req=LARGE),
        ],
        {"node1": (["p1.2", "p1.3"], 0)},
        4,
    ),
    "mixed priority pods are preempted, pick later StartTime one when priorities are equal": DryRun(
        ["node1", "node2"],
        pod("p", HIGH, req=LARGE),
        [
            pod("p1.1", LOW, node="node1", req=SMALL, start=epoch(5)),
            pod("p1.2", LOW, node="node1", req=SMALL, start=epoch(4)),
            pod("p1.3", MID, node="node1", req=MEDIUM, start=epoch(3)),
            pod("p1.4", HIGH, node="node1", req=SMALL, start=epoch(2)),
            pod("p2", HIGH, node="node2", req=LARGE, start=epoch(1)),
        ],
        {"node1": (["p1.1", "p1.3"], 0)},
        4,
    ),
    "pod with anti-affinity is preempted": DryRun(
        ["node1", "node2"],
        pod("p", HIGH, req=SMALL, labels={"foo": ""}),
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
        {"node1": (["p1.1"], 0)},
        3,
        extra="affinity",
    ),
    "preemption to resolve pod topology spread filter failure": DryRun(
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        pod("p", HIGH, labels={"foo": ""}, spec=spread_on("zone", "hostname")),
        [
            pod("pod-a1", MID, node="node-a", labels={"foo": ""}),
            pod("pod-a2", LOW, node="node-a", labels={"foo": ""}),
            pod("pod-b1", LOW, node="node-b", labels={"foo": ""}),
            pod("pod-x1", HIGH, node="node-x", labels={"foo": ""}),
            pod("pod-x2", HIGH, node="node-x", labels={"foo": ""}),
        ],
        {"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)},
        5,
        extra="spread",
    ),
    "preemption with violation of same pdb": DryRun(
        ["node1"],
        pod("p", HIGH, req=VERY_LARGE),
        [
            pod("p1.1", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.2", MID, node="node1", req=MEDIUM, labels=FOO),
        ],
        {"node1": (["p1.1", "p1.2"], 1)},
        3,
        pdbs=[make_pdb("pdb", FOO, allowed=1)],
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was processed, "
        "the victim belongs to DisruptedPods"
    ): DryRun(
        ["node1"],
        pod("p", HIGH, req=VERY_LARGE),
        [
            pod("p1.1", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.2", MID, node="node1", req=MEDIUM, labels=FOO),
        ],
        {"node1": (["p1.1", "p1.2"], 0)},
        3,
        pdbs=[make_pdb("pdb", FOO, allowed=1, disrupted={"p1.2": epoch(0)})],
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was processed, "
        "the victim which belongs to DisruptedPods is treated as 'nonViolating'"
    ): DryRun(
        ["node1"],
        pod("p", HIGH, req=VERY_LARGE),
        [
            pod("p1.1", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.2", MID, node="node1", req=MEDIUM, labels=FOO),
            pod("p1.3", MID, node="node1", req=MEDIUM, labels=FOO),
        ],
        {"node1": (["p1.1", "p1.2", "p1.3"], 1)},
        4,
        pdbs=[make_pdb("pdb", FOO, allowed=1, disrupted={"p1.3": epoch(0)})],
    ),
    "some nodes are not possible candidates, DefaultPreemptionArgs limits to 2": DryRun(
        ["node1", "node2", "node3", "node4", "node5"],
        pod("p", HIGH, req=LARGE),
        [
            pod("p1", MID, node="node1", req=LARGE),
            pod("p2", VERY_HIGH, node="node2", req=LARGE),
            pod("p3", MID, node="node3", req=LARGE),
            pod("p4", MID, node="node4", req=LARGE),
            pod("p5", VERY_HIGH, node="node5", req=LARGE),
        ],
        # From offset 4: node5 (no victims), node1 (yes), node2 (no victims), node3 (yes).
        {"node1": (["p1"], 0), "node3": (["p3"], 0)},
        4,
        args=DefaultPreemptionArgs(40, 1),
        offset=4,
    ),
    "preemption looks past numCandidates until a non-PDB violating node is found": DryRun(
        ["node1", "node2", "node3", "node4", "node5"],
        pod("p", HIGH, req=LARGE),
        [
            pod("p1", MID, node="node1", req=LARGE, labels=FOO),
            pod("p2", MID, node="node2", req=LARGE, labels=FOO),
            pod("p3", MID, node="node3", req=LARGE),
            pod("p4", MID, node="node4", req=LARGE),
            pod("p5", MID, node="node5", req=LARGE, labels=FOO),
        ],
        # From offset 4: node5 (violates), node1 (violates), node2 (violates), node3 (fine): stop.
        {"node1": (["p1"], 1), "node3": (["p3"], 0), "node5": (["p5"], 1)},
        8,
        pdbs=[make_pdb("pdb", FOO, allowed=0)],
        args=DefaultPreemptionArgs(40, 2),
        offset=4,
    ),
}


@pytest.mark.parametrize("case", DRY_RUNS.values(), ids=[k[:100] for k in DRY_RUNS])
def test_dry_run_finds_kubernetes_candidates_with_as_many_filter_calls(
    impl: ModuleType, case: DryRun
) -> None:
    nodes = []
    for spec in case.nodes:
        parts = spec.split("/")
        nodes.append(
            make_node(parts[0], VERY_LARGE, dict(zip(("hostname", "zone"), parts, strict=False)))
        )
    counter = CountingFilter()
    harness = with_plugin_of(
        impl, build(nodes, case.pods, counter=counter, pdbs=case.pdbs), case.args
    )
    if case.extra:
        fwk = harness.fwk
        extra = (new_inter_pod_affinity if case.extra == "affinity" else new_pod_topology_spread)(
            None, fwk
        )
        fwk.set_plugins(
            {
                "preFilter": [*fwk.plugins["preFilter"], extra],
                "filter": [*fwk.plugins["filter"], extra],
            },
            {},
        )
    node_infos = harness.node_infos()
    state = harness.pre_filtered_state(case.preemptor)
    _, num_candidates = harness.plugin.get_offset_and_num_candidates(len(node_infos))
    candidates, _, error = harness.plugin.evaluator.dry_run_preemption(
        state, case.preemptor, node_infos, case.pdbs, case.offset, num_candidates
    )
    assert error is None
    assert by_name(candidates) == case.expected
    assert counter.calls == case.filter_calls


# --- SelectVictimsOnNode, case by case ------------------------------------------------------------


def test_a_node_without_lower_priority_pods_is_no_candidate(impl: ModuleType) -> None:
    """No potential victims: UnschedulableAndUnresolvable, and no Filter call at all."""
    pods = [make_pod("same", HIGH, node="n1", req=LARGE), make_pod("more", VERY_HIGH, node="n1")]
    harness = with_plugin_of(impl, build([make_node("n1", VERY_LARGE)], pods))
    victims, violations, status = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert (victims, violations) == ([], 0)
    assert status == Status.unresolvable(impl.MSG_NO_VICTIMS)
    assert harness.counter.calls == 0


def test_when_evicting_every_lower_priority_pod_is_not_enough_the_filter_status_is_the_answer(
    impl: ModuleType,
) -> None:
    pods = [
        make_pod("low", LOW, node="n1", req=SMALL),
        make_pod("high", HIGH, node="n1", req=SMALL),
    ]
    harness = with_plugin_of(
        impl, build([make_node("n1", {"cpu": "300m", "memory": "1000"})], pods)
    )
    victims, violations, status = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert (victims, violations) == ([], 0)
    assert (status.code, status.reasons, status.plugin) == (
        Code.UNSCHEDULABLE,
        ("Insufficient cpu",),
        "NodeResourcesFit",
    )


def test_victims_are_the_fewest_lower_priority_pods_most_important_first(impl: ModuleType) -> None:
    # Removing all three lower-priority pods leaves 400m; the preemptor needs 300m. Reprieved
    # most important first: big-mid does not fit back, big-low neither, small-low does.
    pods = [
        make_pod("small-low", LOW, node="n1", req=SMALL, start=epoch(1)),
        make_pod("big-low", LOW, node="n1", req=MEDIUM, start=epoch(2)),
        make_pod("big-mid", MID, node="n1", req=MEDIUM, start=epoch(1)),
        make_pod("vip", HIGH, node="n1", req=SMALL),
    ]
    harness = with_plugin_of(impl, build([make_node("n1", VERY_LARGE)], pods))
    victims, violations, status = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert status.is_success() and violations == 0
    assert names(victims) == ["big-mid", "big-low"]
    # One Filter call with every candidate victim gone, then one per reprieve.
    assert harness.counter.calls == 4


def test_of_two_equal_pods_the_one_that_started_later_goes(impl: ModuleType) -> None:
    """``MoreImportantPod``: same priority, the earlier start is more important (is reprieved)."""
    pods = [
        make_pod("newer", LOW, node="n1", req=MEDIUM, start=epoch(5)),
        make_pod("older", LOW, node="n1", req=MEDIUM, start=epoch(1)),
    ]
    harness = with_plugin_of(impl, build([make_node("n1", NODE_400M)], pods))
    victims, _, status = select(harness, make_pod("p", HIGH, req=MEDIUM), "n1")
    assert status.is_success()
    assert names(victims) == ["newer"]


def test_pdb_violating_pods_are_reprieved_first_even_when_less_important(impl: ModuleType) -> None:
    """The chapter's node-a: room for one of two; the budget's pod stays, the other goes."""
    pods = [
        make_pod("web-1", LOW, node="node-a", req=MEDIUM, labels={"app": "web"}),
        make_pod("report", MID, node="node-a", req=MEDIUM),
    ]
    harness = with_plugin_of(impl, build([make_node("node-a", NODE_400M)], pods))
    preemptor = make_pod("vip", VERY_HIGH, req=MEDIUM)
    budget = make_pdb("web", {"app": "web"}, allowed=0)
    victims, violations, _ = select(harness, preemptor, "node-a", [budget])
    assert (names(victims), violations) == (["report"], 0)
    # Without the budget, importance alone decides: report is reprieved, web-1 goes.
    victims, violations, _ = select(harness, preemptor, "node-a")
    assert (names(victims), violations) == (["web-1"], 0)


def test_a_budget_is_spent_on_the_most_important_pods_first(impl: ModuleType) -> None:
    """Sort, then split: the budget's one disruption goes to the more important pod.

    ``filterPodsWithPDBViolation`` spends each budget's ``disruptionsAllowed``
    in the order it is given the pods (``default_preemption.go``, v1.33), and
    ``SelectVictimsOnNode`` gives them most important first. So with room for
    one of two budget pods, ``web-mid`` (spent the budget: not violating) goes
    and ``web-low`` (past the budget: violating, so reprieved first) stays.
    Splitting in the node's order, ``web-low`` first, would evict ``web-low``.
    """
    pods = [
        make_pod("web-low", LOW, node="node-a", req=MEDIUM, labels={"app": "web"}),
        make_pod("web-mid", MID, node="node-a", req=MEDIUM, labels={"app": "web"}),
    ]
    harness = with_plugin_of(impl, build([make_node("node-a", NODE_400M)], pods))
    budget = make_pdb("web", {"app": "web"}, allowed=1)
    victims, violations, status = select(
        harness, make_pod("vip", VERY_HIGH, req=MEDIUM), "node-a", [budget]
    )
    assert status.is_success()
    assert (names(victims), violations) == (["web-mid"], 0)


def test_a_budget_pod_that_cannot_be_reprieved_counts_as_a_violation(impl: ModuleType) -> None:
    pods = [make_pod("web-2", LOW, node="node-b", req=LARGE, labels={"app": "web"})]
    harness = with_plugin_of(impl, build([make_node("node-b", NODE_400M)], pods))
    budget = make_pdb("web", {"app": "web"}, allowed=0)
    victims, violations, status = select(
        harness, make_pod("vip", VERY_HIGH, req=MEDIUM), "node-b", [budget]
    )
    assert status.is_success()
    assert (names(victims), violations) == (["web-2"], 1)


def test_victims_stay_most_important_first_after_the_two_groups_are_merged(
    impl: ModuleType,
) -> None:
    # Evicted from the violating group: v-low; from the other: n-mid and n-low. Merged by
    # importance, not group by group (pickOneNodeForPreemption reads the first as the highest).
    pods = [
        make_pod("v-low", LOW, node="n1", req=MEDIUM, labels=FOO),
        make_pod("n-mid", MID, node="n1", req=MEDIUM),
        make_pod("n-low", LOW, node="n1", req=SMALL),
    ]
    harness = with_plugin_of(impl, build([make_node("n1", VERY_LARGE)], pods))
    budget = make_pdb("foo", FOO, allowed=0)
    victims, violations, _ = select(harness, make_pod("p", HIGH, req=VERY_LARGE), "n1", [budget])
    assert names(victims) == ["n-mid", "v-low", "n-low"]
    assert violations == 1


def test_the_room_of_a_higher_priority_nominated_pod_is_not_taken(impl: ModuleType) -> None:
    """The fit is ``RunFilterPluginsWithNominatedPods``: pods nominated here with priority >= count."""
    pods = [make_pod("low", LOW, node="n1", req=MEDIUM)]
    harness = with_plugin_of(impl, build([make_node("n1", NODE_400M)], pods))
    waiting = make_pod("waiting", VERY_HIGH, req=MEDIUM, nominated="n1")
    harness.fwk.nominator.add_nominated_pod(
        PodInfo(waiting), NominatingInfo("n1", NominatingMode.OVERRIDE)
    )
    # 400m: 200m nominated to a more important pod, so 300m cannot fit even with "low" gone.
    victims, _, status = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert victims == []
    assert (status.code, status.reasons) == (Code.UNSCHEDULABLE, ("Insufficient cpu",))
    # 200m can: "low" goes, and the nominated pod keeps its room.
    victims, _, status = select(harness, make_pod("p", HIGH, req=MEDIUM), "n1")
    assert status.is_success() and names(victims) == ["low"]


class FailingExtension:
    """A PreFilter plugin whose AddPod and RemovePod extensions fail (``TestPlugin``)."""

    def __init__(self, fail_on: str) -> None:
        self._fail_on = fail_on

    def name(self) -> str:
        return "test-plugin"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> tuple[None, None]:
        return None, None

    def pre_filter_extensions(self) -> FailingExtension:
        return self

    def add_pod(self, state: CycleState, pod: Pod, info: PodInfo, node_info: NodeInfo) -> Status:
        if self._fail_on == "add":
            return Status.as_error(RuntimeError(f"failed to add pod: {pod.name}"))
        return Status.success()

    def remove_pod(
        self, state: CycleState, pod: Pod, info: PodInfo, node_info: NodeInfo
    ) -> Status:
        if self._fail_on == "remove":
            return Status.as_error(RuntimeError(f"failed to remove pod: {pod.name}"))
        return Status.success()


@pytest.mark.parametrize(
    ("fail_on", "message"),
    [
        pytest.param(
            "remove",
            'running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p',
            id="only one node but failed with TestPlugin (RemovePod)",
        ),
        pytest.param(
            "add",
            'running AddPod on PreFilter plugin "test-plugin": failed to add pod: p',
            id="an AddPod extension fails while reprieving",
        ),
    ],
)
def test_an_extension_error_is_the_node_s_error(
    impl: ModuleType, fail_on: str, message: str
) -> None:
    """``TestPostFilter`` "only one node but failed with TestPlugin": the error, no victims."""
    pods = [make_pod("p1", LOW, node="n1", req=SMALL)]
    harness = with_plugin_of(
        impl, build([make_node("n1", LARGE)], pods, pre_filters=[FailingExtension(fail_on)])
    )
    victims, violations, status = select(harness, make_pod("p", HIGH, req=MEDIUM), "n1")
    assert (victims, violations, status.code) == ([], 0, Code.ERROR)
    assert status.message() == message


CUSTOM_SELECTION = {
    # TestCustomSelection: IsEligiblePod narrows the victims beyond the priority rule.
    "filter for matching pod label: high priority": (
        "label",
        make_pod("p1", HIGH, req=LARGE),
        {"n2": ["v2"], "n3": ["v3"]},
    ),
    "filter for matching pod label: mid priority": (
        "label",
        make_pod("p2", MID, req=LARGE),
        {"n3": ["v3"]},
    ),
    "filter for matching pod label: low priority": ("label", make_pod("p3", LOW, req=LARGE), {}),
    "filter for matching victim node: high priority": (
        "node",
        make_pod("p3", HIGH, req=LARGE),
        {"n1": ["v1"]},
    ),
}


@pytest.mark.parametrize(
    ("rule", "preemptor", "expected"), CUSTOM_SELECTION.values(), ids=CUSTOM_SELECTION.keys()
)
def test_is_eligible_pod_narrows_the_victims(
    impl: ModuleType, rule: str, preemptor: Pod, expected: dict[str, list[str]]
) -> None:
    pods = [
        make_pod("v1", MID, node="n1", req=LARGE, labels={"preemptible": "no"}),
        make_pod("v2", MID, node="n2", req=LARGE, labels={"preemptible": "yes"}),
        make_pod("v3", LOW, node="n3", req=LARGE, labels={"preemptible": "yes"}),
        make_pod("v4", LOW, node="n4", req=LARGE),
    ]
    harness = with_plugin_of(
        impl, build([make_node(f"n{i}", VERY_LARGE) for i in range(1, 5)], pods)
    )
    if rule == "label":
        harness.plugin.is_eligible_pod = lambda node_info, victim, _: (
            victim.pod.metadata.labels.get("preemptible") == "yes"
        )
    else:
        harness.plugin.is_eligible_pod = lambda node_info, victim, _: node_info.name == "n1"
    found = {}
    for node in ("n1", "n2", "n3", "n4"):
        victims, _, status = select(harness, preemptor, node)
        if status.is_success():
            found[node] = names(victims)
    assert found == expected


def test_more_important_pod_decides_the_reprieve_order(impl: ModuleType) -> None:
    """``TestCustomOrdering``: with names as importance ("bar" first), "bar" is reprieved."""
    pods = [
        make_pod("foo", LOW, node="n1", req=MEDIUM),
        make_pod("bar", LOW, node="n1", req=MEDIUM),
        make_pod("baz", MID, node="n1", req=MEDIUM),
    ]
    harness = with_plugin_of(impl, build([make_node("n1", VERY_LARGE)], pods))
    harness.plugin.more_important_pod = lambda a, b: a.name < b.name
    victims, _, _ = select(harness, make_pod("p", HIGH, req=LARGE), "n1")
    assert names(victims) == ["baz", "foo"]


# --- the node the victims decide: TestSelectBestCandidate -----------------------------------------


def started(name: str, priority: int, node: str, req: dict[str, str], start: int = 0) -> Pod:
    return make_pod(name, priority, node=node, req=req, start=epoch(start))


BEST_CANDIDATE = {
    "node with min highest priority pod is picked": (
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            started("p1.1", MID, "node1", MEDIUM),
            started("p1.2", MID, "node1", LARGE),
            started("p2.1", MID, "node2", MEDIUM),
            started("p2.2", LOW, "node2", MEDIUM),
            started("p3.1", LOW, "node3", MEDIUM),
            started("p3.2", LOW, "node3", MEDIUM),
        ],
        "node3",
    ),
    "when highest priorities are the same, minimum sum of priorities is picked": (
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            started("p1.1", MID, "node1", MEDIUM),
            started("p1.2", MID, "node1", LARGE),
            started("p2.1", MID, "node2", LARGE),
            started("p2.2", LOW, "node2", MEDIUM),
            started("p3.1", MID, "node3", MEDIUM),
            started("p3.2", MID, "node3", MEDIUM),
        ],
        "node2",
    ),
    "sum of adjusted priorities is considered": (
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            started("p1.1", MID, "node1", SMALL),
            started("p1.2", NEG, "node1", SMALL),
            started("p1.3", NEG, "node1", SMALL),
            started("p2.1", MID, "node2", LARGE),
            started("p2.2", NEG, "node2", MEDIUM),
            started("p3.1", MID, "node3", MEDIUM),
            started("p3.2", NEG, "node3", SMALL),
            started("p3.3", LOW, "node3", SMALL),
        ],
        "node2",
    ),
    "same priority, same number of victims, different start time for each node's pod": (
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            started("p1.1", MID, "node1", MEDIUM, 2),
            started("p1.2", MID, "node1", MEDIUM, 2),
            started("p2.1", MID, "node2", MEDIUM, 3),
            started("p2.2", MID, "node2", MEDIUM, 3),
            started("p3.1", MID, "node3", MEDIUM, 1),
            started("p3.2", MID, "node3", MEDIUM, 1),
        ],
        "node2",
    ),
}


@pytest.mark.parametrize(
    ("preemptor", "pods", "expected"), BEST_CANDIDATE.values(), ids=BEST_CANDIDATE.keys()
)
def test_the_victims_found_decide_the_best_candidate(
    impl: ModuleType, preemptor: Pod, pods: list[Pod], expected: str
) -> None:
    nodes = [make_node(n, VERY_LARGE) for n in ("node1", "node2", "node3")]
    harness = with_plugin_of(impl, build(nodes, pods))
    node_infos = harness.node_infos()
    candidates, _, _ = harness.plugin.evaluator.dry_run_preemption(
        harness.pre_filtered_state(preemptor), preemptor, node_infos, [], 0, len(node_infos)
    )
    best = harness.plugin.evaluator.select_candidate(candidates)
    assert best is not None and best.name == expected


# --- a property: every victim is needed -----------------------------------------------------------

RESIDENTS = st.lists(
    st.tuples(st.sampled_from([LOW, MID, HIGH, VERY_HIGH]), st.integers(1, 8)),
    min_size=0,
    max_size=7,
)
HEALTH = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None, max_examples=60
)


@HEALTH
@given(residents=RESIDENTS, wanted=st.integers(1, 10))
def test_without_the_victims_the_pod_fits_and_each_victim_is_needed(
    impl: ModuleType, residents: list[tuple[int, int]], wanted: int
) -> None:
    """With NodeResourcesFit alone (fitting is monotonic), the reprieve keeps no victim it could spare."""
    pods = [
        make_pod(f"r{i}", priority, node="n1", req={"cpu": f"{cpu * 100}m"}, start=epoch(i))
        for i, (priority, cpu) in enumerate(residents)
    ]
    harness = with_plugin_of(impl, build([make_node("n1", {"cpu": "1"})], pods))
    preemptor = make_pod("p", HIGH, req={"cpu": f"{wanted * 100}m"})
    victims, violations, status = select(harness, preemptor, "n1")

    def fits_without(removed: set[str]) -> bool:
        used = sum(cpu for i, (_, cpu) in enumerate(residents) if f"r{i}" not in removed)
        return used + wanted <= 10

    if not status.is_success():
        return  # no lower-priority pod, or no room even without them: no candidate
    if not victims:
        assert fits_without(set())  # it fitted all along (the dry run calls that an error)
        return
    assert violations == 0
    assert all((v.spec.priority or 0) < HIGH for v in victims)
    gone = {v.name for v in victims}
    assert fits_without(gone)
    for victim in gone:
        assert not fits_without(gone - {victim}), f"{victim} could have stayed"


# --- a whole scheduler with your plugin -----------------------------------------------------------

CLUSTER = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: critical}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: standard}
value: 100
---
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, labels: {app: web}}
spec:
  nodeName: node-a
  containers: [{name: app, image: nginx, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: report}
spec:
  nodeName: node-a
  priorityClassName: standard
  containers: [{name: app, image: report, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, labels: {app: web}}
spec:
  nodeName: node-b
  containers: [{name: app, image: nginx, resources: {requests: {cpu: "1500m"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: vip}
spec:
  priorityClassName: critical
  containers: [{name: app, image: vip, resources: {requests: {cpu: "1"}}}]
"""


def test_a_scheduler_with_your_plugin_preempts_the_pod_no_budget_protects(
    impl: ModuleType,
) -> None:
    """schedule_one.go + default_preemption.go: nominate, evict, then bind on the nominated node."""
    clock = FakeClock()
    api = APIServer(clock)
    for obj in loads(CLUSTER):
        api.create(obj)
    registry = in_tree_registry()
    registry.unregister("DefaultPreemption")
    registry.register("DefaultPreemption", impl.new)
    scheduler = Scheduler(api, registry=registry, clock=clock, seed=0)
    try:
        scheduler.schedule_pending()
        vip = api.get(Pod, "vip", "default")
        condition = next(c for c in vip.status.conditions if c.type == "PodScheduled")
        assert vip.status.nominated_node_name == "node-a", condition.message
        assert condition.message == "0/2 nodes are available: 2 Insufficient cpu."
        marked = {p.name for p in api.list(Pod).items if p.metadata.deletion_timestamp is not None}
        assert marked == {"report"}
        api.delete(Pod, "report", "default", grace_period_seconds=0)  # the kubelet's part
        clock.advance(1)
        scheduler.sync()
        scheduler.queue.flush_backoff_q_completed()
        scheduler.schedule_pending()
        placed = {p.name: p.spec.node_name for p in api.list(Pod).items}
        assert placed == {"vip": "node-a", "web-1": "node-a", "web-2": "node-b"}
    finally:
        scheduler.stop()
