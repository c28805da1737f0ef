"""The API dispatcher: the scheduler's writes queued per object, merged, and run off its loop.

With ``SchedulerAsyncAPICalls`` on (beta from v1.34, off by default) the
scheduler's status patches (a failed attempt's ``PodScheduled=False``, a
nomination) and its bindings become calls (:mod:`framework.api_calls`) added
to this dispatcher, and the scheduling loop goes on without waiting for
them; only the binding cycle waits for its own binding. The
:class:`CallQueue` holds **at most one call per object** (by uid), in FIFO
order of the objects. A call added for an object that already has one is

* **skipped** if it is less relevant (a status patch while a binding waits);
* **overwritten in** if it is of another, more relevant type and the old one
  has not started (a binding replaces a queued patch), or, if the old one
  is in flight, kept aside until that one finishes (never two calls at once
  for one object);
* **merged** with an old call of its own type (a newer patch takes the old
  one's nomination and other conditions), the old call being told it was
  overwritten;
* **skipped** if it would change nothing (``is_no_op``), the pending call
  for the object with it, unless one is in flight.

Whoever added a call may learn its end through an :class:`OnFinish`:
``None`` for success, or the error — :class:`CallSkipped` and
:class:`CallOverwritten` are expected outcomes, not failures (Go's
``IsUnexpectedError``). A pod update from the informer is first synced with
the pending call for it (:meth:`APIDispatcher.sync_object`), which drops
the call if the update already carries its change.

**When calls run.** Go's dispatcher runs calls on up to ``parallelization``
goroutines as soon as they are queued. Here :meth:`APIDispatcher.dispatch`
runs every queued call, FIFO, one at a time, on the thread that asks: the
scheduler's background thread in a live scheduler (:meth:`APIDispatcher.run`),
and, in a stepped run (the simulator), the points where kube-scheduler's
loop would let the dispatcher's goroutines have their turn: after each
scheduling cycle (before the next pod is popped and before the binding
cycles held at the simulator's turnstile go on), when a binding cycle waits
for its binding (:meth:`APIDispatcher.wait_on_finish`), and when the loop
runs out of pods. A failed attempt's status thus lands after its cycle,
once the loop has moved on, instead of inside it.

Mirrors ``callQueue`` (``call_queue.go``), ``APIDispatcher``
(``api_dispatcher.go``) in
``kubernetes/kubernetes:pkg/scheduler/backend/api_dispatcher/``, read in their
newest indexed copies (index ids 68798925755 and 43104880155, v1.35-v1.37
era), and ``APICache`` (``pkg/scheduler/backend/api_cache/api_cache.go``).
Simplified: no metrics beyond counts of executed calls by type and result;
no goroutine limiter (calls run one at a time, which changes throughput,
not order per object).
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import framework.types
from framework.api_calls import RELEVANCES, PodBindingCall, PodStatusPatchCall
from framework.objects import Binding, Pod, PodCondition

__all__ = [
    "APICache",
    "APICall",
    "APIDispatcher",
    "CallOverwritten",
    "CallQueue",
    "CallSkipped",
    "DispatcherClosed",
    "OnFinish",
    "QueuedAPICall",
    "is_unexpected_error",
]


class APICall(Protocol):
    """What the dispatcher asks of a call (``fwk.APICall``)."""

    def call_type(self) -> str: ...

    def uid(self) -> str: ...

    def execute(self, client: Any) -> None: ...

    def sync(self, obj: Any) -> Any: ...

    def merge(self, old: Any) -> None: ...

    def is_no_op(self) -> bool: ...


class CallSkipped(Exception):
    """The call was not run: a more relevant one is queued, or it had no effect (``ErrCallSkipped``)."""


class CallOverwritten(Exception):
    """A newer call for the object took this one's place (``ErrCallOverwritten``)."""


class DispatcherClosed(Exception):
    """The dispatcher was closed before the call ran."""

    def __init__(self) -> None:
        super().__init__("api dispatcher is closed")


def is_unexpected_error(error: BaseException | None) -> bool:
    """Whether ``error`` is a real failure, not a skip or an overwrite (``IsUnexpectedError``)."""
    return error is not None and not isinstance(error, CallSkipped | CallOverwritten)


class OnFinish:
    """A call's end, told once (Go's buffered ``onFinish`` channel: later sends are dropped)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._error: BaseException | None = None

    def send(self, error: BaseException | None) -> None:
        if not self._event.is_set():
            self._error = error
            self._event.set()

    def done(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)

    def result(self) -> BaseException | None:
        """The error the call ended with (None: success). Only once :meth:`done`."""
        if not self._event.is_set():
            raise RuntimeError("the call has not finished")
        return self._error


@dataclass(eq=False)
class QueuedAPICall:
    """A call in the queue: the call, who to tell when it ends, and its place in line (``queuedAPICall``)."""

    call: APICall
    on_finish: OnFinish | None = None
    #: Told apart from a newer call for the same object that replaced it while it ran.
    call_id: int = field(default=-1)

    def uid(self) -> str:
        return self.call.uid()

    def call_type(self) -> str:
        return self.call.call_type()

    def send_on_finish(self, error: BaseException | None) -> None:
        if self.on_finish is not None:
            self.on_finish.send(error)


class CallQueue:
    """Pending and in-flight calls, at most one per object (``callQueue``)."""

    def __init__(self, relevances: Mapping[str, int]) -> None:
        self._relevances = dict(relevances)
        self._lock = threading.Condition()
        self._closed = False
        self._next_id = 0
        self._calls: dict[str, QueuedAPICall] = {}
        self._queue: deque[str] = deque()
        self._in_flight: set[str] = set()

    # --- what the tests read (Go's tests read the fields) ----------------------------------------

    def calls(self) -> dict[str, QueuedAPICall]:
        with self._lock:
            return dict(self._calls)

    def pending(self) -> list[str]:
        with self._lock:
            return list(self._queue)

    def pending_by_type(self) -> dict[str, int]:
        """The pending calls by type (Go's ``scheduler_pending_async_api_calls`` gauge)."""
        with self._lock:
            return dict(Counter(self._calls[uid].call_type() for uid in self._queue))

    def in_flight(self) -> set[str]:
        with self._lock:
            return set(self._in_flight)

    # --- the queue ---------------------------------------------------------------------------------

    def _less_relevant(self, old: str, new: str) -> bool:
        return self._relevances.get(new, 0) < self._relevances.get(old, 0)

    def _merge(self, old: QueuedAPICall, new: QueuedAPICall) -> None:
        if self._less_relevant(old.call_type(), new.call_type()):
            skipped = CallSkipped("a more relevant call is already enqueued for this object")
            new.send_on_finish(skipped)
            raise skipped
        if old.call_type() != new.call_type():
            if old.uid() in self._in_flight:
                return  # the new call waits for the one in flight to finish
            old.send_on_finish(
                CallOverwritten("a more relevant call was enqueued for this object")
            )
            return
        try:
            new.call.merge(old.call)
        except Exception as error:
            new.send_on_finish(error)
            raise
        old.send_on_finish(CallOverwritten("a call of the same type was enqueued for this object"))

    def _enqueue(self, call: QueuedAPICall, old_present: bool) -> None:
        uid = call.uid()
        if call.call.is_no_op() and uid not in self._in_flight:
            if old_present:
                self._remove_pending(uid)
            skipped = CallSkipped("call does not need to be executed because it has no effect")
            call.send_on_finish(skipped)
            raise skipped
        self._calls[uid] = call
        if old_present:
            # Pending: it keeps its place in line. In flight: queued again when that one ends.
            return
        self._queue.append(uid)
        self._lock.notify_all()

    def _remove_pending(self, uid: str) -> None:
        if self._calls.pop(uid, None) is not None and uid not in self._in_flight:
            self._queue.remove(uid)

    def add(self, call: QueuedAPICall) -> None:
        """Queue ``call``, merged with or replacing the object's call; raise :class:`CallSkipped`."""
        with self._lock:
            if self._closed:
                closed = DispatcherClosed()
                call.send_on_finish(closed)
                raise closed
            call.call_id = self._next_id
            self._next_id += 1
            old = self._calls.get(call.uid())
            if old is not None:
                self._merge(old, call)
            self._enqueue(call, old is not None)

    def pop(self) -> QueuedAPICall | None:
        """The first pending call, now in flight; None if none is pending or the queue is closed.

        The caller must :meth:`finalize` it. (Go's ``pop`` blocks on an empty
        queue; :meth:`wait_for_work` is that wait here.)
        """
        with self._lock:
            if self._closed or not self._queue:
                return None
            uid = self._queue.popleft()
            self._in_flight.add(uid)
            return self._calls[uid]

    def wait_for_work(self, timeout: float) -> bool:
        with self._lock:
            if not self._queue and not self._closed:
                self._lock.wait(timeout)
            return bool(self._queue)

    def finalize(self, call: QueuedAPICall) -> None:
        """``call`` ended: forget it, or queue the object again for the call that replaced it."""
        with self._lock:
            uid = call.uid()
            current = self._calls.get(uid)
            if current is not None and current.call_id == call.call_id:
                del self._calls[uid]
            elif current is not None:
                self._queue.append(uid)
                self._lock.notify_all()
            self._in_flight.discard(uid)

    def sync_object(self, obj: Any) -> Any:
        """``obj`` with the pending call for it applied; the call is dropped if now a no-op."""
        with self._lock:
            # A Pod, or (in tests) a bare ObjectMeta: Go's metav1.Object is either.
            meta = getattr(obj, "metadata", obj)
            call = self._calls.get(meta.uid)
            if call is None:
                return obj
            synced = call.call.sync(obj)
            if call.call.is_no_op() and call.uid() not in self._in_flight:
                self._remove_pending(call.uid())
                call.send_on_finish(
                    CallSkipped(
                        "call does not need to be executed because after sync it has no effect"
                    )
                )
            return synced

    def close(self) -> None:
        """Tell every held call the dispatcher is closed; add and pop refuse from now on."""
        with self._lock:
            if self._closed:
                return
            for call in self._calls.values():
                call.send_on_finish(DispatcherClosed())
            self._closed = True
            self._lock.notify_all()


class APIDispatcher:
    """Queue calls and run them off the scheduling loop (``APIDispatcher``)."""

    def __init__(
        self,
        client: Any,
        parallelization: int = 16,
        relevances: Mapping[str, int] = RELEVANCES,
    ) -> None:
        self.client = client
        #: Go runs up to this many calls at once; here they run one at a time (see the module).
        self.parallelization = parallelization
        self.call_queue = CallQueue(relevances)
        self._running = threading.Lock()
        self._stats_lock = threading.Lock()
        #: How many calls ran, keyed by call type and result, as Go's
        #: ``scheduler_async_api_call_execution_total`` counts them.
        self.execution_total: Counter[tuple[str, str]] = Counter()

    def add(self, call: APICall, on_finish: OnFinish | None = None) -> None:
        """Queue ``call``; raises :class:`CallSkipped` when it will not run (see the module)."""
        self.call_queue.add(QueuedAPICall(call, on_finish))

    def sync_object(self, obj: Any) -> Any:
        return self.call_queue.sync_object(obj)

    def dispatch(self) -> int:
        """Run every queued call, FIFO, on this thread; return how many ran."""
        ran = 0
        with self._running:
            while (queued := self.call_queue.pop()) is not None:
                error: BaseException | None = None
                try:
                    queued.call.execute(self.client)
                except Exception as exc:  # the caller hears it through OnFinish, as in Go
                    error = exc
                self.call_queue.finalize(queued)
                with self._stats_lock:
                    result = "error" if error is not None else "success"
                    self.execution_total[(queued.call_type(), result)] += 1
                queued.send_on_finish(error)
                ran += 1
        return ran

    def executed_by_type(self) -> dict[str, int]:
        """Calls that ran and succeeded, by type."""
        with self._stats_lock:
            return {t: n for (t, result), n in self.execution_total.items() if result == "success"}

    def wait_on_finish(self, on_finish: OnFinish) -> BaseException | None:
        """Wait for a call's end, running queued calls meanwhile; its unexpected error, or None.

        A skipped or overwritten call counts as done (Go's ``WaitOnFinish``).
        """
        while not on_finish.done():
            if self.dispatch() == 0:
                on_finish.wait(0.01)  # another thread is running it
        error = on_finish.result()
        return error if is_unexpected_error(error) else None

    def run(self, stop: threading.Event) -> None:
        """A live scheduler's dispatcher thread: run calls as they come until ``stop``."""
        while not stop.is_set():
            if self.call_queue.wait_for_work(0.1):
                self.dispatch()

    def close(self) -> None:
        self.call_queue.close()


class APICache:
    """How the framework sends its writes through the dispatcher (``APICache`` / ``APICacher``)."""

    def __init__(self, dispatcher: APIDispatcher, clock: Any = None) -> None:
        self.dispatcher = dispatcher
        self._clock = clock

    def patch_pod_status(
        self,
        pod: Pod,
        condition: PodCondition | None,
        nominating: framework.types.NominatingInfo | None,
    ) -> OnFinish:
        """Queue a status patch; a skip is no error (``PatchPodStatus``)."""
        on_finish = OnFinish()
        with contextlib.suppress(CallSkipped):  # a skip is an expected outcome
            self.dispatcher.add(
                PodStatusPatchCall(pod, condition, nominating, self._clock), on_finish
            )
        return on_finish

    def bind_pod(self, binding: Binding) -> OnFinish:
        """Queue a binding (``BindPod``); wait for it with :meth:`wait_on_finish`."""
        on_finish = OnFinish()
        with contextlib.suppress(CallSkipped):  # a skip is an expected outcome
            self.dispatcher.add(PodBindingCall(binding), on_finish)
        return on_finish

    def wait_on_finish(self, on_finish: OnFinish) -> BaseException | None:
        return self.dispatcher.wait_on_finish(on_finish)
