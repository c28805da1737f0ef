"""The unschedulable pods an assigned pod can help, found without walking every parked pod.

kube-scheduler's ``AssignedPodAdded`` (and ``AssignedPodUpdated``, but for a
scale-down) moves only the pods ``getUnschedulablePodsWithCrossTopologyTerm``
returns: those rejected by PodTopologySpread in the assigned pod's namespace,
and those with a required pod-affinity term the assigned pod matches
(``kubernetes/kubernetes:pkg/scheduler/backend/queue/scheduling_queue.go``,
v1.33). Go walks its whole map of unschedulable pods for that on every
bound pod; at 50,000 parked pods that walk cost a simulation 18 ms a bind.
:class:`~framework.queue.unschedulable.UnschedulablePods` keeps the two kinds
of pod that can pass the test apart, so the walk covers only them, and the
answer is the same list, in the same order (the order the pods were first
parked, which decides where they land in the queues after it).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from framework.clock import FakeClock
from framework.cluster_event import ActionType, ClusterEvent, EventResource
from framework.objects import Node, ObjectMeta
from framework.plugins.names import POD_TOPOLOGY_SPREAD
from framework.queue import BACKOFF_Q
from framework.queue.events import pod_matches_required_affinity_of
from framework.queue.hints import is_pod_worth_requeuing
from framework.queue.unschedulable import UnschedulablePods
from framework.types import PodInfo, QueuedPodInfo
from tests.queue.helpers import PROFILE, fail, new_queue, pod, pop, where

NAMESPACES = ("default", "other")
AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}
        ]
    }
}


def parked(name: str, namespace: str, spread: bool, affinity: bool) -> QueuedPodInfo:
    spec: dict[str, Any] = {"affinity": AFFINITY} if affinity else {}
    info = QueuedPodInfo(PodInfo(pod(name, namespace=namespace, **spec)), timestamp=0.0)
    info.unschedulable_plugins = {POD_TOPOLOGY_SPREAD} if spread else {"NodeFit"}
    return info


def walked(pods: UnschedulablePods, assigned_namespace: str, assigned: Any) -> list[str]:
    """Go's walk: every parked pod, tested one by one."""
    return [
        p.key
        for p in pods.pod_infos()
        if (
            POD_TOPOLOGY_SPREAD in p.unschedulable_plugins
            and p.pod.namespace == assigned_namespace
        )
        or pod_matches_required_affinity_of(p.pod, assigned)
    ]


operation = st.tuples(
    st.sampled_from(["park", "park", "park", "delete"]),
    st.integers(0, 7),  # which pod
    st.sampled_from(NAMESPACES),
    st.booleans(),  # rejected by PodTopologySpread
    st.booleans(),  # has a required pod-affinity term
)


@settings(max_examples=200, deadline=None)
@given(st.lists(operation, max_size=40))
def test_the_indexed_candidates_are_the_walks_answer_in_the_walks_order(
    operations: list[tuple[str, int, str, bool, bool]],
) -> None:
    pods = UnschedulablePods()
    for verb, index, namespace, spread, affinity in operations:
        name = f"p{index}"
        if verb == "delete":
            pods.delete(f"{namespace}/{name}")
        else:
            pods.add_or_update(parked(name, namespace, spread, affinity))
        for assigned_namespace in NAMESPACES:
            for labels in ({"app": "db"}, {"app": "web"}):
                assigned = pod("x", namespace=assigned_namespace, labels=labels, node_name="n")
                candidates = pods.cross_topology_candidates(assigned_namespace)
                found = [
                    p.key
                    for p in candidates
                    if (
                        POD_TOPOLOGY_SPREAD in p.unschedulable_plugins
                        and p.pod.namespace == assigned_namespace
                    )
                    or pod_matches_required_affinity_of(p.pod, assigned)
                ]
                assert found == walked(pods, assigned_namespace, assigned)


def test_a_bound_pod_does_not_look_at_pods_no_cross_topology_term_can_help() -> None:
    pods = UnschedulablePods()
    for index in range(1000):
        pods.add_or_update(parked(f"fit-{index}", "default", spread=False, affinity=False))
    pods.add_or_update(parked("spreads", "default", spread=True, affinity=False))
    pods.add_or_update(parked("spreads-elsewhere", "other", spread=True, affinity=False))
    pods.add_or_update(parked("wants-db", "other", spread=False, affinity=True))
    assert [p.key for p in pods.cross_topology_candidates("default")] == [
        "default/spreads",
        "other/wants-db",
    ]


def test_a_pod_updated_in_place_among_the_unschedulable_pods_is_indexed_again() -> None:
    # The fake API server refuses a change of pod affinity, but the queue does not rely on it.
    queue = new_queue(FakeClock())
    queue.add(pod("web"))
    fail(queue, pop(queue), "Anything")
    queue.update(pod("web"), pod("web", affinity=AFFINITY))
    queue.assigned_pod_added(pod("db-0", labels={"app": "db"}, node_name="n1"))
    assert where(queue)[BACKOFF_Q] == ["web"]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(list(EventResource)),
    st.integers(1, int(ActionType.ALL)),
    st.sets(st.sampled_from(["NodeFit", "NodeLabels", "OwnLabels", "Anything", "Other"])),
    st.booleans(),
)
def test_the_queue_asks_the_hints_of_the_registrations_the_event_matches_only(
    resource: EventResource, action: int, rejectors: set[str], pending: bool
) -> None:
    # The queue keeps, per profile and event, the registrations that match it; the answer
    # must be the one the whole map gives (hints.py's is_pod_worth_requeuing, as in Go).
    queue = new_queue(FakeClock())
    event = ClusterEvent(resource, ActionType(action))
    info = QueuedPodInfo(PodInfo(pod("web")), timestamp=0.0)
    (info.pending_plugins if pending else info.unschedulable_plugins).update(rejectors)
    node = Node(metadata=ObjectMeta(name="n1", labels={"ready": "yes"}))
    for old, new in ((None, None), (None, node), (pod("web"), pod("web", labels={"a": "b"}))):
        whole = is_pod_worth_requeuing(info, event, old, new, queue._hint_maps[PROFILE])
        assert queue._is_pod_worth_requeuing(info, event, old, new) == whole
        assert queue._is_pod_worth_requeuing(info, event, old, new) == whole  # cached
