"""The Eviction API (``pods/eviction``) honours PodDisruptionBudgets, as ``kubectl drain`` needs.

``pkg/registry/core/pod/storage/eviction.go`` (v1.33): an Eviction of a pod
no budget selects deletes it (``201``, a ``Success`` Status); one whose
budget allows a disruption spends it (``disruptionsAllowed`` down by one,
the pod in ``disruptedPods``) and deletes; one whose budget allows none is
``429`` ``Cannot evict pod as it would violate the pod's disruption
budget.`` with a ``DisruptionBudget`` cause; two budgets are a ``500``.
kubectl finds the API in discovery (``CheckEvictionSupport`` in
``k8s.io/kubectl/pkg/drain/drain.go``: ``pods/eviction`` of kind
``Eviction`` with a group and version). A DELETE whose body is in a
content type the server cannot read is ``415``.
"""

from __future__ import annotations

import json
from typing import Any

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.objects import Pod, PodDisruptionBudget
from tests.serve.helpers import request

JSON = {"Content-Type": "application/json"}
PODS = "/api/v1/namespaces/default/pods"
PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"


def running_pod(name: str, node: str = "n1") -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "web"}},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
        }
    )


def eviction(name: str) -> str:
    return json.dumps({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}})


def budget(name: str, min_available: Any, labels: dict[str, str] | None = None) -> str:
    return json.dumps(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": name},
            "spec": {
                "minAvailable": min_available,
                "selector": {"matchLabels": labels or {"app": "web"}},
            },
        }
    )


def test_discovery_announces_the_eviction_subresource(server: APIHTTPServer) -> None:
    _, listing = request(server.url, "GET", "/api/v1")
    entry = next(r for r in listing["resources"] if r["name"] == "pods/eviction")
    assert entry["kind"] == "Eviction" and (entry["group"], entry["version"]) == ("policy", "v1")
    assert entry["verbs"] == ["create"]


def test_a_pod_no_budget_selects_is_evicted(server: APIHTTPServer, api: APIServer) -> None:
    assert request(server.url, "POST", PODS, running_pod("a"), JSON)[0] == 201
    code, status = request(server.url, "POST", f"{PODS}/a/eviction", eviction("a"), JSON)
    assert code == 201 and status["status"] == "Success"
    assert not api.list(Pod).items


def test_a_budget_allows_one_eviction_then_refuses_with_429(
    server: APIHTTPServer, api: APIServer
) -> None:
    for name in ("a", "b"):
        assert request(server.url, "POST", PODS, running_pod(name), JSON)[0] == 201
    assert request(server.url, "POST", PDBS, budget("web", 1), JSON)[0] == 201
    assert api.get(PodDisruptionBudget, "web", "default").status.disruptions_allowed == 1

    code, _ = request(server.url, "POST", f"{PODS}/a/eviction", eviction("a"), JSON)
    assert code == 201
    code, status = request(server.url, "POST", f"{PODS}/b/eviction", eviction("b"), JSON)
    assert code == 429
    assert status["reason"] == "TooManyRequests"
    assert status["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert status["details"]["causes"] == [
        {
            "reason": "DisruptionBudget",
            "message": "The disruption budget web needs 1 healthy pods and has 1 currently",
        }
    ]
    assert [p.name for p in api.list(Pod).items] == ["b"]


def test_a_pod_not_started_ignores_its_budget(server: APIHTTPServer, api: APIServer) -> None:
    unbound = json.loads(running_pod("a"))
    del unbound["spec"]["nodeName"]
    assert request(server.url, "POST", PODS, json.dumps(unbound), JSON)[0] == 201
    assert request(server.url, "POST", PDBS, budget("web", 5), JSON)[0] == 201
    assert request(server.url, "POST", f"{PODS}/a/eviction", eviction("a"), JSON)[0] == 201


def test_two_budgets_are_an_internal_error(server: APIHTTPServer) -> None:
    assert request(server.url, "POST", PODS, running_pod("a"), JSON)[0] == 201
    assert request(server.url, "POST", PDBS, budget("one", 0), JSON)[0] == 201
    assert request(server.url, "POST", PDBS, budget("two", 0), JSON)[0] == 201
    code, status = request(server.url, "POST", f"{PODS}/a/eviction", eviction("a"), JSON)
    assert code == 500 and "more than one PodDisruptionBudget" in status["message"]


def test_the_names_must_agree_and_the_pod_must_exist(server: APIHTTPServer) -> None:
    assert request(server.url, "POST", PODS, running_pod("a"), JSON)[0] == 201
    code, status = request(server.url, "POST", f"{PODS}/a/eviction", eviction("b"), JSON)
    assert (code, status["message"]) == (400, "name in URL does not match name in Eviction object")
    assert request(server.url, "POST", f"{PODS}/zz/eviction", eviction("zz"), JSON)[0] == 404


def test_a_delete_with_an_unreadable_body_is_415(server: APIHTTPServer) -> None:
    assert request(server.url, "POST", PODS, running_pod("a"), JSON)[0] == 201
    code, status = request(
        server.url, "DELETE", f"{PODS}/a", "gracePeriodSeconds=0", {"Content-Type": "text/plain"}
    )
    assert code == 415 and status["reason"] == "UnsupportedMediaType"
