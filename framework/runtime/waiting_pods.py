"""Pods parked at Permit, and the map the framework keeps of them.

When a Permit plugin answers ``Wait``, the pod's scheduling cycle ends
normally — the next pod can be scheduled — but its binding cycle stops at
its first step, *WaitOnPermit*, until every plugin that asked to wait has
allowed it, or one rejects it, or that plugin's timeout passes. Other
plugins reach the waiting pod through the framework handle
(``get_waiting_pod(uid).allow(name)``): that is how Coscheduling lets a whole
gang through at once when its last member arrives.

The first decision wins: once a pod was allowed or rejected, later calls do
nothing. Each plugin's timeout starts when the pod is parked, on the
injected clock, and holds however late the binding cycle starts waiting; a
plugin that has allowed the pod no longer times it out.

Mirrors ``waitingPod`` and ``waitingPodsMap`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/waiting_pods_map.go``
(v1.33).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from framework.clock import Clock
from framework.objects import Pod
from framework.status import Status

__all__ = ["MAX_PERMIT_TIMEOUT_SECONDS", "WaitingPodImpl", "WaitingPodsMap"]

MAX_PERMIT_TIMEOUT_SECONDS = 15 * 60
"""Permit timeouts are capped at 15 minutes (``maxTimeout`` in framework.go)."""


class WaitingPodImpl:
    """One pod waiting at Permit: which plugins it waits for, and until when."""

    def __init__(self, pod: Pod, plugin_timeouts: Mapping[str, float], clock: Clock) -> None:
        self._pod = pod
        self._clock = clock
        self._lock = threading.Lock()
        self._timeouts = {
            name: min(timeout, MAX_PERMIT_TIMEOUT_SECONDS)
            for name, timeout in plugin_timeouts.items()
        }
        now = clock.now()
        self._deadlines = {name: now + timeout for name, timeout in self._timeouts.items()}
        # A timer per plugin, started now, as newWaitingPod starts them: the deadlines hold
        # however late the binding cycle gets round to waiting, and whatever the clock does.
        self._timers = {name: clock.after(timeout) for name, timeout in self._timeouts.items()}
        self._pending = set(self._timeouts)
        self._decided = threading.Event()
        self._result: Status | None = None

    def get_pod(self) -> Pod:
        return self._pod

    def get_pending_plugins(self) -> list[str]:
        with self._lock:
            return sorted(self._pending)

    def blocked(self) -> bool:
        """Whether :meth:`wait` can only return once someone decides or time moves.

        True while the pod is undecided and no pending plugin's timeout has
        passed; False once it is allowed, rejected or due to time out, when
        its binding cycle is about to go on. (No Go counterpart: the
        simulator asks it to know when every binding cycle has gone as far
        as it can.)
        """
        with self._lock:
            if self._decided.is_set() or not self._pending:
                return False
            return not any(self._timers[name].is_set() for name in self._pending)

    def allow(self, plugin_name: str) -> None:
        """One plugin lets the pod through; the last one to do so releases it."""
        with self._lock:
            self._pending.discard(plugin_name)
            if self._pending:
                return
        self._decide(Status.success())

    def reject(self, plugin_name: str, message: str) -> None:
        """Reject the pod: its binding cycle fails with Unschedulable from ``plugin_name``."""
        self._decide(Status.unschedulable(message).with_plugin(plugin_name))

    def _decide(self, status: Status) -> None:
        with self._lock:
            if self._decided.is_set():
                return  # the first decision wins, as the Go channel's buffer of one does
            self._result = status
            self._decided.set()
        for timer in self._timers.values():
            timer.set()  # wakes wait(), which waits on a timer; none is needed any more

    def wait(self) -> Status:
        """Block until allowed, rejected, or the earliest pending plugin's timeout passes."""
        while not self._decided.is_set():
            with self._lock:
                if not self._pending:
                    break
                plugin = min(self._pending, key=lambda name: (self._deadlines[name], name))
            self._clock.wait(self._timers[plugin], None)  # its deadline, or a decision
            with self._lock:
                timed_out = not self._decided.is_set() and plugin in self._pending
            if timed_out:  # not if that plugin allowed the pod meanwhile: wait for the next
                waited = _go_duration(self._timeouts[plugin])
                self.reject(
                    plugin, f"rejected due to timeout after waiting {waited} at plugin {plugin}"
                )
        with self._lock:
            return self._result if self._result is not None else Status.success()


def _go_duration(seconds: float) -> str:
    """Format seconds as Go's ``time.Duration.String`` does for whole seconds (``1m30s``)."""
    whole = int(seconds)
    if whole != seconds:
        return f"{seconds:g}s"
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


class WaitingPodsMap:
    """Waiting pods by uid, shared by the scheduling loop, binding cycles and plugins."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pods: dict[str, WaitingPodImpl] = {}

    def add(self, uid: str, waiting: WaitingPodImpl) -> None:
        with self._lock:
            self._pods[uid] = waiting

    def remove(self, uid: str) -> None:
        with self._lock:
            self._pods.pop(uid, None)

    def get(self, uid: str) -> WaitingPodImpl | None:
        with self._lock:
            return self._pods.get(uid)

    def blocked_count(self) -> int:
        """How many waiting pods are :meth:`~WaitingPodImpl.blocked`."""
        with self._lock:
            pods = list(self._pods.values())
        return sum(1 for waiting in pods if waiting.blocked())

    def iterate(self, callback: Callable[[WaitingPodImpl], None]) -> None:
        with self._lock:
            pods = list(self._pods.values())
        for waiting in pods:
            callback(waiting)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pods)
