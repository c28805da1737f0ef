"""Hostile writes: a refused request leaves nothing behind, and nothing stored can break a read.

Where kube-apiserver decides each case:

* ``sigs.k8s.io/yaml`` (``YAMLToJSON``) over go-yaml: a body is turned into
  JSON before it is decoded, so what JSON cannot hold (a recursive alias, a
  set, bytes, NaN) never reaches the store; go-yaml's ``decode.go``
  (``allowedAliasRatio``) refuses an alias bomb with ``document contains
  excessive aliasing``, and ``resolve.go`` a scalar its tag cannot read;
* ``k8s.io/apimachinery/pkg/api/validation/objectmeta.go``
  (``ValidateAnnotationsSize``, ``TotalAnnotationSizeLimitB`` = 256 KiB):
  ``422`` with ``Too long: may not be more than 262144 bytes``, on create, update,
  every patch and the status subresource alike (``ValidateObjectMetaUpdate``);
* etcd's ``--max-request-bytes`` (1.5 MiB): a stored object larger than that is
  refused (``handlers/patch.go``, ``isTooLargeError``). kube-apiserver passes
  etcd's ``etcdserver: request is too large`` on as a 500 (kubernetes/kubernetes#112152
  asks for a 4xx); this server answers ``413 RequestEntityTooLarge`` with those words;
* ``handlers/patch.go``: a JSON patch of more than 10,000 operations is ``413``;
  one whose operations do not apply is refused (kube answers 422, this server 400,
  as for its other JSON patch errors), among them copies that together add more
  than ``JSONPatchMaxCopyBytes`` (3 MiB, ``pkg/server/config.go``, evanphx/json-patch's
  ``AccumulatedCopySizeLimit``);
* ``encoding/json`` decoding into int64 fields: a number beyond int64 is ``400``;
  ``metav1.DeleteOptions.gracePeriodSeconds`` is an int64 too.

Each test asserts the answer *and* that the store is as it was: no object, no
resourceVersion spent, list and watch still answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.objects import Binding, ObjectMeta, ObjectReference, Pod
from tests.serve.helpers import request
from tests.serve.test_hostile import JSON, PODS, assert_status, pod_body

YAML = {"Content-Type": "application/yaml"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}

POD_YAML = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: app, image: nginx}]}\n"

BILLION_LAUGHS = "\n".join(
    [f'a: &a ["{"lol"}"' + ', "lol"' * 8 + "]"]
    + [
        f"{chr(ord('a') + i)}: &{chr(ord('a') + i)} ["
        + ", ".join([f"*{chr(ord('a') + i - 1)}"] * 9)
        + "]"
        for i in range(1, 9)
    ]
)


def nothing_stored(api: APIServer, version: str, server: APIHTTPServer) -> None:
    """No pod named web2, no write since ``version``, and a list of pods still answers."""
    assert api.current_resource_version() == version
    assert request(server.url, "GET", PODS)[0] == 200
    assert request(server.url, "GET", "/api/v1/pods?watch=true&timeoutSeconds=-1")[0] == 200


# --- bodies JSON cannot hold (must-fix 1, 2, 6) ---

UNDECODABLE = [
    pytest.param(POD_YAML + "extra: &a [*a]\n", id="a self-referencing alias beside a valid pod"),
    pytest.param(POD_YAML + "extra: &a {b: *a}\n", id="a self-referencing map"),
    pytest.param(POD_YAML + BILLION_LAUGHS + "\n", id="a billion laughs"),
    pytest.param(POD_YAML + "extra: !!int \n", id="an empty !!int"),
    pytest.param(POD_YAML + "extra: !!int abc\n", id="!!int abc"),
    pytest.param(POD_YAML + "extra: !!float abc\n", id="!!float abc"),
    pytest.param(POD_YAML + "extra: " + "9" * 5000 + "\n", id="an integer of 5000 digits"),
    pytest.param(POD_YAML + "extra: !!binary aGk=\n", id="bytes"),
    pytest.param(POD_YAML + "extra: !!set {a, b}\n", id="a set"),
    pytest.param(POD_YAML + "extra: .nan\n", id="NaN"),
    pytest.param(POD_YAML + "extra: " + "[" * 700 + "]" * 700 + "\n", id="nesting 700 deep"),
]


@pytest.mark.parametrize("body", UNDECODABLE)
def test_a_yaml_body_json_cannot_hold_is_400_and_nothing_is_stored(
    api: APIServer, server: APIHTTPServer, body: str
) -> None:
    version = api.current_resource_version()
    code, status = request(server.url, "POST", PODS, body, YAML)
    assert code == 400, status
    assert_status(status, 400, "BadRequest")
    nothing_stored(api, version, server)
    assert request(server.url, "GET", f"{PODS}/web")[0] == 404


def test_an_alias_bomb_is_refused_in_go_yamls_words(server: APIHTTPServer) -> None:
    _, status = request(server.url, "POST", PODS, POD_YAML + BILLION_LAUGHS + "\n", YAML)
    assert "excessive aliasing" in status["message"]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param('{"kind": "Pod", "metadata": {"name": "web"}, "x": NaN}', id="NaN"),
        pytest.param('{"kind": "Pod", "metadata": {"name": "web"}, "x": Infinity}', id="Infinity"),
        pytest.param(
            '{"metadata": {"name": "web"}, "x": ' + "[" * 700 + "]" * 700 + "}",
            id="nesting 700 deep",
        ),
        pytest.param(
            '{"metadata": {"name": "web"}, "x": ' + "[" * 950 + "]" * 950 + "}",
            id="nesting 950 deep",
        ),
    ],
)
def test_a_json_body_json_does_not_allow_is_400_and_nothing_is_stored(
    api: APIServer, server: APIHTTPServer, body: str
) -> None:
    version = api.current_resource_version()
    code, status = request(server.url, "POST", PODS, body, JSON)
    assert code == 400, status
    assert_status(status, 400, "BadRequest")
    nothing_stored(api, version, server)


# --- integers (must-fix 5) ---


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("terminationGracePeriodSeconds", 2**80, id="2^80 seconds"),
        pytest.param("terminationGracePeriodSeconds", 2**63, id="one past int64"),
        pytest.param("priority", -(2**63) - 1, id="one below int64"),
    ],
)
def test_an_integer_beyond_int64_is_400_and_nothing_is_stored(
    api: APIServer, server: APIHTTPServer, field: str, value: int
) -> None:
    body = json.loads(pod_body("web"))
    body["spec"][field] = value
    version = api.current_resource_version()
    code, status = request(server.url, "POST", PODS, json.dumps(body), JSON)
    assert code == 400, status
    assert "int64" in status["message"]
    nothing_stored(api, version, server)


def bound_pod(api: APIServer, grace: int | None = None) -> None:
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx"}]}
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    api.create(Pod.from_dict({"metadata": {"name": "web"}, "spec": spec}))
    target = ObjectReference(kind="Node", name="n1")
    api.bind(Binding(metadata=ObjectMeta(name="web", namespace="default"), target=target))


def test_the_largest_int64_grace_period_is_stored_and_its_deadline_saturates(
    api: APIServer, server: APIHTTPServer
) -> None:
    """int64's largest value is valid; the deletion deadline it implies cannot be written, so it
    stops at the last second RFC 3339 can write instead of raising."""
    bound_pod(api, grace=2**63 - 1)
    code, pod = request(server.url, "DELETE", f"{PODS}/web?gracePeriodSeconds=1000000000000")
    assert code == 200, pod
    assert pod["metadata"]["deletionTimestamp"] == "9999-12-31T23:59:59Z"
    api.delete(Pod, "web", grace_period_seconds=None)  # its own int64 grace period: no raise


@pytest.mark.parametrize("grace", ["9223372036854775808", "1e3", "-"])
def test_a_grace_period_that_is_no_int64_is_400(
    api: APIServer, server: APIHTTPServer, grace: str
) -> None:
    bound_pod(api)
    version = api.current_resource_version()
    code, status = request(server.url, "DELETE", f"{PODS}/web?gracePeriodSeconds={grace}")
    assert code == 400, status
    nothing_stored(api, version, server)


# --- sizes (must-fix 3) ---

BIG = "y" * (256 * 1024)  # with its key, one byte past TotalAnnotationSizeLimitB


def test_annotations_over_256_kib_are_422_in_kubes_words(
    api: APIServer, server: APIHTTPServer
) -> None:
    version = api.current_resource_version()
    code, status = request(server.url, "POST", PODS, pod_body("web", annotations={"x": BIG}), JSON)
    assert code == 422, status
    assert status["message"] == (
        'Pod "web" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes'
    )
    assert status["details"]["causes"][0]["reason"] == "FieldValueTooLong"
    nothing_stored(api, version, server)


def test_annotations_of_exactly_256_kib_are_stored(server: APIHTTPServer) -> None:
    exact = pod_body("web", annotations={"x": BIG[:-1]})
    assert request(server.url, "POST", PODS, exact, JSON)[0] == 201


# Each way of writing an object, turned into one that is too large.
GROW = [
    pytest.param(
        "PATCH",
        "",
        json.dumps({"metadata": {"annotations": {"x": BIG}}}),
        MERGE_PATCH,
        422,
        id="merge patch of annotations",
    ),
    pytest.param(
        "PATCH",
        "",
        json.dumps({"metadata": {"annotations": {"x": BIG}}}),
        STRATEGIC,
        422,
        id="strategic merge patch of annotations",
    ),
    pytest.param(
        "PATCH",
        "/status",
        json.dumps({"metadata": {"annotations": {"x": BIG}}}),
        MERGE_PATCH,
        422,
        id="status patch of annotations",
    ),
    pytest.param(
        "PATCH",
        "/status",
        json.dumps(
            [{"op": "add", "path": "/status/x", "value": ["z" * 1000]}]
            + [{"op": "copy", "from": "/status/x", "path": "/status/x/0"}] * 16
        ),
        JSON_PATCH,
        400,
        id="json patch of 16 doubling copies (64 MiB)",
    ),
    pytest.param(
        "PATCH",
        "/status",
        # A field the schema knows: an unknown one would be dropped before the size is checked.
        json.dumps(
            {
                "status": {
                    "conditions": [{"type": f"T{i}", "message": "z" * 200_000} for i in range(9)]
                }
            }
        ),
        MERGE_PATCH,
        413,
        id="merge patch past etcd's limit",
    ),
]


@pytest.mark.parametrize(("method", "sub", "body", "headers", "code"), GROW)
def test_a_write_whose_result_is_too_large_is_refused_and_changes_nothing(
    api: APIServer,
    server: APIHTTPServer,
    method: str,
    sub: str,
    body: str,
    headers: dict[str, str],
    code: int,
) -> None:
    assert request(server.url, "POST", PODS, pod_body("web"), JSON)[0] == 201
    before, version = api.get(Pod, "web"), api.current_resource_version()
    got, status = request(server.url, method, f"{PODS}/web{sub}", body, headers)
    assert got == code, status
    if code == 413:
        assert_status(status, 413, "RequestEntityTooLarge")
        assert "etcdserver: request is too large" in status["message"]
    if code == 400:
        assert "the accumulated size increase of copy is" in status["message"]
    assert api.get(Pod, "web") == before
    nothing_stored(api, version, server)


def test_a_put_of_status_with_annotations_too_large_is_422(
    api: APIServer, server: APIHTTPServer
) -> None:
    assert request(server.url, "POST", PODS, pod_body("web"), JSON)[0] == 201
    version = api.current_resource_version()
    body = pod_body("web", annotations={"x": BIG})
    code, _ = request(server.url, "PUT", f"{PODS}/web/status", body, JSON)
    assert code == 422
    nothing_stored(api, version, server)


def test_a_json_patch_of_more_than_ten_thousand_operations_is_413(
    server: APIHTTPServer,
) -> None:
    assert request(server.url, "POST", PODS, pod_body("web"), JSON)[0] == 201
    ops = [{"op": "test", "path": "/kind", "value": "Pod"}] * 10_001
    _, status = request(server.url, "PATCH", f"{PODS}/web", json.dumps(ops), JSON_PATCH)
    assert_status(status, 413, "RequestEntityTooLarge")
    assert status["message"] == (
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, "
        "got 10001"
    )


@pytest.mark.parametrize("headers", [MERGE_PATCH, STRATEGIC], ids=["merge", "strategic"])
def test_a_patch_whose_metadata_is_no_object_is_refused(
    api: APIServer, server: APIHTTPServer, headers: dict[str, str]
) -> None:
    """Found by the fuzz test: ``{"metadata": 1}`` was a 500."""
    assert request(server.url, "POST", PODS, pod_body("web"), JSON)[0] == 201
    version = api.current_resource_version()
    code, status = request(server.url, "PATCH", f"{PODS}/web", '{"metadata": 1}', headers)
    assert 400 <= code < 500, status
    nothing_stored(api, version, server)


# --- json patch on the root (must-fix 6) ---


@pytest.mark.parametrize(
    "op",
    [
        pytest.param({"op": "replace", "path": "", "value": {}}, id="replace the root"),
        pytest.param({"op": "remove", "path": ""}, id="remove the root"),
        pytest.param({"op": "move", "from": "", "path": "/spec/x"}, id="move the root"),
        pytest.param({"op": "move", "from": "/spec", "path": ""}, id="move onto the root"),
        pytest.param({"op": "copy", "from": "/metadata", "path": ""}, id="copy onto the root"),
    ],
)
def test_a_json_patch_on_the_root_is_refused_and_changes_nothing(
    api: APIServer, server: APIHTTPServer, op: dict[str, Any]
) -> None:
    """evanphx/json-patch v4 (``findObject``): the root has no parent, so the operation does not apply."""
    assert request(server.url, "POST", PODS, pod_body("web"), JSON)[0] == 201
    version = api.current_resource_version()
    code, status = request(server.url, "PATCH", f"{PODS}/web", json.dumps([op]), JSON_PATCH)
    assert code in (400, 422), status
    assert status["kind"] == "Status"
    nothing_stored(api, version, server)
