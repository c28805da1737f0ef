"""The one part of the kubelet this project plays: ending graceful deletions.

When a pod bound to a node is deleted with a grace period — as preemption
deletes its victims — the API server only marks it: ``deletionTimestamp``
is set to when the grace period ends, and the pod stays, *Terminating*.
On a real node the kubelet then stops the containers and, once they are
gone (at the latest when the grace period is over), deletes the pod for
good with a grace period of 0. Until then the pod still holds its room on
the node, which is why a preemptor waits for its victims to be gone.

There are no containers here, so :func:`finish_terminated_pods` does what
a kubelet would do with containers that use their whole grace period:
delete each terminating pod whose ``deletionTimestamp`` has come. The
simulator calls it whenever its fake clock moves;
:class:`TerminationLoop` calls it every second on real time, for
``python -m framework serve``.

Mirrors the status manager's final delete in
``kubernetes/kubernetes:pkg/kubelet/status/status_manager.go``
(``canBeDeleted``, then ``Delete`` with ``GracePeriodSeconds: 0`` and a uid
precondition). Simplified: nothing else of the kubelet (no admission, no
pod status, no container lifecycle).
"""

from __future__ import annotations

import contextlib
import threading

from framework.apiserver import APIServer
from framework.apiserver.errors import Conflict, NotFound
from framework.clock import Clock, parse_rfc3339
from framework.objects import Pod

__all__ = ["TerminationLoop", "finish_terminated_pods", "termination_deadlines"]


def termination_deadlines(api: APIServer) -> list[tuple[float, Pod]]:
    """Every terminating pod with the time (epoch seconds) its grace period ends."""
    return [
        (parse_rfc3339(pod.metadata.deletion_timestamp), pod)
        for pod in api.list(Pod).items
        if pod.metadata.deletion_timestamp
    ]


def finish_terminated_pods(api: APIServer, now: float) -> list[Pod]:
    """Delete for good each terminating pod whose grace period is over at ``now``; return them.

    The uid precondition makes sure a pod recreated under the same name in
    the meantime is left alone; a pod already gone is no error.
    """
    finished: list[Pod] = []
    for deadline, pod in termination_deadlines(api):
        if deadline <= now:
            with contextlib.suppress(NotFound, Conflict):
                api.delete(
                    Pod, pod.name, pod.namespace, uid=pod.metadata.uid, grace_period_seconds=0
                )
                finished.append(pod)
    return finished


class TerminationLoop:
    """:func:`finish_terminated_pods` every ``period`` seconds on a thread, until stopped."""

    def __init__(self, api: APIServer, clock: Clock, period: float = 1.0) -> None:
        self._api = api
        self._clock = clock
        self._period = period
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="kubelet", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _loop(self) -> None:
        while not self._stop.wait(self._period):
            finish_terminated_pods(self._api, self._clock.now())
