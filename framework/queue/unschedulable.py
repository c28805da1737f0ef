"""The unschedulable pods: tried, rejected, and waiting for a cluster event that could help.

A plain map from ``namespace/name`` to the pod's
:class:`~framework.types.QueuedPodInfo`: these pods are not ordered,
because none of them is going anywhere until an event (or the five-minute
flush) moves it. The map also holds the pods a PreEnqueue plugin keeps at
the gate (``gated()``), which only an event their gating plugin registered
can move.

Mirrors ``unschedulablePods`` in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/unschedulable_pods.go``
(v1.33). Simplified: no metrics recorders (Kubernetes counts gated and
unschedulable pods separately).
"""

from __future__ import annotations

from framework.types import QueuedPodInfo

__all__ = ["UnschedulablePods"]


class UnschedulablePods:
    """The map of unschedulable (and gated) pods. Guarded by the queue's lock."""

    def __init__(self) -> None:
        self._pods: dict[str, QueuedPodInfo] = {}

    def add_or_update(self, pod_info: QueuedPodInfo) -> None:
        self._pods[pod_info.key] = pod_info

    def delete(self, key: str) -> QueuedPodInfo | None:
        return self._pods.pop(key, None)

    def get(self, key: str) -> QueuedPodInfo | None:
        return self._pods.get(key)

    def pod_infos(self) -> list[QueuedPodInfo]:
        """The pods in the order they were first parked."""
        return list(self._pods.values())

    def __contains__(self, key: object) -> bool:
        return key in self._pods

    def __len__(self) -> int:
        return len(self._pods)
