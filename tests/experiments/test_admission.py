"""The kubelet's admission: a pod bound to a node without room for it is rejected there.

Expectations from kubernetes/kubernetes v1.33: ``predicateAdmitHandler.Admit``
and ``generalFilter`` in ``pkg/kubelet/lifecycle/predicate.go`` (the
``OutOf<resource>`` reasons, ``InsufficientResourceError.Error``'s message,
only the first failure reported, ``removeMissingExtendedResources``, only
``NoExecute`` taints), ``AdmissionCheck`` in ``pkg/scheduler/eventhandlers.go``
(resources, then node affinity, node name, host ports), and ``rejectPod`` /
``HandlePodAdditions`` in ``pkg/kubelet/kubelet.go`` (phase ``Failed``,
``Pod was rejected: `` + message, a Warning event with the reason; pods
already admitted and still running are the ones counted).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Binding, Event, Node, ObjectMeta, ObjectReference, Pod
from framework.simulator.kubelet import (
    OUT_OF_CPU,
    OUT_OF_MEMORY,
    OUT_OF_PODS,
    REJECTED_MESSAGE_PREFIX,
    NodeAdmission,
    PodAdmitResult,
    admit_pod,
    admit_pods,
)

START = 1_700_000_000.0


def make_node(cpu: str = "4", memory: str = "8Gi", pods: str = "110", **extra: Any) -> Node:
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods, **extra.pop("resources", {})}
    return Node.from_dict(
        {
            "metadata": {"name": "node-1", "labels": extra.pop("labels", {})},
            "spec": {"taints": extra.pop("taints", [])},
            "status": {"allocatable": allocatable, "capacity": allocatable},
        }
    )


def make_pod(name: str = "p", cpu: str = "", memory: str = "", **spec: Any) -> Pod:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    requests.update(spec.pop("requests", {}))
    container: dict[str, Any] = {"name": "app", "image": "nginx"}
    if requests:
        container["resources"] = {"requests": requests}
    if "ports" in spec:
        container["ports"] = spec.pop("ports")
    return Pod.from_dict({"metadata": {"name": name}, "spec": {"containers": [container], **spec}})


CASES = [
    pytest.param(make_node(), [], make_pod(cpu="4"), PodAdmitResult(True), id="fits exactly"),
    pytest.param(
        make_node(),
        [make_pod("a", cpu="3")],
        make_pod(cpu="1500m"),
        PodAdmitResult(
            False,
            OUT_OF_CPU,
            "Node didn't have enough resource: cpu, requested: 1500, used: 3000, capacity: 4000",
        ),
        id="OutOfcpu",
    ),
    pytest.param(
        make_node(memory="1Gi"),
        [make_pod("a", memory="768Mi")],
        make_pod(memory="512Mi"),
        PodAdmitResult(
            False,
            OUT_OF_MEMORY,
            "Node didn't have enough resource: memory, requested: 536870912, "
            "used: 805306368, capacity: 1073741824",
        ),
        id="OutOfmemory",
    ),
    pytest.param(
        make_node(pods="1"),
        [make_pod("a")],
        make_pod(cpu="5"),
        PodAdmitResult(
            False,
            OUT_OF_PODS,
            "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1",
        ),
        id="pods first: only the first failure is the reason",
    ),
    pytest.param(
        make_node(),
        [make_pod("a", cpu="4")],
        make_pod(cpu="1", memory="9Gi"),
        PodAdmitResult(
            False,
            OUT_OF_CPU,
            "Node didn't have enough resource: cpu, requested: 1000, used: 4000, capacity: 4000",
        ),
        id="cpu before memory",
    ),
    pytest.param(
        make_node(resources={"example.com/gpu": "1"}),
        [make_pod("a", requests={"example.com/gpu": "1"})],
        make_pod(requests={"example.com/gpu": "1"}),
        PodAdmitResult(
            False,
            "OutOfexample.com/gpu",
            "Node didn't have enough resource: example.com/gpu, requested: 1, used: 1, capacity: 1",
        ),
        id="OutOf<extended resource>",
    ),
    pytest.param(
        make_node(),
        [],
        make_pod(requests={"example.com/licence": "3"}),
        PodAdmitResult(True),
        id="an extended resource the node lacks entirely is not counted",
    ),
    pytest.param(
        make_node(),
        [],
        make_pod(requests={"deviceclass.resource.kubernetes.io/gpu.example.com": "1"}),
        PodAdmitResult(True),
        # kubernetes#135668 (v1.36): the implicit DRA name is left out like an extended one
        id="an implicit deviceclass.resource.kubernetes.io/ resource is DRA's, not counted",
    ),
    pytest.param(
        make_node(resources={"example.com/gpu": "0"}),
        [],
        make_pod(requests={"example.com/gpu": "1"}),
        PodAdmitResult(True),
        # kubernetes#133784 (DRAExtendedResource): a device plugin with no healthy device
        # (allocatable 0) is inactive, so DRA may serve the resource
        id="an extended resource at allocatable 0 is not counted",
    ),
    pytest.param(
        make_node(),
        [],
        make_pod(nodeSelector={"disk": "ssd"}),
        PodAdmitResult(False, "NodeAffinity", "Predicate NodeAffinity failed"),
        id="node selector",
    ),
    pytest.param(
        make_node(),
        [make_pod("a", ports=[{"containerPort": 80, "hostPort": 8080}])],
        make_pod(ports=[{"containerPort": 80, "hostPort": 8080}]),
        PodAdmitResult(False, "NodePorts", "Predicate NodePorts failed"),
        id="host port taken",
    ),
    pytest.param(
        make_node(taints=[{"key": "k", "effect": "NoExecute"}]),
        [],
        make_pod(),
        PodAdmitResult(False, "TaintToleration", "Predicate TaintToleration failed"),
        id="untolerated NoExecute taint",
    ),
    pytest.param(
        make_node(taints=[{"key": "k", "effect": "NoSchedule"}]),
        [],
        make_pod(),
        PodAdmitResult(True),
        id="a NoSchedule taint is the scheduler's business, not the kubelet's",
    ),
]


@pytest.mark.parametrize(("node", "running", "pod", "expected"), CASES)
def test_admit_pod(node: Node, running: list[Pod], pod: Pod, expected: PodAdmitResult) -> None:
    assert admit_pod(pod, node, running) == expected


def test_a_rejected_pod_takes_no_room_so_a_later_smaller_one_still_fits() -> None:
    pods = [make_pod("a", cpu="3"), make_pod("b", cpu="2"), make_pod("c", cpu="1")]
    assert [r.admit for r in admit_pods(make_node(), pods)] == [True, False, True]


MILLI = st.integers(min_value=0, max_value=3000)


@given(
    node_cpu=st.integers(min_value=0, max_value=4000),
    node_memory=st.integers(min_value=0, max_value=4096),
    node_pods=st.integers(min_value=0, max_value=6),
    requests=st.lists(st.tuples(MILLI, st.integers(min_value=0, max_value=2048)), max_size=10),
)
def test_admission_rejects_exactly_the_pods_that_would_over_commit(
    node_cpu: int, node_memory: int, node_pods: int, requests: list[tuple[int, int]]
) -> None:
    node = make_node(f"{node_cpu}m", f"{node_memory}Mi", str(node_pods))
    pods = [
        make_pod(f"p{i}", f"{cpu}m" if cpu else "", f"{mem}Mi" if mem else "")
        for i, (cpu, mem) in enumerate(requests)
    ]
    results = admit_pods(node, pods)
    cpu_used = mem_used = count = 0
    for (cpu, mem), result in zip(requests, results, strict=True):
        # Fits' rule: pod slots always; a resource only when requested (0 fits anywhere).
        over = (
            count + 1 > node_pods
            or (cpu > 0 and cpu_used + cpu > node_cpu)
            or (mem > 0 and mem_used + mem > node_memory)
        )
        assert result.admit is not over
        if result.admit:
            cpu_used, mem_used, count = cpu_used + cpu, mem_used + mem, count + 1
    assert cpu_used <= node_cpu and mem_used <= node_memory and count <= node_pods


# --- NodeAdmission: the kubelets on the API server -----------------------------------------


def cluster() -> tuple[APIServer, NodeAdmission]:
    clock = FakeClock(START)
    api = APIServer(clock)
    api.create(make_node())
    admission = NodeAdmission(api, clock)
    admission.sync()
    return api, admission


def bind(api: APIServer, name: str, node: str = "node-1") -> None:
    api.bind(
        Binding(
            metadata=ObjectMeta(name=name, namespace="default"),
            target=ObjectReference(kind="Node", name=node),
        )
    )


def test_pods_are_admitted_in_binding_order_and_the_late_one_is_failed_with_an_event() -> None:
    api, admission = cluster()
    for name in ("first", "second"):
        api.create(make_pod(name, cpu="3"))
    bind(api, "second")
    bind(api, "first")
    (rejection,) = admission.sync()
    assert rejection.pod.name == "first" and rejection.result.reason == OUT_OF_CPU
    failed = api.get(Pod, "first").to_dict()["status"]
    assert failed["phase"] == "Failed"
    assert failed["reason"] == OUT_OF_CPU
    assert failed["message"] == REJECTED_MESSAGE_PREFIX + (
        "Node didn't have enough resource: cpu, requested: 3000, used: 3000, capacity: 4000"
    )
    (event,) = api.list(Event).items
    assert (event.type, event.reason, event.involved_object.name) == (
        "Warning",
        OUT_OF_CPU,
        "first",
    )
    assert (event.source.component, event.source.host) == ("kubelet", "node-1")
    assert api.get(Pod, "second").status.phase != "Failed"


@pytest.mark.parametrize(
    "free",
    [
        pytest.param(lambda api: api.delete(Pod, "big"), id="deleted"),
        pytest.param(
            lambda api: api.update_status(
                Pod.from_dict({**api.get(Pod, "big").to_dict(), "status": {"phase": "Succeeded"}})
            ),
            id="finished",
        ),
    ],
)
def test_a_pod_that_is_gone_or_finished_frees_its_room(free: Any) -> None:
    api, admission = cluster()
    api.create(make_pod("big", cpu="3"))
    bind(api, "big")
    admission.sync()
    free(api)
    api.create(make_pod("next", cpu="3"))
    bind(api, "next")
    assert admission.sync() == []


def test_pods_bound_before_the_kubelets_start_count_as_running() -> None:
    clock = FakeClock(START)
    api = APIServer(clock)
    api.create(make_node())
    api.create(make_pod("old", cpu="3", nodeName="node-1"))
    admission = NodeAdmission(api, clock)
    admission.sync()
    api.create(make_pod("new", cpu="3"))
    bind(api, "new")
    assert [r.pod.name for r in admission.sync()] == ["new"]


def test_a_pod_bound_to_a_node_with_no_kubelet_is_left_alone() -> None:
    api, admission = cluster()
    api.create(make_pod("lost", cpu="30"))
    bind(api, "lost", node="node-9")
    assert admission.sync() == []
    assert api.get(Pod, "lost").status.phase == "Pending"


def test_a_terminating_pod_still_holds_its_room_until_it_is_gone() -> None:
    api, admission = cluster()
    api.create(make_pod("big", cpu="3", terminationGracePeriodSeconds=30))
    bind(api, "big")
    admission.sync()
    api.delete(Pod, "big", grace_period_seconds=None)  # only marked: the containers still run
    api.create(make_pod("next", cpu="3"))
    bind(api, "next")
    assert [r.pod.name for r in admission.sync()] == ["next"]


@settings(max_examples=50)
@given(
    bindings=st.lists(
        st.tuples(st.sampled_from(["node-1", "node-2"]), st.integers(min_value=1, max_value=2500)),
        max_size=12,
    ),
)
def test_after_admission_no_node_runs_more_than_its_allocatable(
    bindings: list[tuple[str, int]],
) -> None:
    clock = FakeClock(START)
    api = APIServer(clock)
    for name in ("node-1", "node-2"):
        api.create(Node.from_dict({**make_node(cpu="4").to_dict(), "metadata": {"name": name}}))
    admission = NodeAdmission(api, clock)
    admission.sync()
    for i, (node_name, cpu) in enumerate(bindings):
        api.create(make_pod(f"p{i}", f"{cpu}m"))
        bind(api, f"p{i}", node=node_name)
    admission.sync()
    used = {"node-1": 0, "node-2": 0}
    for i, (node_name, cpu) in enumerate(bindings):  # the binding order
        failed = api.get(Pod, f"p{i}").status.phase == "Failed"
        assert failed is (used[node_name] + cpu > 4000)  # rejected exactly when it over-commits
        if not failed:
            used[node_name] += cpu
    assert all(total <= 4000 for total in used.values())
