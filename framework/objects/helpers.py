"""Facts read off a pod that every layer needs: its priority and the UID that names it.

Priority is ``spec.priority``, or 0 when unset (no PriorityClass admission
ran). The queue sorts by it, preemption ranks victims by it, and the
plugins that touch the queue's hints compare it: it lives here, beside the
objects, so that none of them imports another for it.

A pod's UID tells apart two pods that had the same name at different times
(deleted and re-created). A pod that never went through an API server has
no UID (hand-made pods in tests and examples); its ``namespace/name`` key
stands in, so in-flight tracking and the nominator still work with them.

Mirrors ``PodPriority`` in
``kubernetes/kubernetes:staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go``
and Go's reads of ``pod.UID`` (v1.33).
"""

from __future__ import annotations

from framework.objects.pod import Pod

__all__ = ["pod_priority", "pod_uid"]


def pod_priority(pod: Pod) -> int:
    """``spec.priority``, or 0 when the pod has none (no PriorityClass admission ran)."""
    return pod.spec.priority if pod.spec.priority is not None else 0


def pod_uid(pod: Pod) -> str:
    """The pod's UID, or its key when it has none (a pod that was never stored)."""
    return pod.metadata.uid or pod.key
