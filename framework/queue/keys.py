"""How the queue names a pod in its sub-queues: by ``namespace/name``.

The sub-queues are keyed by ``namespace/name``, as client-go's caches are:
an update of the pod replaces the entry with the same key. In-flight
tracking and the nominator use the pod's UID instead
(:func:`framework.objects.pod_uid`), which tells apart two pods that had the
same name at different times (deleted and re-created).

Mirrors ``podInfoKeyFunc`` in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/scheduling_queue.go``
(v1.33) and the use of ``pod.UID`` in ``active_queue.go`` and
``nominator.go``.
"""

from __future__ import annotations

from framework.objects import Pod

__all__ = ["pod_key"]


def pod_key(pod: Pod) -> str:
    """``namespace/name``, the key of the pod in activeQ, backoffQ and the unschedulable pods."""
    return pod.key
