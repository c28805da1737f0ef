"""The fake API server over HTTP: what ``kubectl`` and the official Python client talk to.

:class:`APIHTTPServer` puts an :class:`~framework.apiserver.APIServer` behind
a threaded HTTP/1.1 server (standard library only), one thread per
connection. A request goes through the steps the real server's filter chain
takes, in the same order (read ``APIRequestHandler._serve``):

1. *authentication*: with a token configured, no ``Authorization: Bearer
   <token>`` is ``401 Unauthorized``;
2. *discovery* and health paths are answered at once (:mod:`framework.apiserver.http.resources`);
3. *routing* finds the resource (:mod:`framework.apiserver.http.routing`), or ``404``;
4. the *body* is read, at most :data:`MAX_REQUEST_BODY_BYTES` (``413``
   beyond) within :data:`DEFAULT_REQUEST_TIMEOUT` seconds (``504`` after),
   and decoded by its content type (``415`` for one not read, ``400`` for
   malformed JSON);
5. the *verb* runs (:mod:`framework.apiserver.http.endpoints`); a watch streams instead.

Every error is a ``metav1.Status`` with the real server's code and reason.
A slow or silent client holds only its own connection's thread: a
connection that sends nothing for :data:`DEFAULT_READ_TIMEOUT` seconds is
dropped. A watch whose client closes its end is noticed within a quarter
of a second even when idle, and stopped (unregistered from the store).
A **watch** (``?watch=true``) answers ``200`` at once and then streams one
JSON object per line, ``{"type": "ADDED", "object": {...}}``, in chunked
encoding, until ``timeoutSeconds`` or the server stops. A watch from a
resourceVersion too old for the history gets, as from the real watch cache,
``200`` and a single ``ERROR`` event carrying the ``410 Expired`` Status;
one from a resourceVersion the store has not reached (a client resuming
from an earlier run) gets the ``504`` *Too large resource version* instead.
With ``allowWatchBookmarks``, an idle watch gets a ``BOOKMARK`` (an object
with only its ``resourceVersion``) every ``bookmark_interval`` seconds, so a
client resuming later need not replay what it has already seen.

Mirrors ``k8s.io/apiserver/pkg/server/filters`` and
``pkg/endpoints/filters`` (the handler chain: authentication, request info,
max in-flight), ``pkg/endpoints/handlers/watch.go`` (``serveWatch``) and
``pkg/storage/cacher/cacher.go`` (bookmarks), ``pkg/server/secure_serving.go``
(the read timeout) and ``pkg/server/filters/timeout.go`` (504). Simplified: plain HTTP on
loopback unless given a certificate (no client certificates); one static
bearer token, no RBAC;
no priority and fairness (a cap on connections, :data:`DEFAULT_MAX_CONNECTIONS`,
stands in for max in-flight; past it, ``429`` with ``Retry-After``); the
read timeout bounds each read and, as Go's ``ReadHeaderTimeout``, the whole
of a request's line and headers;
``/openapi/v3`` is a skeleton that tells
``kubectl apply`` the server validates fields itself (it then sends
``fieldValidation=Strict``), and there is no ``/openapi/v2``
(kubectl falls back to its built-in types for strategic merge patches).
"""

from __future__ import annotations

import contextlib
import hmac
import http
import json
import select
import socket
import ssl
import threading
import time
import unicodedata
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from framework.apiserver.errors import (
    APIError,
    BadRequest,
    Expired,
    InternalError,
    ResourceVersionTooLarge,
    Timeout,
)
from framework.apiserver.http import endpoints, resources
from framework.apiserver.http.endpoints import (
    BODY_TYPES,
    encode_for,
    include_object,
    parse_bool,
    wants_table,
    watch_params,
)
from framework.apiserver.http.patch import PATCH_TYPES
from framework.apiserver.http.routing import Route, parse_path
from framework.apiserver.http.serializer import decode_body
from framework.apiserver.http.statuses import (
    BodyTooLarge,
    MethodNotSupported,
    PathNotFound,
    Unauthorized,
    UnsupportedMediaType,
)
from framework.apiserver.http.tables import to_table
from framework.apiserver.store import MAX_OBJECT_BYTES, APIServer
from framework.apiserver.watch import Watch, parse_resource_version
from framework.clock import Clock, RealClock

__all__ = [
    "DEFAULT_BOOKMARK_INTERVAL",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_READ_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "MAX_REQUEST_BODY_BYTES",
    "APIHTTPServer",
]

MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024
"""Bodies larger than this are refused with 413 (3 MiB, the API server's limit, etcd's default)."""

DEFAULT_BOOKMARK_INTERVAL = 60.0
"""How many seconds an idle watch waits for a BOOKMARK (the cacher's ``bookmarkFrequency``)."""

DEFAULT_READ_TIMEOUT = 32.0
"""Seconds a connection may send nothing before it is dropped (kube-apiserver's ``ReadHeaderTimeout``)."""

DEFAULT_MAX_CONNECTIONS = 600
"""Connections served at once; past it, ``429`` with ``Retry-After: 1``.

kube-apiserver's ``--max-requests-inflight`` (400) and
``--max-mutating-requests-inflight`` (200) together. The real filter counts
requests and leaves long-running ones (watches) out; this server has a
thread per connection, so it counts connections, watches included."""

DEFAULT_REQUEST_TIMEOUT = 60.0
"""Seconds a request body may take to arrive before ``504 Timeout`` (``--request-timeout``)."""

#: What the request-timeout filter answers (``k8s.io/apiserver/pkg/server/filters/timeout.go``).
MSG_REQUEST_TIMEOUT = (
    "request did not complete within requested timeout - context deadline exceeded"
)

#: How long a refused request's unread body is drained before the connection closes.
LINGER_SECONDS = 2.0

_VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _authenticated(header: str | None, token: str) -> bool:
    """Whether ``Authorization`` carries ``token`` as ``bearertoken.go`` reads it.

    The scheme is case-insensitive and anything after the token is ignored;
    the token is compared in constant time, so timing tells nothing of it.
    """
    parts = (header or "").strip().split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer" or not parts[1]:
        return False
    return hmac.compare_digest(parts[1].encode(), token.encode())


def _media_type(header: str | None) -> str:
    return (header or "").split(";")[0].strip().lower()


class APIRequestHandler(BaseHTTPRequestHandler):
    """One connection's requests, served one after another (HTTP/1.1 keep-alive)."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.owner.verbose:
            super().log_message(format, *args)

    def send_response(self, code: int, message: str | None = None) -> None:
        # Go's net/http sends no Server header; the standard library's names Python's version.
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Date", self.date_time_string())

    def send_error(
        self, code: int, message: str | None = None, explain: str | None = None
    ) -> None:
        """What the standard library answers itself (a request line or headers it cannot read,
        a URI too long), as a Status instead of an HTML page."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9" or not self.request_version.startswith("HTTP/"):
            self.request_version = "HTTP/1.1"  # else no status line would be written at all
        phrase = http.HTTPStatus(code).phrase
        status = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message or phrase,
            "reason": {400: "BadRequest"}.get(code, phrase.replace(" ", "").replace("-", "")),
            "code": code,
        }
        with contextlib.suppress(OSError):
            self._send(code, status)

    def setup(self) -> None:
        # Every read and write on the connection gives up after this long: a silent
        # client holds its own thread, never the server, and not forever.
        super().setup()
        self.connection.settimeout(self.server.owner.read_timeout)
        # Headers and body go out in two writes; without this, Nagle's algorithm holds the
        # body until the client's delayed ACK (40 ms a response). Go sets it on every conn.
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._refused_unread = False  # a body was refused unread: linger before closing
        self._header_timer: threading.Timer | None = None
        self._over_limit = not self.server.owner._track(self.connection, True)

    def handle(self) -> None:
        if self._over_limit:
            self._refuse_too_many()
            return
        super().handle()

    def _refuse_too_many(self) -> None:
        """429 with ``Retry-After`` before reading anything: the max-in-flight filter's answer."""
        self.request_version, self.close_connection = "HTTP/1.1", True
        self.requestline, self.command = "", ""  # nothing was read: for the access log
        status = TooManyRequests().to_status()
        data = json.dumps(status).encode()
        with contextlib.suppress(OSError):
            self.send_response(429)
            self.send_header("Content-Type", "application/json")
            self.send_header("Retry-After", "1")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        self._refused_unread = True  # its request was never read: drain it before closing

    def handle_one_request(self) -> None:
        # The request line and headers must all arrive within read_timeout (Go's
        # ReadHeaderTimeout), not merely each byte: a client trickling a header byte every
        # few seconds would otherwise hold its connection forever.
        timer = threading.Timer(self.server.owner.read_timeout, self._headers_too_slow)
        timer.daemon = True
        self._header_timer = timer
        timer.start()
        try:
            super().handle_one_request()
        except ConnectionError:
            # The client reset the connection between requests (or mid-answer, after the
            # handler's own guard): nothing is left to answer, and it is no server error.
            self.close_connection = True
        finally:
            timer.cancel()

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        if self._header_timer is not None:
            self._header_timer.cancel()  # the headers are in: the body has its own deadline
        return parsed

    def _headers_too_slow(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)  # the blocked read returns at once

    def finish(self) -> None:
        self.server.owner._track(self.connection, False)
        super().finish()
        if self._refused_unread:
            self._linger()

    def _linger(self) -> None:
        """Read off (and drop) a refused body before closing, for a while.

        Closing a socket with unread bytes makes the kernel answer with a
        reset, and a client still sending its body would lose the 413
        already written to it. So: end our side, then drain until the client
        stops, or :data:`LINGER_SECONDS` pass (Go's ``closeWriteAndWait``
        waits in the same way).
        """
        deadline = time.monotonic() + LINGER_SECONDS
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_WR)
            while (left := deadline - time.monotonic()) > 0:
                self.connection.settimeout(left)
                if not self.connection.recv(65536):
                    break

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def do_HEAD(self) -> None:
        self._serve("HEAD")

    def do_OPTIONS(self) -> None:
        self._serve("OPTIONS")

    def __getattr__(self, name: str) -> Any:
        # Any other method (``do_FOO``) is a verb no resource takes: 405, as a Status.
        if name.startswith("do_"):
            return lambda: self._serve(name[3:])
        raise AttributeError(name)

    # --- the chain ---

    def _serve(self, method: str) -> None:
        owner = self.server.owner
        self._consumed = False  # whether this request's body has been read off the connection
        try:
            token = owner.token
            if token is not None and not _authenticated(self.headers.get("Authorization"), token):
                raise Unauthorized()
            if owner.on_request is not None:
                owner.on_request(method, self.path)
            if not self.path.startswith("/"):
                raise PathNotFound()  # `GET *`, `OPTIONS *`, `CONNECT host:port`: no path, no resource
            url = urlsplit(self.path)
            query = dict(parse_qsl(url.query, keep_blank_values=True))
            document = self._discovery(url.path)
            if document is not None:
                if method != "GET":
                    raise MethodNotSupported(url.path, method.lower())
                self._send(200, document)
                return
            route = parse_path(url.path)
            if method not in _VERBS:
                raise MethodNotSupported(route.resource.plural, method.lower())
            if method == "GET" and parse_bool(query.get("watch")):
                as_table = wants_table(self.headers.get("Accept") or "")
                self._watch(route, query, (include_object(query),) if as_table else ())
                return
            body = self._body(method)
            response = endpoints.handle(
                owner.api,
                method,
                route,
                query,
                body,
                content_type=_media_type(self.headers.get("Content-Type")) or "application/json",
                accept=self.headers.get("Accept") or "application/json",
                now=owner.clock.now(),
            )
            self._send(response.code, response.body, response.warnings)
        except APIError as error:
            if not self._consumed:
                self._discard_body()  # else it would be read as the next request on this connection
            self._send(error.code, error.to_status())
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except TimeoutError:
            # The body stopped arriving; what is left of it cannot be told from the next request.
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._send(504, Timeout(MSG_REQUEST_TIMEOUT).to_status())
        except Exception as exc:  # a bug here must fail one request, never the server
            self.close_connection = True
            self._send(500, InternalError(f"{type(exc).__name__}: {exc}").to_status())

    def _discovery(self, path: str) -> Any:
        path = path.rstrip("/") or "/"
        if path in ("/healthz", "/livez", "/readyz"):
            return "ok"
        if path == "/version":
            return dict(resources.VERSION_INFO)
        if path == "/api":
            return resources.api_versions()
        if path == "/apis":
            return resources.api_group_list()
        if path == "/openapi/v3":
            return resources.openapi_v3_root()
        if path.startswith("/openapi/v3/"):
            spec = resources.openapi_v3_group_version(path[len("/openapi/v3/") :])
            return spec or _raise(PathNotFound())
        if path == "/api/v1":
            return resources.api_resource_list("", "v1")
        parts = path.split("/")[1:]
        if parts[0] == "apis" and len(parts) == 2:
            return resources.api_group(parts[1]) or _raise(PathNotFound())
        if parts[0] == "apis" and len(parts) == 3:
            return resources.api_resource_list(parts[1], parts[2]) or _raise(PathNotFound())
        return None

    def _body(self, method: str) -> Any:
        raw = self._read_body()
        if method in ("GET", "DELETE") and not raw.strip():
            return None
        media = _media_type(self.headers.get("Content-Type")) or "application/json"
        accepted = PATCH_TYPES if method == "PATCH" else BODY_TYPES
        if media not in accepted:  # a DELETE's DeleteOptions too
            raise UnsupportedMediaType(accepted)
        return decode_body(raw, media)

    def _read_body(self) -> bytes:
        self._consumed = True
        limit = self.server.owner.max_body_bytes
        length = self.headers.get("Content-Length")
        encoding = self.headers.get("Transfer-Encoding")
        if encoding is not None and encoding.strip().lower() != "chunked":
            self.close_connection = True  # where this body ends cannot be known
            raise NotImplementedTransferEncoding(encoding)
        if encoding is not None:
            return self._read_chunked(limit)
        if len(set(self.headers.get_all("Content-Length") or ())) > 1:
            self.close_connection = True
            raise BadRequest("the request has two different Content-Length headers")
        if length is not None and not (length.isascii() and length.isdigit()):
            self.close_connection = True  # where this body ends cannot be known
            raise BadRequest(f'invalid Content-Length "{length}"')
        size = int(length) if length else 0
        if size > limit:
            self.close_connection = True  # the unread body would be taken for the next request
            self._refused_unread = True
            raise BodyTooLarge(limit)
        return self._read_exactly(size, time.monotonic() + self.server.owner.request_timeout)

    def _read_exactly(self, size: int, deadline: float) -> bytes:
        """``size`` bytes of body, or :class:`TimeoutError` once ``deadline`` passes.

        One read at a time, each allowed only the time left, so a client that
        trickles its body a byte at a time is cut off at the deadline too.
        """
        data = bytearray()
        try:
            while len(data) < size:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                self.connection.settimeout(min(left, self.server.owner.read_timeout))
                piece = self.rfile.read1(size - len(data))
                if not piece:
                    raise ConnectionResetError  # the client went away mid-body
                data += piece
        finally:
            self.connection.settimeout(self.server.owner.read_timeout)
        return bytes(data)

    def _read_chunked(self, limit: int) -> bytes:
        data = bytearray()
        deadline = time.monotonic() + self.server.owner.request_timeout
        while True:
            line = self.rfile.readline(1024).split(b";")[0].strip()
            try:
                size = int(line or b"0", 16)
            except ValueError:
                self.close_connection = True
                raise BadRequest(f"invalid chunk size {line[:32]!r} in a chunked body") from None
            if size == 0:
                self.rfile.readline()
                return bytes(data)
            if len(data) + size > limit:
                self.close_connection = True
                self._refused_unread = True
                raise BodyTooLarge(limit)
            data += self._read_exactly(size, deadline)
            self.rfile.readline()
            if time.monotonic() > deadline:
                raise TimeoutError

    def _discard_body(self) -> None:
        self._consumed = True
        length = self.headers.get("Content-Length")
        owner = self.server.owner
        if length and length.isdigit() and int(length) <= owner.max_body_bytes:
            try:
                self._read_exactly(int(length), time.monotonic() + owner.request_timeout)
            except (TimeoutError, ConnectionResetError):
                self.close_connection = True
        elif length or self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            self._refused_unread = True

    def _send(self, code: int, body: Any, warnings: tuple[str, ...] = ()) -> None:
        if isinstance(body, str):
            data, media = body.encode(), "text/plain; charset=utf-8"
        else:
            data, media = json.dumps(body).encode(), "application/json"
        self.send_response(code)
        self.send_header("Content-Type", media)
        for text in warnings:
            header = warning_header(text)
            if header is not None:
                # Go writes header bytes as they are (UTF-8); send_header would insist on latin-1.
                self._headers_buffer.append(b"Warning: " + header.encode() + b"\r\n")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    # --- watches ---

    def _watch(self, route: Route, query: dict[str, str], as_table: tuple[str, ...] = ()) -> None:
        """Stream the watch; with ``as_table`` (the includeObject policy), each object as a Table."""
        owner = self.server.owner
        self._as_table, self._route = as_table, route
        params = watch_params(query)
        kind = route.resource.kind
        error: APIError
        requested = parse_resource_version(params.resource_version or None)
        current = int(owner.api.current_resource_version())
        try:
            if requested is not None and requested > current:
                # The watch cache waits up to 3 s (blockTimeout) for a version it has not
                # reached, then errs; a store that is its only writer never gets there, so
                # it errs at once. A client resuming from an earlier run meets this.
                raise ResourceVersionTooLarge(requested, current)
            watch: Watch | None = owner.api.watch(
                kind,
                params.resource_version or None,
                namespace=route.namespace,
                label_selector=params.label_selector,
                field_selector=params.field_selector,
            )
        except (Expired, ResourceVersionTooLarge) as refused:
            watch = None
            error = refused
        if watch is None:
            self._start_stream()
            self._chunk({"type": "ERROR", "object": error.to_status()})
            self._end_chunks()
            return
        # From here on the watch is registered: every way out must stop it, or it leaks.
        owner._watches_opened(watch, True)
        try:
            self._start_stream()
            self._stream(watch, params.timeout_seconds, params.allow_bookmarks, kind)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True
        finally:
            watch.stop()
            owner._watches_opened(watch, False)

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _stream(self, watch: Watch, timeout: float, bookmarks: bool, kind: Any) -> None:
        owner = self.server.owner
        deadline = time.monotonic() + timeout
        idle_since = time.monotonic()
        while not watch.stopped:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            event = watch.next(timeout=min(remaining, 0.25))
            if event is not None:
                self._chunk({"type": event.type, "object": self._render(event.object)})
                idle_since = time.monotonic()
                continue
            if self._client_gone():
                self.close_connection = True
                return  # the caller stops the watch, which unregisters it
            if bookmarks and time.monotonic() - idle_since >= owner.bookmark_interval:
                # Read the version first: every change up to it was queued before it was read.
                version = owner.api.current_resource_version()
                ready = watch.drain()
                for queued in ready:
                    self._chunk({"type": queued.type, "object": self._render(queued.object)})
                if not ready:
                    marker = {
                        "kind": kind.KIND,
                        "apiVersion": self._route.resource.group_version,
                        "metadata": {"resourceVersion": version},
                    }
                    self._chunk({"type": "BOOKMARK", "object": marker})
                idle_since = time.monotonic()
        self._end_chunks()

    def _render(self, obj: Any) -> Any:
        """An event's object: itself, or (``as=Table``) a one-row Table, as a Table watch sends."""
        if not self._as_table:
            return encode_for(self._route, obj)
        now = self.server.owner.clock.now()
        version = obj.metadata.resource_version
        return to_table(type(obj), [obj], version, now, self._as_table[0])

    def _client_gone(self) -> bool:
        """Whether the client of this (idle) watch has closed its end.

        A watch only writes, so a closed peer shows only when a write fails,
        which on an idle watch may be never. A watch client sends nothing
        after its request: the socket turning readable means it closed (end
        of stream), unless a peek finds bytes there (a pipelined request).
        """
        conn = self.connection
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            return False
        if isinstance(conn, ssl.SSLSocket):
            return True  # TLS cannot peek; a close_notify or end of stream is what arrives
        try:
            return bool(conn.recv(1, socket.MSG_PEEK) == b"")
        except OSError:
            return True

    def _chunk(self, event: Any) -> None:
        data = json.dumps(event).encode() + b"\n"
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class TooManyRequests(APIError):
    """429: the server is serving as many connections as it may (``NewTooManyRequests``)."""

    code = 429
    reason = "TooManyRequests"

    def __init__(self) -> None:
        super().__init__("Too many requests, please try again later.", {"retryAfterSeconds": 1})


class NotImplementedTransferEncoding(APIError):
    """501: a ``Transfer-Encoding`` other than chunked (Go's ``unsupportedTEError``)."""

    code = 501
    reason = "NotImplemented"

    def __init__(self, encoding: str) -> None:
        super().__init__(f'unsupported transfer encoding: "{encoding}"')


def _raise(error: APIError) -> Any:
    raise error


class _Server(ThreadingHTTPServer):
    # Handler threads are joined by server_close(): stop() leaves no thread behind.
    daemon_threads = False
    block_on_close = True
    # socketserver's default backlog is 5: a burst of clients connecting at once would
    # overflow it, and the kernel drop their handshakes. Go listens with the system's maximum.
    request_queue_size = socket.SOMAXCONN
    owner: APIHTTPServer


class APIHTTPServer:
    """An :class:`~framework.apiserver.APIServer` served over HTTP on ``host:port``.

    ``port=0`` picks a free port (read :attr:`port` or :attr:`url`). Only
    loopback by default. ``token`` turns on bearer-token authentication;
    ``tls_cert_file`` and ``tls_private_key_file`` (PEM, as kube-apiserver's
    flags of those names) serve HTTPS, which kubectl needs before it will
    send a token. ``on_request(method, path_and_query)``, if given, is called
    for every authenticated request before it is served (an audit hook: the
    RBAC test records the adapter's requests with it).
    ``read_timeout`` is how long a connection may stay silent before it is
    dropped, ``request_timeout`` how long a request body may take to arrive
    before ``504`` (kube-apiserver's 32 s and 60 s by default); the request
    line and headers together must arrive within ``read_timeout`` too.
    ``max_connections`` caps the connections served at once (``429`` past it).
    Serving ``api`` turns on its object limit (``max_object_bytes``, etcd's
    1.5 MiB by default) unless it has one: every write is then encoded before
    it is committed.
    :meth:`start` serves on a thread of its own; :meth:`stop` ends every
    open watch, closes every connection and joins the threads.
    """

    def __init__(
        self,
        api: APIServer,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        max_body_bytes: int = MAX_REQUEST_BODY_BYTES,
        bookmark_interval: float = DEFAULT_BOOKMARK_INTERVAL,
        clock: Clock | None = None,
        verbose: bool = False,
        tls_cert_file: str | None = None,
        tls_private_key_file: str | None = None,
        on_request: Callable[[str, str], None] | None = None,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        max_object_bytes: int = MAX_OBJECT_BYTES,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
    ) -> None:
        self.max_connections = max_connections
        if api.max_object_bytes is None:
            # What a client stores must be something every other client can read back.
            api.max_object_bytes = max_object_bytes
        self.api = api
        self.token = token
        self.max_body_bytes = max_body_bytes
        self.bookmark_interval = bookmark_interval
        self.clock: Clock = clock or RealClock()
        self.verbose = verbose
        self.on_request = on_request
        self.read_timeout = read_timeout
        self.request_timeout = request_timeout
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._watches: set[Watch] = set()
        self._httpd = _Server((host, port), APIRequestHandler)
        self._httpd.owner = self
        self.tls = tls_cert_file is not None
        if tls_cert_file is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls_cert_file, tls_private_key_file)
            # The handshake happens on the connection's own thread, not in the accept loop.
            self._httpd.socket = context.wrap_socket(
                self._httpd.socket, server_side=True, do_handshake_on_connect=False
            )
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._httpd.server_address[0])

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    def start(self) -> APIHTTPServer:
        """Serve on a background thread; return self."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="apiserver-http", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: end the watches, close the connections, join the threads."""
        if self._thread is not None:  # shutdown() waits for a serve_forever that never started
            self._httpd.shutdown()
        with self._lock:
            watches, connections = list(self._watches), list(self._connections)
        for watch in watches:
            watch.stop()
        for conn in connections:
            with contextlib.suppress(OSError):  # the client may have closed it already
                conn.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def open_watches(self) -> int:
        """How many watches are streaming now (for tests and shutdown)."""
        with self._lock:
            return len(self._watches)

    def open_connections(self) -> int:
        """How many client connections have a handler thread now (for tests)."""
        with self._lock:
            return len(self._connections)

    def _track(self, conn: socket.socket, open_: bool) -> bool:
        """Count a connection in or out; False if opening it goes past ``max_connections``."""
        with self._lock:
            if not open_:
                self._connections.discard(conn)
                return True
            self._connections.add(conn)
            return len(self._connections) <= self.max_connections

    def _watches_opened(self, watch: Watch, open_: bool) -> None:
        with self._lock:
            (self._watches.add if open_ else self._watches.discard)(watch)

    def __enter__(self) -> APIHTTPServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def warning_header(text: str) -> str | None:
    """The ``Warning`` header for ``text``, or None when kube would drop it.

    Mirrors ``NewWarningHeader`` in k8s.io/apimachinery/pkg/util/net/http.go: RFC 7234
    warn-code 299 with the unknown agent ``-``, the text quoted with ``\\`` and ``"`` escaped.
    A text with a control character is refused there, and the warning recorder
    (k8s.io/apiserver/pkg/endpoints/filters/warning.go) then drops it; a raw CR or LF in a
    header would otherwise end the header early and leave the client waiting for a body.
    """
    # Cc is Go's unicode.IsControl; Cs (a lone surrogate from JSON) is not valid UTF-8.
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in text):
        return None
    return '299 - "' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
