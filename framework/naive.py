"""The smallest scheduler that works: first fit, straight against the API server.

This is the "home-made scheduler" of chapter 0, written out: list the
pending pods, highest priority first; for each, walk the nodes in name order
and take the first one that is not cordoned, carries the pod's
``nodeSelector`` labels and has room for its requests; bind the pod there
through ``pods/binding``, and record a ``Scheduled`` event. A pod that fits
nowhere gets a ``FailedScheduling`` event whose message has kube-scheduler's
exact shape
(``0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu.``).

It is what ``python -m framework demo`` runs until the framework chapters
replace it with the real thing: a queue, extension points, plugins and
scores. It knows nothing of taints, affinity, spreading, scoring or
preemption, and it is not meant to. Its reason strings are Kubernetes' own
(``NodeUnschedulable``, ``NodeAffinity`` and ``NodeResourcesFit`` plugins),
and its message is built as ``FitError.Error`` builds it
(``kubernetes/kubernetes:pkg/scheduler/framework/types.go``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from framework.apiserver import APIServer, EventRecorder
from framework.objects import Binding, Node, ObjectMeta, ObjectReference, Pod
from framework.objects.resources import CPU, MEMORY, PODS, pod_requests, resource_amount

__all__ = ["NaiveScheduler", "Placement", "fit_error_message"]

SCHEDULER_NAME = "default-scheduler"

# Reasons as the in-tree plugins word them.
ERR_NODE_UNSCHEDULABLE = "node(s) were unschedulable"
ERR_NODE_SELECTOR = "node(s) didn't match Pod's node affinity/selector"
ERR_TOO_MANY_PODS = "Too many pods"


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one pod went: a node name, or ``None`` and the reason."""

    pod: str
    node: str | None
    message: str


def fit_error_message(num_nodes: int, reasons_per_node: list[list[str]]) -> str:
    """``0/N nodes are available: <count> <reason>, ...``: each reason counted, sorted as text."""
    histogram = Counter(reason for reasons in reasons_per_node for reason in reasons)
    parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
    return f"0/{num_nodes} nodes are available: {', '.join(parts)}."


class NaiveScheduler:
    """First-fit scheduling of every pending pod, in one pass."""

    def __init__(self, api: APIServer, recorder: EventRecorder | None = None) -> None:
        self.api = api
        self.recorder = recorder or EventRecorder(api, component=SCHEDULER_NAME)

    def schedule_pending(self) -> list[Placement]:
        """Try every pending pod once; return where each went."""
        nodes = sorted(self.api.list(Node).items, key=lambda n: n.name)
        pending = [
            pod
            for pod in self.api.list(Pod, field_selector="spec.nodeName=").items
            if pod.spec.scheduler_name == SCHEDULER_NAME
        ]
        # Highest priority first; the API server's resourceVersion keeps creation order.
        pending.sort(key=lambda p: (-(p.spec.priority or 0), int(p.metadata.resource_version)))
        requested = self._requested_per_node()
        return [self._schedule_one(pod, nodes, requested) for pod in pending]

    def _requested_per_node(self) -> dict[str, dict[str, int]]:
        requested: dict[str, dict[str, int]] = {}
        for pod in self.api.list(Pod).items:
            if pod.spec.node_name:
                self._account(requested, pod.spec.node_name, pod)
        return requested

    @staticmethod
    def _account(requested: dict[str, dict[str, int]], node: str, pod: Pod) -> None:
        used = requested.setdefault(node, {})
        for name, amount in pod_requests(pod).items():
            used[name] = used.get(name, 0) + amount
        used[PODS] = used.get(PODS, 0) + 1

    def _schedule_one(
        self, pod: Pod, nodes: list[Node], requested: dict[str, dict[str, int]]
    ) -> Placement:
        reasons_per_node = []
        for node in nodes:
            reasons = self._misfits(pod, node, requested.get(node.name, {}))
            if not reasons:
                self._bind(pod, node)
                self._account(requested, node.name, pod)
                return Placement(pod.key, node.name, f"assigned to {node.name}")
            reasons_per_node.append(reasons)
        message = fit_error_message(len(nodes), reasons_per_node)
        self.recorder.event(pod, "Warning", "FailedScheduling", "Scheduling", message)
        return Placement(pod.key, None, message)

    @staticmethod
    def _misfits(pod: Pod, node: Node, used: dict[str, int]) -> list[str]:
        # Filter order as in the default profile: a node's first failure is its reason.
        if node.spec.unschedulable:
            return [ERR_NODE_UNSCHEDULABLE]
        labels = node.metadata.labels
        if any(labels.get(k) != v for k, v in pod.spec.node_selector.items()):
            return [ERR_NODE_SELECTOR]
        allocatable = node.status.allocatable
        reasons = []
        if used.get(PODS, 0) + 1 > resource_amount(PODS, allocatable):
            reasons.append(ERR_TOO_MANY_PODS)
        for name, amount in sorted(
            pod_requests(pod).items(), key=lambda kv: _resource_order(kv[0])
        ):
            if amount and used.get(name, 0) + amount > resource_amount(name, allocatable):
                reasons.append(f"Insufficient {name}")
        return reasons

    def _bind(self, pod: Pod, node: Node) -> None:
        binding = Binding(
            metadata=ObjectMeta(name=pod.name, namespace=pod.namespace, uid=pod.metadata.uid),
            target=ObjectReference(kind="Node", name=node.name),
        )
        self.api.bind(binding)
        self.recorder.event(
            pod,
            "Normal",
            "Scheduled",
            "Binding",
            f"Successfully assigned {pod.key} to {node.name}",
        )


def _resource_order(name: str) -> tuple[int, str]:
    # NodeResourcesFit checks cpu, then memory, then ephemeral storage, then the rest.
    fixed = {CPU: 0, MEMORY: 1, "ephemeral-storage": 2}
    return (fixed.get(name, 3), name)
