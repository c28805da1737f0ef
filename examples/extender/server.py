"""The example rule as a scheduler extender: a small web service kube-scheduler calls over HTTP.

Run it, then point a scheduler configuration at it::

    python -m examples.extender.server --port 8888

    extenders:
    - urlPrefix: http://127.0.0.1:8888
      filterVerb: filter
      prioritizeVerb: prioritize
      weight: 1

``POST /filter`` receives the pod and the candidate Nodes
(``ExtenderArgs``) and answers the nodes that pass and why the others do
not (``ExtenderFilterResult``); ``POST /prioritize`` answers a score from
0 to 10 per node (``HostPriorityList``). The JSON keys are Go's field
names, ``Nodes``, ``FailedNodes``, ``Host``...; see
:mod:`framework.extender.types`. Nothing here imports the scheduler: an
extender is a program of its own, in any language.

Not a Kubernetes program: an example of the protocol of
``k8s.io/kube-scheduler/extender/v1`` (v1.33).
"""

from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from examples.extender.rule import prefers, rejects

__all__ = ["filter_nodes", "make_server", "prioritize_nodes"]


def _labels(node: dict[str, Any]) -> dict[str, str]:
    return node.get("metadata", {}).get("labels") or {}


# [start-extender-verbs]
def filter_nodes(args: dict[str, Any]) -> dict[str, Any]:
    """``/filter``: keep the nodes the rule accepts; say why each other one cannot do.

    A draining node will not stop draining if pods are preempted from it,
    so it goes in ``FailedAndUnresolvableNodes`` rather than ``FailedNodes``.
    """
    passed, failed = [], {}
    for node in (args.get("Nodes") or {}).get("items") or []:
        reason = rejects(_labels(node))
        if reason is None:
            passed.append(node)
        else:
            failed[node["metadata"]["name"]] = reason
    return {
        "Nodes": {"metadata": {}, "items": passed},
        "FailedNodes": {},
        "FailedAndUnresolvableNodes": failed,
        "Error": "",
    }


def prioritize_nodes(args: dict[str, Any]) -> list[dict[str, Any]]:
    """``/prioritize``: 10 for a preferred node, 0 for the others."""
    return [
        {"Host": node["metadata"]["name"], "Score": 10 if prefers(_labels(node)) else 0}
        for node in (args.get("Nodes") or {}).get("items") or []
    ]


# [end-extender-verbs]

_VERBS = {"/filter": filter_nodes, "/prioritize": prioritize_nodes}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one connection per scheduler thread
    disable_nagle_algorithm = True  # else each answer waits ~40 ms for the client's delayed ACK

    def do_POST(self) -> None:
        verb = _VERBS.get(self.path)
        if verb is None:
            self.send_error(404)
            return
        args = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps(verb(args)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per call would drown the scheduler's output


def make_server(host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """The extender, listening (port 0: any free port); call ``serve_forever()`` to run it."""
    server = ThreadingHTTPServer((host, port), _Handler)
    server.daemon_threads = True
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description="The example scheduler extender.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8888)
    options = parser.parse_args()
    server = make_server(options.host, options.port)
    print(f"extender listening on http://{options.host}:{server.server_address[1]}")
    server.serve_forever()


if __name__ == "__main__":
    main()
