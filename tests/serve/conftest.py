"""Fixtures for the HTTP face: a fake API server on an ephemeral loopback port, and a client."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client as k8s

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.clock import RealClock
from tests.serve.helpers import official_client


@pytest.fixture
def api() -> APIServer:
    return APIServer(RealClock())


@pytest.fixture
def server(api: APIServer) -> Iterator[APIHTTPServer]:
    with APIHTTPServer(api, port=0) as served:
        yield served


@pytest.fixture
def core(server: APIHTTPServer) -> Iterator[k8s.CoreV1Api]:
    with official_client(server.url) as api_client:
        yield k8s.CoreV1Api(api_client)


@pytest.fixture
def kubeconfig(tmp_path: Path) -> Iterator[Path]:
    """``serve`` (with its scheduler and kubelets) on a thread; yields the kubeconfig it wrote."""
    from framework.cli.serve import serve

    stop, ready = threading.Event(), threading.Event()
    path = tmp_path / "kubeconfig"
    thread = threading.Thread(
        target=serve,
        kwargs={
            "port": 0,
            "kubeconfig": str(path),
            "stop": stop,
            "on_ready": lambda url, p: ready.set(),
        },
    )
    thread.start()
    assert ready.wait(30), "serve did not start"
    try:
        yield path
    finally:
        stop.set()
        thread.join(30)
        assert not thread.is_alive()
