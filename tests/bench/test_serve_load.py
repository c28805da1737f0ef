"""The HTTP load test at a small size: its correctness checks hold. Never a time.

What it checks comes from what the real server promises its clients:
a pod is bound once and a second Binding is ``409 Conflict``
(``kubernetes/kubernetes:pkg/registry/core/pod/storage/storage.go``,
``BindingREST.setPodNodeAndMetadata``: "pod %v is already assigned to
node %q"), and a watch delivers each change once, in resourceVersion order,
from where it started (``k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from framework.__main__ import main
from framework.bench.serve_load import format_serve_load, run_serve_load
from tests.reliability.conftest import report


def test_concurrent_creates_binds_and_watches_lose_nothing_and_repeat_nothing() -> None:
    result = run_serve_load(clients=8, requests=400, watchers=3, seed=1)
    assert result.problems == ()
    failed = [name for name, held in result.checks.items() if not held]
    assert failed == []
    assert result.ok
    # The run did what it is for: races on binds, and watchers joining late.
    assert result.counts["double binds refused (409)"] > 0
    assert result.counts["late watchers (replay, then live)"] == 2
    assert result.counts["watch events delivered"] > 0
    text = format_serve_load(result)
    assert "[FAILED]" not in text
    assert "requests/s" in text
    report(
        "serve load (HTTP, loopback)",
        {"clients": result.clients, "requests": result.requests, **result.counts},
    )


def test_bench_serve_load_prints_the_checks_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "load.json"
    code = main(["bench", "serve-load", "--clients", "4", "--requests", "80", "--json", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "[ok] every bind applied exactly once" in printed
    document = json.loads(out.read_text())["serve-load"]
    assert document["ok"] is True
    assert set(document["latency_ms"]) >= {"create", "bind", "get", "list", "watch"}


def test_bench_serve_load_refuses_fewer_requests_than_clients(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "serve-load", "--clients", "8", "--requests", "4"]) == 2
    assert "requests >= clients" in capsys.readouterr().err
