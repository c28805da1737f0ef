"""PrioritySort: the default QueueSort plugin. Higher priority first, then first come, first served.

``less(a, b)`` is true when ``a`` has the higher priority, or the same
priority and the earlier queue timestamp. A pod's priority is
``spec.priority`` (the API server copies it from the pod's PriorityClass),
or 0 when unset. The timestamp is when the pod last entered the queue, so a
pod that just failed an attempt goes behind the equal-priority pods that
were waiting.

This is a strict weak ordering: never true both ways, and two pods are
"equal" only when both priority and timestamp are equal. That is what the
activeQ heap needs (chapter 2).

>>> from framework.objects import Pod
>>> from framework.types import PodInfo, QueuedPodInfo
>>> def queued(priority, timestamp):
...     pod = Pod.from_dict({"metadata": {"name": "p"}, "spec": {"priority": priority}})
...     return QueuedPodInfo(PodInfo(pod), timestamp=timestamp)
>>> sort = PrioritySort()
>>> sort.less(queued(100, 5.0), queued(0, 1.0)), sort.less(queued(0, 1.0), queued(0, 5.0))
(True, True)

Mirrors ``PrioritySort`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/queuesort/priority_sort.go``
(v1.33); ``PodPriority`` is :func:`framework.objects.pod_priority`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.objects import pod_priority
from framework.plugins import names
from framework.types import QueuedPodInfo

__all__ = ["NAME", "PrioritySort", "new"]

NAME = names.PRIORITY_SORT


class PrioritySort:
    """Orders activeQ by priority, highest first, then by queue timestamp, earliest first."""

    def name(self) -> str:
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Whether ``a`` should be popped before ``b``."""
        p1, p2 = pod_priority(a.pod), pod_priority(b.pod)
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)


def new(args: Any, handle: Any) -> PrioritySort:
    """The factory the registry calls; PrioritySort takes no args."""
    return PrioritySort()


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _queue_sort: type[interface.QueueSortPlugin] = PrioritySort
