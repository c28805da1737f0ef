"""A scheduler extender on loopback whose verbs are Python functions, for the extender tests.

Each verb answers with what its function returns (as JSON, status 200), or
with the status in ``statuses``. ``requests`` records every call, decoded.
A verb in ``hold`` waits on ``release`` before answering: the timeout tests
set a short ``httpTimeout`` and never release it (a stuck extender, without
a sleep).
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.scheduler.helpers import HANG_GUARD


class FakeExtender:
    def __init__(self, tls: tuple[str, str] | None = None, **verbs: Callable[[Any], Any]) -> None:
        self.verbs = dict(verbs)
        self.statuses: dict[str, int] = {}
        self.hold: set[str] = set()
        self.release = threading.Event()
        self.requests: list[tuple[str, Any]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                verb = self.path.rsplit("/", 1)[-1]
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake._lock:
                    fake.requests.append((verb, body))
                if verb in fake.hold:
                    fake.release.wait(HANG_GUARD)
                status = fake.statuses.get(verb, 200 if verb in fake.verbs else 404)
                answer = json.dumps(fake.verbs[verb](body) if status == 200 else {}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # A client that gave up (the timeout tests) leaves a broken pipe: not worth a traceback.
        self.server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        scheme = "http"
        if tls is not None:  # (certificate file, key file)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def calls(self, verb: str) -> list[Any]:
        with self._lock:
            return [body for v, body in self.requests if v == verb]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def closed_port_url() -> str:
    """The URL of a loopback port nothing listens on (an extender that is down)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = server.server_address[1]
    server.server_close()
    return f"http://127.0.0.1:{port}"
