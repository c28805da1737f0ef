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
alone. What v1.33 adds on top (the ``SchedulerPopFromBackoffQ`` feature,
beta and on by default: 1-second ordering windows, popping from backoffQ
when activeQ is empty, a separate heap for pods that failed with an error)
is left out; chapter 2 explains each.
"""

from __future__ import annotations

from framework.clock import Clock
from framework.queue.heap import Heap
from framework.types import QueuedPodInfo

__all__ = ["BackoffQueue"]


class BackoffQueue:
    """The pods backing off, ordered by backoff expiry. Guarded by the queue's lock."""

    def __init__(self, clock: Clock, *, initial_seconds: float, max_seconds: float) -> None:
        self._clock = clock
        self.initial_seconds = float(initial_seconds)
        self.max_seconds = float(max_seconds)
        self._heap: Heap[QueuedPodInfo] = Heap(
            key=lambda p: p.key, less=lambda a, b: self.backoff_expiry(a) < self.backoff_expiry(b)
        )

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

    def backoff_expiry(self, pod_info: QueuedPodInfo) -> float:
        """When this pod's backoff ends: its timestamp plus the duration for its attempts."""
        return pod_info.timestamp + self.backoff_duration(pod_info.attempts)

    def is_backing_off(self, pod_info: QueuedPodInfo) -> bool:
        """Whether the pod must still wait: its expiry is after now (an expiry of now is over)."""
        return self.backoff_expiry(pod_info) > self._clock.now()

    # --- the heap --------------------------------------------------------------------------

    def add(self, pod_info: QueuedPodInfo) -> None:
        self._heap.add_or_update(pod_info)

    def update(self, pod_info: QueuedPodInfo) -> None:
        """Re-place a pod already here after its pod changed (its expiry does not change)."""
        self._heap.add_or_update(pod_info)

    def delete(self, key: str) -> QueuedPodInfo | None:
        return self._heap.delete(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        return self._heap.get(key)

    def pop_all_completed(self) -> list[QueuedPodInfo]:
        """Remove and return, earliest expiry first, every pod whose backoff is over."""
        completed = []
        while (head := self._heap.peek()) is not None and not self.is_backing_off(head):
            completed.append(self._heap.pop())
        return completed

    def pod_infos(self) -> list[QueuedPodInfo]:
        """The pods, earliest expiry first."""
        return sorted(self._heap.list(), key=self.backoff_expiry)

    def __contains__(self, key: object) -> bool:
        return key in self._heap

    def __len__(self) -> int:
        return len(self._heap)
