"""The event recorder writes and counts Events as client-go's ``tools/record`` does."""

from __future__ import annotations

import pytest

from framework.apiserver import APIServer
from framework.apiserver.events import NOTE_LENGTH_LIMIT, EventRecorder, truncate_message
from framework.clock import FakeClock, rfc3339
from framework.objects import Event, ObjectReference
from tests.apiserver.helpers import node, pod


@pytest.fixture
def recorder(api: APIServer, clock: FakeClock) -> EventRecorder:
    return EventRecorder(api, "default-scheduler", clock)


def test_an_event_names_the_object_and_the_reporter(
    api: APIServer, clock: FakeClock, recorder: EventRecorder
):
    web = api.create(pod())
    event = recorder.event(
        web, "Normal", "Scheduled", "Binding", "Successfully assigned default/web to n1"
    )
    assert event.metadata.name == f"web.{int(clock.now() * 1e9):x}"
    assert event.metadata.namespace == "default"
    assert event.involved_object == ObjectReference(
        kind="Pod",
        namespace="default",
        name="web",
        uid=web.metadata.uid,
        api_version="v1",
        resource_version=web.metadata.resource_version,
    )
    assert (event.type, event.reason, event.action) == ("Normal", "Scheduled", "Binding")
    assert event.message == "Successfully assigned default/web to n1"
    assert event.source.component == event.reporting_component == "default-scheduler"
    assert event.first_timestamp == event.last_timestamp == rfc3339(clock.now())
    assert event.count == 1
    assert api.get(Event, event.metadata.name) == event


def test_an_identical_repeat_is_counted_on_the_first_event(
    api: APIServer, clock: FakeClock, recorder: EventRecorder
):
    web = api.create(pod())
    first = recorder.event(
        web, "Warning", "FailedScheduling", "Scheduling", "0/3 nodes are available"
    )
    clock.advance(10)
    again = recorder.event(
        web, "Warning", "FailedScheduling", "Scheduling", "0/3 nodes are available"
    )
    assert again.metadata.name == first.metadata.name
    assert again.count == 2
    assert again.first_timestamp == first.first_timestamp
    assert again.last_timestamp == rfc3339(clock.now())
    assert len(api.list(Event).items) == 1


def test_a_different_message_is_a_new_event(api: APIServer, recorder: EventRecorder):
    web = api.create(pod())
    first = recorder.event(
        web, "Warning", "FailedScheduling", "Scheduling", "0/3 nodes are available"
    )
    other = recorder.event(
        web, "Warning", "FailedScheduling", "Scheduling", "0/4 nodes are available"
    )
    assert (
        other.metadata.name != first.metadata.name
    )  # the fake clock stood still: next nanosecond
    assert other.count == 1
    assert len(api.list(Event).items) == 2


def test_events_about_cluster_scoped_objects_go_to_the_default_namespace(
    api: APIServer, recorder: EventRecorder
):
    n1 = api.create(node("n1"))
    event = recorder.event(n1, "Normal", "Cordoned", "Cordon", "node cordoned")
    assert event.metadata.namespace == "default"
    assert event.involved_object.namespace == ""
    assert event.involved_object.kind == "Node"


def test_a_deleted_event_is_recorded_afresh(api: APIServer, recorder: EventRecorder):
    web = api.create(pod())
    first = recorder.event(web, "Normal", "Pulled", "Pull", "done")
    api.delete(Event, first.metadata.name)
    again = recorder.event(web, "Normal", "Pulled", "Pull", "done")
    assert again.count == 1


def test_long_messages_are_truncated_to_the_note_length_limit(
    api: APIServer, recorder: EventRecorder
):
    web = api.create(pod())
    event = recorder.event(web, "Warning", "FailedScheduling", "Scheduling", "x" * 5000)
    assert len(event.message) == NOTE_LENGTH_LIMIT == 1024
    assert event.message == "x" * 1020 + " ..."


@pytest.mark.parametrize(
    ("length", "kept"),
    [(1023, 1023), (1024, 1024), (1025, 1024)],
)
def test_truncate_message_keeps_messages_up_to_the_limit(length: int, kept: int):
    assert len(truncate_message("y" * length)) == kept
