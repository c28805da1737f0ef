"""Binding cycles one at a time, in the order of their attempts: how a threaded run repeats exactly.

kube-scheduler runs each binding cycle on a goroutine of its own, and so
does this project. Most of the time that is no source of disorder in a
simulation: the driver lets a binding cycle finish before the next
scheduling cycle starts. But several binding cycles can be set going at the
same moment — a gang released at Permit when its last member arrives, a
batch of Permit timeouts that fall due together — and then which thread
writes to the API server or the queue first is up to the operating system,
and so would be the trace.

The :class:`BindingTurnstile` takes that choice back. It is the
scheduler's :class:`~framework.scheduler.binding_gate.BindingGate`: every
binding cycle stops at it as soon as WaitOnPermit returns
(:meth:`~BindingTurnstile.wait_turn`), and :meth:`~BindingTurnstile.settle`, on the
driver's thread, lets them through one at a time, the earliest attempt
first, each going as far as it can before the next. It returns when every
binding cycle has finished or is parked at Permit waiting for something
only another pod or time can bring.

No Kubernetes counterpart: this is the simulation's way of choosing one of
the interleavings kube-scheduler's goroutines could produce, and always the
same one.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable, Iterable

from framework.types import QueuedPodInfo

__all__ = ["BindingTurnstile"]


class BindingTurnstile:
    """Holds binding threads after WaitOnPermit and releases them in attempt order.

    ``futures`` lists the binding cycles in flight; ``parked`` counts the
    ones waiting at Permit that cannot go on by themselves
    (:meth:`WaitingPodsMap.blocked_count
    <framework.runtime.waiting_pods.WaitingPodsMap.blocked_count>` over the
    profiles); ``order`` numbers a binding cycle's attempt, the earliest
    lowest (:meth:`TraceRecorder.attempt_order
    <framework.simulator.recorder.TraceRecorder.attempt_order>`).
    """

    def __init__(
        self,
        futures: Callable[[], Iterable[concurrent.futures.Future[None]]],
        parked: Callable[[], int],
        order: Callable[[QueuedPodInfo], int],
    ) -> None:
        self._futures = futures
        self._order = order
        self._parked = parked
        self._cond = threading.Condition()
        self._arrived: dict[int, threading.Event] = {}
        self._watched: set[int] = set()
        self._open = False

    def wait_turn(self, assumed: QueuedPodInfo) -> None:
        """Called on a binding thread: wait here until :meth:`settle` lets this attempt through."""
        order = self._order(assumed)
        turn = threading.Event()
        with self._cond:
            if self._open:
                return
            self._arrived[order] = turn
            self._cond.notify_all()
        turn.wait()

    def settle(self) -> None:
        """Let waiting binding cycles through one by one until each is finished or parked."""
        with self._cond:
            while True:
                running = [f for f in self._futures() if not f.done()]
                for future in running:
                    if id(future) not in self._watched:
                        self._watched.add(id(future))
                        future.add_done_callback(self._wake)
                # A parked cycle never unparks itself, nor does one held here: when every
                # running cycle is one or the other, only the turnstile can move things on.
                if len(running) <= self._parked() + len(self._arrived):
                    if not self._arrived:
                        return
                    self._arrived.pop(min(self._arrived)).set()
                    continue
                self._cond.wait(timeout=1.0)  # woken by an arrival or a finished cycle

    def open(self) -> None:
        """Let every binding cycle through, now and from now on (when the run stops)."""
        with self._cond:
            self._open = True
            for turn in self._arrived.values():
                turn.set()
            self._arrived.clear()

    def _wake(self, future: concurrent.futures.Future[None]) -> None:
        with self._cond:
            self._watched.discard(id(future))
            self._cond.notify_all()
