"""The workload manager, fed by pod events, transcribed from kube's unit tests.

``TestWorkloadManager_AddPod``, ``TestWorkloadManager_UpdatePod`` and
``TestWorkloadManager_DeletePod`` in
``kubernetes/kubernetes:pkg/scheduler/backend/workloadmanager/workloadmanager_test.go``
(v1.35-era copy, index id 3752898489), plus the scheduler feeding it from its
pod informer (``addPod``/``updatePod``/``deletePod`` in ``eventhandlers.go``,
v1.35-era copy, index id 510693257): the gang's questions never list pods.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.cache.workload_manager import WorkloadManager
from framework.clock import FakeClock
from framework.objects import Pod


def _pod(name: str, ns: str = "ns1", node: str = "", labels: dict[str, str] | None = None) -> Pod:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "x"}],
        "workloadRef": {"name": "w1", "podGroup": "pg1"},
    }
    if node:
        spec["nodeName"] = node
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": ns, "uid": name, "labels": labels or {}},
            "spec": spec,
        }
    )


P1, P2_ASSIGNED, P3_OTHER_NS = _pod("p1"), _pod("p2", node="node1"), _pod("p3", ns="ns2")
NON_WORKLOAD = Pod.from_dict(
    {"metadata": {"name": "non-workload", "namespace": "ns1"}, "spec": {"containers": []}}
)


def _key(pod: Pod) -> tuple[str, ...]:
    return ("workload", pod.namespace, "w1", "pg1", "")


def _where(manager: WorkloadManager, pod: Pod) -> tuple[bool, bool, bool, bool]:
    """(in all pods, unscheduled, assumed, assigned), as the Go test's expectations."""
    state = manager.state(_key(pod))
    uid = pod.metadata.uid
    return (
        uid in state.all_pods,
        uid in {p.metadata.uid for p in state.unscheduled()},
        uid in state.assumed,
        uid in state.assigned(),
    )


@pytest.mark.parametrize(
    ("init", "add", "groups", "where"),
    [
        ([], P1, 1, (True, True, False, False)),
        ([], P2_ASSIGNED, 1, (True, False, False, True)),
        ([P1], P3_OTHER_NS, 2, (True, True, False, False)),
        ([], NON_WORKLOAD, 0, None),
    ],
    ids=[
        "adding an unscheduled pod",
        "adding an assigned pod",
        "adding pod with different namespace",
        "adding a non-workload pod is a no-op",
    ],
)
def test_add_pod(init: list[Pod], add: Pod, groups: int, where: Any) -> None:
    manager = WorkloadManager(FakeClock())
    for pod in init:
        manager.add_pod(pod)
    manager.add_pod(add)
    assert len(manager) == groups
    if where is not None:
        assert _where(manager, add) == where


UPDATED = _pod("p1", labels={"foo": "bar"})
P2_UPDATED = _pod("p2", node="node1", labels={"foo": "bar"})
P1_BOUND = _pod("p1", node="node1")


@pytest.mark.parametrize(
    ("assume", "old", "new", "where"),
    [
        (False, P1, UPDATED, (True, True, False, False)),
        (True, P1, UPDATED, (True, False, True, False)),
        (False, P2_ASSIGNED, P2_UPDATED, (True, False, False, True)),
        (False, P1, P1_BOUND, (True, False, False, True)),
        (True, P1, P1_BOUND, (True, False, False, True)),
    ],
    ids=[
        "updating an unscheduled pod",
        "updating an assumed pod",
        "updating an assigned pod",
        "binding an unscheduled pod",
        "binding an assumed pod",
    ],
)
def test_update_pod(assume: bool, old: Pod, new: Pod, where: Any) -> None:
    manager = WorkloadManager(FakeClock())
    manager.add_pod(old)
    if assume:
        manager.assume_pod(_key(old), old.metadata.uid)
    manager.update_pod(old, new)
    assert len(manager) == 1
    assert _where(manager, new) == where
    assert manager.state(_key(new)).all_pods[new.metadata.uid] is new


def test_updating_a_non_workload_pod_is_a_no_op() -> None:
    manager = WorkloadManager(FakeClock())
    manager.add_pod(NON_WORKLOAD)
    manager.update_pod(NON_WORKLOAD, NON_WORKLOAD)
    assert len(manager) == 0


@pytest.mark.parametrize(
    ("init", "groups"),
    [([P1, _pod("p2")], 1), ([P1], 0), ([], 0)],
    ids=[
        "deleting a pod from a group with multiple pods",
        "deleting the last pod cleans up the state",
        "deleting a non-existent pod is a no-op",
    ],
)
def test_delete_pod(init: list[Pod], groups: int) -> None:
    manager = WorkloadManager(FakeClock())
    for pod in init:
        manager.add_pod(pod)
    manager.assume_pod(_key(P1), "p1")
    manager.delete_pod(P1)
    assert len(manager) == groups
    state = manager.state(_key(P1))
    assert "p1" not in state.all_pods and "p1" not in state.assumed
    if groups:
        assert list(state.all_pods) == ["p2"]


def test_the_scheduler_feeds_it_from_the_pod_informer_and_no_gang_question_lists_pods() -> None:
    """Go's manager is fed by ``addPod``/``updatePod``/``deletePod``: pods are listed once, by the
    informer, however many PreEnqueue, Permit and PodGroup-cycle questions are asked."""
    from framework.apiserver import APIServer
    from framework.featuregate import new_feature_gates
    from framework.objects import Namespace, Node, ObjectMeta
    from framework.objects.workload import SchedulingPodGroup
    from framework.scheduler.scheduler import Scheduler

    clock = FakeClock()
    api = APIServer(clock)
    api.create(Namespace(metadata=ObjectMeta(name="ns1")))
    api.create(
        Node.from_dict(
            {"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "8", "pods": "110"}}}
        )
    )
    for group in ("a", "b"):
        api.create(
            SchedulingPodGroup.from_dict(
                {
                    "apiVersion": "scheduling.k8s.io/v1alpha2",
                    "kind": "PodGroup",
                    "metadata": {"name": group, "namespace": "ns1"},
                    "spec": {"schedulingPolicy": {"gang": {"minCount": 3}}},
                }
            )
        )
    gates = new_feature_gates("1.36", {"GenericWorkload": True, "GangScheduling": True})
    sched = Scheduler(api, clock=clock, feature_gates=gates, inline_binding=True)
    pod_lists: list[Any] = []
    real_list = api.list

    def counting_list(kind: Any, *args: Any, **kwargs: Any) -> Any:
        if kind is Pod:
            pod_lists.append(kwargs)
        return real_list(kind, *args, **kwargs)

    api.list = counting_list  # type: ignore[method-assign]
    for group in ("a", "b"):
        for i in range(3):
            api.create(
                Pod.from_dict(
                    {
                        "metadata": {"name": f"{group}{i}", "namespace": "ns1"},
                        "spec": {
                            "schedulingGroup": {"podGroupName": group},
                            "containers": [{"name": "c", "image": "x"}],
                        },
                    }
                )
            )
    sched.schedule_pending()
    assert all(p.spec.node_name == "n1" for p in real_list(Pod).items)
    assert len(pod_lists) == 1  # the informer's first list, nothing after
    key = ("podgroup", "ns1", "a")
    assert len(sched.workload_manager.state(key).assigned()) == 3
    api.delete(Pod, "a0", namespace="ns1")
    sched.sync()
    assert sorted(p.name for p in sched.workload_manager.state(key).all_pods.values()) == [
        "a1",
        "a2",
    ]
