"""The scheduling queue: every pending pod waits here until the scheduler pops it.

* :mod:`framework.queue.scheduling_queue` — :class:`PriorityQueue`, the queue
  itself, and how a pod moves between its parts;
* :mod:`framework.queue.heap` — the keyed heap under activeQ and backoffQ;
* :mod:`framework.queue.active` — activeQ and the pods in flight;
* :mod:`framework.queue.backoff` — backoffQ and the backoff formula;
* :mod:`framework.queue.unschedulable` — the unschedulable (and gated) pods;
* :mod:`framework.queue.hints` — which events can move which rejected pod;
* :mod:`framework.queue.events` — the cluster events an update stands for;
* :mod:`framework.queue.nominator` — pods nominated to a node by preemption.

Chapter 2 of the book follows a pod through all of them.
"""

from framework.queue.hints import (
    QueueingHintFunction,
    QueueingHintMap,
    QueueingStrategy,
    build_queueing_hint_map,
    is_pod_worth_requeuing,
)
from framework.queue.nominator import NominatingInfo, NominatingMode
from framework.queue.scheduling_queue import (
    ACTIVE_Q,
    BACKOFF_Q,
    IN_FLIGHT,
    UNSCHEDULABLE_PODS,
    PendingPod,
    PodAlreadyQueued,
    PriorityQueue,
)

__all__ = [
    "ACTIVE_Q",
    "BACKOFF_Q",
    "IN_FLIGHT",
    "UNSCHEDULABLE_PODS",
    "NominatingInfo",
    "NominatingMode",
    "PendingPod",
    "PodAlreadyQueued",
    "PriorityQueue",
    "QueueingHintFunction",
    "QueueingHintMap",
    "QueueingStrategy",
    "build_queueing_hint_map",
    "is_pod_worth_requeuing",
]
