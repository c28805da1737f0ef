"""Chapter 2 exercise: write QOSSort's ``less``.

QOSSort orders the scheduling queue's activeQ: higher priority first; at
equal priority, Guaranteed before Burstable before BestEffort; at equal
priority and class, the pod that entered the queue first. Fill in
:meth:`QOSSort.less`, then check it::

    python -m pytest chapters/02_queue --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/qos.py``. Stuck? ``python -m framework hint 2`` shows the
hints one at a time.
"""

from __future__ import annotations

from typing import Any

from framework.objects import pod_priority
from framework.objects.qos import QOSClass, get_pod_qos
from framework.plugins import names
from framework.types import QueuedPodInfo

__all__ = ["NAME", "QOSClass", "QOSSort", "get_pod_qos", "new", "pod_priority"]

NAME = names.QOS_SORT


class QOSSort:
    """Orders activeQ by priority, then QoS class, then queue timestamp."""

    def name(self) -> str:
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Return True when ``a`` should be popped before ``b``, False otherwise.

        You have: ``a.pod`` and ``b.pod`` (the pods), ``a.timestamp`` and
        ``b.timestamp`` (when each entered the queue, in seconds),
        :func:`pod_priority` (``spec.priority``, 0 when unset) and
        :func:`get_pod_qos` (a :class:`QOSClass`, chapter 1).
        """
        # TODO 1: different priorities? The higher one goes first.
        # TODO 2: same priority, different QoS classes? Guaranteed before
        #         Burstable before BestEffort.
        # TODO 3: same priority and class? The earlier timestamp goes first,
        #         and two pods that are equal in all three are not less than
        #         each other (never answer True both ways).
        raise NotImplementedError(
            "chapter 2 exercise: write QOSSort.less in chapters/02_queue/exercise.py "
            "(the rule is in the chapter's 'Exercise' section; hints: python -m framework hint 2)"
        )


def new(args: Any, handle: Any) -> QOSSort:
    """The factory the registry calls; QOSSort takes no args."""
    return QOSSort()
