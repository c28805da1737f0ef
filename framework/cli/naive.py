"""The smallest scheduler that works: first fit, straight against the API server.

This is the "home-made scheduler" of chapter 0, written out: list the
pending pods, highest priority first; for each, walk the nodes in name order
and take the first one that is not cordoned, carries the pod's
``nodeSelector`` labels and has room for its requests; bind the pod there
through ``pods/binding``, and record a ``Scheduled`` event. A pod that fits
nowhere gets a ``FailedScheduling`` event whose message has kube-scheduler's
exact shape
(``0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu.``).

Chapter 1 runs it on its cluster (``framework/scenarios/first_fit.yaml``)
with ``python -m framework.cli.naive [FILE]``; the framework chapters replace it
with the real thing: a queue, extension points, plugins and scores. It knows
nothing of taints, affinity, spreading, scoring or preemption, and it is not
meant to. Its reason strings are Kubernetes' own (``NodeUnschedulable``,
``NodeAffinity`` and ``NodeResourcesFit`` plugins), and its message is the
framework's :class:`~framework.scheduler.algorithm.FitError`, which words it
as ``FitError.Error`` does
(``kubernetes/kubernetes:pkg/scheduler/framework/types.go``).
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from framework.apiserver import APIServer, EventRecorder
from framework.clock import FakeClock
from framework.interface import Diagnosis, FitError, NodeToStatus
from framework.objects import Binding, Event, Node, ObjectMeta, ObjectReference, Pod
from framework.objects.manifest import loads
from framework.objects.resources import CPU, MEMORY, PODS, pod_requests, resource_amount
from framework.status import Status

__all__ = ["FIRST_FIT_SCENARIO", "NaiveScheduler", "Placement", "render_cluster", "run_first_fit"]

FIRST_FIT_SCENARIO = "first_fit.yaml"
"""Chapter 1's cluster, shipped in the ``framework.scenarios`` package."""

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
        rejected = NodeToStatus()
        for node in nodes:
            reasons = self._misfits(pod, node, requested.get(node.name, {}))
            if not reasons:
                self._bind(pod, node)
                self._account(requested, node.name, pod)
                return Placement(pod.key, node.name, f"assigned to {node.name}")
            rejected.set(node.name, Status.unschedulable(*reasons))
        # The framework's FitError words the message, exactly as kube-scheduler does (chapter 4).
        message = str(FitError(pod, len(nodes), Diagnosis(rejected)))
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


def run_first_fit(path: str | Path | None = None) -> str:
    """Schedule a cluster (chapter 1's by default) with the first-fit scheduler; the report as text.

    Time is a :class:`~framework.clock.FakeClock` and uids come from a
    counter, so the report is the same on every run.
    """
    if path is None:
        text = files("framework.scenarios").joinpath(FIRST_FIT_SCENARIO).read_text("utf-8")
        source = FIRST_FIT_SCENARIO
    else:
        text, source = Path(path).read_text(encoding="utf-8"), str(path)
    counter = itertools.count(1)
    api = APIServer(
        clock=FakeClock(), uid_factory=lambda: f"00000000-0000-0000-0000-{next(counter):012d}"
    )
    for obj in loads(text, source):
        api.create(obj)
    placements = NaiveScheduler(api).schedule_pending()
    bound = sum(1 for p in placements if p.node)
    headline = (
        f"Scheduled {bound} of {len(placements)} pending pods "
        "(first fit, highest priority first; the framework's plugins arrive in later chapters)."
    )
    return headline + "\n\n" + render_cluster(api)


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
        + "  "
        + row[-1]
        for row in rows
    ]


def render_cluster(api: APIServer) -> str:
    """Every pod with its node, then the events, as ``kubectl get pods`` and ``get events`` show them."""
    rows = [["POD", "PRIORITY", "QOS", "NODE"]]
    for pod in api.list(Pod).items:
        rows.append(
            [
                pod.key,
                str(pod.spec.priority or 0),
                pod.status.qos_class,
                pod.spec.node_name or "<none>",
            ]
        )
    lines = [*_table(rows), "", "Events (kubectl get events):"]
    event_rows = [["TYPE", "REASON", "OBJECT", "MESSAGE"]]
    for event in sorted(api.list(Event).items, key=lambda e: int(e.metadata.resource_version)):
        event_rows.append(
            [event.type, event.reason, f"pod/{event.involved_object.name}", event.message]
        )
    lines += ["  " + line for line in _table(event_rows)]
    return "\n".join(line.rstrip() for line in lines) + "\n"


if __name__ == "__main__":
    # `python -m framework.cli.naive [FILE]`: chapter 1's scheduler on chapter 1's cluster, or on FILE.
    sys.stdout.write(run_first_fit(sys.argv[1] if len(sys.argv) > 1 else None))
