"""Every kind ``serve`` serves, read back through the official client's typed models.

The official ``kubernetes`` client (v37, pydantic models with strict types)
decodes every answer into ``V1Pod``, ``V1Node`` and the rest, and refuses a
value of the wrong JSON type: a quantity written as the number ``3`` fails
the whole list (``V1ResourceRequirements limits … Input should be a valid
string``). kube-apiserver never sends one: a ``resource.Quantity`` is
always written as a string in its canonical form (``Quantity.MarshalJSON``,
``k8s.io/apimachinery/pkg/api/resource/quantity.go``), an int64 as a JSON
number, an ``IntOrString`` as whichever it holds (``intstr.go``).

So each kind is created here by raw JSON with quantities as numbers and in
non-canonical text, then read, listed and watched through the client.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kubernetes import client as k8s
from kubernetes import watch as k8s_watch

from framework.apiserver.http import APIHTTPServer
from tests.serve.helpers import official_client, request

JSON = {"Content-Type": "application/json"}

OBJECTS: list[tuple[str, dict[str, Any]]] = [
    (
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
    ),
    (
        "/api/v1/nodes",
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "gpu-1"},
            "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
            "status": {
                "capacity": {"cpu": 8, "memory": "32Gi", "nvidia.com/gpu": 4, "pods": 110},
                "allocatable": {"cpu": 7.5, "memory": "1.5Gi", "nvidia.com/gpu": 4, "pods": 110},
            },
        },
    ),
    (
        "/api/v1/namespaces/team/pods",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "train", "namespace": "team"},
            "spec": {
                "containers": [
                    {
                        "name": "app",
                        "image": "trainer",
                        "resources": {
                            "requests": {"cpu": 1.5, "memory": "1000Mi", "nvidia.com/gpu": 3},
                            "limits": {"nvidia.com/gpu": 3, "memory": "1024Mi"},
                        },
                        "ports": [{"containerPort": 8080, "hostPort": 8080}],
                    }
                ],
                "overhead": {"cpu": 0.1},
                "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "terminationGracePeriodSeconds": 30,
                "priority": 0,
            },
        },
    ),
    (
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high"},
            "value": 1000,
        },
    ),
    (
        "/apis/policy/v1/namespaces/team/poddisruptionbudgets",
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "train", "namespace": "team"},
            "spec": {"maxUnavailable": "50%", "selector": {"matchLabels": {"app": "t"}}},
        },
    ),
    (
        "/api/v1/namespaces/team/events",
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "train.1", "namespace": "team"},
            "involvedObject": {"kind": "Pod", "name": "train", "namespace": "team"},
            "reason": "Tested",
            "message": "made by a test",
            "type": "Normal",
            "count": 1,
        },
    ),
    (
        "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/team/podgroups",
        {
            "apiVersion": "scheduling.x-k8s.io/v1alpha1",
            "kind": "PodGroup",
            "metadata": {"name": "gang", "namespace": "team"},
            "spec": {"minMember": 2, "minResources": {"cpu": 3, "memory": 1.5}},
        },
    ),
]


def create_all(server: APIHTTPServer) -> None:
    for path, body in OBJECTS:
        code, answer = request(server.url, "POST", path, json.dumps(body), JSON)
        assert code == 201, answer


def test_quantities_go_out_as_canonical_strings(server: APIHTTPServer) -> None:
    create_all(server)
    _, pod = request(server.url, "GET", "/api/v1/namespaces/team/pods/train")
    container = pod["spec"]["containers"][0]["resources"]
    assert container["requests"] == {"cpu": "1500m", "memory": "1000Mi", "nvidia.com/gpu": "3"}
    assert container["limits"] == {"nvidia.com/gpu": "3", "memory": "1Gi"}
    assert pod["spec"]["overhead"] == {"cpu": "100m"}
    assert pod["spec"]["terminationGracePeriodSeconds"] == 30  # an int64 stays a number
    _, node = request(server.url, "GET", "/api/v1/nodes/gpu-1")
    assert node["status"]["allocatable"]["cpu"] == "7500m"
    assert node["status"]["allocatable"]["memory"] == "1536Mi"
    assert node["status"]["capacity"]["pods"] == "110"
    _, pdb = request(
        server.url, "GET", "/apis/policy/v1/namespaces/team/poddisruptionbudgets/train"
    )
    assert pdb["spec"]["maxUnavailable"] == "50%"  # an IntOrString keeps its kind
    _, group = request(
        server.url, "GET", "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/team/podgroups/gang"
    )
    assert group["spec"]["minResources"] == {"cpu": "3", "memory": "1500m"}


def watch_all(list_call: Callable[..., Any], *args: Any, expected: int) -> list[Any]:
    """Typed objects from a watch of ``list_call``, stopped once ``expected`` have arrived."""
    watcher, seen = k8s_watch.Watch(), []
    for event in watcher.stream(list_call, *args, timeout_seconds=10):
        seen.append(event["object"])
        if len(seen) == expected:
            watcher.stop()
    return seen


def test_every_kind_reads_lists_and_watches_into_typed_models(server: APIHTTPServer) -> None:
    create_all(server)
    with official_client(server.url) as api_client:
        core = k8s.CoreV1Api(api_client)
        scheduling = k8s.SchedulingV1Api(api_client)
        policy = k8s.PolicyV1Api(api_client)
        custom = k8s.CustomObjectsApi(api_client)

        pod = core.read_namespaced_pod("train", "team")
        assert isinstance(pod, k8s.V1Pod)
        assert pod.spec.containers[0].resources.limits["nvidia.com/gpu"] == "3"
        assert [p.metadata.name for p in core.list_namespaced_pod("team").items] == ["train"]
        assert [p.metadata.name for p in core.list_pod_for_all_namespaces().items] == ["train"]
        assert isinstance(watch_all(core.list_namespaced_pod, "team", expected=1)[0], k8s.V1Pod)

        node = core.read_node("gpu-1")
        assert node.status.capacity["nvidia.com/gpu"] == "4"
        assert [n.metadata.name for n in core.list_node().items] == ["gpu-1"]
        assert isinstance(watch_all(core.list_node, expected=1)[0], k8s.V1Node)

        namespaces = {n.metadata.name for n in core.list_namespace().items}
        assert "team" in namespaces
        assert isinstance(core.read_namespace("team"), k8s.V1Namespace)
        assert watch_all(core.list_namespace, expected=len(namespaces))

        assert core.read_namespaced_event("train.1", "team").count == 1
        assert [e.reason for e in core.list_namespaced_event("team").items] == ["Tested"]
        assert isinstance(
            watch_all(core.list_namespaced_event, "team", expected=1)[0], k8s.CoreV1Event
        )

        assert scheduling.read_priority_class("high").value == 1000
        assert "high" in {c.metadata.name for c in scheduling.list_priority_class().items}
        assert watch_all(scheduling.list_priority_class, expected=1)

        pdb = policy.read_namespaced_pod_disruption_budget("train", "team")
        assert pdb.spec.max_unavailable == "50%"
        assert [
            b.metadata.name for b in policy.list_namespaced_pod_disruption_budget("team").items
        ]
        assert isinstance(
            watch_all(policy.list_namespaced_pod_disruption_budget, "team", expected=1)[0],
            k8s.V1PodDisruptionBudget,
        )

        groups = custom.list_namespaced_custom_object(
            "scheduling.x-k8s.io", "v1alpha1", "team", "podgroups"
        )
        assert groups["items"][0]["spec"]["minResources"]["cpu"] == "3"


def test_events_are_served_in_events_k8s_io_v1_too(server: APIHTTPServer) -> None:
    """``pkg/apis/events/v1/conversion.go``: one stored Event, the newer group's field names."""
    create_all(server)
    with official_client(server.url) as api_client:
        events = k8s.EventsV1Api(api_client)
        event = events.read_namespaced_event("train.1", "team")
        assert isinstance(event, k8s.EventsV1Event)
        assert (event.regarding.name, event.note, event.deprecated_count) == (
            "train",
            "made by a test",
            1,
        )
        assert [e.reason for e in events.list_namespaced_event("team").items] == ["Tested"]
        assert isinstance(
            watch_all(events.list_namespaced_event, "team", expected=1)[0], k8s.EventsV1Event
        )
        created = events.create_namespaced_event(
            "team",
            k8s.EventsV1Event(
                metadata=k8s.V1ObjectMeta(name="train.2"),
                event_time="2026-01-01T00:00:00.000000Z",
                regarding=k8s.V1ObjectReference(kind="Pod", name="train", namespace="team"),
                reason="Scheduled",
                note="Successfully assigned team/train to gpu-1",
                type="Normal",
                action="Binding",
                reporting_controller="default-scheduler",
                reporting_instance="default-scheduler-1",
            ),
        )
        assert created.note.startswith("Successfully assigned")
        core = k8s.CoreV1Api(api_client).read_namespaced_event("train.2", "team")
        assert core.message == created.note and core.involved_object.name == "train"
        assert core.reporting_component == "default-scheduler"


def test_workloads_read_list_and_watch_into_typed_models(server: APIHTTPServer) -> None:
    # apps/v1 and batch/v1 (issue 24 item 4): a template's quantity given as a number
    # comes back a canonical string, inside V1Deployment and the rest.
    template = {
        "metadata": {"labels": {"app": "w"}},
        "spec": {
            "containers": [
                {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": 0.5}}}
            ]
        },
    }
    selector = {"matchLabels": {"app": "w"}}
    bodies = {
        "deployments": {"replicas": 2, "selector": selector, "template": template},
        "replicasets": {"replicas": 2, "selector": selector, "template": template},
        "statefulsets": {"replicas": 2, "selector": selector, "template": template,
                         "serviceName": "w"},
        "daemonsets": {"selector": selector, "template": template},
    }  # fmt: skip
    kinds = {"deployments": "Deployment", "replicasets": "ReplicaSet",
             "statefulsets": "StatefulSet", "daemonsets": "DaemonSet"}  # fmt: skip
    for plural, spec in bodies.items():
        body = {"apiVersion": "apps/v1", "kind": kinds[plural], "metadata": {"name": "w"}}
        code, answer = request(
            server.url,
            "POST",
            f"/apis/apps/v1/namespaces/default/{plural}",
            json.dumps({**body, "spec": spec}),
            JSON,
        )
        assert code == 201, answer
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "w"},
           "spec": {"template": {**template, "spec": {**template["spec"],
                                                      "restartPolicy": "Never"}}}}  # fmt: skip
    code, answer = request(
        server.url, "POST", "/apis/batch/v1/namespaces/default/jobs", json.dumps(job), JSON
    )
    assert code == 201, answer
    with official_client(server.url) as api_client:
        apps, batch = k8s.AppsV1Api(api_client), k8s.BatchV1Api(api_client)
        deployment = apps.read_namespaced_deployment("w", "default")
        assert isinstance(deployment, k8s.V1Deployment)
        requests = deployment.spec.template.spec.containers[0].resources.requests
        assert requests == {"cpu": "500m"}
        assert deployment.spec.strategy.type == "RollingUpdate"  # defaulted, as kube does
        for list_call, model in (
            (apps.list_namespaced_deployment, k8s.V1Deployment),
            (apps.list_namespaced_replica_set, k8s.V1ReplicaSet),
            (apps.list_namespaced_stateful_set, k8s.V1StatefulSet),
            (apps.list_namespaced_daemon_set, k8s.V1DaemonSet),
            (batch.list_namespaced_job, k8s.V1Job),
        ):
            assert [o.metadata.name for o in list_call("default").items] == ["w"]
            assert isinstance(watch_all(list_call, "default", expected=1)[0], model)
        created = batch.read_namespaced_job("w", "default")
        assert (created.spec.completions, created.spec.parallelism) == (1, 1)
        assert created.spec.selector.match_labels == {
            "batch.kubernetes.io/controller-uid": created.metadata.uid
        }
