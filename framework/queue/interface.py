"""The scheduling queue as the scheduler sees it: ``SchedulingQueue``.

The scheduler and its event handlers talk to the queue through these calls
only: pop a pod and say when its attempt is done, put a failed one back,
route the cluster's pod changes and events to it, and keep the nominations.
:class:`~framework.queue.scheduling_queue.PriorityQueue` is the one
implementation, as in Kubernetes; it is also the framework's
:class:`~framework.interface.PodNominator` and
:class:`~framework.interface.PodActivator`.

Mirrors the ``SchedulingQueue`` interface in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/scheduling_queue.go``
(v1.33). Simplified: the calls this project's scheduler makes; Go's
``Run``/``Close`` are the scheduler's business here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from framework.cluster_event import ClusterEvent
from framework.objects import Pod
from framework.types import NominatingInfo, PodInfo, QueuedPodInfo

if TYPE_CHECKING:
    from framework.queue.scheduling_queue import PriorityQueue

__all__ = ["SchedulingQueue"]


class SchedulingQueue(Protocol):
    """What the scheduler asks of its queue (``SchedulingQueue``)."""

    def add(self, pod: Pod) -> None: ...

    def update(self, old: Pod, new: Pod) -> None: ...

    def delete(self, pod: Pod) -> None: ...

    def activate(self, pods: Mapping[str, Pod] | Iterable[Pod]) -> None: ...

    def pop(self, timeout: float | None = None) -> QueuedPodInfo | None: ...

    def done(self, uid: str) -> None: ...

    def scheduling_cycle(self) -> int: ...

    def add_unschedulable_if_not_present(
        self, pod_info: QueuedPodInfo, pod_scheduling_cycle: int
    ) -> None: ...

    def move_all_to_active_or_backoff_queue(
        self,
        event: ClusterEvent,
        old_obj: Any = None,
        new_obj: Any = None,
        pre_check: Callable[[Pod], bool] | None = None,
    ) -> None: ...

    def assigned_pod_added(self, pod: Pod) -> None: ...

    def assigned_pod_updated(self, old: Pod, new: Pod, event: ClusterEvent) -> None: ...

    # --- PodNominator ---

    def add_nominated_pod(
        self, pod_info: PodInfo, nominating_info: NominatingInfo | None
    ) -> None: ...

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None: ...

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...

    def has_nominated_pods(self, node_name: str) -> bool: ...


if TYPE_CHECKING:  # checked as Go's `var _ SchedulingQueue = &PriorityQueue{}`
    _queue: type[SchedulingQueue] = PriorityQueue
