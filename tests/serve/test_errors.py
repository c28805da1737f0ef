"""Bad requests get the real server's ``metav1.Status``: code, reason and a message saying why.

Expectations from ``k8s.io/apimachinery/pkg/api/errors/errors.go`` (the
reasons and codes), ``k8s.io/apiserver/pkg/endpoints/handlers/rest.go``
(``limitedReadBody``: 413; the media-type negotiation: 415) and
``k8s.io/apiserver/pkg/endpoints/filters/authentication.go`` (401).
"""

from __future__ import annotations

import json

import pytest

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.clock import RealClock
from tests.serve.helpers import request

JSON = {"Content-Type": "application/json"}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web"},
    "spec": {"containers": [{"name": "app", "image": "nginx"}]},
}


@pytest.fixture
def seeded(server: APIHTTPServer) -> APIHTTPServer:
    code, _ = request(server.url, "POST", "/api/v1/namespaces/default/pods", json.dumps(POD), JSON)
    assert code == 201
    return server


CASES = [
    pytest.param(
        "POST",
        "/api/v1/namespaces/default/pods",
        "{not json",
        JSON,
        400,
        "BadRequest",
        id="malformed JSON is 400 BadRequest",
    ),
    pytest.param(
        "POST",
        "/api/v1/namespaces/default/pods",
        "[1, 2]",
        JSON,
        400,
        "BadRequest",
        id="a body that is not an object is 400",
    ),
    pytest.param(
        "POST",
        "/api/v1/namespaces/default/pods",
        json.dumps(POD),
        {"Content-Type": "application/vnd.kubernetes.protobuf"},
        415,
        "UnsupportedMediaType",
        id="protobuf body is 415",
    ),
    pytest.param(
        "PATCH",
        "/api/v1/namespaces/default/pods/web",
        "{}",
        JSON,
        415,
        "UnsupportedMediaType",
        id="PATCH with plain JSON is 415 (a patch type is required)",
    ),
    pytest.param(
        "GET", "/api/v1/widgets", None, {}, 404, "NotFound", id="unknown resource is 404"
    ),
    pytest.param("GET", "/nowhere", None, {}, 404, "NotFound", id="unknown path is 404"),
    pytest.param(
        "GET",
        "/api/v1/namespaces/default/pods/ghost",
        None,
        {},
        404,
        "NotFound",
        id="missing object is 404",
    ),
    pytest.param(
        "DELETE",
        "/api/v1/namespaces/default/pods",
        None,
        {},
        405,
        "MethodNotAllowed",
        id="deletecollection is 405",
    ),
    pytest.param(
        "OPTIONS",
        "/api/v1/namespaces/default/pods",
        None,
        {},
        405,
        "MethodNotAllowed",
        id="OPTIONS is 405",
    ),
    pytest.param(
        "FROB",
        "/api/v1/namespaces/default/pods",
        None,
        {},
        405,
        "MethodNotAllowed",
        id="unknown verb is 405",
    ),
    pytest.param(
        "POST",
        "/api/v1/namespaces/default/pods",
        json.dumps(POD),
        JSON,
        409,
        "AlreadyExists",
        id="creating twice is 409 AlreadyExists",
    ),
    pytest.param(
        "PUT",
        "/api/v1/namespaces/default/pods/web",
        json.dumps({**POD, "metadata": {"name": "web", "resourceVersion": "1"}}),
        JSON,
        409,
        "Conflict",
        id="stale resourceVersion is 409 Conflict",
    ),
    pytest.param(
        "POST",
        "/api/v1/namespaces/default/pods",
        json.dumps({**POD, "metadata": {"name": "Bad_Name"}}),
        JSON,
        422,
        "Invalid",
        id="invalid name is 422 Invalid",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?labelSelector=a%20in",
        None,
        {},
        400,
        "BadRequest",
        id="bad label selector is 400",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?fieldSelector=spec.colour%3Dred",
        None,
        {},
        400,
        "BadRequest",
        id="unsupported field label is 400",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?watch=true&timeoutSeconds=1.5",
        None,
        {},
        400,
        "BadRequest",
        id="a watch timeout that is not an integer is 400",
    ),
    pytest.param(
        "PUT",
        "/api/v1/namespaces/default/pods/other",
        json.dumps(POD),
        JSON,
        400,
        "BadRequest",
        id="name in body differs from the URL: 400",
    ),
    pytest.param(
        "PUT",
        "/api/v1/namespaces/default/pods/web",
        json.dumps({**POD, "metadata": {"name": "web", "namespace": "other"}}),
        JSON,
        400,
        "BadRequest",
        id="namespace in body differs from the URL: 400",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods/web",
        None,
        {},
        404,
        "NotFound",
        id="a namespaced object outside its namespace is 404",
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "code", "reason"), CASES)
def test_a_bad_request_gets_the_right_status(
    seeded: APIHTTPServer,
    method: str,
    path: str,
    body: str | None,
    headers: dict[str, str],
    code: int,
    reason: str,
) -> None:
    got, status = request(seeded.url, method, path, body, headers)
    assert got == code
    assert status["kind"] == "Status"
    assert status["status"] == "Failure"
    assert (status["code"], status["reason"]) == (code, reason)
    assert status["message"]


def test_an_oversized_body_is_413_and_the_server_goes_on(api: APIServer) -> None:
    with APIHTTPServer(api, max_body_bytes=1024) as server:
        big = json.dumps({**POD, "metadata": {"name": "big", "annotations": {"x": "y" * 2048}}})
        code, status = request(server.url, "POST", "/api/v1/namespaces/default/pods", big, JSON)
        assert (code, status["reason"]) == (413, "RequestEntityTooLarge")
        assert status["message"] == "Request entity too large: limit is 1024"
        assert request(server.url, "GET", "/api/v1/pods")[0] == 200


def test_the_default_body_limit_is_three_mebibytes() -> None:
    from framework.apiserver.http import MAX_REQUEST_BODY_BYTES

    assert MAX_REQUEST_BODY_BYTES == 3 * 1024 * 1024


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        pytest.param({}, 401, id="no token is 401"),
        pytest.param({"Authorization": "Bearer wrong"}, 401, id="wrong token is 401"),
        pytest.param({"Authorization": "Bearer s3cret"}, 200, id="the token is let in"),
    ],
)
def test_with_a_token_every_request_must_carry_it(headers: dict[str, str], code: int) -> None:
    with APIHTTPServer(APIServer(RealClock()), token="s3cret") as server:
        got, body = request(server.url, "GET", "/api/v1/nodes", None, headers)
        assert got == code
        if code == 401:
            assert (body["reason"], body["message"]) == ("Unauthorized", "Unauthorized")


def test_a_conflict_names_the_object_and_the_race(seeded: APIHTTPServer) -> None:
    body = json.dumps({**POD, "metadata": {"name": "web", "resourceVersion": "1"}})
    _, status = request(seeded.url, "PUT", "/api/v1/namespaces/default/pods/web", body, JSON)
    assert status["details"] == {"name": "web", "kind": "pods"}
    assert status["message"].startswith('Operation cannot be fulfilled on pods "web"')


def test_a_refused_request_leaves_the_connection_usable(server: APIHTTPServer) -> None:
    """The refused request's body is read off the connection, so the next request parses."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("POST", "/api/v1/widgets", body=json.dumps(POD), headers=JSON)
        first = conn.getresponse()
        assert first.status == 404
        first.read()
        conn.request("GET", "/api/v1/namespaces")
        second = conn.getresponse()
        assert second.status == 200
        assert json.loads(second.read())["kind"] == "NamespaceList"
    finally:
        conn.close()
