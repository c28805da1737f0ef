"""QOSSort: priority first, then QoS class (Guaranteed, Burstable, BestEffort), then first come.

An out-of-tree QueueSort plugin from the scheduler-plugins project, and the
example this project grew from. Among pods of equal priority it lets the
ones with the strongest resource guarantees go first, on the idea that a
Guaranteed pod (requests equal to limits) is the most valuable to place and
a BestEffort pod the least. ``less(a, b)`` is true when:

1. ``a`` has the higher priority (``spec.priority``, 0 when unset); or
2. the same priority, and ``a`` has the better QoS class
   (Guaranteed before Burstable before BestEffort); or
3. the same priority and class, and ``a`` entered the queue earlier.

**The tie-break (3) is deliberate, and for years upstream did not have it.**
The ``Less`` scheduler-plugins shipped from 2020 compared priority and then
answered from the QoS classes alone, returning *true* when both pods had the
same class: ``less(a, b)`` and ``less(b, a)`` were both true for any two
equal pods. That is not a strict weak ordering, and a binary heap built on
it no longer has a meaningful head: among equal pods the newest one rises to
the top, so equal pods come out last-in, first-out. :func:`upstream_less`
keeps that function exactly, for the tests and the chapter that show it.
scheduler-plugins added the same timestamp tie-break in
kubernetes-sigs/scheduler-plugins#855 (2025), so current upstream and this
plugin order pods the same way.

>>> from framework.objects import Pod
>>> from framework.types import PodInfo, QueuedPodInfo
>>> def queued(name, timestamp, cpu=None):
...     resources = {"requests": {"cpu": cpu, "memory": "1Gi"},
...                  "limits": {"cpu": cpu, "memory": "1Gi"}} if cpu else {}
...     pod = Pod.from_dict({"metadata": {"name": name},
...                          "spec": {"containers": [{"name": "c", "resources": resources}]}})
...     return QueuedPodInfo(PodInfo(pod), timestamp=timestamp)
>>> guaranteed, best_effort = queued("g", 2.0, cpu="1"), queued("b", 1.0)
>>> QOSSort().less(guaranteed, best_effort)  # the class beats the earlier timestamp
True
>>> early, late = queued("early", 1.0), queued("late", 2.0)
>>> QOSSort().less(early, late), QOSSort().less(late, early)
(True, False)
>>> upstream_less(early, late), upstream_less(late, early)  # true both ways
(True, True)

Mirrors ``Sort`` in ``kubernetes-sigs/scheduler-plugins:pkg/qos/queue_sort.go``;
the QoS class is :func:`~framework.objects.qos.get_pod_qos` (chapter 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.objects import Pod, pod_priority
from framework.objects.qos import QOSClass, get_pod_qos
from framework.plugins import names
from framework.types import QueuedPodInfo

__all__ = ["NAME", "QOS_RANK", "QOSSort", "new", "upstream_comp_qos", "upstream_less"]

NAME = names.QOS_SORT

# Lower goes first.
QOS_RANK = {QOSClass.GUARANTEED: 0, QOSClass.BURSTABLE: 1, QOSClass.BEST_EFFORT: 2}


class QOSSort:
    """Orders activeQ by priority, then QoS class, then queue timestamp."""

    def name(self) -> str:
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Whether ``a`` should be popped before ``b``."""
        p1, p2 = pod_priority(a.pod), pod_priority(b.pod)
        if p1 != p2:
            return p1 > p2
        q1, q2 = QOS_RANK[get_pod_qos(a.pod)], QOS_RANK[get_pod_qos(b.pod)]
        if q1 != q2:
            return q1 < q2
        return a.timestamp < b.timestamp


def upstream_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    """scheduler-plugins' ``Less`` before #855, exactly: no tie-break, true both ways for equals."""
    p1, p2 = pod_priority(a.pod), pod_priority(b.pod)
    return p1 > p2 or (p1 == p2 and upstream_comp_qos(a.pod, b.pod))


def upstream_comp_qos(p1: Pod, p2: Pod) -> bool:
    """scheduler-plugins' ``compQOS`` before #855: whether ``p1``'s class may go before ``p2``'s."""
    q1, q2 = get_pod_qos(p1), get_pod_qos(p2)
    if q1 is QOSClass.GUARANTEED:
        return True
    if q1 is QOSClass.BURSTABLE:
        return q2 is not QOSClass.GUARANTEED
    return q2 is QOSClass.BEST_EFFORT


def new(args: Any, handle: Any) -> QOSSort:
    """The factory the registry calls; QOSSort takes no args."""
    return QOSSort()


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _queue_sort: type[interface.QueueSortPlugin] = QOSSort
