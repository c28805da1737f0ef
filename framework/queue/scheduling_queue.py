"""The scheduling queue: where every pending pod waits, and the rules that move it.

Every pod that needs a node passes through one :class:`PriorityQueue`,
shared by all profiles. Inside, each pod is in exactly one place:

* **activeQ**, a heap ordered by the QueueSort plugin's ``less``: the pods
  ready to be tried. :meth:`PriorityQueue.pop` blocks until one is there.
* **in flight**: popped, being scheduled or bound, until ``done``.
* **backoffQ**, ordered by backoff expiry: pods that failed an attempt and
  wait out a penalty (1 s, doubling per attempt, at most 10 s) before going
  back to activeQ. A flush every second moves the expired ones.
* **the unschedulable pods**: pods no node could take, waiting for a
  cluster event that one of the plugins that rejected them registered for
  (:mod:`framework.queue.hints`), or for five minutes, after which a flush
  (every 30 s) gives them another try. Pods held at the gate by a
  PreEnqueue plugin (``SchedulingGates``) wait here too.

A pod's journey: :meth:`~PriorityQueue.add` (PreEnqueue may gate it) →
activeQ → :meth:`~PriorityQueue.pop` (in flight) → success (``done``) or
:meth:`~PriorityQueue.add_unschedulable_if_not_present`, which replays the
events received during the flight: if one of them can help, the pod goes to
backoffQ (or straight to activeQ if a ``Pending`` plugin was waiting for
it); if none can, it waits among the
unschedulable pods until :meth:`~PriorityQueue.move_all_to_active_or_backoff_queue`
brings an event that can, or the five-minute flush.

Concurrency: one lock guards the whole queue, and ``pop`` waits on a
condition of that lock. One scheduling thread pops, event handlers add,
update and move, binding threads call ``add_unschedulable_if_not_present``
and ``done``, and the flush threads started by :meth:`~PriorityQueue.run`
move pods; each operation is atomic. Plugins called under the lock
(PreEnqueue, queueing hints) must not call back into the queue. Time comes
only from the injected clock, so a :class:`~framework.clock.FakeClock`
drives backoffs and flushes in tests.

Mirrors ``PriorityQueue`` in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/scheduling_queue.go``
(v1.33) with ``SchedulerQueueingHints`` on (its default since v1.32) and
``SchedulerPopFromBackoffQ`` as the run's gates say (``pop_from_backoff_q``;
on by default since v1.33, see :mod:`framework.queue.backoff` and chapter 2).
Its private helpers keep Go's names (``determineSchedulingHintForInFlightPod``
is ``PriorityQueue._determine_scheduling_hint_for_in_flight_pod``, and so
on), so that a search for the Go name lands on them.
Simplified: Kubernetes has a queue lock, an activeQ lock that ``Pop`` takes
alone (so popping does not wait for event handlers), a backoffQ lock and a
nominator lock, taken in that order; with Python's global interpreter lock
the split buys no throughput, and one lock makes the order trivially right.
No metrics, no API dispatcher. The queueing-hints-disabled path (the
``moveRequestCycle`` of older releases) is not modelled:
``pod_scheduling_cycle`` is accepted so that callers read as in Kubernetes;
``pre_check`` is honoured as Kubernetes does, though with hints on its event
handlers pass none.
Two look-ups Go does by walking are kept instead, with the same answers: the
unschedulable pods an assigned pod can help
(:meth:`~framework.queue.unschedulable.UnschedulablePods.cross_topology_candidates`),
and, per profile and event, the registrations that match the event (so that
each pod's ``isPodWorthRequeuing`` looks only at those).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from framework.clock import Clock
from framework.cluster_event import (
    ASSIGNED_POD_ADD,
    BACKOFF_COMPLETE,
    FORCE_ACTIVATE,
    SCHEDULE_ATTEMPT_FAILURE,
    UNSCHEDULABLE_TIMEOUT,
    UNSCHEDULED_POD_ADD,
    UNSCHEDULED_POD_UPDATE,
    ActionType,
    ClusterEvent,
    EventResource,
)
from framework.interface import PreEnqueuePlugin
from framework.objects import Pod, pod_uid
from framework.plugins.names import POD_TOPOLOGY_SPREAD
from framework.queue.active import ActiveQueue
from framework.queue.backoff import BackoffQueue
from framework.queue.events import (
    pod_matches_required_affinity_of,
    pod_scheduling_properties_change,
)
from framework.queue.hints import (
    QueueingHintMap,
    QueueingStrategy,
    build_event_map,
    is_event_of_interest,
    is_pod_worth_requeuing,
)
from framework.queue.keys import pod_key
from framework.queue.nominator import NominatingInfo, Nominator
from framework.queue.unschedulable import UnschedulablePods
from framework.status import Status, is_success
from framework.types import PodInfo, QueuedPodInfo

__all__ = [
    "ACTIVE_Q",
    "BACKOFF_Q",
    "DEFAULT_POD_INITIAL_BACKOFF_SECONDS",
    "DEFAULT_POD_MAX_BACKOFF_SECONDS",
    "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
    "IN_FLIGHT",
    "UNSCHEDULABLE_PODS",
    "PendingPod",
    "PodAlreadyQueued",
    "PreEnqueueCheck",
    "PriorityQueue",
]

DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1.0
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10.0
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 5 * 60.0
BACKOFF_FLUSH_PERIOD = 1.0
UNSCHEDULABLE_FLUSH_PERIOD = 30.0
# What the API server writes into an empty spec.schedulerName.
DEFAULT_SCHEDULER_NAME = "default-scheduler"

ACTIVE_Q = "activeQ"
BACKOFF_Q = "backoffQ"
UNSCHEDULABLE_PODS = "unschedulablePods"
IN_FLIGHT = "inFlight"

# The labels of the two events every new pod passes through, computed once: label()
# builds a name from the action's flags each time, and a pod's add asked for it three times.
_UNSCHEDULED_POD_ADD = UNSCHEDULED_POD_ADD.label()
_UNSCHEDULED_POD_UPDATE = UNSCHEDULED_POD_UPDATE.label()
_INFORMER_EVENTS = frozenset({_UNSCHEDULED_POD_ADD, _UNSCHEDULED_POD_UPDATE})

PreEnqueueCheck = Callable[[Pod], bool]
"""A quick test of a pod before a move considers it (used only without queueing hints)."""


class PodAlreadyQueued(Exception):
    """``add_unschedulable_if_not_present`` for a pod that is already in one of the queues."""


@dataclass(frozen=True, slots=True)
class PendingPod:
    """A snapshot of one pending pod: where it is and what the queue knows of it."""

    pod: Pod
    queue: str  # ACTIVE_Q, BACKOFF_Q, UNSCHEDULABLE_PODS or IN_FLIGHT
    timestamp: float
    attempts: int
    initial_attempt_timestamp: float | None
    unschedulable_plugins: frozenset[str]
    pending_plugins: frozenset[str]
    gating_plugin: str
    # When its backoff is over: timestamp + backoff for its attempts (== timestamp if never
    # tried); with SchedulerPopFromBackoffQ, the start of the window after that one.
    backoff_expiry: float


class PriorityQueue:
    """kube-scheduler's scheduling queue: activeQ, backoffQ, unschedulable pods, nominator.

    ``less`` is the QueueSort plugin's bound ``less``. ``pre_enqueue_plugins``
    and ``queueing_hint_map`` are keyed by profile (``schedulerName``);
    a pod's profile is its ``spec.schedulerName``, or ``default-scheduler``
    when empty (as the API server defaults it). Durations are in seconds.
    """

    def __init__(
        self,
        less: Callable[[QueuedPodInfo, QueuedPodInfo], bool],
        *,
        clock: Clock,
        pre_enqueue_plugins: Mapping[str, Sequence[PreEnqueuePlugin]] | None = None,
        queueing_hint_map: Mapping[str, QueueingHintMap] | None = None,
        pod_initial_backoff_seconds: float = DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
        pod_max_backoff_seconds: float = DEFAULT_POD_MAX_BACKOFF_SECONDS,
        pod_max_in_unschedulable_pods_duration: float = (
            DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION
        ),
        pop_from_backoff_q: bool = False,
    ) -> None:
        if pod_initial_backoff_seconds <= 0:
            raise ValueError(
                f"pod_initial_backoff_seconds must be greater than 0, got {pod_initial_backoff_seconds}"
            )
        if pod_max_backoff_seconds < pod_initial_backoff_seconds:
            raise ValueError(
                f"pod_max_backoff_seconds ({pod_max_backoff_seconds}) must be greater than or "
                f"equal to pod_initial_backoff_seconds ({pod_initial_backoff_seconds})"
            )
        self._clock = clock
        self._cond = threading.Condition(threading.RLock())
        self._active_q = ActiveQueue(less)
        self._backoff_q = BackoffQueue(
            clock,
            initial_seconds=pod_initial_backoff_seconds,
            max_seconds=pod_max_backoff_seconds,
            pop_from_backoff_q=pop_from_backoff_q,
            less=less,
        )
        self._unschedulable = UnschedulablePods()
        self._nominator = Nominator()
        self._pre_enqueue = {name: tuple(ps) for name, ps in (pre_enqueue_plugins or {}).items()}
        self._hint_maps = dict(queueing_hint_map or {})
        self._plugin_events = build_event_map(self._hint_maps)
        # isEventOfInterest's answer per event: the hint maps never change after this,
        # and every bound pod asks it again for AssignedPodAdd.
        self._of_interest: dict[ClusterEvent, bool] = {}
        # Per profile and event, the registrations that match it: a bound pod asks the hints
        # of thousands of parked pods, each of which would otherwise test every registration.
        self._matching: dict[tuple[str, ClusterEvent], QueueingHintMap] = {}
        self._max_in_unschedulable = pod_max_in_unschedulable_pods_duration
        self._closed = False
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._wakeups: set[threading.Event] = set()

    # --- life cycle ------------------------------------------------------------------------

    def run(self) -> None:
        """Start the periodic flushes on background threads: backoffQ every 1 s, leftovers every 30 s.

        Both run once at once, then wait on the injected clock, so with a
        :class:`~framework.clock.FakeClock` they run when the test advances
        time. :meth:`close` stops them.
        """
        with self._cond:
            if self._threads or self._closed:
                return
            self._threads = [
                threading.Thread(
                    target=self._every,
                    args=(period, flush),
                    name=f"scheduling-queue-{name}",
                    daemon=True,
                )
                for name, period, flush in (
                    ("backoff-flush", BACKOFF_FLUSH_PERIOD, self.flush_backoff_q_completed),
                    (
                        "unschedulable-flush",
                        UNSCHEDULABLE_FLUSH_PERIOD,
                        self.flush_unschedulable_pods_leftover,
                    ),
                )
            ]
            for thread in self._threads:
                thread.start()

    def _every(self, period: float, flush: Callable[[], None]) -> None:
        while not self._stop.is_set():
            flush()
            if self._clock.wait(self._stop, period):
                return

    def close(self) -> None:
        """Stop the flushes, end every flight, and wake ``pop`` callers (they get None)."""
        with self._cond:
            self._closed = True
            self._stop.set()
            self._active_q.done_all()
            self._wake_poppers()
            threads, self._threads = self._threads, []
        for thread in threads:
            thread.join()

    # --- unscheduled pods come and go ------------------------------------------------------

    def add(self, pod: Pod) -> None:
        """A new pending pod: to activeQ, unless a PreEnqueue plugin gates it."""
        with self._cond:
            if self._move_to_active_q(self._new_queued_pod_info(pod), _UNSCHEDULED_POD_ADD):
                self._wake_poppers()

    def update(self, old: Pod, new: Pod) -> None:
        """A pending pod changed; an update that can make it schedulable moves it.

        In flight: the update is logged for the pod's return. In activeQ or
        backoffQ: replaced in place. Among the unschedulable pods: the
        update's events (:func:`~framework.queue.events.pod_scheduling_properties_change`)
        go through the queueing hints of the plugins that rejected it, and
        the first that helps moves it (removing the last scheduling gate is
        such an event). Anywhere else: added as new.
        """
        with self._cond:
            events = pod_scheduling_properties_change(new, old)
            if self._active_q.record_events_if_pod_in_flight(old, new, events):
                return
            key = pod_key(new)
            for queue in (self._active_q, self._backoff_q):
                pod_info = queue.get(key)
                if pod_info is not None:
                    pod_info.pod_info.update(new)
                    queue.update(pod_info)
                    self._nominator.update_nominated_pod(old, pod_info.pod_info)
                    return
            pod_info = self._unschedulable.get(key)
            if pod_info is None:
                if self._move_to_active_q(self._new_queued_pod_info(new), _UNSCHEDULED_POD_UPDATE):
                    self._wake_poppers()
                return
            pod_info.pod_info.update(new)
            self._unschedulable.add_or_update(pod_info)  # indexed by the new pod
            self._nominator.update_nominated_pod(old, pod_info.pod_info)
            for event in events:
                strategy = self._is_pod_worth_requeuing(pod_info, event, old, new)
                queue_name = self._requeue_pod_with_queueing_strategy(
                    pod_info, strategy, event.label()
                )
                # Stop at the first event that moves the pod, wherever to, so it
                # never ends up in two places.
                if queue_name != UNSCHEDULABLE_PODS:
                    if queue_name == ACTIVE_Q:
                        self._wake_poppers()
                    break

    def delete(self, pod: Pod) -> None:
        """The pod is gone (or bound elsewhere): forget it wherever it waits."""
        with self._cond:
            self._nominator.delete_nominated_pod_if_exists(pod)
            key = pod_key(pod)
            if self._active_q.delete(key) is None and self._backoff_q.delete(key) is None:
                self._unschedulable.delete(key)

    def activate(self, pods: Mapping[str, Pod] | Iterable[Pod]) -> None:
        """Move these pods to activeQ at once (``ForceActivate``), skipping any backoff.

        ``pods`` is a mapping ``namespace/name`` → pod (Kubernetes' shape,
        what ``PodsToActivate`` holds) or just the pods. A pod in flight gets
        the event logged instead, so that it comes back through backoff
        rather than going to sleep; unknown pods are ignored.
        """
        with self._cond:
            activated = False
            for pod in pods.values() if isinstance(pods, Mapping) else pods:
                key = pod_key(pod)
                pod_info = self._unschedulable.get(key)
                if pod_info is None:
                    pod_info = self._backoff_q.delete(key)
                if pod_info is not None:
                    activated |= self._move_to_active_q(pod_info, FORCE_ACTIVATE.label())
                else:
                    self._active_q.record_events_if_pod_in_flight(None, pod, [FORCE_ACTIVATE])
            if activated:
                self._wake_poppers()

    # --- the scheduling loop's side --------------------------------------------------------

    def pop(self, timeout: float | None = None) -> QueuedPodInfo | None:
        """Take the head of activeQ, blocking until there is one; it is then in flight.

        Returns None once the queue is closed, or when ``timeout`` seconds of
        the injected clock pass first (``timeout=0`` never blocks; with a
        :class:`~framework.clock.FakeClock` the waiting caller counts in
        ``clock.waiters()``). The pod's ``attempts`` grows by one and the
        plugins that rejected it last time are forgotten: this attempt will
        name its own.
        """
        if timeout is None:
            with self._cond:
                while (pod_info := self._pop_into_flight()) is None and not self._closed:
                    self._cond.wait()
                return pod_info
        deadline = self._clock.now() + timeout
        while True:
            with self._cond:
                pod_info = self._pop_into_flight()
                remaining = deadline - self._clock.now()
                if pod_info is not None or self._closed or remaining <= 0:
                    return pod_info
                # Wait on the clock, not on the condition, so that fake time can end the wait.
                wakeup = threading.Event()
                self._wakeups.add(wakeup)
            try:
                self._clock.wait(wakeup, remaining)
            finally:
                with self._cond:
                    self._wakeups.discard(wakeup)

    def pop_specific_pod(self, pod: Pod) -> QueuedPodInfo | None:
        """Take ``pod`` out of activeQ or backoffQ into flight, as :meth:`pop` would; None if absent.

        Go's ``PopSpecificPod`` (v1.36+): the PodGroup scheduling cycle pops
        the first member normally, then its siblings by name. A sibling in
        the unschedulable pods, or already in flight, is not taken.
        """
        with self._cond:
            key = pod_key(pod)
            pod_info = self._active_q.delete(key) or self._backoff_q.delete(key)
            if pod_info is None:
                return None
            if not self._active_q.start_flight(pod_info):
                return None
            pod_info.attempts += 1
            pod_info.unschedulable_plugins.clear()
            pod_info.pending_plugins.clear()
            pod_info.gating_plugin = ""
            pod_info.gating_plugin_events = ()
            return pod_info

    def _pop_into_flight(self) -> QueuedPodInfo | None:
        pod_info = self._active_q.pop_into_flight()
        # SchedulerPopFromBackoffQ: with activeQ empty, the head of backoffQ goes now
        # rather than idling the scheduler until its backoff ends (active_queue.go unlockedPop).
        while pod_info is None and self._backoff_q.len_backoff():
            candidate = self._backoff_q.pop_backoff()
            if candidate is not None and self._active_q.start_flight(candidate):
                pod_info = candidate
        if pod_info is not None:
            pod_info.attempts += 1
            pod_info.unschedulable_plugins.clear()
            pod_info.pending_plugins.clear()
            pod_info.gating_plugin = ""
            pod_info.gating_plugin_events = ()
        return pod_info

    def _wake_poppers(self) -> None:
        """Tell every ``pop`` waiting that activeQ has pods (or the queue closed)."""
        self._cond.notify_all()
        for wakeup in self._wakeups:
            wakeup.set()

    def can_pop_backoff(self) -> bool:
        """Whether a pop would take a pod from backoffQ (``SchedulerPopFromBackoffQ``)."""
        with self._cond:
            return self._backoff_q.pop_from_backoff_q and self._backoff_q.len_backoff() > 0

    def done(self, uid: str) -> None:
        """The scheduler has finished with a popped pod (bound, dropped, or requeued)."""
        with self._cond:
            self._active_q.done(uid)

    def scheduling_cycle(self) -> int:
        """How many pods have been popped: the number of the latest scheduling cycle."""
        with self._cond:
            return self._active_q.scheduling_cycle

    def add_unschedulable_if_not_present(
        self, pod_info: QueuedPodInfo, pod_scheduling_cycle: int
    ) -> None:
        """Return a pod whose attempt failed; the events of its flight decide where it goes.

        The caller has set ``pod_info.unschedulable_plugins`` /
        ``pending_plugins`` from the failed attempt (both empty for an
        error). The pod's timestamp becomes now, its flight ends, and it goes
        to backoffQ, activeQ or the unschedulable pods (module docstring).
        ``pod_scheduling_cycle`` is the cycle the attempt ran in; it only
        matters without queueing hints, which this queue does not model.
        Raises :class:`PodAlreadyQueued` if the pod is already in a queue.
        """
        with self._cond:
            try:
                for name, holder in (
                    ("the unschedulable pods", self._unschedulable),
                    ("activeQ", self._active_q),
                    ("backoffQ", self._backoff_q),
                ):
                    if pod_info.key in holder:
                        raise PodAlreadyQueued(
                            f"pod {pod_info.key} is already present in {name}; a pod returned by "
                            "pop() goes back with add_unschedulable_if_not_present() once"
                        )
                pod_info.timestamp = self._clock.now()
                strategy = self._determine_scheduling_hint_for_in_flight_pod(pod_info)
                if (
                    self._requeue_pod_with_queueing_strategy(
                        pod_info, strategy, SCHEDULE_ATTEMPT_FAILURE
                    )
                    == ACTIVE_Q
                ):
                    self._wake_poppers()
            finally:
                self._active_q.done(pod_uid(pod_info.pod))

    def _determine_scheduling_hint_for_in_flight_pod(
        self, pod_info: QueuedPodInfo
    ) -> QueueingStrategy:
        if not pod_info.unschedulable_plugins and not pod_info.pending_plugins:
            # An error, not a rejection: retry after backoff whatever happened.
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        events = self._active_q.cluster_events_for_pod(pod_uid(pod_info.pod))
        if events is None:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF  # never popped: a caller's bug
        strategy = QueueingStrategy.QUEUE_SKIP
        for logged in events:
            found = self._is_pod_worth_requeuing(pod_info, logged.event, logged.old, logged.new)
            if found is QueueingStrategy.QUEUE_IMMEDIATELY:
                return found
            if found is QueueingStrategy.QUEUE_AFTER_BACKOFF:
                strategy = found
                if not pod_info.pending_plugins:
                    break
        return strategy

    # --- cluster events --------------------------------------------------------------------

    def move_all_to_active_or_backoff_queue(
        self,
        event: ClusterEvent,
        old_obj: Any = None,
        new_obj: Any = None,
        pre_check: PreEnqueueCheck | None = None,
    ) -> None:
        """A cluster event: move every unschedulable pod it may help; log it for pods in flight."""
        with self._cond:
            self._move_all_to_active_or_backoff_queue(event, old_obj, new_obj, pre_check)

    def assigned_pod_added(self, pod: Pod) -> None:
        """A pod was bound: it can only help pods whose affinity or spreading looks at it."""
        with self._cond:
            self._move_pods_to_active_or_backoff_queue(
                self._get_unschedulable_pods_with_cross_topology_term(pod),
                ASSIGNED_POD_ADD,
                None,
                pod,
            )

    def assigned_pod_updated(self, old: Pod, new: Pod, event: ClusterEvent) -> None:
        """A bound pod changed; a scale-down frees room for anyone, other changes only for some."""
        with self._cond:
            if ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN).match(event):
                self._move_all_to_active_or_backoff_queue(event, old, new, None)
            else:
                self._move_pods_to_active_or_backoff_queue(
                    self._get_unschedulable_pods_with_cross_topology_term(new), event, old, new
                )

    def _is_event_of_interest(self, event: ClusterEvent) -> bool:
        interest = self._of_interest.get(event)
        if interest is None:
            interest = self._of_interest[event] = is_event_of_interest(event, self._hint_maps)
        return interest

    def _move_all_to_active_or_backoff_queue(
        self, event: ClusterEvent, old: Any, new: Any, pre_check: PreEnqueueCheck | None
    ) -> None:
        if not self._is_event_of_interest(event):
            return
        candidates = [
            p for p in self._unschedulable.pod_infos() if pre_check is None or pre_check(p.pod)
        ]
        self._move_pods_to_active_or_backoff_queue(candidates, event, old, new)

    def _move_pods_to_active_or_backoff_queue(
        self, candidates: list[QueuedPodInfo], event: ClusterEvent, old: Any, new: Any
    ) -> None:
        if not self._is_event_of_interest(event):
            return
        activated = False
        for pod_info in candidates:
            if pod_info.gated() and not any(
                registered.event.match(event) for registered in pod_info.gating_plugin_events
            ):
                continue  # only the gating plugin's own events can open the gate
            strategy = self._is_pod_worth_requeuing(pod_info, event, old, new)
            if strategy is QueueingStrategy.QUEUE_SKIP:
                continue
            self._unschedulable.delete(pod_info.key)
            activated |= (
                self._requeue_pod_with_queueing_strategy(pod_info, strategy, event.label())
                == ACTIVE_Q
            )
        self._active_q.record_event_if_any_in_flight(old, new, event)
        if activated:
            self._wake_poppers()

    def _get_unschedulable_pods_with_cross_topology_term(
        self, assigned: Pod
    ) -> list[QueuedPodInfo]:
        # Go walks every unschedulable pod; only these can pass its test (see UnschedulablePods).
        return [
            p
            for p in self._unschedulable.cross_topology_candidates(assigned.namespace)
            if (
                POD_TOPOLOGY_SPREAD in p.unschedulable_plugins
                and p.pod.namespace == assigned.namespace
            )
            or pod_matches_required_affinity_of(p.pod, assigned)
        ]

    # --- the periodic flushes --------------------------------------------------------------

    def flush_backoff_q_completed(self) -> None:
        """Move every pod whose backoff is over from backoffQ to activeQ (every second)."""
        with self._cond:
            activated = False
            for pod_info in self._backoff_q.pop_all_completed():
                activated |= self._move_to_active_q(pod_info, BACKOFF_COMPLETE)
            if activated:
                self._wake_poppers()

    def flush_unschedulable_pods_leftover(self) -> None:
        """Give another try to pods unschedulable for more than five minutes (every 30 s)."""
        with self._cond:
            now = self._clock.now()
            leftovers = [
                p
                for p in self._unschedulable.pod_infos()
                if now - p.timestamp > self._max_in_unschedulable
            ]
            if leftovers:
                self._move_pods_to_active_or_backoff_queue(
                    leftovers, UNSCHEDULABLE_TIMEOUT, None, None
                )

    # --- moving a pod ----------------------------------------------------------------------

    def _requeue_pod_with_queueing_strategy(
        self, pod_info: QueuedPodInfo, strategy: QueueingStrategy, event: str
    ) -> str:
        """Put the pod where ``strategy`` says; return the name of the queue it ended in."""
        if strategy is QueueingStrategy.QUEUE_SKIP:
            self._unschedulable.add_or_update(pod_info)
            return UNSCHEDULABLE_PODS
        if strategy is QueueingStrategy.QUEUE_AFTER_BACKOFF and self._backoff_q.is_backing_off(
            pod_info
        ):
            self._unschedulable.delete(pod_info.key)
            self._backoff_q.add(pod_info)
            if self._backoff_q.pop_from_backoff_q:
                self._wake_poppers()  # an idle scheduler may take it at once
            return BACKOFF_Q
        if self._move_to_active_q(pod_info, event):
            return ACTIVE_Q
        return UNSCHEDULABLE_PODS  # gated: _move_to_active_q parked it

    def _move_to_active_q(self, pod_info: QueuedPodInfo, event: str) -> bool:
        """Run PreEnqueue, then put the pod in activeQ, or park it gated; True if in activeQ."""
        self._run_pre_enqueue_plugins(pod_info)
        key = pod_info.key
        if pod_info.gated():
            if not any(key in queue for queue in self._queues()):
                self._unschedulable.add_or_update(pod_info)
            return False
        if pod_info.initial_attempt_timestamp is None:
            pod_info.initial_attempt_timestamp = self._clock.now()
        self._unschedulable.delete(key)
        self._backoff_q.delete(key)
        self._active_q.add(pod_info)
        if event in _INFORMER_EVENTS:
            # A pod the informer hands us may carry a nomination from an earlier life.
            self._nominator.add_nominated_pod(pod_info.pod_info, None)
        return True

    def _run_pre_enqueue_plugins(self, pod_info: QueuedPodInfo) -> None:
        plugins = self._pre_enqueue.get(_profile_of(pod_info.pod), ())
        gating = pod_info.gating_plugin
        # The plugin that gated the pod last time is asked first: it most likely still does.
        ordered = sorted(plugins, key=lambda p: p.name() != gating) if gating else plugins
        for plugin in ordered:
            try:
                answer: object = plugin.pre_enqueue(pod_info.pod)
            except Exception as error:
                answer = Status.as_error(error)
            # Go's types rule out anything but a Status; here it would crash the event handler.
            status = (
                answer
                if answer is None or isinstance(answer, Status)
                else Status.as_error(TypeError(f"PreEnqueue returned {answer!r}"))
            )
            if not is_success(status):
                name = plugin.name()
                pod_info.unschedulable_plugins.add(name)
                pod_info.gating_plugin = name
                pod_info.gating_plugin_events = self._plugin_events.get(name, ())
                return
        pod_info.gating_plugin = ""
        pod_info.gating_plugin_events = ()

    def _queues(self) -> tuple[ActiveQueue, BackoffQueue, UnschedulablePods]:
        return self._active_q, self._backoff_q, self._unschedulable

    def _is_pod_worth_requeuing(
        self, pod_info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any
    ) -> QueueingStrategy:
        profile = _profile_of(pod_info.pod)
        hint_map = self._matching.get((profile, event))
        if hint_map is None:
            whole = self._hint_maps.get(profile)
            if whole is None:
                return is_pod_worth_requeuing(pod_info, event, old, new, None)
            # The same registrations in the same order, less those the event cannot match.
            hint_map = QueueingHintMap(
                {registered: fns for registered, fns in whole.items() if registered.match(event)}
            )
            self._matching[(profile, event)] = hint_map
        return is_pod_worth_requeuing(pod_info, event, old, new, hint_map)

    def _new_queued_pod_info(self, pod: Pod) -> QueuedPodInfo:
        return QueuedPodInfo(PodInfo(pod), timestamp=self._clock.now())

    # --- the nominator ---------------------------------------------------------------------

    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None) -> None:
        """Nominate the pod to a node (preemption), or re-learn its own nomination (None)."""
        with self._cond:
            self._nominator.add_nominated_pod(pod_info, nominating_info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        with self._cond:
            self._nominator.delete_nominated_pod_if_exists(pod)

    def update_nominated_pod(self, old: Pod, new_pod_info: PodInfo) -> None:
        with self._cond:
            self._nominator.update_nominated_pod(old, new_pod_info)

    def has_nominated_pods(self, node_name: str) -> bool:
        """Whether any pod is nominated to this node: a cheap question before the costly one.

        Filter asks it for every node it evaluates, so it takes no lock: it
        is one dict membership test, atomic in CPython. A nomination made by
        another thread at that moment counts as made just after the
        question, which the locked version could not rule out either.
        """
        return self._nominator.has_nominated_pods(node_name)

    def nominated_node_names(self) -> list[str]:
        """Every node some pod is nominated to: the nodes the batch engine filters one by one."""
        with self._cond:
            return self._nominator.nominated_node_names()

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to this node, each in its newest version the queue holds."""
        with self._cond:
            result = []
            for nominated in self._nominator.nominated_pods_for_node(node_name):
                key = pod_key(nominated.pod)
                queued = (
                    self._active_q.get(key)
                    or self._unschedulable.get(key)
                    or self._backoff_q.get(key)
                )
                result.append(PodInfo(queued.pod if queued is not None else nominated.pod))
            return result

    # --- looking inside --------------------------------------------------------------------

    def pending_pods(self) -> tuple[list[Pod], str]:
        """Every queued pod, and ``activeQ:N; backoffQ:N; unschedulablePods:N`` (as Kubernetes)."""
        with self._cond:
            active = [p.pod for p in self._active_q.pod_infos()]
            backoff = [p.pod for p in self._backoff_q.pod_infos()]
            unschedulable = [p.pod for p in self._unschedulable.pod_infos()]
            summary = (
                f"activeQ:{len(active)}; backoffQ:{len(backoff)}; "
                f"unschedulablePods:{len(unschedulable)}"
            )
            return [*active, *backoff, *unschedulable], summary

    def pending_pods_by_queue(self) -> dict[str, list[PendingPod]]:
        """Snapshots of every pod, by where it is: activeQ in pop order, backoffQ by expiry,
        the unschedulable pods (gated ones included, see ``gating_plugin``), and in flight."""
        with self._cond:
            return {
                ACTIVE_Q: [self._snapshot(p, ACTIVE_Q) for p in self._active_q.in_pop_order()],
                BACKOFF_Q: [self._snapshot(p, BACKOFF_Q) for p in self._backoff_q.pod_infos()],
                UNSCHEDULABLE_PODS: [
                    self._snapshot(p, UNSCHEDULABLE_PODS) for p in self._unschedulable.pod_infos()
                ],
                IN_FLIGHT: [self._snapshot(p, IN_FLIGHT) for p in self._active_q.in_flight_pods()],
            }

    def _snapshot(self, pod_info: QueuedPodInfo, queue: str) -> PendingPod:
        return PendingPod(
            pod=pod_info.pod,
            queue=queue,
            timestamp=pod_info.timestamp,
            attempts=pod_info.attempts,
            initial_attempt_timestamp=pod_info.initial_attempt_timestamp,
            unschedulable_plugins=frozenset(pod_info.unschedulable_plugins),
            pending_plugins=frozenset(pod_info.pending_plugins),
            gating_plugin=pod_info.gating_plugin,
            backoff_expiry=self._backoff_q.completes_at(pod_info),
        )

    def __repr__(self) -> str:
        return f"PriorityQueue({self.pending_pods()[1]})"


def _profile_of(pod: Pod) -> str:
    return pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME
