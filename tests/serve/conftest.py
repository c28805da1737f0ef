"""Fixtures for the HTTP face: a fake API server on an ephemeral loopback port, and a client."""

from __future__ import annotations

from collections.abc import Iterator

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
