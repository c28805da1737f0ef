"""Bounded soak: create and delete large pods over HTTP many times; memory comes back.

kube-apiserver keeps a bounded watch history (``storage/cacher/watch_cache.go``)
and drops what is deleted; here the history is bounded in bytes too
(:data:`~framework.apiserver.store.DEFAULT_WATCH_WINDOW_BYTES` per kind), so
after any number of create/delete cycles of 250 KiB pods the process holds
at most about that much more than before. RSS is read from
``/proc/self/status`` (Linux); the figures are printed for
``docs/reliability.md``.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.apiserver.store import DEFAULT_WATCH_WINDOW_BYTES
from framework.clock import RealClock
from framework.objects import Pod
from tests.reliability.conftest import Numbers
from tests.serve.helpers import request
from tests.serve.test_hostile import JSON, PODS

CYCLES = 800
ANNOTATION = 250 * 1024  # within the 256 KiB annotations limit
MIB = 1024 * 1024


def rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")  # pragma: no cover


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
def test_rss_returns_within_the_watch_budget_after_many_large_create_delete_cycles(
    numbers: Numbers,
) -> None:
    api = APIServer(RealClock())
    with APIHTTPServer(api) as server:
        body = lambda i: json.dumps(  # noqa: E731
            {
                "metadata": {"name": f"big-{i}", "annotations": {"x": "y" * ANNOTATION}},
                "spec": {"containers": [{"name": "app", "image": "nginx"}]},
            }
        )
        for i in range(10):  # warm up: threads, caches, the first allocations
            assert request(server.url, "POST", PODS, body(i), JSON)[0] == 201
            assert request(server.url, "DELETE", f"{PODS}/big-{i}")[0] == 200
        gc.collect()
        before = rss()
        for i in range(10, 10 + CYCLES):
            assert request(server.url, "POST", PODS, body(i), JSON)[0] == 201
            assert request(server.url, "DELETE", f"{PODS}/big-{i}")[0] == 200
        gc.collect()
        after = rss()
        kept, kept_bytes = api.watch_history(Pod)
    numbers(
        "bounded soak",
        {
            "create/delete cycles of 250 KiB pods": CYCLES,
            "RSS before (MiB)": round(before / MIB, 1),
            "RSS after (MiB)": round(after / MIB, 1),
            "growth (MiB)": round((after - before) / MIB, 1),
            "pod changes kept in the watch history": kept,
            "their bytes (MiB)": round(kept_bytes / MIB, 1),
        },
    )
    assert kept_bytes <= DEFAULT_WATCH_WINDOW_BYTES
    assert after - before <= DEFAULT_WATCH_WINDOW_BYTES + 32 * MIB
