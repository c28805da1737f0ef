"""``fieldValidation``: an unknown field is refused, warned about or dropped, as kube-apiserver does.

``k8s.io/apiserver/pkg/endpoints/handlers/create.go`` (v1.33): the body is
decoded strictly; with ``fieldValidation=Strict`` (what kubectl sends since
v1.27) a strict decoding error is ``400`` ``Pod in version "v1" cannot be
handled as a Pod: strict decoding error: unknown field "spec.nodeSelecter"``;
with ``Warn`` (the default when the parameter is absent) the field is
dropped and a ``Warning: 299 - "unknown field \\"spec.nodeSelecter\\""``
header says so; with ``Ignore`` it is dropped silently. An unknown
directive is ``422`` (``ValidateFieldValidation``). Enumerations are
validated as ``pkg/apis/core/validation/validation.go`` does.
"""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from framework.apiserver.http import APIHTTPServer

PODS = "/api/v1/namespaces/default/pods"


def pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}], **spec},
    }


def send(
    server: APIHTTPServer,
    method: str,
    path: str,
    body: Any,
    content_type: str = "application/json",
) -> tuple[int, Any, list[str]]:
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request(method, path, json.dumps(body), {"Content-Type": content_type})
        response = conn.getresponse()
        return (
            response.status,
            json.loads(response.read()),
            response.headers.get_all("Warning") or [],
        )
    finally:
        conn.close()


def test_strict_refuses_an_unknown_field_with_kubes_message(server: APIHTTPServer) -> None:
    body = pod(nodeSelecter={"gpu": "true"})
    body["spec"]["containers"][0]["resources"] = {"requets": {"cpu": "1"}}
    code, status, _ = send(server, "POST", PODS + "?fieldValidation=Strict", body)
    assert code == 400 and status["reason"] == "BadRequest"
    assert status["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "spec.containers[0].resources.requets", unknown field "spec.nodeSelecter"'
    )  # in the order the decoder meets them
    assert send(server, "GET", PODS + "/web", None)[0] == 404  # nothing was stored


def test_warn_is_the_default_and_drops_the_field(server: APIHTTPServer) -> None:
    body = pod(tolerations=[{"key": "gpu", "operator": "Exists", "efect": "NoSchedule"}])
    code, created, warnings = send(server, "POST", PODS, body)
    assert code == 201
    assert warnings == ['299 - "unknown field \\"spec.tolerations[0].efect\\""']
    # Dropped, as Go's decoder leaves it behind: the toleration now tolerates every effect,
    # which is what kube stores too; the warning is the user's only clue.
    assert created["spec"]["tolerations"][0] == {"key": "gpu", "operator": "Exists"}


def test_ignore_drops_the_field_silently(server: APIHTTPServer) -> None:
    code, created, warnings = send(
        server, "POST", PODS + "?fieldValidation=Ignore", pod(sepc={"x": 1})
    )
    assert code == 201 and warnings == [] and "sepc" not in created["spec"]


def test_an_unknown_directive_is_refused(server: APIHTTPServer) -> None:
    code, status, _ = send(server, "POST", PODS + "?fieldValidation=strict", pod())
    assert code == 422
    assert status["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: '
        '"strict": supported values: "", "Ignore", "Strict", "Warn"'
    )


def test_strict_applies_to_updates_and_patches(server: APIHTTPServer) -> None:
    assert send(server, "POST", PODS, pod())[0] == 201
    code, status, _ = send(
        server,
        "PATCH",
        PODS + "/web?fieldValidation=Strict",
        {"metadata": {"lables": {"a": "b"}}},
        "application/merge-patch+json",
    )
    assert code == 400 and 'unknown field "metadata.lables"' in status["message"]
    _, current, _ = send(server, "GET", PODS + "/web", None)
    current["spec"]["schedulerNme"] = "x"
    code, status, _ = send(server, "PUT", PODS + "/web?fieldValidation=Strict", current)
    assert code == 400 and 'unknown field "spec.schedulerNme"' in status["message"]


@pytest.mark.parametrize(
    ("spec", "cause"),
    [
        (
            {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "gpu", "operator": "in", "values": ["a"]}
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            'nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "in": '
            "not a valid selector operator",
        ),
        (
            {
                "affinity": {
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "topologyKey": "zone",
                                "labelSelector": {
                                    "matchExpressions": [{"key": "app", "operator": "exists"}]
                                },
                            }
                        ]
                    }
                }
            },
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            'labelSelector.matchExpressions[0].operator: Invalid value: "exists": '
            "not a valid selector operator",
        ),
        (
            {
                "topologySpreadConstraints": [
                    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "donotschedule"}
                ]
            },
            'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "donotschedule": '
            'supported values: "DoNotSchedule", "ScheduleAnyway"',
        ),
        (
            {"tolerations": [{"key": "gpu", "operator": "Exists", "effect": "noschedule"}]},
            'spec.tolerations[0].effect: Unsupported value: "noschedule": supported values: '
            '"NoSchedule", "PreferNoSchedule", "NoExecute"',
        ),
    ],
)
def test_enumerations_are_validated_as_kube_does(
    server: APIHTTPServer, spec: dict[str, Any], cause: str
) -> None:
    code, status, _ = send(server, "POST", PODS + "?fieldValidation=Strict", pod(**spec))
    assert code == 422, status
    assert cause in status["message"]
