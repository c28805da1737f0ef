"""DefaultPreemption's PostFilter, end to end on one framework: results, messages, evictions.

The first table is ``TestPostFilter`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go``
(its extender and pod-group cases aside: extenders are tested in tests/extender/); the
rest check ``prepareCandidate``/``prepareCandidateAsync`` and ``PreemptPod``
of ``pkg/scheduler/framework/preemption/preemption.go`` against the fake
API server: the DisruptionTarget condition, the graceful deletion, the
``Preempted`` event, rejected waiting pods, cleared nominations, and the
PreEnqueue gate of async preemption (v1.33).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from framework.cycle_state import CycleState
from framework.interface import NodeToStatus
from framework.node_info import NodeInfo
from framework.objects import Event, Node, Pod, PodDisruptionBudget
from framework.plugins.defaultpreemption import MSG_WAITING_FOR_PREEMPTION
from framework.preemption import MSG_PREEMPTING
from framework.runtime.waiting_pods import WaitingPodImpl
from framework.status import Code, Status
from framework.types import NominatingMode, PodInfo
from tests.plugins.defaultpreemption.helpers import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    NODE_RES,
    ONE_POD,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    Harness,
    build,
    make_node,
    make_pdb,
    make_pod,
)

VIOLATING = {"test.kubernetes.io/is-violating-pdb": "violating"}
NON_VIOLATING = {"test.kubernetes.io/is-violating-pdb": "non-violating"}


class ErrorOnLabelledNodes:
    """``TestPlugin``: AddPod/RemovePod fail on nodes labelled ``error: "true"``."""

    def name(self) -> str:
        return "test-plugin"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]):  # type: ignore[no-untyped-def]
        return None, None

    def pre_filter_extensions(self) -> ErrorOnLabelledNodes:
        return self

    def add_pod(self, state, pod, info, node_info):  # type: ignore[no-untyped-def]
        if node_info.node.metadata.labels.get("error") == "true":
            return Status.as_error(RuntimeError(f"failed to add pod: {pod.name}"))
        return None

    def remove_pod(self, state, pod, info, node_info):  # type: ignore[no-untyped-def]
        if node_info.node.metadata.labels.get("error") == "true":
            return Status.as_error(RuntimeError(f"failed to remove pod: {pod.name}"))
        return None


@dataclass
class Case:
    pod: Pod
    pods: list[Pod]
    nodes: list[Node]
    statuses: dict[str, Code]
    want_node: str | None  # None: no result; "": a result that clears the nomination
    want: Status
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)


UNSCHED, UNRESOLVABLE = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
ERROR_NODE = {"error": "true"}

CASES = {
    "pod with higher priority can be made schedulable": Case(
        make_pod("p", HIGH),
        [make_pod("p1", node="node1")],
        [make_node("node1", ONE_POD)],
        {"node1": UNSCHED},
        "node1",
        Status.success(),
    ),
    "pod with tied priority is still unschedulable": Case(
        make_pod("p"),
        [make_pod("p1", node="node1")],
        [make_node("node1", ONE_POD)],
        {"node1": UNSCHED},
        "",
        Status.unschedulable(
            "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
        ),
    ),
    "preemption should respect filteredNodesStatuses": Case(
        make_pod("p", HIGH),
        [make_pod("p1", node="node1")],
        [make_node("node1", ONE_POD)],
        {"node1": UNRESOLVABLE},
        "",
        Status.unschedulable(
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        ),
    ),
    "preemption should respect absent NodeToStatusReader entry meaning UnschedulableAndUnresolvable": Case(
        make_pod("p", HIGH),
        [make_pod("p1", node="node1")],
        [make_node("node1", ONE_POD)],
        {},
        "",
        Status.unschedulable(
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        ),
    ),
    "pod can be made schedulable on one node": Case(
        make_pod("p", MID),
        [make_pod("p1", HIGH, node="node1"), make_pod("p2", LOW, node="node2")],
        [make_node("node1", ONE_POD), make_node("node2", ONE_POD)],
        {"node1": UNSCHED, "node2": UNSCHED},
        "node2",
        Status.success(),
    ),
    "pod can be made schedulable on minHighestPriority node": Case(
        make_pod("p", VERY_HIGH),
        [
            make_pod("p1", HIGH, node="node1", labels=NON_VIOLATING),
            make_pod("p2", LOW, node="node1", labels=VIOLATING),
            make_pod("p3", MID, node="node2", labels=VIOLATING),
        ],
        [make_node("node1", ONE_POD), make_node("node2", ONE_POD)],
        {"node1": UNSCHED, "node2": UNSCHED},
        "node2",
        Status.success(),
        [
            make_pdb("violating-pdb", VIOLATING, min_available="100%"),
            make_pdb("non-violating-pdb", NON_VIOLATING, min_available=0, allowed=2**31 - 1),
        ],
    ),
    "no candidate nodes found, no enough resource after removing low priority pods": Case(
        make_pod("p", HIGH, req=LARGE),
        [make_pod("p1", node="node1"), make_pod("p2", node="node2")],
        [make_node("node1", NODE_RES), make_node("node2", NODE_RES)],
        {"node1": UNSCHED, "node2": UNSCHED},
        "",
        Status.unschedulable("preemption: 0/2 nodes are available: 2 Insufficient cpu."),
    ),
    "no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource": Case(
        make_pod("p", HIGH, req=LARGE),
        [
            make_pod("p1", HIGH, node="node1"),
            make_pod("p2", node="node2"),
            make_pod("p3", HIGH, node="node3"),
        ],
        [make_node("node1", ONE_POD), make_node("node2", NODE_RES), make_node("node3", ONE_POD)],
        {"node1": UNSCHED, "node2": UNSCHED, "node3": UNSCHED},
        "",
        Status.unschedulable(
            "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
            "2 No preemption victims found for incoming pod."
        ),
    ),
    (
        "no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes "
        "and 2 nodes don't have enough CPU resource"
    ): Case(
        make_pod("p", HIGH, req=LARGE),
        [make_pod("p1", node="node1"), make_pod("p2", node="node2")],
        [make_node(f"node{i}", NODE_RES) for i in range(1, 5)],
        {"node1": UNSCHED, "node2": UNSCHED, "node4": UNRESOLVABLE},
        "",
        Status.unschedulable(
            "preemption: 0/4 nodes are available: 2 Insufficient cpu, "
            "2 Preemption is not helpful for scheduling."
        ),
    ),
    "only one node but failed with TestPlugin": Case(
        make_pod("p", HIGH, req=LARGE),
        [make_pod("p1", node="node1")],
        [make_node("node1", LARGE, ERROR_NODE)],
        {"node1": UNSCHED},
        None,
        Status(
            Code.ERROR,
            (
                'preemption: running RemovePod on PreFilter plugin "test-plugin": '
                "failed to remove pod: p",
            ),
        ),
    ),
    "one failed with TestPlugin and the other pass": Case(
        make_pod("p", HIGH, req=LARGE),
        [make_pod("p1", node="node1"), make_pod("p2", node="node2", req=MEDIUM)],
        [make_node("node1", LARGE, ERROR_NODE), make_node("node2", LARGE)],
        {"node1": UNSCHED, "node2": UNSCHED},
        "node2",
        Status.success(),
    ),
}


def statuses_of(codes: dict[str, Code]) -> NodeToStatus:
    statuses = NodeToStatus()
    for name, code in codes.items():
        statuses.set(name, Status(code))
    return statuses


def harness_for(case: Case, **options: object) -> tuple[Harness, Pod]:
    harness = build(
        case.nodes,
        [case.pod, *case.pods],
        pre_filters=[ErrorOnLabelledNodes()],
        with_api=True,
        pdbs=case.pdbs,
        **options,  # type: ignore[arg-type]
    )
    assert harness.api is not None
    return harness, harness.api.get(Pod, case.pod.name, "default")


@pytest.mark.parametrize("case", CASES.values(), ids=[k[:110] for k in CASES])
def test_post_filter(case: Case) -> None:
    harness, pod = harness_for(case)
    state = harness.pre_filtered_state(pod)
    result, status = harness.plugin.post_filter(state, pod, statuses_of(case.statuses))
    if status.code is Code.ERROR:
        assert status.message() == case.want.message()
    else:
        assert (status.code, status.reasons) == (case.want.code, case.want.reasons)
    if case.want_node is None:
        assert result is None
    else:
        assert result is not None and result.nominating_info is not None
        assert result.nominating_info.nominated_node_name == case.want_node
        assert result.nominating_info.mode is NominatingMode.OVERRIDE


def test_preemption_policy_never_is_not_eligible() -> None:
    """TestPreempt "no preempting in pod": no result, and the reason in the message."""
    case = CASES["pod with higher priority can be made schedulable"]
    pod = make_pod("p", HIGH, preemption_policy="Never")
    harness = build(case.nodes, case.pods)
    result, status = harness.plugin.post_filter(
        harness.pre_filtered_state(pod), pod, statuses_of(case.statuses)
    )
    assert result is None
    assert status == Status.unschedulable(
        "preemption: not eligible due to preemptionPolicy=Never."
    )


# --- evicting: prepareCandidate and PreemptPod -----------------------------------------------


def preempt_on_node1(**options: object) -> tuple[Harness, Pod]:
    nodes = [make_node("node1", VERY_LARGE), make_node("node2", VERY_LARGE)]
    pods = [
        make_pod("preemptor", HIGH, req=VERY_LARGE),
        make_pod("v1", LOW, node="node1", req=SMALL),
        make_pod("v2", LOW, node="node1", req=SMALL),
        make_pod("big", HIGH, node="node2", req=LARGE),
    ]
    case = Case(pods[0], pods[1:], nodes, {"node1": UNSCHED, "node2": UNSCHED}, "", Status())
    return harness_for(case, **options)


def test_victims_get_the_disruption_condition_are_deleted_gracefully_and_told_why() -> None:
    harness, pod = preempt_on_node1()
    api = harness.api
    assert api is not None
    result, status = harness.plugin.post_filter(
        harness.pre_filtered_state(pod),
        pod,
        statuses_of({"node1": UNSCHED, "node2": UNSCHED}),
    )
    assert status.is_success()
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name == "node1"
    for name in ("v1", "v2"):
        victim = api.get(Pod, name, "default")
        (condition,) = [c for c in victim.status.conditions if c.type == "DisruptionTarget"]
        assert (condition.status, condition.reason, condition.message) == (
            "True",
            "PreemptionByScheduler",
            MSG_PREEMPTING.format(scheduler="default-scheduler"),
        )
        # DeleteOptions{}: the pod's own 30 s grace period, so it is only marked.
        assert victim.metadata.deletion_grace_period_seconds == 30
    events = [
        (e.involved_object.name, e.type, e.reason, e.action, e.message)
        for e in api.list(Event).items
    ]
    assert events == [
        (
            name,
            "Normal",
            "Preempted",
            "Preempting",
            f"Preempted by pod {pod.metadata.uid} on node node1",
        )
        for name in ("v1", "v2")
    ]
    assert api.get(Pod, "big", "default").metadata.deletion_timestamp is None


def test_a_victim_waiting_at_permit_is_rejected_not_deleted() -> None:
    harness, pod = preempt_on_node1()
    api = harness.api
    assert api is not None
    waiting_victim = api.get(Pod, "v1", "default")
    waiting = WaitingPodImpl(waiting_victim, {"Gate": 60.0}, harness.clock)
    harness.fwk.waiting_pods.add(waiting_victim.metadata.uid, waiting)
    harness.plugin.post_filter(
        harness.pre_filtered_state(pod), pod, statuses_of({"node1": UNSCHED, "node2": UNSCHED})
    )
    rejected = waiting.wait()
    assert (rejected.code, rejected.reasons, rejected.plugin) == (
        Code.UNSCHEDULABLE,
        ("preempted",),
        "DefaultPreemption",
    )
    assert api.get(Pod, "v1", "default").metadata.deletion_timestamp is None
    assert api.get(Pod, "v2", "default").metadata.deletion_timestamp is not None
    assert [e.involved_object.name for e in api.list(Event).items] == ["v1", "v2"]


@pytest.mark.parametrize("asynchronous", [True, False], ids=["async (v1.33)", "sync"])
def test_lower_priority_pods_nominated_to_the_node_lose_their_nomination(
    asynchronous: bool,
) -> None:
    nodes = [make_node("node1", VERY_LARGE)]
    pods = [
        make_pod("preemptor", HIGH, req=VERY_LARGE),
        make_pod("v1", LOW, node="node1", req=SMALL),
        make_pod("waiting-low", MID, nominated="node1"),
        make_pod("waiting-high", VERY_HIGH, nominated="node1"),
    ]
    harness = build(nodes, pods, with_api=True, enable_async_preemption=asynchronous)
    api = harness.api
    assert api is not None
    for name in ("waiting-low", "waiting-high"):
        stored = api.get(Pod, name, "default")
        harness.fwk.nominator.add_nominated_pod(PodInfo(stored), None)
    pod = api.get(Pod, "preemptor", "default")
    _, status = harness.plugin.post_filter(
        harness.pre_filtered_state(pod), pod, statuses_of({"node1": UNSCHED})
    )
    assert status.is_success()
    assert api.get(Pod, "waiting-low", "default").status.nominated_node_name == ""
    assert api.get(Pod, "waiting-high", "default").status.nominated_node_name == "node1"


def test_async_preemption_gates_the_preemptor_until_its_evictions_are_made() -> None:
    held: list[object] = []
    harness, pod = preempt_on_node1(run_async=held.append)
    plugin = harness.plugin
    assert plugin.events_to_register()[0].event.label() == "PodDelete"
    _, status = plugin.post_filter(
        harness.pre_filtered_state(pod), pod, statuses_of({"node1": UNSCHED, "node2": UNSCHED})
    )
    assert status.is_success()
    assert plugin.pre_enqueue(pod) == Status.unresolvable(MSG_WAITING_FOR_PREEMPTION)
    assert harness.api is not None
    assert harness.api.get(Pod, "v1", "default").metadata.deletion_timestamp is None
    (work,) = held
    work()  # type: ignore[operator]
    assert plugin.pre_enqueue(pod) is None
    assert harness.api.get(Pod, "v2", "default").metadata.deletion_timestamp is not None


def test_without_async_preemption_there_is_no_gate_and_no_event_to_register() -> None:
    harness, pod = preempt_on_node1(enable_async_preemption=False)
    assert harness.plugin.events_to_register() == []
    _, status = harness.plugin.post_filter(
        harness.pre_filtered_state(pod), pod, statuses_of({"node1": UNSCHED, "node2": UNSCHED})
    )
    assert status.is_success()
    assert harness.plugin.pre_enqueue(pod) is None
