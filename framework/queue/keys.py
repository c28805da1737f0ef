"""How the queue names a pod: by ``namespace/name`` in its queues, by UID while it is in flight.

The sub-queues are keyed by ``namespace/name``, as client-go's caches are:
an update of the pod replaces the entry with the same key. In-flight
tracking and the nominator use the pod's UID instead, which tells apart two
pods that had the same name at different times (deleted and re-created).

A pod that never went through an API server has no UID; hand-made pods in
tests and examples are like that. For those the key stands in for the UID,
so the queue still works with them.

Mirrors ``podInfoKeyFunc`` in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/scheduling_queue.go``
(v1.33) and the use of ``pod.UID`` in ``active_queue.go`` and
``nominator.go``.
"""

from __future__ import annotations

from framework.objects import Pod

__all__ = ["pod_key", "pod_uid"]


def pod_key(pod: Pod) -> str:
    """``namespace/name``, the key of the pod in activeQ, backoffQ and the unschedulable pods."""
    return pod.key


def pod_uid(pod: Pod) -> str:
    """The pod's UID, or its key when it has none (a pod that was never stored)."""
    return pod.metadata.uid or pod.key
