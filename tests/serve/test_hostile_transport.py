"""Hostile bytes on the wire: whatever arrives, the answer is a ``metav1.Status``, never a 500.

Where Go's ``net/http`` (which serves kube-apiserver) decides each case, and
what this server answers in its place:

* a request line that does not parse (an HTTP/2 preface on an HTTP/1.1
  port, TLS bytes on a plain one), a URI too long (414) or headers too
  large (431): Go answers with a line of plain text; here the same code
  comes as a Status, which every Kubernetes client reads;
* a request target that is not a path (``GET *``, ``OPTIONS *``,
  ``CONNECT host:22``): nothing is served there, ``404``;
* ``Transfer-Encoding`` other than ``chunked`` (``transfer.go``,
  ``unsupportedTEError``): ``501``, the body is not guessed at;
* two ``Content-Length`` headers that differ (``transfer.go``,
  ``fixLength``): ``400`` and the connection closed;
* no ``Server`` header (Go sends none), and a client that leaves mid-answer
  leaves no traceback on the server's stderr.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading

import pytest

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from tests.serve.helpers import request, wait_until
from tests.serve.test_hostile import (
    GUARD,
    JSON,
    PODS,
    assert_status,
    pod_body,
    raw_connection,
    read_response,
)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        pytest.param(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, id="an HTTP/2 preface"),
        pytest.param(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400, id="TLS bytes"),
        pytest.param(b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414, id="a URI too long"),
        pytest.param(
            b"GET /api HTTP/1.1\r\n" + b"X-A: b\r\n" * 200 + b"\r\n", 431, id="too many headers"
        ),
        pytest.param(b"GET * HTTP/1.1\r\nHost: x\r\n\r\n", 404, id="GET *"),
        pytest.param(b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 404, id="OPTIONS *"),
        pytest.param(b"CONNECT host:22 HTTP/1.1\r\nHost: x\r\n\r\n", 404, id="CONNECT host:22"),
        pytest.param(
            b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
            b"Transfer-Encoding: gzip\r\nContent-Type: application/json\r\n\r\n{}",
            501,
            id="Transfer-Encoding gzip",
        ),
        pytest.param(
            b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: 2\r\nContent-Length: 3\r\nContent-Type: application/json\r\n\r\n{}",
            400,
            id="two Content-Lengths",
        ),
    ],
)
def test_bytes_that_are_no_request_get_a_status_and_the_server_goes_on(
    api: APIServer, server: APIHTTPServer, raw: bytes, code: int
) -> None:
    version = api.current_resource_version()
    with raw_connection(server) as sock:
        sock.sendall(raw)
        got, status = read_response(sock)
    assert got == code
    assert status["kind"] == "Status" and status["code"] == code and status["message"]
    assert api.current_resource_version() == version
    assert request(server.url, "POST", PODS, pod_body("after"), JSON)[0] == 201


def test_no_server_header_names_the_implementation(server: APIHTTPServer) -> None:
    with raw_connection(server) as sock:
        sock.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
        head = sock.recv(65536).split(b"\r\n\r\n")[0].lower()
    assert b"\r\nserver:" not in head
    assert b"python" not in head


def test_a_client_that_leaves_mid_answer_leaves_no_traceback(
    server: APIHTTPServer, capfd: pytest.CaptureFixture[str]
) -> None:
    for i in range(20):
        assert request(server.url, "POST", PODS, pod_body(f"p{i}"), JSON)[0] == 201
    for _ in range(20):
        with raw_connection(server) as sock:
            sock.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
            )
            sock.sendall(b"GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n\r\n")
            # closed at once with a reset, before the answer is read
    assert request(server.url, "GET", PODS)[0] == 200
    assert "Traceback" not in capfd.readouterr().err


def test_a_refused_body_over_the_limit_is_still_a_status(server: APIHTTPServer) -> None:
    """413 before the body is read: the existing path, here so the table above stays whole."""
    with raw_connection(server) as sock:
        sock.sendall(
            f"POST {PODS} HTTP/1.1\r\nHost: x\r\nContent-Length: {2**40}\r\n\r\n".encode()
        )
        _, status = read_response(sock)
    assert_status(status, 413, "RequestEntityTooLarge")


# --- slow and many clients (kube-apiserver's ReadHeaderTimeout and max-in-flight) ---


def test_headers_trickled_a_byte_at_a_time_are_cut_off_at_the_header_deadline(
    api: APIServer,
) -> None:
    """``secure_serving.go``: ReadHeaderTimeout bounds the whole of the headers, not each read."""
    pace = threading.Event()
    with APIHTTPServer(api, read_timeout=1.0) as impatient, raw_connection(impatient) as slow:
        slow.sendall(b"GET /api/v1/pods HTTP/1.1\r\n")
        cut_off = False
        for _ in range(int(GUARD / 0.2)):  # each byte well within the 1 s of a single read
            try:
                slow.sendall(b"X")
            except OSError:
                cut_off = True
                break
            pace.wait(0.2)
            readable, _, _ = select.select([slow], [], [], 0)
            if readable and slow.recv(1024) == b"":
                cut_off = True
                break
        assert cut_off
        assert request(impatient.url, "GET", PODS)[0] == 200


def test_past_the_connection_cap_a_client_gets_429_with_retry_after(api: APIServer) -> None:
    """``filters/maxinflight.go``: ``429 TooManyRequests``, ``Retry-After: 1``."""
    with APIHTTPServer(api, max_connections=3) as capped:
        held = [
            socket.create_connection((capped.host, capped.port), timeout=GUARD) for _ in range(3)
        ]
        try:
            for sock in held:
                sock.sendall(b"GET /api/v1/pods HTTP/1.1\r\n")  # and never the rest
            wait_until(lambda: capped.open_connections() == 3)
            with raw_connection(capped) as extra:
                extra.sendall(b"GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n\r\n")
                response = http.client.HTTPResponse(extra)
                response.begin()
                status = json.loads(response.read())
            assert response.status == 429
            assert response.getheader("Retry-After") == "1"
            assert_status(status, 429, "TooManyRequests")
        finally:
            for sock in held:
                sock.close()
        wait_until(lambda: capped.open_connections() == 0)
        assert request(capped.url, "GET", PODS)[0] == 200
