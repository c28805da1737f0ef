"""Pods, plugins and queues for the queue's tests, built the same way in every file."""

from __future__ import annotations

from typing import Any

from framework.clock import FakeClock
from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.objects import Pod, pod_uid
from framework.plugins.queuesort import PrioritySort
from framework.plugins.schedulinggates import SchedulingGates
from framework.queue import PriorityQueue, build_queueing_hint_map
from framework.types import QueuedPodInfo

PROFILE = "default-scheduler"
NODE_LABEL_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)

GUARANTEED = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
BURSTABLE = {"requests": {"cpu": "500m"}}
BEST_EFFORT: dict[str, Any] = {}


def pod(
    name: str,
    *,
    priority: int | None = None,
    resources: dict[str, Any] | None = None,
    gates: tuple[str, ...] = (),
    labels: dict[str, str] | None = None,
    namespace: str = "default",
    node_name: str = "",
    nominated_node_name: str = "",
    **spec: Any,
) -> Pod:
    """A pod with a UID equal to its name, so tests can call ``done(name)``."""
    body: dict[str, Any] = {"containers": [{"name": "c", "resources": resources or {}}], **spec}
    if priority is not None:
        body["priority"] = priority
    if gates:
        body["schedulingGates"] = [{"name": g} for g in gates]
    if node_name:
        body["nodeName"] = node_name
    manifest: dict[str, Any] = {
        "metadata": {"name": name, "namespace": namespace, "uid": name, "labels": labels or {}},
        "spec": body,
    }
    if nominated_node_name:
        manifest["status"] = {"nominatedNodeName": nominated_node_name}
    return Pod.from_dict(manifest)


class NodeFit:
    """Rejects pods; helped by any node add (no hint: always QUEUE)."""

    def name(self) -> str:
        return "NodeFit"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD))]


class NodeLabels:
    """Helped by a node label update whose new node carries ``ready=yes``."""

    def name(self) -> str:
        return "NodeLabels"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(NODE_LABEL_UPDATE, self.hint)]

    def hint(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        labels = getattr(getattr(new, "metadata", None), "labels", {})
        return QueueingHint.QUEUE if labels.get("ready") == "yes" else QueueingHint.QUEUE_SKIP


class OwnLabels:
    """Helped only by an update of the rejected pod's own labels."""

    def name(self) -> str:
        return "OwnLabels"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL), self.hint
            )
        ]

    def hint(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        same = isinstance(new, Pod) and pod_uid(new) == pod_uid(pod)
        return QueueingHint.QUEUE if same else QueueingHint.QUEUE_SKIP


class Anything:
    """A plugin without EventsToRegister: registered for every event."""

    def name(self) -> str:
        return "Anything"


def new_queue(
    clock: FakeClock,
    less: Any = None,
    **options: Any,
) -> PriorityQueue:
    """A queue with SchedulingGates at PreEnqueue and the test plugins registered."""
    gates = SchedulingGates()
    plugins = [gates, NodeFit(), NodeLabels(), OwnLabels(), Anything()]
    return PriorityQueue(
        less or PrioritySort().less,
        clock=clock,
        pre_enqueue_plugins={PROFILE: [gates]},
        queueing_hint_map={PROFILE: build_queueing_hint_map(plugins)},
        **options,
    )


def where(queue: PriorityQueue) -> dict[str, list[str]]:
    """Pod names by the queue they are in (activeQ in pop order)."""
    return {
        name: [p.pod.name for p in pods] for name, pods in queue.pending_pods_by_queue().items()
    }


def fail(
    queue: PriorityQueue,
    pod_info: QueuedPodInfo,
    *plugins: str,
    pending: tuple[str, ...] = (),
) -> None:
    """End an attempt as the scheduler does: name the rejecting plugins (none = an error)."""
    pod_info.unschedulable_plugins.update(plugins)
    pod_info.pending_plugins.update(pending)
    queue.add_unschedulable_if_not_present(pod_info, queue.scheduling_cycle())


def pop(queue: PriorityQueue) -> QueuedPodInfo:
    """Pop without blocking; fail the test if activeQ is empty."""
    popped = queue.pop(timeout=0)
    assert popped is not None, f"activeQ is empty: {where(queue)}"
    return popped
