"""Fixtures for the adapter: the fake API server over HTTP on loopback, and a KubeClient on it.

The server runs no scheduler of its own (``serve --no-scheduler``): every
binding the tests see was made by the adapter's scheduler, over HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from framework.adapter import KubeClient
from framework.apiserver import APIServer, Watch
from framework.apiserver.http import APIHTTPServer
from framework.clock import RealClock
from tests.serve.helpers import official_client


class WatchedAPIServer(APIServer):
    """The in-memory server, remembering the watches it opened so a test can break them."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.opened: list[Watch] = []

    def watch(self, *args: object, **kwargs: object) -> Watch:
        opened = super().watch(*args, **kwargs)  # type: ignore[arg-type]
        self.opened.append(opened)
        return opened

    def drop_watches(self) -> int:
        """End every open watch, as a server restart or a broken connection does; how many."""
        open_ = [w for w in self.opened if not w.stopped]
        for watch in open_:
            watch.stop()
        return len(open_)


@pytest.fixture
def api() -> WatchedAPIServer:
    return WatchedAPIServer(RealClock(), watch_window=50)


@pytest.fixture
def server(api: APIServer) -> Iterator[APIHTTPServer]:
    with APIHTTPServer(api, port=0) as served:
        yield served


@pytest.fixture
def client(server: APIHTTPServer) -> Iterator[KubeClient]:
    with official_client(server.url) as api_client:
        yield KubeClient(api_client)
