"""Time, injected: the one clock every part of the framework reads.

Queue timestamps, backoff expiry, Permit timeouts, the 5-minute flush of
unschedulable pods and the timestamps on Events all read *a* clock, never
:func:`time.time` directly. Production code gets a :class:`RealClock`; tests
and the simulator get a :class:`FakeClock` and move time forward themselves
with :meth:`FakeClock.advance`. That is why no test in this project sleeps to
wait for something: a backoff of ten seconds takes no time at all.

Both clocks answer the same four questions:

* ``now()``: seconds since the epoch, as a float;
* ``sleep(seconds)``: block the calling thread until that much time passed;
* ``after(seconds)``: a :class:`threading.Event` that is set once that much
  time has passed (a timer you can wait on, or just poll);
* ``wait(event, timeout)``: block until ``event`` is set or ``timeout``
  seconds of *this clock's* time have passed; return whether the event was set.

Mirrors ``k8s.io/utils/clock`` (``clock.PassiveClock``, ``clock.WithTicker``)
and its ``testing.FakeClock``, whose ``Step`` is our :meth:`FakeClock.advance`
and whose ``HasWaiters`` is our :meth:`FakeClock.waiters`.
Simplification: one float of seconds instead of Go's ``time.Time`` and
``time.Duration``; :func:`rfc3339` turns it into the text Kubernetes writes.
"""

from __future__ import annotations

import heapq
import itertools
import re
import threading
import time
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "FakeClock", "RealClock", "parse_rfc3339_nanos", "rfc3339"]

# A fixed, readable start for fake time: the day Kubernetes 1.33 shipped.
DEFAULT_FAKE_START = datetime(2025, 4, 23, 12, 0, 0, tzinfo=UTC).timestamp()


class Clock(Protocol):
    """What the framework needs from time."""

    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    def sleep(self, seconds: float) -> None:
        """Block the calling thread for ``seconds`` of this clock's time."""
        ...

    def after(self, seconds: float) -> threading.Event:
        """An event that is set once ``seconds`` of this clock's time have passed."""
        ...

    def wait(self, event: threading.Event, timeout: float | None) -> bool:
        """Block until ``event`` is set (True) or ``timeout`` passed (False)."""
        ...


# The first and last seconds a four-digit year can write: 0001-01-01 and 9999-12-31T23:59:59.
_FIRST_SECOND = -62_135_596_800
_LAST_SECOND = 253_402_300_799


def rfc3339(timestamp: float) -> str:
    """Format a clock reading as Kubernetes writes ``metav1.Time``: UTC, whole seconds.

    A reading beyond what RFC 3339 can write (a deadline an int64 grace
    period away) saturates at its first or last second instead of raising.

    >>> rfc3339(0.0), rfc3339(2.0**63)
    ('1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z')
    """
    global _last_formatted
    seconds = min(max(int(timestamp), _FIRST_SECOND), _LAST_SECOND)
    # Writes come many to a second (a bound pod, its Event): format each second once. The
    # pair is one object, replaced whole, so a thread never reads one second's text for another.
    last = _last_formatted
    if last[0] == seconds:
        return last[1]
    # isoformat, not strftime: %Y leaves years before 1000 unpadded on glibc.
    text = datetime.fromtimestamp(seconds, tz=UTC).replace(tzinfo=None).isoformat() + "Z"
    _last_formatted = (seconds, text)
    return text


_last_formatted: tuple[int | None, str] = (None, "")


def parse_rfc3339(text: str) -> float:
    """A ``metav1.Time`` or ``MicroTime`` as a clock reading (seconds since the epoch).

    >>> parse_rfc3339("1970-01-01T00:01:00Z"), parse_rfc3339(rfc3339_micro(1.5))
    (60.0, 1.5)
    """
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


_RFC3339 = re.compile(
    r"(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})"
)


def parse_rfc3339_nanos(text: str) -> int:
    """A ``metav1.Time`` as whole nanoseconds since the epoch: exact to the last digit written.

    A float holds only about seven significant digits below the second at
    today's dates, so two start times a nanosecond apart would compare equal;
    Go's ``time.Time.Before`` tells them apart, and so does this integer.

    >>> parse_rfc3339_nanos("1970-01-01T00:00:01.000000002Z")
    1000000002
    >>> parse_rfc3339_nanos("2026-11-30T10:00:00.5+01:00") - parse_rfc3339_nanos("2026-11-30T09:00:00Z")
    500000000
    """
    match = _RFC3339.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not an RFC 3339 time (like 2026-11-30T10:00:00Z)")
    whole, fraction, zone = match.groups()
    zone = "+00:00" if zone in ("Z", "z") else zone
    seconds = int(datetime.fromisoformat(whole.replace("t", "T") + zone).timestamp())
    return seconds * 1_000_000_000 + int((fraction or "").ljust(9, "0"))


def rfc3339_micro(timestamp: float) -> str:
    """Format as ``metav1.MicroTime`` (used by Events' ``eventTime``)."""
    if not _FIRST_SECOND <= timestamp <= _LAST_SECOND:
        return rfc3339(timestamp)[:-1] + ".000000Z"
    return datetime.fromtimestamp(timestamp, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Timers:
    """Every pending RealClock timer, fired by one thread, earliest deadline first.

    A thread per timer (``threading.Timer``) costs a thread start per pod
    parked at Permit and keeps the thread asleep for the whole timeout, even
    after the pod was allowed: a gang run parked thousands. Go's
    ``time.AfterFunc`` runs nothing until it fires; so here one thread sleeps
    until the earliest deadline. A timer whose event was set meanwhile (the
    pod was allowed) costs only its place in the heap until then.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, threading.Event]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def add(self, seconds: float, fired: threading.Event) -> None:
        with self._cond:
            heapq.heappush(self._heap, (time.monotonic() + seconds, next(self._order), fired))
            if self._thread is None or not self._thread.is_alive():  # first use, or after fork
                self._thread = threading.Thread(target=self._run, name="timers", daemon=True)
                self._thread.start()
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                while self._heap and self._heap[0][0] <= now:
                    heapq.heappop(self._heap)[2].set()
                self._cond.wait(self._heap[0][0] - now if self._heap else None)


_TIMERS = _Timers()


class RealClock:
    """The wall clock. ``wait`` and ``sleep`` are the threading primitives."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def after(self, seconds: float) -> threading.Event:
        fired = threading.Event()
        if seconds <= 0:
            fired.set()
            return fired
        _TIMERS.add(seconds, fired)
        return fired

    def wait(self, event: threading.Event, timeout: float | None) -> bool:
        return event.wait(timeout)

    def __repr__(self) -> str:
        return "RealClock()"


class FakeClock:
    """A clock that only moves when told to.

    Threads that call :meth:`sleep`, :meth:`wait` or wait on an event from
    :meth:`after` stay blocked until some other thread calls :meth:`advance`
    (or :meth:`set`) far enough. :meth:`waiters` and
    :meth:`block_until_waiters` let a test know that the thread under test has
    reached its wait before time is moved, so a test synchronises on the code's
    state, not on a guess of how long it takes.

    >>> clock = FakeClock(start=100.0)
    >>> timer = clock.after(5)
    >>> timer.is_set()
    False
    >>> clock.advance(5)
    >>> timer.is_set(), clock.now()
    (True, 105.0)
    """

    def __init__(self, start: float = DEFAULT_FAKE_START) -> None:
        self._now = float(start)
        self._cond = threading.Condition()
        # (deadline, sequence, event): the sequence keeps equal deadlines in
        # registration order and spares heapq from comparing Events.
        self._timers: list[tuple[float, int, threading.Event]] = []
        self._sequence = itertools.count()
        self._blocked = 0

    def now(self) -> float:
        with self._cond:
            return self._now

    def after(self, seconds: float) -> threading.Event:
        fired = threading.Event()
        with self._cond:
            if seconds <= 0:
                fired.set()
            else:
                heapq.heappush(self._timers, (self._now + seconds, next(self._sequence), fired))
        return fired

    def sleep(self, seconds: float) -> None:
        self.wait(threading.Event(), seconds)

    def wait(self, event: threading.Event, timeout: float | None) -> bool:
        timer = self.after(timeout) if timeout is not None else None
        with self._cond:
            self._blocked += 1
            self._cond.notify_all()
            try:
                while not event.is_set() and not (timer is not None and timer.is_set()):
                    # A bounded real-time wait: ``event`` may be set by a thread
                    # that knows nothing of this clock and so cannot notify us.
                    self._cond.wait(0.05)
            finally:
                self._blocked -= 1
                self._cond.notify_all()
        return event.is_set()

    def advance(self, seconds: float) -> None:
        """Move time forward and fire every timer that falls due."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go backwards (advance({seconds}))")
        with self._cond:
            self._set_locked(self._now + seconds)

    def set(self, timestamp: float) -> None:
        """Jump to an absolute time (never backwards)."""
        with self._cond:
            if timestamp < self._now:
                raise ValueError(f"a clock cannot go backwards (set({timestamp}) < {self._now})")
            self._set_locked(timestamp)

    def _set_locked(self, timestamp: float) -> None:
        self._now = timestamp
        while self._timers and self._timers[0][0] <= self._now:
            _, _, fired = heapq.heappop(self._timers)
            fired.set()
        self._cond.notify_all()

    def next_deadline(self) -> float | None:
        """When the earliest pending timer fires, or None; lets a simulator jump to it."""
        with self._cond:
            self._drop_fired_locked()
            return self._timers[0][0] if self._timers else None

    def _drop_fired_locked(self) -> None:
        while self._timers and self._timers[0][2].is_set():
            heapq.heappop(self._timers)

    def waiters(self) -> int:
        """How many threads are blocked in :meth:`sleep` or :meth:`wait` right now."""
        with self._cond:
            return self._blocked

    def block_until_waiters(self, count: int, timeout: float = 10.0) -> None:
        """Block (in real time, at most ``timeout``) until ``count`` threads wait on this clock."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._blocked >= count, timeout):
                raise TimeoutError(
                    f"expected {count} thread(s) waiting on the fake clock, "
                    f"saw {self._blocked} after {timeout}s of real time"
                )

    def __repr__(self) -> str:
        return f"FakeClock(now={rfc3339(self.now())})"
