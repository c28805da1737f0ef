"""backoffQ: pods that failed an attempt wait out a penalty that doubles with every attempt.

A pod that was just tried and failed is unlikely to fit a moment later, and
retrying it at once would starve the pods behind it. So a failed pod that an
event sends back (or whose failure was an error) first waits in backoffQ
until its **backoff expiry**:

    expiry = timestamp + backoff_duration(attempts)

where ``timestamp`` is when the failed attempt returned the pod to the queue
and the duration starts at ``pod_initial_backoff_seconds`` (1 s), doubles
with every attempt, and stops at ``pod_max_backoff_seconds`` (10 s):

====================  ===  ===  ===  ===  ===  ===
attempts              1    2    3    4    5    6+
backoff (seconds)     1    2    4    8    10   10
====================  ===  ===  ===  ===  ===  ===

backoffQ is a heap ordered by expiry; a flush (every second, driven by the
queue) moves every pod whose expiry has passed to activeQ. A pod that was
never tried (``attempts == 0``) has no backoff at all.

>>> from framework.clock import FakeClock
>>> backoff = BackoffQueue(FakeClock(start=0), initial_seconds=1, max_seconds=10)
>>> [backoff.backoff_duration(n) for n in range(7)]
[0.0, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]

Mirrors ``backoffQueue`` (``calculateBackoffDuration``, ``getBackoffTime``,
``isPodBackingoff``, ``popEachBackoffCompleted``) in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/backoff_queue.go``
(v1.33), in its classic form: the count is ``attempts``, a pod is backing
off while its expiry is strictly after now, and the order is the expiry
alone.

**SchedulerPopFromBackoffQ** (beta and on by default since v1.33, KEP-5142)
changes three things when ``pop_from_backoff_q`` is set:

* expiries are *aligned to 1-second ordering windows* (truncated to the
  second), and a pod still backs off while its window is the current one or
  later, so its backoff is over at the start of the next window;
* within a window, pods are ordered as activeQ orders them (``less``:
  priority, then timestamp), so that
* when activeQ is empty, the scheduler pops the head of backoffQ at once
  (:meth:`BackoffQueue.pop_backoff`) instead of idling until it expires.
  Pods that failed with an *error* wait in a heap of their own and are never
  popped early.

Mirrors ``backoffQueue`` of ``pkg/scheduler/backend/queue/backoff_queue.go``
as of v1.33 with the gate (``alignToWindow``, ``lessBackoffCompletedWithPriority``,
``isPodBackingoff``, ``popBackoff``, ``podErrorBackoffQ``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from framework.clock import Clock
from framework.queue.heap import Heap
from framework.types import QueuedPodInfo

ORDERING_WINDOW_SECONDS = 1.0
"""``backoffQOrderingWindowDuration``: the width of a backoffQ ordering window."""

__all__ = ["BackoffQueue"]


class BackoffQueue:
    """The pods backing off, ordered by backoff expiry. Guarded by the queue's lock."""

    def __init__(
        self,
        clock: Clock,
        *,
        initial_seconds: float,
        max_seconds: float,
        pop_from_backoff_q: bool = False,
        less: Callable[[QueuedPodInfo, QueuedPodInfo], bool] | None = None,
    ) -> None:
        self._clock = clock
        self.initial_seconds = float(initial_seconds)
        self.max_seconds = float(max_seconds)
        self.pop_from_backoff_q = pop_from_backoff_q

        def by_expiry(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
            return self.backoff_expiry(a) < self.backoff_expiry(b)

        def by_window_then_priority(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
            ea, eb = self.backoff_expiry(a), self.backoff_expiry(b)
            if ea != eb:
                return ea < eb
            return less(a, b) if less is not None else False

        self._heap: Heap[QueuedPodInfo] = Heap(
            key=lambda p: p.key, less=by_window_then_priority if pop_from_backoff_q else by_expiry
        )
        # Pods whose attempt ended in an error: never popped early (podErrorBackoffQ).
        self._error_heap: Heap[QueuedPodInfo] = Heap(key=lambda p: p.key, less=by_expiry)

    # --- the formula -----------------------------------------------------------------------

    def backoff_duration(self, attempts: int) -> float:
        """``initial × 2^(attempts−1)``, capped at the maximum; 0 for a pod never tried."""
        if attempts <= 0:
            return 0.0
        duration = self.initial_seconds
        for _ in range(1, attempts):
            # Compare before doubling, as Go does to avoid overflowing a Duration.
            if duration > self.max_seconds - duration:
                return self.max_seconds
            duration += duration
        return duration

    def _align(self, t: float) -> float:
        if not self.pop_from_backoff_q:
            return t
        return math.floor(t / ORDERING_WINDOW_SECONDS) * ORDERING_WINDOW_SECONDS

    def backoff_expiry(self, pod_info: QueuedPodInfo) -> float:
        """When this pod's backoff ends: its timestamp plus the duration for its attempts.

        With ``SchedulerPopFromBackoffQ``, truncated to its ordering window.
        """
        return self._align(pod_info.timestamp + self.backoff_duration(pod_info.attempts))

    def completes_at(self, pod_info: QueuedPodInfo) -> float:
        """The first moment the pod no longer backs off (the window after its expiry's, with the gate)."""
        expiry = self.backoff_expiry(pod_info)
        if self.pop_from_backoff_q and pod_info.attempts > 0:
            return expiry + ORDERING_WINDOW_SECONDS
        return expiry

    def is_backing_off(self, pod_info: QueuedPodInfo) -> bool:
        """Whether the pod must still wait: its expiry is after now (an expiry of now is over).

        With ``SchedulerPopFromBackoffQ``: while its expiry's window is not
        before the current one (a pod never tried never waits).
        """
        if self.pop_from_backoff_q:
            if pod_info.attempts == 0:
                return False
            return not self.backoff_expiry(pod_info) < self._align(self._clock.now())
        return self.backoff_expiry(pod_info) > self._clock.now()

    # --- the heap --------------------------------------------------------------------------

    def _heap_for(self, pod_info: QueuedPodInfo) -> Heap[QueuedPodInfo]:
        # An attempt that ended in an error names no rejecting plugin (podErrorBackoffQ).
        if (
            self.pop_from_backoff_q
            and not pod_info.unschedulable_plugins
            and not pod_info.pending_plugins
        ):
            return self._error_heap
        return self._heap

    def add(self, pod_info: QueuedPodInfo) -> None:
        heap = self._heap_for(pod_info)
        other = self._error_heap if heap is self._heap else self._heap
        other.delete(pod_info.key)
        heap.add_or_update(pod_info)

    def update(self, pod_info: QueuedPodInfo) -> None:
        """Re-place a pod already here after its pod changed (its expiry does not change)."""
        heap = self._error_heap if pod_info.key in self._error_heap else self._heap
        heap.add_or_update(pod_info)

    def delete(self, key: str) -> QueuedPodInfo | None:
        found = self._heap.delete(key)
        return found if found is not None else self._error_heap.delete(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        found = self._heap.get(key)
        return found if found is not None else self._error_heap.get(key)

    def pop_all_completed(self) -> list[QueuedPodInfo]:
        """Remove and return, earliest expiry first, every pod whose backoff is over."""
        completed = []
        for heap in (self._heap, self._error_heap):
            while (head := heap.peek()) is not None and not self.is_backing_off(head):
                completed.append(heap.pop())
        return completed

    def pop_backoff(self) -> QueuedPodInfo | None:
        """The head of backoffQ, backing off or not; never a pod that failed with an error.

        None without ``SchedulerPopFromBackoffQ`` (Go gives activeQ no popper then).
        """
        return self._heap.pop() if self.len_backoff() else None

    def len_backoff(self) -> int:
        """How many pods :meth:`pop_backoff` could pop (``lenBackoff``); 0 without the gate."""
        return len(self._heap) if self.pop_from_backoff_q else 0

    def pod_infos(self) -> list[QueuedPodInfo]:
        """The pods, earliest expiry first."""
        return sorted([*self._heap.list(), *self._error_heap.list()], key=self.backoff_expiry)

    def __contains__(self, key: object) -> bool:
        return key in self._heap or key in self._error_heap

    def __len__(self) -> int:
        return len(self._heap) + len(self._error_heap)
