"""The official ``kubernetes`` Python client against ``serve``: CRUD, lists, watches, binding, scheduling.

The client is generated from Kubernetes' OpenAPI and decodes every answer
into its typed models, so a field or a shape we get wrong fails here. The
scheduler runs in-process on the same store, as ``python -m framework
serve`` runs it (``kubernetes/kubernetes:pkg/scheduler/scheduler.go``: it
binds through ``pods/binding`` and records a ``Scheduled`` event,
``pkg/scheduler/schedule_one.go``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from kubernetes import client as k8s
from kubernetes import watch as k8s_watch
from kubernetes.client.rest import ApiException

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.clock import RealClock
from framework.scheduler.scheduler import Scheduler
from tests.serve.helpers import official_client, wait_until


def node(name: str, cpu: str = "4") -> k8s.V1Node:
    capacity = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return k8s.V1Node(
        metadata=k8s.V1ObjectMeta(name=name, labels={"zone": "a"}),
        status=k8s.V1NodeStatus(capacity=capacity, allocatable=capacity),
    )


def pod(name: str, cpu: str = "100m", labels: dict[str, str] | None = None) -> k8s.V1Pod:
    resources = k8s.V1ResourceRequirements(requests={"cpu": cpu})
    return k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name=name, labels=labels or {"app": "web"}),
        spec=k8s.V1PodSpec(
            containers=[k8s.V1Container(name="app", image="nginx", resources=resources)]
        ),
    )


@pytest.fixture
def scheduled_core() -> Iterator[tuple[k8s.CoreV1Api, APIServer]]:
    clock = RealClock()
    api = APIServer(clock)
    scheduler = Scheduler(api, clock=clock, seed=1)
    with APIHTTPServer(api) as server, official_client(server.url) as api_client:
        scheduler.run()
        try:
            yield k8s.CoreV1Api(api_client), api
        finally:
            scheduler.stop()


def test_pods_created_through_the_client_are_bound_by_the_scheduler(
    scheduled_core: tuple[k8s.CoreV1Api, APIServer],
) -> None:
    core, _ = scheduled_core
    for name in ("node-a", "node-b"):
        core.create_node(node(name))
    for i in range(4):
        core.create_namespaced_pod("default", pod(f"web-{i}"))

    def all_bound() -> bool:
        return all(p.spec.node_name for p in core.list_namespaced_pod("default").items)

    wait_until(all_bound)
    pods = core.list_namespaced_pod("default").items
    assert {p.spec.node_name for p in pods} <= {"node-a", "node-b"}
    events = core.list_namespaced_event("default", field_selector="reason=Scheduled").items
    assert sorted(e.involved_object.name for e in events) == [f"web-{i}" for i in range(4)]
    assert all(e.message.startswith("Successfully assigned default/web-") for e in events)


def test_a_pod_that_fits_nowhere_gets_a_failed_scheduling_event(
    scheduled_core: tuple[k8s.CoreV1Api, APIServer],
) -> None:
    core, _ = scheduled_core
    core.create_node(node("small", cpu="1"))
    core.create_namespaced_pod("default", pod("huge", cpu="8"))

    def failed() -> bool:
        events = core.list_namespaced_event("default", field_selector="reason=FailedScheduling")
        return bool(events.items)

    wait_until(failed)
    event = core.list_namespaced_event("default", field_selector="reason=FailedScheduling").items[
        0
    ]
    assert "Insufficient cpu" in event.message


def test_get_list_with_selectors_update_patch_and_delete(core: k8s.CoreV1Api) -> None:
    core.create_node(node("n1"))
    core.create_namespaced_pod("default", pod("a", labels={"app": "web"}))
    core.create_namespaced_pod("default", pod("b", labels={"app": "db"}))

    listed = core.list_namespaced_pod("default", label_selector="app=web")
    assert [p.metadata.name for p in listed.items] == ["a"]
    assert listed.metadata.resource_version.isdigit()
    assert [
        p.metadata.name
        for p in core.list_pod_for_all_namespaces(field_selector="metadata.name=b").items
    ] == ["b"]
    assert core.list_namespaced_pod("default", limit=1).items  # limit is tolerated

    got = core.read_namespaced_pod("a", "default")
    got.metadata.labels["tier"] = "front"
    updated = core.replace_namespaced_pod("a", "default", got)
    assert updated.metadata.labels == {"app": "web", "tier": "front"}
    assert int(updated.metadata.resource_version) > int(got.metadata.resource_version)

    patched = core.patch_namespaced_pod("a", "default", {"metadata": {"labels": {"tier": None}}})
    assert patched.metadata.labels == {"app": "web"}

    cordoned = core.patch_node("n1", {"spec": {"unschedulable": True}})
    assert cordoned.spec.unschedulable is True

    core.delete_namespaced_pod("b", "default", body=k8s.V1DeleteOptions(grace_period_seconds=0))
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_pod("b", "default")
    assert missing.value.status == 404
    assert json.loads(missing.value.body)["reason"] == "NotFound"


def test_delete_preconditions_are_checked(core: k8s.CoreV1Api) -> None:
    created = core.create_namespaced_pod("default", pod("a"))
    stale = k8s.V1DeleteOptions(preconditions=k8s.V1Preconditions(uid="not-its-uid"))
    with pytest.raises(ApiException) as conflict:
        core.delete_namespaced_pod("a", "default", body=stale)
    assert conflict.value.status == 409
    right = k8s.V1DeleteOptions(preconditions=k8s.V1Preconditions(uid=created.metadata.uid))
    core.delete_namespaced_pod("a", "default", body=right)


def test_status_subresource_put_and_patch(core: k8s.CoreV1Api) -> None:
    core.create_namespaced_pod("default", pod("a"))
    patched = core.patch_namespaced_pod_status(
        "a", "default", {"status": {"nominatedNodeName": "n1"}}
    )
    assert patched.status.nominated_node_name == "n1"
    read = core.read_namespaced_pod_status("a", "default")
    read.status.nominated_node_name = "n2"
    assert (
        core.replace_namespaced_pod_status("a", "default", read).status.nominated_node_name == "n2"
    )


def test_the_official_client_mistakes_a_successful_bind_for_an_error(core: k8s.CoreV1Api) -> None:
    """A long-standing client issue, to remember in the real-cluster adapter.

    The server answers a binding with a ``Success`` Status
    (``pkg/registry/core/pod/storage/storage.go``); the client reads it as a
    ``V1Binding``, finds no ``target`` and raises a ``ValueError`` although
    the pod is bound (older clients: ``Invalid value for `target`, must not
    be `None```; this one, 37.x, a pydantic ``ValidationError``, which is a
    ValueError too). Call it with ``_preload_content=False`` and read the
    HTTP status yourself: 201 is success, and a failure still raises
    ``ApiException``.
    """
    core.create_namespaced_pod("default", pod("a"))
    core.create_namespaced_pod("default", pod("b"))
    binding = k8s.V1Binding(
        metadata=k8s.V1ObjectMeta(name="a"),
        target=k8s.V1ObjectReference(api_version="v1", kind="Node", name="n1"),
    )
    with pytest.raises(ValueError, match="target"):
        core.create_namespaced_pod_binding("a", "default", binding)
    assert core.read_namespaced_pod("a", "default").spec.node_name == "n1"  # it did bind

    binding.metadata.name = "b"
    response = core.create_namespaced_pod_binding("b", "default", binding, _preload_content=False)
    assert response.status == 201
    assert json.loads(response.data)["status"] == "Success"
    assert core.read_namespaced_pod("b", "default").spec.node_name == "n1"

    with pytest.raises(ApiException) as again:  # a failed bind is still an exception
        core.create_namespaced_pod_binding("b", "default", binding, _preload_content=False)
    assert again.value.status == 409


def test_a_watch_streams_what_another_client_creates(core: k8s.CoreV1Api) -> None:
    start = core.list_namespaced_pod("default").metadata.resource_version
    for i in range(3):
        core.create_namespaced_pod("default", pod(f"p{i}"))
    stream = k8s_watch.Watch()
    seen = []
    for event in stream.stream(
        core.list_namespaced_pod, "default", resource_version=start, timeout_seconds=10
    ):
        seen.append((event["type"], event["object"].metadata.name))
        if len(seen) == 3:
            stream.stop()
    assert seen == [("ADDED", "p0"), ("ADDED", "p1"), ("ADDED", "p2")]


def test_discovery_names_the_served_groups_and_resources(core: k8s.CoreV1Api) -> None:
    api_client = core.api_client
    assert k8s.VersionApi(api_client).get_code().git_version.startswith("v1.33")
    assert k8s.CoreApi(api_client).get_api_versions().versions == ["v1"]
    groups = {
        g.name: g.preferred_version.version
        for g in k8s.ApisApi(api_client).get_api_versions().groups
    }
    assert groups == {
        "scheduling.k8s.io": "v1",
        "policy": "v1",
        "scheduling.x-k8s.io": "v1alpha1",
        "events.k8s.io": "v1",
        "apps": "v1",
        "storage.k8s.io": "v1",
        "batch": "v1",
        "resource.k8s.io": "v1",
    }
    resources = {r.name: r for r in core.get_api_resources().resources}
    assert {"pods", "pods/binding", "pods/status", "nodes", "namespaces", "events"} <= set(
        resources
    )
    assert resources["pods"].short_names == ["po"] and resources["nodes"].namespaced is False


def test_services_and_replica_sets_for_the_default_spreading(core: k8s.CoreV1Api) -> None:
    # The objects helper.DefaultSelector reads, created and read back as kubectl would.
    core.create_namespaced_service(
        "default",
        k8s.V1Service(
            metadata=k8s.V1ObjectMeta(name="web"),
            spec=k8s.V1ServiceSpec(selector={"app": "web"}, ports=[k8s.V1ServicePort(port=80)]),
        ),
    )
    assert core.read_namespaced_service("web", "default").spec.selector == {"app": "web"}
    apps = k8s.AppsV1Api(core.api_client)
    apps.create_namespaced_replica_set(
        "default",
        k8s.V1ReplicaSet(
            metadata=k8s.V1ObjectMeta(name="web-1"),
            spec=k8s.V1ReplicaSetSpec(
                selector=k8s.V1LabelSelector(match_labels={"app": "web"}),
                template=k8s.V1PodTemplateSpec(
                    metadata=k8s.V1ObjectMeta(labels={"app": "web"}),
                    spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="c", image="nginx")]),
                ),
            ),
        ),
    )
    listed = apps.list_namespaced_replica_set("default").items
    assert [rs.spec.selector.match_labels for rs in listed] == [{"app": "web"}]


def test_priority_classes_and_budgets_in_their_groups(core: k8s.CoreV1Api) -> None:
    api_client = core.api_client
    scheduling = k8s.SchedulingV1Api(api_client)
    scheduling.create_priority_class(
        k8s.V1PriorityClass(metadata=k8s.V1ObjectMeta(name="high"), value=1000)
    )
    names = [pc.metadata.name for pc in scheduling.list_priority_class().items]
    assert "high" in names and "system-node-critical" in names
    policy = k8s.PolicyV1Api(api_client)
    budget = k8s.V1PodDisruptionBudget(
        metadata=k8s.V1ObjectMeta(name="web"),
        spec=k8s.V1PodDisruptionBudgetSpec(
            min_available=1, selector=k8s.V1LabelSelector(match_labels={"app": "web"})
        ),
    )
    policy.create_namespaced_pod_disruption_budget("default", budget)
    read = policy.read_namespaced_pod_disruption_budget("web", "default")
    assert read.spec.min_available == 1


def test_gpu_pods_get_devices_through_resource_claims_over_http() -> None:
    # resource.k8s.io/v1 as the official client speaks it: a class, a slice, a template; the
    # pod's claim is made for it, allocated by DynamicResources (v1.34's default profile) and
    # reserved for it when it is bound.
    from framework.featuregate import new_feature_gates

    clock = RealClock()
    api = APIServer(clock)
    scheduler = Scheduler(api, clock=clock, seed=1, feature_gates=new_feature_gates("1.34"))
    with APIHTTPServer(api) as server, official_client(server.url) as api_client:
        scheduler.run()
        try:
            core = k8s.CoreV1Api(api_client)
            resource = k8s.ResourceV1Api(api_client)
            core.create_node(node("cpu-only"))
            core.create_node(node("gpu-node"))
            resource.create_device_class(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "DeviceClass",
                    "metadata": {"name": "gpu"},
                    "spec": {
                        "selectors": [
                            {"cel": {"expression": 'device.driver == "gpu.example.com"'}}
                        ]
                    },
                }
            )
            resource.create_resource_slice(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceSlice",
                    "metadata": {"name": "gpu-node-gpus"},
                    "spec": {
                        "driver": "gpu.example.com",
                        "nodeName": "gpu-node",
                        "pool": {"name": "gpu-node", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "gpu-0"}],
                    },
                }
            )
            resource.create_namespaced_resource_claim_template(
                "default",
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaimTemplate",
                    "metadata": {"name": "one-gpu"},
                    "spec": {
                        "spec": {
                            "devices": {
                                "requests": [
                                    {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}
                                ]
                            }
                        }
                    },
                },
            )
            core.create_namespaced_pod(
                "default",
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": "train"},
                    "spec": {
                        "resourceClaims": [
                            {"name": "gpu", "resourceClaimTemplateName": "one-gpu"}
                        ],
                        "containers": [
                            {"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}
                        ],
                    },
                },
            )
            wait_until(lambda: bool(core.read_namespaced_pod("train", "default").spec.node_name))
            assert core.read_namespaced_pod("train", "default").spec.node_name == "gpu-node"
            (claim,) = resource.list_namespaced_resource_claim("default").items
            assert claim.status.allocation.devices.results[0].device == "gpu-0"
            assert [r.name for r in claim.status.reserved_for] == ["train"]
        finally:
            scheduler.stop()
