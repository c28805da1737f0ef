"""The nominator: which pending pods preemption has promised a node to.

When preemption evicts pods from a node to make room for a pending pod, the
pending pod does not get the node at once: the victims must terminate
first, and the pod goes back to the queue. Meanwhile the node is *nominated*
for it (``status.nominatedNodeName``), and later scheduling cycles must
account for it: a lower-priority pod must not take the room that was freed
for it. The nominator is that promise book: node name → the pods nominated
to it.

A nomination comes with a :class:`~framework.types.NominatingInfo`.
``OVERRIDE`` sets the pod's nominated node to the given name (an empty name
clears it); ``NOOP`` (and no info at all) keeps whatever the pod's own
``status.nominatedNodeName`` says, which is how the queue re-learns a
nomination from a pod it is given.

>>> from framework.objects import Pod
>>> from framework.types import PodInfo
>>> nominator = Nominator()
>>> pod = Pod.from_dict({"metadata": {"name": "big", "namespace": "default"}})
>>> nominator.add_nominated_pod(PodInfo(pod), NominatingInfo("node-a", NominatingMode.OVERRIDE))
>>> [p.pod.name for p in nominator.nominated_pods_for_node("node-a")]
['big']
>>> nominator.delete_nominated_pod_if_exists(pod)
>>> nominator.nominated_pods_for_node("node-a")
[]

Mirrors ``nominator`` in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/nominator.go`` (v1.33);
``NominatingInfo`` and ``NominatingMode`` live in ``framework.types``, as
in Kubernetes' ``pkg/scheduler/framework/types.go``, and are re-exported here.
Simplified: Kubernetes checks with its pod lister that the pod still exists
and is not yet bound before nominating it; we have no lister, so the caller
(the scheduler, after the API server answered) is trusted. Kubernetes keeps
only a reference (name, namespace, UID) and looks the current pod up in the
queue; we keep the pod as nominated and the queue prefers its newer copy.
Not thread-safe on its own: the scheduling queue holds its lock around it.
"""

from __future__ import annotations

from framework.objects import Pod, pod_uid
from framework.types import NominatingInfo, NominatingMode, PodInfo

__all__ = ["NominatingInfo", "NominatingMode", "Nominator"]


class Nominator:
    """Node name → pods nominated to it, and pod UID → node, kept consistent."""

    def __init__(self) -> None:
        self._pods_by_node: dict[str, list[PodInfo]] = {}
        self._node_by_uid: dict[str, str] = {}

    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None) -> None:
        """Record (or clear) the pod's nomination; a pod is nominated to at most one node."""
        self.delete_nominated_pod_if_exists(pod_info.pod)
        if nominating_info is not None and nominating_info.mode is NominatingMode.OVERRIDE:
            node_name = nominating_info.nominated_node_name
        else:
            node_name = pod_info.pod.status.nominated_node_name
        if not node_name:
            return
        self._node_by_uid[pod_uid(pod_info.pod)] = node_name
        self._pods_by_node.setdefault(node_name, []).append(PodInfo(pod_info.pod))

    def update_nominated_pod(self, old: Pod, new_pod_info: PodInfo) -> None:
        """Replace the pod's entry with its newer version, keeping an in-memory nomination.

        The scheduler may have nominated the pod before the API server has
        the nomination in ``status.nominatedNodeName``; an update that
        arrives in between, with the field empty on both sides, must not
        lose the nomination.
        """
        info: NominatingInfo | None = None
        if not old.status.nominated_node_name and not new_pod_info.pod.status.nominated_node_name:
            node_name = self._node_by_uid.get(pod_uid(old))
            if node_name is not None:
                info = NominatingInfo(node_name, NominatingMode.OVERRIDE)
        self.delete_nominated_pod_if_exists(old)
        self.add_nominated_pod(new_pod_info, info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        uid = pod_uid(pod)
        node_name = self._node_by_uid.pop(uid, None)
        if node_name is None:
            return
        remaining = [p for p in self._pods_by_node[node_name] if pod_uid(p.pod) != uid]
        if remaining:
            self._pods_by_node[node_name] = remaining
        else:
            del self._pods_by_node[node_name]

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to ``node_name``, in nomination order (copies)."""
        return [PodInfo(p.pod) for p in self._pods_by_node.get(node_name, ())]

    def has_nominated_pods(self, node_name: str) -> bool:
        """Whether any pod is nominated to ``node_name`` (Filter asks for every node it evaluates)."""
        return node_name in self._pods_by_node

    def nominated_node_names(self) -> list[str]:
        """Every node some pod is nominated to (the batch engine filters those one by one)."""
        return list(self._pods_by_node)

    def nominated_node_name(self, pod: Pod) -> str:
        """The node this pod is nominated to here, or ``""``."""
        return self._node_by_uid.get(pod_uid(pod), "")
