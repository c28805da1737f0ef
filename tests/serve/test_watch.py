"""Watches over HTTP: every change exactly once and in resourceVersion order, expiry, bookmarks, timeouts.

Expectations from ``k8s.io/apiserver/pkg/endpoints/handlers/watch.go``
(``serveWatch``: one JSON event per line, the stream ends at
``timeoutSeconds``), ``k8s.io/apiserver/pkg/storage/cacher/cacher.go`` (a
too-old resourceVersion is an ``ERROR`` event with a ``410 Expired`` Status;
``BOOKMARK`` events carry only a resourceVersion) and
``k8s.io/client-go/tools/watch`` (the client re-lists on 410).
"""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any
from urllib.parse import urlsplit

import pytest
from kubernetes import client as k8s
from kubernetes import watch as k8s_watch
from kubernetes.client.rest import ApiException

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.clock import RealClock
from tests.serve.helpers import official_client, wait_until
from tests.serve.test_client import pod


def stream_events(url: str, path: str, stop_after: int | None = None) -> list[dict[str, Any]]:
    """Read a raw watch stream line by line; stop after ``stop_after`` events or at its end."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        assert response.status == 200
        events = []
        while stop_after is None or len(events) < stop_after:
            line = response.readline()
            if not line:
                break
            events.append(json.loads(line))
        return events
    finally:
        conn.close()


def test_a_watcher_sees_every_create_of_concurrent_writers_once_and_in_order(
    server: APIHTTPServer, core: k8s.CoreV1Api
) -> None:
    writers, per_writer = 3, 15
    start = core.list_namespaced_pod("default").metadata.resource_version
    ready = threading.Barrier(writers)

    def write(w: int) -> None:
        with official_client(server.url) as api_client:
            mine = k8s.CoreV1Api(api_client)
            ready.wait()
            for i in range(per_writer):
                mine.create_namespaced_pod("default", pod(f"w{w}-{i}"))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    total = writers * per_writer
    events = stream_events(
        server.url,
        f"/api/v1/namespaces/default/pods?watch=true&resourceVersion={start}&timeoutSeconds=30",
        stop_after=total,
    )
    for t in threads:
        t.join()
    names = [e["object"]["metadata"]["name"] for e in events]
    versions = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert {e["type"] for e in events} == {"ADDED"}
    assert sorted(names) == sorted(f"w{w}-{i}" for w in range(writers) for i in range(per_writer))
    assert len(set(names)) == total  # exactly once
    assert versions == sorted(versions) and len(set(versions)) == total


def test_a_watch_from_a_too_old_version_gets_an_error_event_with_410_expired() -> None:
    api = APIServer(RealClock(), watch_window=2)
    with APIHTTPServer(api) as server:
        for i in range(5):
            api.create(pod_object(f"p{i}"))
        [event] = stream_events(server.url, "/api/v1/pods?watch=true&resourceVersion=1")
        assert event["type"] == "ERROR"
        status = event["object"]
        assert (status["kind"], status["code"], status["reason"]) == ("Status", 410, "Expired")
        assert status["message"].startswith("too old resource version: 1")

        with official_client(server.url) as api_client:
            core = k8s.CoreV1Api(api_client)
            with pytest.raises(ApiException) as gone:
                for _ in k8s_watch.Watch().stream(
                    core.list_pod_for_all_namespaces, resource_version="1", timeout_seconds=5
                ):
                    pass
            assert gone.value.status == 410


def test_the_stream_ends_at_timeout_seconds(server: APIHTTPServer) -> None:
    # A negative timeout is not refused (handlers/get.go): the watch's context has
    # already expired, so the stream ends at once. (0 would mean the default.)
    events = stream_events(server.url, "/api/v1/nodes?watch=true&timeoutSeconds=-1")
    assert events == []


def test_an_idle_watch_gets_bookmarks_when_it_asks_for_them(api: APIServer) -> None:
    api.create(pod_object("p0"))
    version = api.current_resource_version()
    with APIHTTPServer(api, bookmark_interval=0.05) as server:
        [bookmark] = stream_events(
            server.url,
            f"/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion={version}",
            stop_after=1,
        )
    assert bookmark["type"] == "BOOKMARK"
    assert bookmark["object"]["metadata"] == {"resourceVersion": version}
    assert bookmark["object"]["kind"] == "Pod"


def test_stopping_the_server_ends_open_watches(api: APIServer) -> None:
    server = APIHTTPServer(api).start()
    result: list[list[dict[str, Any]]] = []
    reader = threading.Thread(
        target=lambda: result.append(stream_events(server.url, "/api/v1/pods?watch=true"))
    )
    reader.start()
    wait_until(lambda: server.open_watches() == 1)
    server.stop()
    reader.join(timeout=10)
    assert not reader.is_alive()
    assert server.open_watches() == 0


def pod_object(name: str) -> Any:
    from framework.objects import Pod

    return Pod.from_dict(
        {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    )
