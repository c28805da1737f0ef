"""Watches: every change to a kind of object, pushed to each watcher once and in order.

kube-scheduler learns about the cluster only through watches (its informers
list once, then watch). A watch promises three things, and this module keeps
them:

* **every change, exactly once, in resourceVersion order**, to every watcher;
* a watch may **start in the past**: from a resourceVersion ``rv`` it first
  replays the retained changes newer than ``rv``, then continues live, with no
  gap and no repeat between the two; a watch from no resourceVersion (or
  ``"0"``) starts with a synthetic ``ADDED`` for every current object;
* with a selector, a watcher sees an object **enter** its view as ``ADDED``
  and **leave** it as ``DELETED``, even though the object was only modified
  (a pod that gets bound leaves the "unscheduled pods" watch as DELETED).

The history is bounded. A watch from a resourceVersion older than what is
retained fails with ``410 Expired: too old resource version``, and the
client must list again, exactly as a reflector does after a long disconnect.

Mirrors ``k8s.io/apiserver/pkg/storage/cacher`` (``watch_cache.go``:
the cyclic event buffer and ``getAllEventsSinceLocked``; ``cache_watcher.go``:
``convertToWatchEvent``) and ``k8s.io/apimachinery/pkg/watch``
(``watch.Interface``, ``watch.Event``).
Simplified: one history per kind counted in events rather than sized by
time; watchers' queues are unbounded (the real cacher drops a watcher that
falls too far behind); no BOOKMARK events; a resourceVersion in the future
simply waits instead of timing out after three seconds.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType

from framework.apiserver.errors import BadRequest, Expired
from framework.objects import KubeObject

__all__ = [
    "ADDED",
    "DELETED",
    "MODIFIED",
    "Change",
    "Predicate",
    "Watch",
    "WatchCache",
    "WatchEvent",
    "parse_resource_version",
]

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"

#: Whether a watcher wants an object (its label, field and namespace selection).
Predicate = Callable[[KubeObject], bool]


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """What a watcher receives: ``type`` (ADDED, MODIFIED, DELETED), object and resourceVersion."""

    type: str
    object: KubeObject
    resource_version: str


@dataclass(frozen=True, slots=True)
class Change:
    """One committed write, as the watch cache records it (``watchCacheEvent``).

    ``object`` is the object after the write (for DELETED: its last state,
    carrying the deletion's resourceVersion); ``prev_object`` the object
    before it, or None for a creation.
    """

    type: str
    object: KubeObject
    prev_object: KubeObject | None
    resource_version: int


class Watch:
    """One watcher's stream of :class:`WatchEvent`: iterate it, poll it, stop it.

    The server pushes events into the watch while it holds its lock, so the
    order of events is the order of commits. Consumers read without that lock:
    ``for event in watch`` blocks for the next event and ends after
    :meth:`stop`; :meth:`next` waits at most ``timeout`` seconds of real time;
    :meth:`drain` takes whatever is ready now. Stopping is idempotent, drops
    undelivered events (as closing the real result channel does), and is
    what leaving a ``with`` block does.

    ``initial_resource_version`` is the resourceVersion the watch started
    from: with no resourceVersion, the server's version at the moment of the
    initial ADDED events, which is where a client resumes after them.
    """

    def __init__(
        self,
        predicate: Predicate,
        initial_resource_version: int,
        on_stop: Callable[[Watch], None],
    ) -> None:
        self._predicate = predicate
        self._after = initial_resource_version
        self._on_stop = on_stop
        self._cond = threading.Condition()
        self._events: deque[WatchEvent] = deque()
        self._stopped = False
        self.initial_resource_version = str(initial_resource_version)

    # --- the server's side (called with the server lock held) ---

    def _enqueue(self, event: WatchEvent) -> None:
        with self._cond:
            if not self._stopped:
                self._events.append(event)
                self._cond.notify_all()

    def _deliver(self, change: Change) -> None:
        if change.resource_version <= self._after:
            return  # a watch from a future version waits for it
        event = self._convert(change)
        if event is not None:
            self._enqueue(event)

    def _convert(self, change: Change) -> WatchEvent | None:
        """What this watcher sees of ``change``, if anything (``convertToWatchEvent``)."""
        matches_now = change.type != DELETED and self._predicate(change.object)
        matched_before = change.prev_object is not None and self._predicate(change.prev_object)
        rv = str(change.resource_version)
        if matches_now:
            return WatchEvent(MODIFIED if matched_before else ADDED, change.object, rv)
        if not matched_before:
            return None
        # Leaving the view: the object as the watcher last knew it, at the change's version.
        assert change.prev_object is not None
        gone = change.object if change.type == DELETED else change.prev_object
        return WatchEvent(DELETED, gone.with_metadata(resource_version=rv), rv)

    # --- the consumer's side ---

    def next(self, timeout: float | None = None) -> WatchEvent | None:
        """The next event; None once stopped, or after ``timeout`` seconds with nothing to read."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._events and not self._stopped:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            return self._events.popleft() if self._events else None

    def drain(self) -> list[WatchEvent]:
        """Every event ready now, without waiting."""
        with self._cond:
            ready = list(self._events)
            self._events.clear()
            return ready

    def stop(self) -> None:
        """End the watch: iteration finishes, pending events are dropped, the server forgets it."""
        with self._cond:
            if self._stopped:
                return
            self._stopped = True
            self._events.clear()
            self._cond.notify_all()
        self._on_stop(self)

    @property
    def stopped(self) -> bool:
        with self._cond:
            return self._stopped

    def __iter__(self) -> Iterator[WatchEvent]:
        while (event := self.next()) is not None:
            yield event

    def __enter__(self) -> Watch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


class WatchCache:
    """The recent history of one kind, and the watchers to tell about new changes.

    ``capacity`` changes are kept, and, when changes come with their sizes,
    no more than ``max_bytes`` of them (the newest is always kept): churn of
    large objects cannot hold the memory of thousands. Once older ones have been dropped, a watch
    may start no earlier than one before the oldest kept change (the real
    cache's ``resourceVersion < oldest-1`` rule). Not thread-safe by itself:
    the server calls it with its lock held, which is what makes "record, then
    fan out" one atomic step.
    """

    def __init__(self, capacity: int, max_bytes: int | None = None) -> None:
        if capacity < 1:
            raise ValueError(f"a watch window must keep at least one event (got {capacity})")
        self._capacity = capacity
        self._max_bytes = max_bytes
        self._sizes: list[int] = []
        self._bytes = 0  # the sizes of the kept changes, added up
        # A list plus a start index: appends and drops are O(1), lookups bisect.
        self._changes: list[Change] = []
        self._versions: list[int] = []
        self._start = 0
        self._floor = 0  # the oldest resourceVersion a watch may start from
        self._watchers: set[Watch] = set()

    def record(self, change: Change, size: int = 0) -> None:
        """Keep ``change`` (``size`` bytes, if known) and push it to every watcher."""
        self._changes.append(change)
        self._versions.append(change.resource_version)
        self._sizes.append(size)
        self._bytes += size
        over_bytes = self._max_bytes is not None and self._bytes > self._max_bytes
        by_bytes = over_bytes
        while len(self._changes) - self._start > self._capacity or (
            over_bytes and len(self._changes) - self._start > 1
        ):
            self._bytes -= self._sizes[self._start]
            self._sizes[self._start] = 0  # no longer kept
            self._start += 1
            self._floor = self._changes[self._start].resource_version - 1
            over_bytes = self._max_bytes is not None and self._bytes > self._max_bytes
        if self._start > self._capacity or (by_bytes and self._start):
            # The dropped changes go, objects and all.
            del self._changes[: self._start], self._versions[: self._start]
            del self._sizes[: self._start]
            self._start = 0
        for watcher in self._watchers:
            watcher._deliver(change)

    def since(self, resource_version: int) -> list[Change]:
        """The retained changes after ``resource_version``; :class:`Expired` if some are lost."""
        if resource_version < self._floor:
            raise Expired.too_old(resource_version, self._floor)
        first = bisect.bisect_right(self._versions, resource_version, lo=self._start)
        return self._changes[first:]

    def register(self, watcher: Watch) -> None:
        self._watchers.add(watcher)

    def unregister(self, watcher: Watch) -> None:
        self._watchers.discard(watcher)

    @property
    def watcher_count(self) -> int:
        return len(self._watchers)

    @property
    def retained(self) -> tuple[int, int]:
        """How many changes are kept, and their bytes (0 for those recorded without a size)."""
        return len(self._changes) - self._start, self._bytes


def parse_resource_version(value: str | int | None) -> int | None:
    """None for "start from the current state" (no version, or ``"0"``), else the number."""
    text = str(value) if value is not None else ""
    if text in ("", "0"):
        return None
    if not text.isdigit():
        raise BadRequest(f'invalid resource version "{text}": expected a decimal number')
    return int(text)
