"""Nothing the server keeps grows without bound: Events expire, and watch history is capped in bytes.

* ``--event-ttl`` (``cmd/kube-apiserver/app/options``, 1 h by default):
  an Event is stored with an etcd lease of that length, renewed by each
  write of it (``pkg/registry/core/event/storage``, ``TTLFunc``); when it
  ends the Event is deleted, and watchers see it go. On the server's clock,
  so simulated time expires Events as real time does.
* The watch cache keeps a bounded history (``storage/cacher/watch_cache.go``,
  a capacity of events); here it is bounded by count *and*, when sizes are
  known (an API server served over HTTP), by bytes: churn of large objects
  cannot keep hundreds of mebibytes of deleted ones alive.
"""

from __future__ import annotations

import pytest

from framework.apiserver import APIServer
from framework.apiserver.errors import Expired
from framework.apiserver.store import DEFAULT_EVENT_TTL, MAX_OBJECT_BYTES
from framework.clock import FakeClock
from framework.objects import Event, ObjectReference, Pod
from framework.objects.meta import ObjectMeta
from tests.apiserver.helpers import new_api, pod


def event(name: str) -> Event:
    return Event(
        metadata=ObjectMeta(name=name),
        involved_object=ObjectReference(kind="Pod", namespace="default", name="web"),
        reason="Scheduled",
        message="Successfully assigned default/web to n1",
        type="Normal",
    )


def test_the_default_event_ttl_is_kubes_hour() -> None:
    assert DEFAULT_EVENT_TTL == 3600.0


def test_an_event_expires_an_hour_after_its_last_write_and_watchers_see_it_go() -> None:
    clock = FakeClock()
    api = new_api(clock=clock)
    api.create(event("e1"))
    clock.advance(1800)
    renewed = api.get(Event, "e1")
    api.update(renewed.with_metadata(labels={"seen": "twice"}))  # a write renews the lease
    api.create(event("e2"))
    with api.watch(Event, api.current_resource_version()) as watch:
        clock.advance(1800)  # an hour after e1's creation, half an hour after its update
        assert [e.metadata.name for e in api.list(Event).items] == ["e1", "e2"]
        clock.advance(1800)
        assert api.list(Event).items == ()
        assert [(e.type, e.object.metadata.name) for e in watch.drain()] == [
            ("DELETED", "e1"),
            ("DELETED", "e2"),
        ]


def test_churn_of_events_leaves_no_more_than_an_hours_worth() -> None:
    clock = FakeClock()
    api = new_api(clock=clock)
    for i in range(7200):  # one a second for two hours
        api.create(event(f"e{i}"))
        clock.advance(1)
    assert 3599 <= len(api.list(Event).items) <= 3601


def test_events_can_be_kept_forever_when_asked() -> None:
    clock = FakeClock()
    api = new_api(clock=clock, event_ttl=None)
    api.create(event("e1"))
    clock.advance(10 * DEFAULT_EVENT_TTL)
    assert len(api.list(Event).items) == 1


def big_pod(name: str) -> Pod:
    return pod(name).with_metadata(annotations={"x": "y" * 200_000})


def test_churn_of_large_objects_keeps_at_most_the_byte_budget_of_history() -> None:
    budget = 2 * 1024 * 1024
    api = APIServer(FakeClock(), max_object_bytes=MAX_OBJECT_BYTES, watch_window_bytes=budget)
    first = api.create(big_pod("p0")).metadata.resource_version
    api.delete(Pod, "p0")
    for i in range(1, 100):
        api.create(big_pod(f"p{i}"))
        api.delete(Pod, f"p{i}")
    count, kept = api.watch_history(Pod)
    assert kept <= budget
    assert 0 < count < 40  # each creation is 200 kB; deletions are recorded without a size
    with pytest.raises(Expired):
        api.watch(Pod, first)
    recent = int(api.current_resource_version()) - 2
    with api.watch(Pod, recent) as watch:
        assert [e.type for e in watch.drain()] == ["ADDED", "DELETED"]


def test_the_newest_change_is_kept_even_past_the_budget() -> None:
    api = APIServer(FakeClock(), max_object_bytes=MAX_OBJECT_BYTES, watch_window_bytes=1000)
    api.create(big_pod("p0"))
    assert api.watch_history(Pod)[0] == 1
