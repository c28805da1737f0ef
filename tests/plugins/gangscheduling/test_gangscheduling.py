"""GangScheduling, transcribed from kube's unit tests.

v1.35: ``Test_isSchedulableAfterPodAdded``, ``Test_isSchedulableAfterWorkloadAdded``
and ``TestGangSchedulingFlow`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go``
(v1.35-era copy with ``workloadRef``, index id 4060565217). Its Permit wait
message there is "... to be scheduled", from a copy older than the plugin
copy read (index id 1021253207, which counts assumed ∪ assigned and says
"... to be waiting on permit"): the plugin's words are asserted here.
v1.36+: the same flow with ``schedulingGroup`` and PodGroups (the later
copy, index id 51935090494: ``TestGangSchedulingFlow`` with ``MakePodGroup``),
and ``isSchedulableAfterPodGroupUpdated`` (plugin copy index id 54548552818).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.cache.workload_manager import WorkloadManager
from framework.clock import FakeClock
from framework.cluster_event import QueueingHint
from framework.featuregate import new_feature_gates
from framework.objects import Namespace, ObjectMeta, Pod
from framework.objects.workload import SchedulingPodGroup, Workload
from framework.plugins import gangscheduling
from framework.status import Code, Status


class _WaitingPod:
    def __init__(self, uid: str) -> None:
        self.uid = uid
        self.allowed_by: list[str] = []

    def allow(self, plugin: str) -> None:
        self.allowed_by.append(plugin)


class FakeHandle:
    """What the plugin asks of its handle: the client, the clock, activate, waiting pods, gates,
    and the workload manager, which the test feeds as the scheduler's pod informer would (Go's
    test calls ``AddPod`` for each pod)."""

    def __init__(self, api: APIServer, version: str) -> None:
        self.api = api
        self._clock = FakeClock(1000.0)
        self.manager = WorkloadManager(self._clock)
        self.activated: list[str] = []
        self.waiting: dict[str, _WaitingPod] = {}
        self.stored: dict[str, Pod] = {}  # the pods as created (the server gives each its UID)
        self.feature_gates = new_feature_gates(
            version, {"GenericWorkload": True, "GangScheduling": True}
        )

    def client(self) -> Any:
        return self.api

    def clock(self) -> FakeClock:
        return self._clock

    def workload_manager(self) -> WorkloadManager:
        return self.manager

    def create(self, obj: Any) -> Any:
        """Create ``obj``; a pod also reaches the manager, as its informer event would."""
        created = self.api.create(obj)
        if isinstance(created, Pod):
            self.stored[created.name] = created
            self.manager.add_pod(created)
        return created

    def activate(self, pods: Any) -> None:
        self.activated += [p.name for p in pods]

    def get_waiting_pod(self, uid: str) -> _WaitingPod | None:
        return self.waiting.get(uid)


def _pod(name: str, ns: str = "ns1", **spec: Any) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": ns, "uid": name},
            "spec": {"containers": [{"name": "c", "image": "x"}], **spec},
        }
    )


def _ref(workload: str, group: str, replica: str = "") -> dict[str, Any]:
    ref = {"name": workload, "podGroup": group}
    if replica:
        ref["podGroupReplicaKey"] = replica
    return {"workloadRef": ref}


def _workload(name: str, ns: str = "ns1", **groups: Any) -> Workload:
    pod_groups = [
        {"name": g, "policy": {"gang": {"minCount": n}} if n else {"basic": {}}}
        for g, n in groups.items()
    ]
    return Workload.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "Workload",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"podGroups": pod_groups},
        }
    )


def _pod_group(name: str, min_count: int | None, ns: str = "ns1") -> SchedulingPodGroup:
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    return SchedulingPodGroup.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"schedulingPolicy": policy},
        }
    )


def _setup(version: str, objects: list[Any]) -> tuple[FakeHandle, gangscheduling.GangScheduling]:
    api = APIServer()
    api.create(Namespace(metadata=ObjectMeta(name="ns1")))
    handle = FakeHandle(api, version)
    for obj in objects:
        handle.create(obj)
    plugin = gangscheduling.new(None, handle)
    return handle, plugin


# --- v1.35: Test_isSchedulableAfterPodAdded ---------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "new", "hint"),
    [
        (_pod("p", **_ref("w1", "pg")), _pod("n", **_ref("w1", "pg")), QueueingHint.QUEUE),
        (
            _pod("p", **_ref("w1", "pg", "3")),
            _pod("n", **_ref("w1", "pg", "3")),
            QueueingHint.QUEUE,
        ),
        (
            _pod("p", **_ref("w1", "pg")),
            _pod("n", ns="foo", **_ref("w1", "pg")),
            QueueingHint.QUEUE_SKIP,
        ),
        (_pod("p", **_ref("w1", "pg")), _pod("n", **_ref("w2", "pg")), QueueingHint.QUEUE_SKIP),
        (_pod("p", **_ref("w1", "pg")), _pod("n", **_ref("w1", "pg2")), QueueingHint.QUEUE_SKIP),
        (
            _pod("p", **_ref("w1", "pg", "3")),
            _pod("n", **_ref("w1", "pg", "4")),
            QueueingHint.QUEUE_SKIP,
        ),
    ],
    ids=[
        "same group",
        "same replica key",
        "other namespace",
        "other workload",
        "other pod group",
        "other replica key",
    ],
)
def test_is_schedulable_after_pod_added(pod, new, hint):
    _, plugin = _setup("1.35", [])
    assert plugin.is_schedulable_after_pod_added(pod, None, new) is hint


@pytest.mark.parametrize(
    ("pod", "workload", "hint"),
    [
        (_pod("p", **_ref("w1", "pg")), _workload("w1", pg=1), QueueingHint.QUEUE),
        (_pod("p", **_ref("w2", "pg")), _workload("w1", pg=1), QueueingHint.QUEUE_SKIP),
        (_pod("p", **_ref("w1", "pg")), _workload("w1", ns="ns2", pg=1), QueueingHint.QUEUE_SKIP),
    ],
    ids=["matching name", "other name", "other namespace"],
)
def test_is_schedulable_after_workload_added(pod, workload, hint):
    _, plugin = _setup("1.35", [])
    assert plugin.is_schedulable_after_workload_added(pod, None, workload) is hint


# --- v1.35: TestGangSchedulingFlow ---------------------------------------------------------------

P = {n: _pod(n, **_ref("gang-wl", "pg1")) for n in ("p1", "p2", "p3")}
P4 = _pod("p4", **_ref("gang-wl", "pg2"))
P5 = _pod("p5", **_ref("gang-wl", "pg1", "2"))
BASIC = _pod("basic-pod", **_ref("basic-wl", "pg1"))
NON_GANG = _pod("non-gang")
GANG_WL = _workload("gang-wl", pg1=3, pg2=4)
BASIC_WL = _workload("basic-wl", pg1=None)


@pytest.mark.parametrize(
    ("pod", "others", "workloads", "waiting", "pre_enqueue", "permit", "activated", "allowed"),
    [
        (NON_GANG, [], [GANG_WL, BASIC_WL], [], None, None, [], []),
        (BASIC, [], [GANG_WL, BASIC_WL], [], None, None, [], []),
        (
            P["p1"],
            [P["p2"], P["p3"], P4, P5],
            [],
            [],
            Status.unresolvable(
                'waiting for pods\'s workload "gang-wl" to appear in scheduling queue'
            ),
            None,
            [],
            [],
        ),
        (
            P["p1"],
            [P["p2"], P4, P5],  # only p1 and p2 of their gang: minCount is 3
            [GANG_WL],
            [],
            Status.unresolvable(gangscheduling.MSG_MIN_COUNT_NOT_IN_QUEUE),
            None,
            [],
            [],
        ),
        (
            P["p1"],
            [P["p2"], P["p3"], P4, P5],
            [GANG_WL],
            [P["p2"], P4, P5],
            None,
            Status.wait(gangscheduling.MSG_PERMIT_WAIT_V135),
            ["p3"],
            [],
        ),
        (
            P["p1"],
            [P["p2"], P["p3"], P4, P5],
            [GANG_WL],
            [P["p2"], P["p3"], P4, P5],
            None,
            None,
            [],
            ["p1", "p2", "p3"],
        ),
    ],
    ids=[
        "non-gang pod succeeds immediately",
        "basic policy pod succeeds immediately",
        "gang pod fails PreEnqueue when workload is not yet created",
        "gang pod fails PreEnqueue when quorum is not met",
        "gang pod passes PreEnqueue, but waits at Permit",
        "final gang pod arrives at Permit and allows all waiting pods from a gang",
    ],
)
def test_gang_scheduling_flow_v135(
    pod, others, workloads, waiting, pre_enqueue, permit, activated, allowed
):
    handle, plugin = _setup("1.35", [*workloads, *others, pod])
    pod = handle.stored[pod.name]
    assert plugin.pre_enqueue(pod) == pre_enqueue
    if pre_enqueue is not None:
        return
    for other in waiting:  # Reserve and Permit put them in the assumed state
        other = handle.stored[other.name]
        assert plugin.reserve(None, other, "some-node") is None
        handle.waiting[other.metadata.uid] = _WaitingPod(other.name)
        status, _ = plugin.permit(None, other, "some-node")
        assert status is not None and status.code is Code.WAIT
    assert plugin.reserve(None, pod, "some-node") is None
    handle.activated = []
    status, timeout = plugin.permit(None, pod, "some-node")
    assert status == permit
    if status is not None:
        assert timeout == gangscheduling.DEFAULT_SCHEDULING_TIMEOUT_SECONDS
        assert handle.activated == activated
        plugin.unreserve(None, pod, "some-node")
        return
    got = sorted(w.uid for w in handle.waiting.values() if w.allowed_by == ["GangScheduling"])
    assert got == [a for a in allowed if a != pod.name]


def test_the_gang_deadline_is_shared_and_renewed_after_it_passes():
    handle, plugin = _setup("1.35", [GANG_WL, *P.values()])
    for name in ("p1", "p2"):
        plugin.reserve(None, handle.stored[name], "n")
        _, timeout = plugin.permit(None, handle.stored[name], "n")
        handle._clock.advance(60)
        # p1 starts the 5-minute deadline; p2, a minute later, gets what is left of it.
        assert timeout == (300 if name == "p1" else 240)
    handle._clock.advance(180)
    _, timeout = plugin.permit(None, handle.stored["p2"], "n")
    assert timeout == 300  # the last one passed: a new attempt to form the gang


# --- v1.36+: schedulingGroup and PodGroups -----------------------------------------------------


def _member(name: str, group: str, ns: str = "ns1") -> Pod:
    return _pod(name, ns=ns, schedulingGroup={"podGroupName": group})


def test_gang_scheduling_flow_v136():
    pods = [_member(f"p{i}", "pg1") for i in range(1, 4)]
    handle, plugin = _setup("1.36", [_pod_group("pg1", 3), *pods[:2]])
    assert plugin.pre_enqueue(pods[0]) == Status.unresolvable(
        gangscheduling.MSG_MIN_COUNT_NOT_IN_QUEUE
    )
    handle.create(pods[2])
    assert plugin.pre_enqueue(pods[0]) is None
    pods = [handle.api.get(Pod, p.name, namespace="ns1") for p in pods]
    for pod in pods[:2]:
        plugin.reserve(None, pod, "n")
        handle.waiting[pod.metadata.uid] = _WaitingPod(pod.metadata.uid)
        status, timeout = plugin.permit(None, pod, "n")
        assert status == Status.wait(gangscheduling.MSG_PERMIT_WAIT)
        assert timeout == gangscheduling.DEFAULT_SCHEDULING_TIMEOUT_SECONDS
    plugin.reserve(None, pods[2], "n")
    assert plugin.permit(None, pods[2], "n") == (None, 0)
    assert [w.allowed_by for w in handle.waiting.values()] == [["GangScheduling"]] * 2


def test_v136_pod_group_missing_and_the_workload_ref_is_not_read():
    _, plugin = _setup("1.36", [])
    assert plugin.pre_enqueue(_member("p", "pg")) == Status.unresolvable(
        'waiting for pods\'s pod group "pg" to appear in scheduling queue'
    )
    # A v1.35 reference means nothing to a v1.36 scheduler (the field is gone).
    assert plugin.pre_enqueue(_pod("q", **_ref("w", "g"))) is None


@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        (_pod_group("pg", 4), _pod_group("pg", 3), QueueingHint.QUEUE),
        (_pod_group("pg", 3), _pod_group("pg", 3), QueueingHint.QUEUE_SKIP),
        (_pod_group("pg", 3), _pod_group("pg", 5), QueueingHint.QUEUE_SKIP),
        (_pod_group("other", 4), _pod_group("other", 3), QueueingHint.QUEUE_SKIP),
        (_pod_group("pg", None), _pod_group("pg", None), QueueingHint.QUEUE),
    ],
    ids=["minCount decreased", "unchanged", "increased", "other group", "basic policy"],
)
def test_is_schedulable_after_pod_group_updated(old, new, hint):
    _, plugin = _setup("1.36", [])
    assert plugin.is_schedulable_after_pod_group_updated(_member("p", "pg"), old, new) is hint


def test_events_follow_the_release():
    _, v135 = _setup("1.35", [])
    _, v136 = _setup("1.36", [])
    assert [str(e.event.resource) for e in v135.events_to_register()] == ["Pod", "Workload"]
    assert [str(e.event.resource) for e in v136.events_to_register()] == [
        "UnscheduledPod",
        "AssignedPod",
        "PodGroup",
        "PodGroup",
    ]


def test_in_the_default_profile_only_with_the_gate():
    """``applyGangScheduling`` (v1.35+ default_plugins.go): appended to multiPoint."""
    from framework.config.default_plugins import default_plugins

    on = new_feature_gates("1.35", {"GenericWorkload": True, "GangScheduling": True})
    names = [p.name for p in default_plugins(feature_gates=on).multi_point.enabled]
    assert names[-2:] == ["DefaultBinder", "GangScheduling"]
    for version in ("1.35", "1.36", "1.37"):
        off = new_feature_gates(version)
        assert "GangScheduling" not in [
            p.name for p in default_plugins(feature_gates=off).multi_point.enabled
        ]


def test_without_a_workload_manager_the_plugin_says_what_to_do():
    handle = FakeHandle(APIServer(), "1.36")
    handle.manager = None  # type: ignore[assignment]
    with pytest.raises(ValueError, match="build it with Scheduler"):
        gangscheduling.new(None, handle)
