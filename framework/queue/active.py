"""activeQ and the pods in flight: the heap the scheduler pops from, and what happened meanwhile.

activeQ is a :class:`~framework.queue.heap.Heap` ordered by the QueueSort
plugin's ``less``. Popping a pod makes it **in flight**: the scheduler is
working on it (scheduling cycle, then binding cycle) until it calls
``done``. The queue must not forget the cluster events that arrive during
that time. If a node is added while a pod is being found unschedulable, the
pod must not go to sleep among the unschedulable pods waiting for an event
that has already happened.

So the active queue keeps, in arrival order, a log of the events received
while any pod is in flight, and remembers for each in-flight pod where in
the log its flight began. When a pod comes back rejected, the events after
that point are replayed through the queueing hints
(:meth:`ActiveQueue.cluster_events_for_pod`). When a pod is done, events
older than every remaining flight are dropped, so the log stays short.

Mirrors ``activeQueue`` (``inFlightPods``, ``inFlightEvents``,
``clusterEventsForPod``, ``addEventsIfPodInFlight``,
``addEventIfAnyInFlight``, ``done``) in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/active_queue.go``
(v1.33). Kubernetes keeps one linked list holding both the pods (where their
flights begin) and the events; we keep the events with sequence numbers and
each flight's starting number, which is the same log read the same way. The
condition variable that ``Pop`` waits on belongs to the
:class:`~framework.queue.scheduling_queue.PriorityQueue` here, because one
lock guards the whole queue.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from framework.cluster_event import ClusterEvent
from framework.objects import Pod, pod_uid
from framework.queue.heap import Heap
from framework.types import QueuedPodInfo

__all__ = ["ActiveQueue", "InFlightEvent"]


@dataclass(frozen=True, slots=True)
class InFlightEvent:
    """A cluster event received while some pod was in flight, with the objects involved."""

    event: ClusterEvent
    old: Any
    new: Any


@dataclass(slots=True)
class _Flight:
    start: int  # sequence number of the first event this flight can see
    pod_info: QueuedPodInfo


class ActiveQueue:
    """The activeQ heap, the in-flight pods and the scheduling-cycle counter.

    Guarded by the scheduling queue's lock, like everything in it.
    """

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]) -> None:
        self._heap: Heap[QueuedPodInfo] = Heap(key=lambda p: p.key, less=less)
        self._flights: dict[str, _Flight] = {}
        self._events: deque[tuple[int, InFlightEvent]] = deque()
        self._sequence = itertools.count()
        self.scheduling_cycle = 0

    # --- the heap --------------------------------------------------------------------------

    def add(self, pod_info: QueuedPodInfo) -> None:
        self._heap.add_or_update(pod_info)

    def update(self, pod_info: QueuedPodInfo) -> None:
        self._heap.add_or_update(pod_info)

    def delete(self, key: str) -> QueuedPodInfo | None:
        return self._heap.delete(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        return self._heap.get(key)

    def pod_infos(self) -> list[QueuedPodInfo]:
        """The pods in the heap's array order (the head first, the rest unsorted)."""
        return self._heap.list()

    def in_pop_order(self) -> list[QueuedPodInfo]:
        """The pods in the order successive pops would return them, if nothing changed."""
        twin = self._heap.copy()
        return [twin.pop() for _ in range(len(twin))]

    def __contains__(self, key: object) -> bool:
        return key in self._heap

    def __len__(self) -> int:
        return len(self._heap)

    # --- popping into flight ---------------------------------------------------------------

    def pop_into_flight(self) -> QueuedPodInfo | None:
        """Pop the head and start its flight; None if the heap is empty.

        A popped pod that is somehow already in flight is dropped, and the
        next one is popped: the same pod must never be scheduled twice at
        once (kubernetes/kubernetes#127016).
        """
        while len(self._heap):
            pod_info = self._heap.pop()
            if self.start_flight(pod_info):
                return pod_info
        return None

    def start_flight(self, pod_info: QueuedPodInfo) -> bool:
        """Start the flight of a pod popped from elsewhere (backoffQ); False if already flying."""
        uid = pod_uid(pod_info.pod)
        if uid in self._flights:
            return False
        self._flights[uid] = _Flight(next(self._sequence), pod_info)
        self.scheduling_cycle += 1
        return True

    def in_flight(self, uid: str) -> bool:
        return uid in self._flights

    def in_flight_pods(self) -> list[QueuedPodInfo]:
        """The pods popped and not yet done, in the order they were popped."""
        return [flight.pod_info for flight in self._flights.values()]

    # --- the event log ---------------------------------------------------------------------

    def record_events_if_pod_in_flight(
        self, old: Pod | None, new: Pod, events: Iterable[ClusterEvent]
    ) -> bool:
        """Log the events of an update of a pod that is in flight; False if it is not."""
        if pod_uid(new) not in self._flights:
            return False
        for event in events:
            self._events.append((next(self._sequence), InFlightEvent(event, old, new)))
        return True

    def record_event_if_any_in_flight(self, old: Any, new: Any, event: ClusterEvent) -> bool:
        """Log a cluster event if any pod is in flight to see it; False if none is."""
        if not self._flights:
            return False
        self._events.append((next(self._sequence), InFlightEvent(event, old, new)))
        return True

    def cluster_events_for_pod(self, uid: str) -> list[InFlightEvent] | None:
        """The events received since this pod's flight began; None if it is not in flight."""
        flight = self._flights.get(uid)
        if flight is None:
            return None
        return [event for sequence, event in self._events if sequence > flight.start]

    def done(self, uid: str) -> None:
        """End the pod's flight (a no-op if it is not in flight) and drop events nobody needs."""
        if self._flights.pop(uid, None) is None:
            return
        oldest = min((flight.start for flight in self._flights.values()), default=None)
        while self._events and (oldest is None or self._events[0][0] < oldest):
            self._events.popleft()

    def done_all(self) -> None:
        for uid in list(self._flights):
            self.done(uid)

    def logged_events(self) -> int:
        """How many events the log holds (a test's window into the pruning)."""
        return len(self._events)
