"""The event recorder: how components leave a trail that ``kubectl describe`` shows.

When kube-scheduler places a pod it records ``Normal Scheduled
Successfully assigned default/web to n1``; when it cannot, ``Warning
FailedScheduling 0/3 nodes are available: ...``. Those are Events: small
objects in the namespace of the object they are about, naming it in
``involvedObject``.

A scheduler that retries an unschedulable pod every few seconds would flood
the server with identical Events, so the recorder folds repeats: an Event
identical to one already written (same object, type, reason, message and
source) is not written again; the existing one gets ``count + 1`` and a new
``lastTimestamp``.

Mirrors ``k8s.io/client-go/tools/record`` (``recorderImpl.makeEvent``: the
``<name>.<unix-nanoseconds in hex>`` name; ``events_cache.go``: the
``EventCorrelator``'s identical-event count, keyed by ``getEventKey``, in an
LRU of 4096 entries) and the scheduler's ``NoteLengthLimit`` truncation.
Simplified: writes are synchronous (no broadcaster goroutine); *similar*
events (same reason, different messages) are not combined into
"(combined from similar events)", and there is no spam filter; if two Events
would get the same name (a fake clock that stands still) the later one takes
the next nanosecond.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from framework.apiserver.client import Client
from framework.apiserver.errors import AlreadyExists, NotFound
from framework.clock import Clock, RealClock, rfc3339
from framework.objects import Event, EventSource, KubeObject, ObjectMeta, ObjectReference
from framework.objects.copying import replace

__all__ = [
    "EVENT_TYPE_NORMAL",
    "EVENT_TYPE_WARNING",
    "MAX_LRU_CACHE_ENTRIES",
    "NOTE_LENGTH_LIMIT",
    "EventRecorder",
    "truncate_message",
]

EVENT_TYPE_NORMAL = "Normal"
EVENT_TYPE_WARNING = "Warning"
#: Longer event messages are cut to this many characters (``" ..."`` included), as client-go does.
NOTE_LENGTH_LIMIT = 1024
MAX_LRU_CACHE_ENTRIES = 4096

_EventKey = tuple[str, ...]


def truncate_message(message: str, limit: int = NOTE_LENGTH_LIMIT) -> str:
    """``message`` cut to ``limit`` characters, the cut marked with ``" ..."``."""
    if len(message) <= limit:
        return message
    suffix = " ..."
    return message[: limit - len(suffix)] + suffix


def reference_to(obj: KubeObject) -> ObjectReference:
    """An ``ObjectReference`` to ``obj`` (``reference.GetReference``)."""
    return ObjectReference(
        kind=obj.kind_name(),
        namespace=obj.metadata.namespace,
        name=obj.metadata.name,
        uid=obj.metadata.uid,
        api_version=getattr(obj, "api_version", "") or obj.API_VERSION,
        resource_version=obj.metadata.resource_version,
    )


class EventRecorder:
    """Writes Events on behalf of one component (``source.component``, ``reportingComponent``).

    Thread-safe. ``clock`` stamps ``firstTimestamp``/``lastTimestamp`` and
    names the Events; give it the same clock as the server for tidy output.
    """

    def __init__(
        self, api: Client, component: str, clock: Clock | None = None, *, host: str = ""
    ) -> None:
        self._api = api
        self._component = component
        self._host = host
        self._clock: Clock = clock or RealClock()
        self._lock = threading.Lock()
        # getEventKey → (namespace, name) of the Event that counts it, least recent first.
        self._seen: OrderedDict[_EventKey, tuple[str, str]] = OrderedDict()

    def event(
        self, regarding: KubeObject, type: str, reason: str, action: str, message: str
    ) -> Event:
        """Record that ``reason`` happened to ``regarding``; return the Event as stored.

        ``type`` is ``Normal`` or ``Warning``; ``action`` what the component
        was doing (``Scheduling``, ``Binding``). A message longer than
        :data:`NOTE_LENGTH_LIMIT` is truncated.
        """
        ref = reference_to(regarding)
        message = truncate_message(message)
        key = (
            self._component, self._host, ref.kind, ref.namespace, ref.name, ref.field_path,
            ref.uid, ref.api_version, type, reason, message,
        )  # fmt: skip
        now = self._clock.now()
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None:
                counted = self._count_again(*seen, now)
                if counted is not None:
                    self._seen.move_to_end(key)
                    return counted
            created = self._create(ref, type, reason, action, message, now)
            self._remember(key, (created.metadata.namespace, created.metadata.name))
            return created

    def _count_again(self, namespace: str, name: str, now: float) -> Event | None:
        try:
            existing = self._api.get(Event, name, namespace=namespace)
        except NotFound:
            return None  # deleted meanwhile: record afresh, as client-go does
        repeated = replace(
            existing, count=existing.count + 1, last_timestamp=rfc3339(now)
        ).with_metadata(resource_version="")
        return self._api.update(repeated)

    def _create(
        self, ref: ObjectReference, type: str, reason: str, action: str, message: str, now: float
    ) -> Event:
        stamp = rfc3339(now)
        nanoseconds = int(now * 1_000_000_000)
        while True:
            event = Event(
                metadata=ObjectMeta(
                    name=f"{ref.name}.{nanoseconds:x}", namespace=ref.namespace or "default"
                ),
                involved_object=ref,
                reason=reason,
                message=message,
                type=type,
                count=1,
                first_timestamp=stamp,
                last_timestamp=stamp,
                source=EventSource(component=self._component, host=self._host),
                action=action,
                reporting_component=self._component,
                reporting_instance=self._host,
            )
            try:
                return self._api.create(event)
            except AlreadyExists:
                nanoseconds += 1

    def _remember(self, key: _EventKey, where: tuple[str, str]) -> None:
        self._seen[key] = where
        self._seen.move_to_end(key)
        while len(self._seen) > MAX_LRU_CACHE_ENTRIES:
            self._seen.popitem(last=False)
