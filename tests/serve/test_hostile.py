"""Hostile clients: every bad request gets the real server's ``metav1.Status``, and nobody else waits.

Each case names where kube-apiserver decides it:

* ``k8s.io/apiserver/pkg/endpoints/handlers/create.go`` and ``update.go``:
  a body that does not decode is ``400 BadRequest``;
* ``handlers/negotiation/negotiate.go`` (``NegotiateInputSerializer``): a body
  in a format not read is ``415 UnsupportedMediaType``;
* ``handlers/rest.go`` (``limitedReadBody``) with ``MaxRequestBodyBytes``
  (3 MiB, ``k8s.io/apiserver/pkg/server/config.go``): ``413
  RequestEntityTooLarge``;
* ``handlers/get.go`` (``ListResource``): query parameters that do not
  decode, and selectors that do not parse or name an unsupported field,
  are ``400 BadRequest``; ``timeoutSeconds`` is an int64, ``0`` means the
  default, a negative one ends the watch at once; parameters it does not
  know are ignored;
* ``pkg/authentication/request/bearertoken/bearertoken.go`` and
  ``endpoints/filters/authentication.go``: no or a wrong token is ``401``;
* ``pkg/server/secure_serving.go`` (``ReadHeaderTimeout``) and
  ``pkg/server/filters/timeout.go`` (``504 Timeout``): a slow client is cut
  off, and, Go serving each connection on its own goroutine, never blocks another;
* ``handlers/watch.go`` (``serveWatch``): a watch whose client has gone is
  stopped, which unregisters its watcher from the cache.

Waiting is on sockets with a guard timeout, never on a sleep; the only
timed things are the server's own timeouts, set short here.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest

from framework.apiserver import APIServer
from framework.apiserver.errors import NotFound
from framework.apiserver.http import MAX_REQUEST_BODY_BYTES, APIHTTPServer
from framework.apiserver.http.server import warning_header
from framework.clock import RealClock
from framework.objects import Pod
from tests.serve.helpers import request, wait_until

JSON = {"Content-Type": "application/json"}
PODS = "/api/v1/namespaces/default/pods"
GUARD = 30.0  # seconds a socket read may block before the test fails (never reached when passing)


def pod_body(name: str, **metadata: Any) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, **metadata},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        }
    )


def assert_status(status: Any, code: int, reason: str) -> None:
    """``status`` is a failed ``metav1.Status`` with this code and reason, and says why."""
    assert isinstance(status, dict), status
    assert (status["kind"], status["apiVersion"], status["status"]) == ("Status", "v1", "Failure")
    assert (status["code"], status["reason"]) == (code, reason)
    assert status["message"]


@pytest.fixture
def seeded(server: APIHTTPServer) -> APIHTTPServer:
    assert request(server.url, "POST", PODS, pod_body("web"), JSON)[0] == 201
    return server


# --- bad requests: each gets its Status ---

BAD_REQUESTS = [
    # Bodies that do not decode (create.go: the decoder's error as a BadRequest).
    pytest.param("POST", PODS, '{"kind": "Pod", ', JSON, 400, "BadRequest", id="truncated JSON"),
    pytest.param(
        "POST", PODS, b"\xff\xfe{}", JSON, 400, "BadRequest", id="bytes that are not UTF-8"
    ),
    pytest.param("POST", PODS, "", JSON, 400, "BadRequest", id="an empty body"),
    pytest.param("POST", PODS, "null", JSON, 400, "BadRequest", id="a JSON null"),
    pytest.param("POST", PODS, '"pod"', JSON, 400, "BadRequest", id="a JSON string"),
    pytest.param(
        "POST", PODS, "[" * 100_000 + "]" * 100_000, JSON, 400, "BadRequest", id="nesting too deep"
    ),
    pytest.param(
        "POST",
        PODS,
        "a: [unclosed",
        {"Content-Type": "application/yaml"},
        400,
        "BadRequest",
        id="malformed YAML",
    ),
    # Formats not read (negotiate.go: 415).
    pytest.param(
        "POST",
        PODS,
        pod_body("x"),
        {"Content-Type": "text/plain"},
        415,
        "UnsupportedMediaType",
        id="text/plain body",
    ),
    pytest.param(
        "POST",
        PODS,
        "name=x",
        {"Content-Type": "application/x-www-form-urlencoded"},
        415,
        "UnsupportedMediaType",
        id="form body",
    ),
    pytest.param(
        "PUT",
        f"{PODS}/web",
        pod_body("web"),
        {"Content-Type": "application/vnd.kubernetes.protobuf"},
        415,
        "UnsupportedMediaType",
        id="protobuf PUT",
    ),
    pytest.param(
        "PATCH",
        f"{PODS}/web",
        "{}",
        {"Content-Type": "text/plain"},
        415,
        "UnsupportedMediaType",
        id="PATCH in no patch format",
    ),
    # Paths that name nothing (404) and verbs a resource does not take (405).
    pytest.param("GET", "/api/v2/pods", None, {}, 404, "NotFound", id="unknown API version"),
    pytest.param("GET", "/apis/nogroup/v1/things", None, {}, 404, "NotFound", id="unknown group"),
    pytest.param("GET", f"{PODS}/web/exec", None, {}, 404, "NotFound", id="unknown subresource"),
    pytest.param("GET", f"{PODS}/web/status/x", None, {}, 404, "NotFound", id="path too long"),
    pytest.param("GET", "/../../etc/passwd", None, {}, 404, "NotFound", id="path traversal"),
    pytest.param("TRACE", PODS, None, {}, 405, "MethodNotAllowed", id="TRACE"),
    pytest.param("PUT", PODS, pod_body("x"), JSON, 405, "MethodNotAllowed", id="PUT on a list"),
    pytest.param(
        "POST", f"{PODS}/web", pod_body("web"), JSON, 405, "MethodNotAllowed", id="POST on a name"
    ),
    pytest.param("POST", "/version", "{}", JSON, 405, "MethodNotAllowed", id="POST on discovery"),
    # Selectors (get.go: labels.Parse and the field-label conversion, as BadRequest).
    pytest.param(
        "GET",
        "/api/v1/pods?labelSelector=a%20in",
        None,
        {},
        400,
        "BadRequest",
        id="label selector missing its set",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?labelSelector=%21%21",
        None,
        {},
        400,
        "BadRequest",
        id="label selector with a double negation",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?labelSelector=a%3D%3D%3Db",
        None,
        {},
        400,
        "BadRequest",
        id="label selector with ===",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?watch=true&labelSelector=a%20in",
        None,
        {},
        400,
        "BadRequest",
        id="bad label selector on a watch",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?watch=true&fieldSelector=spec.colour%3Dred",
        None,
        {},
        400,
        "BadRequest",
        id="unsupported field label on a watch",
    ),
    # Watch parameters (get.go: ListOptions decoded as Go types).
    pytest.param(
        "GET",
        "/api/v1/pods?watch=true&timeoutSeconds=soon",
        None,
        {},
        400,
        "BadRequest",
        id="timeoutSeconds not a number",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?watch=true&timeoutSeconds=99999999999999999999",
        None,
        {},
        400,
        "BadRequest",
        id="timeoutSeconds beyond int64",
    ),
    pytest.param(
        "GET",
        "/api/v1/pods?watch=true&resourceVersion=latest",
        None,
        {},
        400,
        "BadRequest",
        id="resourceVersion not a number",
    ),
    pytest.param(
        "GET", "/api/v1/pods?watch=perhaps", None, {}, 400, "BadRequest", id="watch not a boolean"
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "code", "reason"), BAD_REQUESTS)
def test_a_hostile_request_gets_its_status_and_the_server_goes_on(
    seeded: APIHTTPServer,
    method: str,
    path: str,
    body: str | bytes | None,
    headers: dict[str, str],
    code: int,
    reason: str,
) -> None:
    got, status = request(seeded.url, method, path, body, headers)
    assert got == code
    assert_status(status, code, reason)
    assert request(seeded.url, "GET", f"{PODS}/web")[0] == 200


@pytest.mark.parametrize(
    ("query", "message"),
    [
        pytest.param(
            "timeoutSeconds=soon", 'strconv.ParseInt: parsing "soon": invalid syntax', id="word"
        ),
        pytest.param(
            "timeoutSeconds=1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax', id="fraction"
        ),
        pytest.param(
            "timeoutSeconds=99999999999999999999",
            'strconv.ParseInt: parsing "99999999999999999999": value out of range',
            id="beyond int64",
        ),
        pytest.param(
            "fieldSelector=spec.colour%3Dred", "field label not supported: spec.colour", id="field"
        ),
    ],
)
def test_a_parameter_error_is_worded_as_kubernetes_words_it(
    server: APIHTTPServer, query: str, message: str
) -> None:
    _, status = request(server.url, "GET", f"/api/v1/pods?watch=true&{query}")
    assert status["message"] == message


def test_a_label_selector_error_quotes_the_selector(server: APIHTTPServer) -> None:
    _, status = request(server.url, "GET", "/api/v1/pods?labelSelector=tier%20notin")
    assert "'tier notin'" in status["message"]


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/api/v1/pods?frobnicate=1", id="list"),
        pytest.param("/api/v1/pods?watch=true&timeoutSeconds=-1&frobnicate=1", id="watch"),
        pytest.param("/api/v1/pods?limit=5&continue=x&pretty=true", id="paging and pretty"),
    ],
)
def test_unknown_query_parameters_are_ignored(server: APIHTTPServer, path: str) -> None:
    assert request(server.url, "GET", path)[0] == 200


def test_a_negative_watch_timeout_ends_the_stream_at_once(seeded: APIHTTPServer) -> None:
    """get.go: not refused; the watch's context has already expired, so nothing is sent."""
    code, body = request(seeded.url, "GET", "/api/v1/pods?watch=true&timeoutSeconds=-5")
    assert (code, body) == (200, "")


# --- oversized bodies ---


def test_a_body_over_the_default_three_mebibytes_is_413(server: APIHTTPServer) -> None:
    assert MAX_REQUEST_BODY_BYTES == 3 * 1024 * 1024
    big = pod_body("big", annotations={"x": "y" * MAX_REQUEST_BODY_BYTES})
    _, status = request(server.url, "POST", PODS, big, JSON)
    assert_status(status, 413, "RequestEntityTooLarge")
    assert status["message"] == f"Request entity too large: limit is {MAX_REQUEST_BODY_BYTES}"


def test_a_declared_length_over_the_limit_is_refused_before_any_body_is_sent(
    server: APIHTTPServer,
) -> None:
    """The refusal comes from the header alone: the server does not wait for 3 MiB that never come."""
    with raw_connection(server) as sock:
        sock.sendall(
            f"POST {PODS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {MAX_REQUEST_BODY_BYTES + 1}\r\n\r\n".encode()
        )
        code, status = read_response(sock)
    assert code == 413
    assert_status(status, 413, "RequestEntityTooLarge")


def test_a_chunked_body_over_the_limit_is_413(api: APIServer) -> None:
    with APIHTTPServer(api, max_body_bytes=1024) as server, raw_connection(server) as sock:
        chunk = b"y" * 800
        sock.sendall(
            f"POST {PODS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
            + b"%x\r\n%s\r\n" % (len(chunk), chunk) * 2
        )
        _, status = read_response(sock)
    assert_status(status, 413, "RequestEntityTooLarge")


@pytest.mark.parametrize(
    "framing",
    [
        pytest.param("Content-Length: ten\r\n\r\n{}", id="a Content-Length that is no number"),
        pytest.param("Content-Length: -2\r\n\r\n{}", id="a negative Content-Length"),
        pytest.param(
            "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
            id="a chunk size that is no hex number",
        ),
    ],
)
def test_a_body_whose_framing_cannot_be_read_is_400_and_the_connection_closed(
    server: APIHTTPServer, framing: str
) -> None:
    """Where such a body ends is unknown, so nothing after it on the connection can be trusted."""
    with raw_connection(server) as sock:
        sock.sendall(
            f"POST {PODS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{framing}".encode()
        )
        code, status = read_response(sock)
        assert code == 400
        assert_status(status, 400, "BadRequest")
        assert sock.recv(1024) == b""
    assert request(server.url, "GET", "/api/v1/pods")[0] == 200


# --- authentication and where the server listens ---


@pytest.mark.parametrize(
    ("authorization", "code"),
    [
        pytest.param(None, 401, id="no header"),
        pytest.param("Bearer", 401, id="scheme without a token"),
        pytest.param("Bearer ", 401, id="empty token"),
        pytest.param("Basic czNjcmV0", 401, id="basic auth"),
        pytest.param("Bearer s3cre", 401, id="a prefix of the token"),
        pytest.param("Bearer s3cret!", 401, id="the token and more"),
        pytest.param("Bearer s3cret", 200, id="the token"),
        pytest.param("bearer s3cret", 200, id="the scheme in lower case"),
        pytest.param("  Bearer s3cret  ", 200, id="surrounding blanks"),
    ],
)
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/api/v1/nodes", id="list"),
        pytest.param("/api", id="discovery"),
        pytest.param("/api/v1/nodes?watch=true&timeoutSeconds=-1", id="watch"),
    ],
)
def test_with_a_token_only_its_bearer_is_served(
    path: str, authorization: str | None, code: int
) -> None:
    """bearertoken.go: ``Bearer`` in any case, then the token; anything else is 401 Unauthorized."""
    headers = {} if authorization is None else {"Authorization": authorization}
    with APIHTTPServer(APIServer(RealClock()), token="s3cret") as server:
        got, body = request(server.url, "GET", path, None, headers)
    assert got == code
    if code == 401:
        assert_status(body, 401, "Unauthorized")


def test_without_host_it_listens_on_loopback_only() -> None:
    from framework.__main__ import build_parser

    with APIHTTPServer(APIServer(RealClock())) as server:
        assert server.host == "127.0.0.1"
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.token) == ("127.0.0.1", None)


# --- slow clients ---


@contextmanager
def raw_connection(server: APIHTTPServer) -> Iterator[socket.socket]:
    parts = urlsplit(server.url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=GUARD)
    with closing(sock):
        yield sock


def read_response(sock: socket.socket) -> tuple[int, Any]:
    """The status code and decoded JSON body of the next response on ``sock``."""
    response = http.client.HTTPResponse(sock)
    response.begin()
    raw = response.read()
    return response.status, json.loads(raw) if raw else None


@pytest.fixture
def impatient(api: APIServer) -> Iterator[APIHTTPServer]:
    """A server that drops a silent connection after 1 s and a late body after 2 s."""
    with APIHTTPServer(api, read_timeout=1.0, request_timeout=2.0) as served:
        yield served


def test_a_client_that_never_finishes_its_headers_blocks_nobody(
    impatient: APIHTTPServer,
) -> None:
    with raw_connection(impatient) as slow:
        slow.sendall(b"GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n")  # and no blank line, ever
        assert request(impatient.url, "POST", PODS, pod_body("fast"), JSON)[0] == 201
        assert request(impatient.url, "GET", f"{PODS}/fast")[0] == 200
        assert slow.recv(1024) == b""  # dropped by the read timeout, with no answer
    wait_until(lambda: impatient.open_connections() == 0)


def test_a_body_that_never_finishes_is_504_and_blocks_nobody(impatient: APIHTTPServer) -> None:
    with raw_connection(impatient) as slow:
        slow.sendall(
            f"POST {PODS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 500\r\n\r\n{".encode()
        )
        assert request(impatient.url, "POST", PODS, pod_body("fast"), JSON)[0] == 201
        code, status = read_response(slow)
    assert code == 504
    assert_status(status, 504, "Timeout")
    assert status["message"] == (
        "Timeout: request did not complete within requested timeout - context deadline exceeded"
    )
    wait_until(lambda: impatient.open_connections() == 0)


def test_a_body_sent_a_byte_at_a_time_is_cut_off_at_the_request_timeout(
    api: APIServer,
) -> None:
    """Each byte comes well within the read timeout; the request as a whole does not."""
    body = pod_body("trickle").encode()
    answered = threading.Event()
    with (
        APIHTTPServer(api, read_timeout=10.0, request_timeout=1.0) as server,
        raw_connection(server) as slow,
    ):
        slow.sendall(
            f"POST {PODS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
        )

        def trickle() -> None:
            for byte in body:
                if answered.wait(0.1):  # the pace of a slow client, not a wait for the server
                    return
                try:
                    slow.send(bytes([byte]))
                except OSError:
                    return

        sender = threading.Thread(target=trickle)
        sender.start()
        try:
            _, status = read_response(slow)
        finally:
            answered.set()
            sender.join()
    assert_status(status, 504, "Timeout")
    with pytest.raises(NotFound):  # the half-sent pod was never created
        api.get(Pod, "trickle", "default")


def test_many_stalled_connections_do_not_stop_a_normal_client(server: APIHTTPServer) -> None:
    """One thread per connection: eight half-sent requests hold eight threads, not the server."""
    with raw_connection(server) as first:
        stalled = [first]
        try:
            for _ in range(7):
                parts = urlsplit(server.url)
                stalled.append(socket.create_connection((parts.hostname, parts.port), GUARD))
            for n, sock in enumerate(stalled):
                sock.sendall(
                    f"PUT {PODS}/web HTTP/1.1\r\nContent-Length: {100 + n}\r\n\r\n".encode()
                )
            for n in range(5):
                assert request(server.url, "POST", PODS, pod_body(f"p{n}"), JSON)[0] == 201
            assert request(server.url, "GET", "/api/v1/pods")[1]["items"]
        finally:
            for sock in stalled[1:]:
                sock.close()


def test_a_burst_of_clients_connecting_at_once_is_served_whole(server: APIHTTPServer) -> None:
    """64 connections opened at one instant: none is dropped by a short listen backlog."""
    clients = 64
    start = threading.Barrier(clients)
    failures: list[str] = []

    def client() -> None:
        conn = http.client.HTTPConnection(server.host, server.port, timeout=GUARD)
        start.wait()
        try:
            for _ in range(2):  # and the connection is kept alive for a second request
                conn.request("GET", "/api/v1/pods")
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    failures.append(str(response.status))
        except (OSError, http.client.HTTPException) as exc:
            failures.append(repr(exc))
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# --- abandoned watches ---


def open_raw_watch(sock: socket.socket, path: str) -> None:
    """Send a watch request and read up to the end of its response headers."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        piece = sock.recv(4096)
        assert piece, "the server closed the watch before answering"
        head += piece
    assert head.startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    "events_after_close",
    [
        pytest.param(False, id="idle watch: noticed by polling the socket"),
        pytest.param(True, id="busy watch: noticed when a write fails"),
    ],
)
def test_an_abandoned_watch_is_unregistered_and_its_thread_freed(
    api: APIServer, server: APIHTTPServer, events_after_close: bool
) -> None:
    before = api.watcher_count(Pod)
    sock = socket.create_connection((server.host, server.port), timeout=GUARD)
    open_raw_watch(sock, "/api/v1/pods?watch=true")
    # The watch is registered before the 200 is written (get.go: rw.Watch, then serveWatch).
    assert api.watcher_count(Pod) == before + 1
    assert server.open_watches() == 1
    sock.close()
    if events_after_close:
        for n in range(20):
            api.create(Pod.from_dict(json.loads(pod_body(f"late-{n}"))))
    wait_until(lambda: api.watcher_count(Pod) == before)
    wait_until(lambda: server.open_watches() == 0 and server.open_connections() == 0)
    assert request(server.url, "GET", "/api/v1/pods")[0] == 200


def test_many_abandoned_watches_leave_no_watcher_behind(
    api: APIServer, server: APIHTTPServer
) -> None:
    before = api.watcher_count()
    socks = []
    for kind in ("pods", "nodes", "namespaces") * 4:
        sock = socket.create_connection((server.host, server.port), timeout=GUARD)
        open_raw_watch(sock, f"/api/v1/{kind}?watch=true&allowWatchBookmarks=true")
        socks.append(sock)
    assert api.watcher_count() == before + 12
    for sock in socks:
        sock.close()
    wait_until(lambda: api.watcher_count() == before and server.open_connections() == 0)


@pytest.mark.parametrize(
    ("text", "header"),
    [
        ('unknown field "spec.x"', '299 - "unknown field \\"spec.x\\""'),
        ("a\\b ¸ €", '299 - "a\\\\b ¸ €"'),
        ("key \u00b8\r", None),
        ("line\nbreak", None),
        ("tab\there", None),
        ("lone \ud800", None),
    ],
)
def test_a_warning_is_quoted_as_kube_quotes_it_or_dropped(text: str, header: str | None) -> None:
    # NewWarningHeader (k8s.io/apimachinery/pkg/util/net/http.go) refuses control characters
    # and invalid UTF-8; the recorder then drops the warning rather than breaking the response.
    assert warning_header(text) == header


def test_an_unknown_field_with_a_line_break_in_its_name_still_gets_an_answer(
    seeded: APIHTTPServer,
) -> None:
    # Found by the decoder fuzzer: the Warn answer's header once carried the raw CR, ending
    # the header early; the client then waited for a body that never came.
    body = json.dumps({"metadata": {"\u00b8\r": 1}})
    code, answer = request(
        seeded.url,
        "PATCH",
        PODS + "/web?fieldValidation=Warn",
        body,
        {"Content-Type": "application/merge-patch+json"},
    )
    assert code == 200, answer
    assert answer["metadata"]["name"] == "web"
