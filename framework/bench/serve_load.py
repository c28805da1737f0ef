"""``python -m framework bench serve-load``: many clients at once against ``serve``, and nothing lost.

A load test of the HTTP face (:class:`~framework.apiserver.http.APIHTTPServer`)
on loopback. ``clients`` threads, each on its own keep-alive connection, share
``requests`` requests between them, mixed at random (seeded): creates of
pods, binds of pods any client created (so two clients often bind the same
pod: the second must get ``409 Conflict``), gets and lists. Meanwhile
``watchers`` watch every pod from the version the run starts at, and
``late_watchers`` open their watches part way through, from a version read
with a list, so their first events are a replay.

What it reports: requests per second over the run, p50 and p99 latency per
kind of request (including a watch's time to its first byte), and the
checks that must hold whatever the speed:

* every bind is applied **exactly once**: for each pod, one ``201`` at most,
  every other attempt ``409``, and the stored pod on the node of that ``201``;
* every watcher sees **each event exactly once, in strictly increasing
  resourceVersion order**, and the same events as an in-process watch on
  the store from the same version (one ADDED per create, one MODIFIED per bind);
* no request failed in any other way, and no watcher is left registered.

The figures are the machine's and the moment's: clients and server share
one Python process (and its interpreter lock), so they are a floor for the
server, not a measure of it. Only the checks are asserted in CI.

No Kubernetes counterpart: kube-apiserver's load is measured by
``clusterloader2``'s ``load`` test, which also checks watch and API call
latency SLOs; this is its idea, scaled to a laptop.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.clock import RealClock
from framework.objects import Node, Pod

__all__ = ["ServeLoadResult", "format_serve_load", "main", "run_serve_load"]

NAME = "serve-load"
"""The pseudo-workload that ``python -m framework bench`` runs this for."""

_NODES = 8
_MIX = (("create", 4), ("bind", 4), ("get", 1), ("list", 1))
_GUARD = 60.0  # seconds any one socket read may block before the run is declared broken


@dataclass(frozen=True, slots=True)
class ServeLoadResult:
    """One run's figures and checks; ``ok`` is whether every check held."""

    clients: int
    requests: int
    watchers: int
    seconds: float
    requests_per_second: float
    latency_ms: Mapping[str, Mapping[str, float]]
    codes: Mapping[str, Mapping[int, int]]
    checks: Mapping[str, bool]
    counts: Mapping[str, int]
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(self.checks.values()) and not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "clients": self.clients,
            "requests": self.requests,
            "watchers": self.watchers,
            "seconds": round(self.seconds, 3),
            "requests_per_second": round(self.requests_per_second, 1),
            "latency_ms": {k: dict(v) for k, v in self.latency_ms.items()},
            "codes": {k: {str(c): n for c, n in v.items()} for k, v in self.codes.items()},
            "checks": dict(self.checks),
            "counts": dict(self.counts),
            "problems": list(self.problems),
            "ok": self.ok,
        }


def _percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * len(sorted_values)) - 1))
    return sorted_values[index]


@dataclass
class _Shared:
    """What the client threads share: the pods created so far and every answer."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    pods: list[str] = field(default_factory=list)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    codes: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    bound: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    refused_binds: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def record(self, kind: str, code: int, seconds: float) -> None:
        with self.lock:
            self.latencies[kind].append(seconds)
            self.codes[kind][code] += 1


class _Watcher(threading.Thread):
    """A raw watch on every pod from ``resource_version``, read until ``until`` is reached."""

    def __init__(self, host: str, port: int, resource_version: str, shared: _Shared) -> None:
        super().__init__(name=f"watch-from-{resource_version}", daemon=True)
        self.resource_version = resource_version
        self.events: list[tuple[str, str, int]] = []
        self.opened = threading.Event()
        self.until: int | None = None
        self._reached = threading.Event()
        self._closing = False
        self._conn = http.client.HTTPConnection(host, port, timeout=_GUARD)
        self._shared = shared

    def finish(self, resource_version: int) -> bool:
        """Close once the event at ``resource_version`` has been read; whether it was in time."""
        self.until = resource_version
        if self.events and self.events[-1][2] >= resource_version:
            self._reached.set()
        reached = self._reached.wait(_GUARD)
        self._closing = True
        if self._conn.sock is not None:  # unblock a read waiting for an event that will not come
            with contextlib.suppress(OSError):
                self._conn.sock.shutdown(socket.SHUT_RDWR)
        return reached

    def run(self) -> None:
        conn = self._conn
        try:
            start = time.perf_counter()
            conn.request("GET", f"/api/v1/pods?watch=true&resourceVersion={self.resource_version}")
            response = conn.getresponse()
            self._shared.record("watch", response.status, time.perf_counter() - start)
            self.opened.set()
            while True:
                line = response.readline()
                if not line:
                    break
                event = json.loads(line)
                meta = event["object"]["metadata"]
                rv = int(meta["resourceVersion"])
                self.events.append((event["type"], meta["name"], rv))
                if self.until is not None and rv >= self.until:
                    self._reached.set()
                    break
        except (OSError, ValueError, KeyError, http.client.HTTPException) as exc:
            if not self._closing:
                with self._shared.lock:
                    self._shared.problems.append(f"watcher from {self.resource_version}: {exc!r}")
        finally:
            self.opened.set()
            conn.close()


def _client(
    host: str,
    port: int,
    number: int,
    count: int,
    seed: int,
    shared: _Shared,
    start: threading.Barrier,
    late: list[_Watcher],
) -> None:
    rng = random.Random(seed * 1000 + number)
    kinds = [k for k, weight in _MIX for _ in range(weight)]
    conn = http.client.HTTPConnection(host, port, timeout=_GUARD)
    json_header = {"Content-Type": "application/json"}

    def call(kind: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        began = time.perf_counter()
        conn.request(method, path, body=data, headers=json_header if data else {})
        response = conn.getresponse()
        raw = response.read()
        shared.record(kind, response.status, time.perf_counter() - began)
        return response.status, json.loads(raw) if raw else None

    start.wait()
    try:
        for i in range(count):
            kind = rng.choice(kinds)
            # Client 0 lists at a third and two thirds of its run, and watches from there.
            opens_watch = number == 0 and i in (count // 3, 2 * count // 3)
            if opens_watch:
                kind = "list"
            with shared.lock:
                candidates = len(shared.pods)
            if kind in ("bind", "get") and candidates == 0:
                kind = "create"
            if kind == "create":
                name = f"c{number}-{i}"
                code, _ = call(
                    "create",
                    "POST",
                    "/api/v1/namespaces/default/pods",
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "metadata": {"name": name},
                        "spec": {"containers": [{"name": "app", "image": "pause"}]},
                    },
                )
                if code == 201:
                    with shared.lock:
                        shared.pods.append(name)
            elif kind == "bind":
                with shared.lock:
                    # The latest pods, where two clients are likeliest to race.
                    name = shared.pods[
                        rng.randrange(max(0, len(shared.pods) - 8), len(shared.pods))
                    ]
                node = f"node-{rng.randrange(_NODES)}"
                code, _ = call(
                    "bind",
                    "POST",
                    f"/api/v1/namespaces/default/pods/{name}/binding",
                    {
                        "apiVersion": "v1",
                        "kind": "Binding",
                        "metadata": {"name": name},
                        "target": {"kind": "Node", "name": node},
                    },
                )
                with shared.lock:
                    if code == 201:
                        shared.bound[name].append(node)
                    elif code == 409:
                        shared.refused_binds[name] += 1
            elif kind == "get":
                with shared.lock:
                    name = shared.pods[rng.randrange(len(shared.pods))]
                code, _ = call("get", "GET", f"/api/v1/namespaces/default/pods/{name}")
            else:
                code, listed = call("list", "GET", "/api/v1/pods")
                if opens_watch and code == 200:
                    watcher = _Watcher(host, port, listed["metadata"]["resourceVersion"], shared)
                    watcher.start()
                    watcher.opened.wait(_GUARD)
                    late.append(watcher)
            if code not in (200, 201, 409):
                with shared.lock:
                    shared.problems.append(f"client {number}: {kind} answered {code}")
    except (OSError, ValueError, http.client.HTTPException) as exc:
        with shared.lock:
            shared.problems.append(f"client {number}: {exc!r}")
    finally:
        conn.close()


def run_serve_load(
    clients: int = 16, requests: int = 2000, *, watchers: int = 4, seed: int = 0
) -> ServeLoadResult:
    """Serve a fresh store on loopback, load it, check it; return the figures and the checks."""
    if clients < 1 or requests < clients or watchers < 1:
        raise ValueError(
            f"want clients >= 1, requests >= clients and watchers >= 1 "
            f"(got {clients}, {requests}, {watchers})"
        )
    api = APIServer(RealClock())
    for n in range(_NODES):
        api.create(
            Node.from_dict(
                {
                    "metadata": {"name": f"node-{n}"},
                    "status": {"allocatable": {"cpu": "1000", "memory": "1Ti", "pods": "100000"}},
                }
            )
        )
    shared = _Shared()
    late: list[_Watcher] = []
    with APIHTTPServer(api, port=0, read_timeout=_GUARD) as server:
        host, port = server.host, server.port
        idle_watchers = api.watcher_count(Pod)
        start_rv = api.current_resource_version()
        reference = api.watch(Pod, start_rv)
        early = [_Watcher(host, port, start_rv, shared) for _ in range(watchers)]
        for watcher in early:
            watcher.start()
        for watcher in early:
            watcher.opened.wait(_GUARD)
        barrier = threading.Barrier(clients + 1)
        share, extra = divmod(requests, clients)
        threads = [
            threading.Thread(
                target=_client,
                args=(host, port, n, share + (n < extra), seed, shared, barrier, late),
                name=f"client-{n}",
            )
            for n in range(clients)
        ]
        for thread in threads:
            thread.start()
        barrier.wait()
        began = time.perf_counter()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - began
        final_rv = int(api.current_resource_version())
        every = early + late
        for watcher in every:
            if not watcher.finish(final_rv):
                shared.problems.append(f"watcher from {watcher.resource_version} stalled")
        for watcher in every:
            watcher.join(_GUARD)
        expected = [
            (e.type, e.object.metadata.name, int(e.resource_version)) for e in reference.drain()
        ]
        reference.stop()
        unregistered = _wait_for(lambda: api.watcher_count(Pod) == idle_watchers)
    checks, counts = _check(api, shared, expected, early, late)
    checks["no watcher left registered"] = unregistered
    done = sum(len(v) for k, v in shared.latencies.items() if k != "watch")
    latency = {
        kind: {
            "count": len(values),
            "p50": round(_percentile(sorted(values), 0.50) * 1000, 2),
            "p99": round(_percentile(sorted(values), 0.99) * 1000, 2),
        }
        for kind, values in sorted(shared.latencies.items())
    }
    return ServeLoadResult(
        clients=clients,
        requests=requests,
        watchers=len(early) + len(late),
        seconds=seconds,
        requests_per_second=done / seconds if seconds else 0.0,
        latency_ms=latency,
        codes={k: dict(v) for k, v in sorted(shared.codes.items())},
        checks=checks,
        counts=counts,
        problems=tuple(shared.problems),
    )


def _wait_for(condition: Any, timeout: float = _GUARD) -> bool:
    pause = threading.Event()
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.02)
    return True


def _check(
    api: APIServer,
    shared: _Shared,
    expected: list[tuple[str, str, int]],
    early: list[_Watcher],
    late: list[_Watcher],
) -> tuple[dict[str, bool], dict[str, int]]:
    stored = {p.metadata.name: p.spec.node_name for p in api.list(Pod, "default").items}
    created = len(shared.pods)
    binds = sum(len(nodes) for nodes in shared.bound.values())
    once = all(len(nodes) == 1 for nodes in shared.bound.values())
    applied = all(stored.get(name) == nodes[0] for name, nodes in shared.bound.items())
    unbound_stay_unbound = all(
        not node for name, node in stored.items() if name not in shared.bound
    )
    refused_only_bound = all(name in shared.bound for name in shared.refused_binds)
    kinds = Counter(t for t, _, _ in expected)
    checks = {
        "every bind applied exactly once": once and applied and unbound_stay_unbound,
        "every refused bind was of a bound pod (409)": refused_only_bound,
        "the store's events: one ADDED per create, one MODIFIED per bind": (
            kinds == Counter({"ADDED": created, "MODIFIED": binds})
        ),
    }
    in_order = exactly_once = same = True
    for watcher in early + late:
        versions = [rv for _, _, rv in watcher.events]
        in_order &= all(a < b for a, b in pairwise(versions))
        exactly_once &= len(set(watcher.events)) == len(watcher.events)
        since = int(watcher.resource_version)
        same &= watcher.events == [e for e in expected if e[2] > since]
    checks["watch events in strictly increasing resourceVersion order"] = in_order
    checks["each watch event delivered exactly once"] = exactly_once
    checks["each watcher saw exactly the store's events since its version"] = same
    counts = {
        "pods created": created,
        "binds applied": binds,
        "double binds refused (409)": sum(shared.refused_binds.values()),
        "watch events delivered": sum(len(w.events) for w in early + late),
        "late watchers (replay, then live)": len(late),
    }
    return checks, counts


def format_serve_load(result: ServeLoadResult) -> str:
    """The figures and checks as plain text."""
    from framework.bench.runner import machine_description

    machine = machine_description()
    lines = [
        f"machine: {machine['cpus']} CPUs, {machine['python']}, {machine['platform']}",
        f"serve-load: {result.clients} clients, {result.requests} requests, "
        f"{result.watchers} watchers, loopback, one process",
        f"  {result.requests_per_second:.0f} requests/s over {result.seconds:.2f}s",
        "",
        f"  {'request':<8} {'count':>6} {'p50 ms':>8} {'p99 ms':>8}  codes",
    ]
    for kind, figures in result.latency_ms.items():
        codes = ", ".join(f"{c}×{n}" for c, n in sorted(result.codes.get(kind, {}).items()))
        lines.append(
            f"  {kind:<8} {int(figures['count']):>6} {figures['p50']:>8.2f} "
            f"{figures['p99']:>8.2f}  {codes}"
        )
    lines.append("")
    for name, value in result.counts.items():
        lines.append(f"  {name}: {value}")
    for name, held in result.checks.items():
        lines.append(f"  [{'ok' if held else 'FAILED'}] {name}")
    for problem in result.problems:
        lines.append(f"  problem: {problem}")
    return "\n".join(lines) + "\n"


def main(clients: int, requests: int, seed: int, json_path: str | None) -> int:
    """Run, print, optionally write JSON; exit code 0 if every check held, 1 if not, 2 on bad input."""
    try:
        result = run_serve_load(clients, requests, seed=seed)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_serve_load(result), end="")
    if json_path:
        Path(json_path).write_text(json.dumps({NAME: result.to_json()}, indent=2) + "\n")
    return 0 if result.ok else 1
