"""Watches replay and stream changes as the watch cache does.

(``k8s.io/apiserver/pkg/storage/cacher``.)
"""

from __future__ import annotations

import threading

import pytest

from framework.apiserver import (
    ADDED,
    DELETED,
    MODIFIED,
    APIServer,
    BadRequest,
    Expired,
    WatchEvent,
)
from framework.apiserver.errors import MSG_TOO_OLD_RESOURCE_VERSION
from framework.objects import Node, Pod
from tests.apiserver.helpers import binding, new_api, node, pod


def kinds_and_names(events: list[WatchEvent]) -> list[tuple[str, str]]:
    return [(e.type, e.object.metadata.name) for e in events]


def test_a_watch_without_version_starts_with_the_current_objects(api: APIServer):
    b = api.create(pod("b"))
    a = api.create(pod("a"))
    with api.watch(Pod) as watch:
        assert watch.drain() == [
            WatchEvent(ADDED, a, a.metadata.resource_version),
            WatchEvent(ADDED, b, b.metadata.resource_version),
        ]
        assert watch.initial_resource_version == api.current_resource_version()
        c = api.create(pod("c"))
        assert watch.drain() == [WatchEvent(ADDED, c, c.metadata.resource_version)]


def test_version_zero_means_the_current_state_too(api: APIServer):
    api.create(pod("a"))
    with api.watch(Pod, "0") as watch:
        assert kinds_and_names(watch.drain()) == [(ADDED, "a")]


def test_a_watch_from_a_version_replays_what_came_after_it(api: APIServer):
    first = api.create(pod("a"))
    api.update(first.with_metadata(labels={"v": "1"}))
    api.create(pod("b"))
    api.delete(Pod, "a")
    with api.watch(Pod, first.metadata.resource_version) as watch:
        events = watch.drain()
    assert kinds_and_names(events) == [(MODIFIED, "a"), (ADDED, "b"), (DELETED, "a")]
    versions = [int(e.resource_version) for e in events]
    assert versions == sorted(versions) and versions[0] > int(first.metadata.resource_version)
    assert all(e.resource_version == e.object.metadata.resource_version for e in events)


def test_a_watch_from_the_future_waits_for_it(api: APIServer):
    future = int(api.current_resource_version()) + 2
    with api.watch(Pod, future) as watch:
        api.create(pod("a"))
        api.create(pod("b"))
        api.create(pod("c"))
        assert kinds_and_names(watch.drain()) == [(ADDED, "c")]


def test_a_watch_older_than_the_window_is_expired():
    api = new_api(watch_window=3)
    versions = [api.create(pod(f"p{i}")).metadata.resource_version for i in range(5)]
    # p2, p3 and p4 are kept; a watch may start from one before the oldest kept.
    oldest_kept = int(versions[2])
    with pytest.raises(Expired) as caught:
        api.watch(Pod, oldest_kept - 2)
    assert caught.value.message == MSG_TOO_OLD_RESOURCE_VERSION.format(
        requested=oldest_kept - 2, oldest=oldest_kept - 1
    )
    assert (caught.value.code, caught.value.reason) == (410, "Expired")
    with api.watch(Pod, oldest_kept - 1) as watch:
        assert kinds_and_names(watch.drain()) == [(ADDED, "p2"), (ADDED, "p3"), (ADDED, "p4")]


def test_each_kind_keeps_its_own_window():
    api = new_api(watch_window=2)
    start = api.current_resource_version()
    api.create(node("n1"))
    for i in range(5):
        api.create(pod(f"p{i}"))
    with api.watch(Node, start) as watch:
        assert kinds_and_names(watch.drain()) == [(ADDED, "n1")]
    with pytest.raises(Expired):
        api.watch(Pod, start)


def test_an_object_entering_a_selector_is_added_and_leaving_it_is_deleted(api: APIServer):
    created = api.create(pod("web"))
    with api.watch(Pod, label_selector="app=web") as watch:
        labelled = api.update(created.with_metadata(labels={"app": "web"}))
        relabelled = api.update(labelled.with_metadata(labels={"app": "web", "v": "2"}))
        unlabelled = api.update(relabelled.with_metadata(labels={}))
        events = watch.drain()
    assert kinds_and_names(events) == [(ADDED, "web"), (MODIFIED, "web"), (DELETED, "web")]
    gone = events[-1]
    # Leaving the view shows the object as it last matched, at the version that made it leave.
    assert gone.object.metadata.labels == {"app": "web", "v": "2"}
    assert (
        gone.resource_version
        == gone.object.metadata.resource_version
        == unlabelled.metadata.resource_version
    )


def test_a_bound_pod_leaves_the_unscheduled_pods_watch(api: APIServer):
    api.create(pod("web"))
    unscheduled = api.watch(Pod, field_selector="spec.nodeName=")
    scheduled = api.watch(Pod, field_selector="spec.nodeName!=")
    unscheduled.drain()
    api.bind(binding("web", "n1"))
    assert kinds_and_names(unscheduled.drain()) == [(DELETED, "web")]
    assert kinds_and_names(scheduled.drain()) == [(ADDED, "web")]


def test_a_namespaced_watch_sees_only_its_namespace(api: APIServer):
    with api.watch(Pod, namespace="kube-system") as watch:
        api.create(pod("a"))
        api.create(pod("b", namespace="kube-system"))
        assert kinds_and_names(watch.drain()) == [(ADDED, "b")]


def test_a_deletion_carries_the_final_state(api: APIServer):
    api.create(pod())
    with api.watch(Pod, api.current_resource_version()) as watch:
        deleted = api.delete(Pod, "web")
        assert watch.drain() == [WatchEvent(DELETED, deleted, deleted.metadata.resource_version)]


def test_next_waits_at_most_the_timeout(api: APIServer):
    with api.watch(Pod, api.current_resource_version()) as watch:
        assert watch.next(timeout=0.01) is None
        api.create(pod())
        event = watch.next(timeout=0.01)
        assert event is not None and event.type == ADDED


def test_iteration_blocks_until_an_event_and_ends_when_stopped(api: APIServer):
    watch = api.watch(Pod, api.current_resource_version())
    seen: list[str] = []
    got_one = threading.Event()

    def consume() -> None:
        for event in watch:
            seen.append(event.object.metadata.name)
            got_one.set()

    consumer = threading.Thread(target=consume)
    consumer.start()
    api.create(pod("a"))
    assert got_one.wait(timeout=10)
    watch.stop()
    consumer.join(timeout=10)
    assert not consumer.is_alive()
    assert seen == ["a"]


def test_stop_is_idempotent_drops_pending_events_and_unregisters(api: APIServer):
    watch = api.watch(Pod, api.current_resource_version())
    api.create(pod())
    watch.stop()
    watch.stop()
    assert watch.stopped
    assert watch.drain() == [] and watch.next(timeout=0) is None
    api.create(pod("later"))
    assert watch.drain() == []
    assert api._tables[Pod].cache.watcher_count == 0


def test_leaving_a_with_block_stops_the_watch(api: APIServer):
    with api.watch(Pod) as watch:
        pass
    assert watch.stopped


@pytest.mark.parametrize("version", ["abc", "-1", "1.5"])
def test_a_malformed_version_is_a_bad_request(api: APIServer, version: str):
    with pytest.raises(BadRequest, match="invalid resource version"):
        api.watch(Pod, version)


def test_a_watch_with_an_unsupported_field_is_a_bad_request(api: APIServer):
    with pytest.raises(BadRequest, match=r"field label not supported: spec\.priority"):
        api.watch(Pod, field_selector="spec.priority=1")
