"""The unschedulable pods: tried, rejected, and waiting for a cluster event that could help.

A plain map from ``namespace/name`` to the pod's
:class:`~framework.types.QueuedPodInfo`: these pods are not ordered,
because none of them is going anywhere until an event (or the five-minute
flush) moves it. The map also holds the pods a PreEnqueue plugin keeps at
the gate (``gated()``), which only an event their gating plugin registered
can move.

Beside the map, two indexes of the pods a newly bound pod can help (Go's
``getUnschedulablePodsWithCrossTopologyTerm`` walks the whole map for them
on every bound pod): those rejected by PodTopologySpread, by namespace, and
those with a required pod-affinity term. A pod is indexed when it is parked
or updated (:meth:`UnschedulablePods.add_or_update`): the plugins that
rejected a parked pod do not change while it waits (a pop clears them, and
only the popped pod's attempt names them again), and the queue re-parks a
pod it updates in place. :meth:`~UnschedulablePods.cross_topology_candidates`
gives them in the order they were first parked, the map's own order, so a
loop over them moves the same pods in the same order as a loop over the map.

Mirrors ``unschedulablePods`` in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/unschedulable_pods.go``
(v1.33). Simplified: no metrics recorders (Kubernetes counts gated and
unschedulable pods separately). The indexes are not Kubernetes': Go's loop
over a map of 50,000 pods costs microseconds a pod, CPython's 18 ms.
"""

from __future__ import annotations

import itertools

from framework.objects import Pod
from framework.plugins.names import POD_TOPOLOGY_SPREAD
from framework.types import QueuedPodInfo

__all__ = ["UnschedulablePods"]


class UnschedulablePods:
    """The map of unschedulable (and gated) pods. Guarded by the queue's lock."""

    def __init__(self) -> None:
        self._pods: dict[str, QueuedPodInfo] = {}
        # When each pod was first parked: the order of the map, for the indexes' answers.
        self._parked: dict[str, int] = {}
        self._counter = itertools.count()
        self._spreading: dict[str, dict[str, QueuedPodInfo]] = {}  # namespace → key → pod
        self._with_pod_affinity: dict[str, QueuedPodInfo] = {}

    def add_or_update(self, pod_info: QueuedPodInfo) -> None:
        """Park the pod, or replace its record (it keeps its place); index it as it is now."""
        key = pod_info.key
        parked = key in self._pods
        if not parked:
            self._parked[key] = next(self._counter)
        self._pods[key] = pod_info
        namespace = pod_info.pod.namespace
        if POD_TOPOLOGY_SPREAD in pod_info.unschedulable_plugins:
            spreading = self._spreading.setdefault(namespace, {})
            self._spreading[namespace] = self._indexed(spreading, pod_info, parked)
        else:
            self._drop_spreading(namespace, key)
        if _has_required_pod_affinity(pod_info.pod):
            self._with_pod_affinity = self._indexed(self._with_pod_affinity, pod_info, parked)
        else:
            self._with_pod_affinity.pop(key, None)

    def _indexed(
        self, index: dict[str, QueuedPodInfo], pod_info: QueuedPodInfo, parked: bool
    ) -> dict[str, QueuedPodInfo]:
        """``index`` with ``pod_info`` in it, still in the order the pods were first parked."""
        key = pod_info.key
        late = parked and key not in index
        index[key] = pod_info
        if late:  # parked before some of the index: it goes where it was parked
            return dict(sorted(index.items(), key=lambda item: self._parked[item[0]]))
        return index

    def delete(self, key: str) -> QueuedPodInfo | None:
        pod_info = self._pods.pop(key, None)
        if pod_info is not None:
            del self._parked[key]
            self._drop_spreading(pod_info.pod.namespace, key)
            self._with_pod_affinity.pop(key, None)
        return pod_info

    def _drop_spreading(self, namespace: str, key: str) -> None:
        spreading = self._spreading.get(namespace)
        if spreading is not None and spreading.pop(key, None) is not None and not spreading:
            del self._spreading[namespace]

    def get(self, key: str) -> QueuedPodInfo | None:
        return self._pods.get(key)

    def pod_infos(self) -> list[QueuedPodInfo]:
        """The pods in the order they were first parked."""
        return list(self._pods.values())

    def cross_topology_candidates(self, namespace: str) -> list[QueuedPodInfo]:
        """The only pods a pod bound in ``namespace`` can help, in the order they were parked.

        Those rejected by PodTopologySpread in that namespace, and those with
        a required pod-affinity term (whether the bound pod matches it is the
        caller's test); every other parked pod would fail that test.
        """
        spreading = self._spreading.get(namespace, {})
        if not self._with_pod_affinity:
            return list(spreading.values())
        # Two runs, each in parked order: sorting their union is a linear merge.
        both = {**spreading, **self._with_pod_affinity}
        return [both[key] for key in sorted(both, key=self._parked.__getitem__)]

    def __contains__(self, key: object) -> bool:
        return key in self._pods

    def __len__(self) -> int:
        return len(self._pods)


def _has_required_pod_affinity(pod: Pod) -> bool:
    affinity = pod.spec.affinity
    return (
        affinity is not None
        and affinity.pod_affinity is not None
        and bool(affinity.pod_affinity.required_during_scheduling_ignored_during_execution)
    )
