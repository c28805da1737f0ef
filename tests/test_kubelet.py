"""The kubelet's one job here: a pod deleted with a grace period is gone when it ends.

Kubernetes: the API server only sets ``deletionTimestamp`` for a bound pod
deleted with a grace period (``pkg/registry/core/pod/strategy.go``,
``CheckGracefulDelete``); the kubelet's status manager deletes it for good,
with grace 0 and a uid precondition (``pkg/kubelet/status/status_manager.go``).
"""

from __future__ import annotations

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Node, Pod
from framework.simulator.kubelet import finish_terminated_pods, termination_deadlines

START = 1_700_000_000.0


def cluster() -> tuple[APIServer, FakeClock]:
    clock = FakeClock(START)
    api = APIServer(clock)
    api.create(Node.from_dict({"metadata": {"name": "n"}}))
    for name in ("a", "b"):
        spec = {"nodeName": "n", "terminationGracePeriodSeconds": 30}
        spec["containers"] = [{"name": "c", "image": "busybox"}]
        api.create(Pod.from_dict({"metadata": {"name": name}, "spec": spec}))
    return api, clock


def names(api: APIServer) -> list[str]:
    return [p.name for p in api.list(Pod).items]


def test_a_terminating_pod_stays_until_its_grace_period_ends() -> None:
    api, clock = cluster()
    api.delete(Pod, "a", grace_period_seconds=None)  # None: the pod's own 30 s
    assert [(deadline - START, pod.name) for deadline, pod in termination_deadlines(api)] == [
        (30.0, "a")
    ]
    assert finish_terminated_pods(api, clock.now() + 29) == []
    assert names(api) == ["a", "b"]
    assert [p.name for p in finish_terminated_pods(api, clock.now() + 30)] == ["a"]
    assert names(api) == ["b"]


def test_a_pod_recreated_under_the_same_name_is_left_alone() -> None:
    api, clock = cluster()
    api.delete(Pod, "a", grace_period_seconds=None)
    ((_, old),) = termination_deadlines(api)
    api.delete(Pod, "a", grace_period_seconds=0)
    api.create(old.with_metadata(resource_version="", uid="", deletion_timestamp=None))
    assert finish_terminated_pods(api, clock.now() + 60) == []
    assert names(api) == ["a", "b"]


def test_started_pods_become_running_and_ready() -> None:
    """A kubelet that starts what it admits, as KWOK's pod-ready stage plays one.

    ``pkg/kubelet/kubelet.go`` (``syncPod``) and ``status/generate.go``: once
    the containers run, the pod is ``Running`` with ``startTime``, each
    container's status ``running`` and ready, and the ``Initialized``,
    ``ContainersReady`` and ``Ready`` conditions ``True``.
    """
    from framework.simulator.kubelet import NodeAdmission

    clock = FakeClock(START)
    api = APIServer(clock)
    allocatable = {"cpu": "1", "memory": "1Gi", "pods": "10"}
    api.create(Node.from_dict({"metadata": {"name": "n"}, "status": {"allocatable": allocatable}}))
    admission = NodeAdmission(api, clock, start_pods=True)
    admission.sync()
    for name, cpu in (("fits", "600m"), ("too-big", "600m")):
        spec = {"nodeName": "n", "containers": [{"name": "c", "image": "busybox"}]}
        spec["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
        api.create(Pod.from_dict({"metadata": {"name": name}, "spec": spec}))
    admission.sync()
    fits = api.get(Pod, "fits", "default")
    assert fits.status.phase == "Running"
    assert fits.status.start_time == "2023-11-14T22:13:20Z"
    conditions = {c.type: c.status for c in fits.status.conditions}
    assert conditions["Ready"] == conditions["ContainersReady"] == "True"
    assert conditions["Initialized"] == "True"
    (status,) = fits.status.extra["containerStatuses"]
    assert status["ready"] and status["started"] and status["restartCount"] == 0
    assert status["state"] == {"running": {"startedAt": "2023-11-14T22:13:20Z"}}
    assert api.get(Pod, "too-big", "default").status.phase == "Failed"  # admission first
    admission.stop()
