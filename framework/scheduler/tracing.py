"""The tracing hook: what the scheduling loop did, told to whoever asks, at no cost otherwise.

kube-scheduler explains itself through logs (``-v=10`` prints every
plugin's score for every node) and metrics. Tests, the book's examples, the
benchmarks and the simulator need the same facts as data: when each cycle
starts and ends, which host the algorithm suggested, what each Filter
plugin said of each node and what each Score plugin gave, how the binding
cycle went. A :class:`SchedulingTracer` receives them, one typed method per
step, so a misspelt hook is a type error rather than a step nobody hears.

A tracer subclasses :class:`SchedulingTracer` and overrides the hooks it
wants (mark them ``@override`` and mypy checks the names); the rest do
nothing. :meth:`Scheduler.add_tracer
<framework.scheduler.scheduler.Scheduler.add_tracer>` adds one; several
are told in the order they were added (:class:`Tracers`). The scheduler
holds None when nobody listens, and every call site is one ``is not None``
test, so a scheduler without a tracer does no extra work. The per-node
hooks (``node_filtered``, ``nodes_scored``) are handed to the algorithm only
when some tracer overrides them: a tracer that only times cycles does not
put a call in the Filter loop.

The hooks see only what the scheduler already computed; a tracer must not
change anything it is given, nor block (a simulation that must hold binding
threads uses a :class:`~framework.scheduler.binding_gate.BindingGate`).
``cycle_started`` through ``cycle_ended`` and ``scheduling_failed`` after a
scheduling cycle run on the scheduling thread, one attempt at a time;
``binding_started``, ``permit_waited``, ``pod_bound``, ``binding_ended`` and a
``scheduling_failed`` after a failed binding run on the pod's binding
thread; ``assumed_pod_expired`` on the cache's cleanup thread. A tracer that
keeps state guards it with a lock.

No Kubernetes counterpart as such: this plays the role of the ``V(10)`` log
lines of ``prioritizeNodes`` and the per-plugin statuses of
``findNodesThatPassFilters`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``
(v1.33), delivered as calls instead of text.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

from framework.cycle_state import CycleState
from framework.interface import NodePluginScores
from framework.objects import Pod
from framework.runtime.framework import Framework
from framework.status import Status
from framework.types import QueuedPodInfo

if TYPE_CHECKING:  # both modules import this one
    from framework.scheduler.algorithm import ScheduleResult
    from framework.scheduler.schedule_one import CycleOutcome

__all__ = ["SchedulingTracer", "SharedStatuses", "Tracers", "combine", "traces_nodes"]

#: The hooks called once per node the algorithm looks at (or once for many nodes).
PER_NODE_HOOKS = ("node_filtered", "nodes_filtered", "nodes_scored")


class SharedStatuses(Sequence[Status]):
    """Many nodes' statuses that share a few objects: the ``distinct`` ones, each node's ``indices``.

    What the batch engine hands :meth:`SchedulingTracer.nodes_filtered`: it
    reads as the list of statuses, and a tracer that knows it takes each
    distinct status once (``indices`` is a sequence of ints, a numpy array
    from the batch engine).
    """

    __slots__ = ("distinct", "indices")

    def __init__(self, distinct: Sequence[Status], indices: Any) -> None:
        self.distinct = distinct
        self.indices = indices

    def __len__(self) -> int:
        return len(self.indices)

    def __iter__(self) -> Iterator[Status]:
        distinct, indices = self.distinct, self.indices
        as_list = indices.tolist() if hasattr(indices, "tolist") else list(indices)
        return iter([distinct[i] for i in as_list])

    @overload
    def __getitem__(self, position: int) -> Status: ...
    @overload
    def __getitem__(self, position: slice) -> Sequence[Status]: ...
    def __getitem__(self, position: int | slice) -> Status | Sequence[Status]:
        if isinstance(position, slice):
            return [self.distinct[int(i)] for i in self.indices[position]]
        return self.distinct[int(self.indices[position])]


class SchedulingTracer:
    """Told each step of each scheduling attempt; every hook does nothing unless overridden."""

    def cycle_started(self, fwk: Framework, queued: QueuedPodInfo) -> None:
        """A scheduling cycle begins for ``queued.pod`` (its ``attempts`` already counts it)."""

    def node_filtered(
        self, fwk: Framework, state: CycleState, node_name: str, status: Status
    ) -> None:
        """The Filter plugins ran on a node and gave ``status`` (the first failure, or success).

        Called for every node the search evaluated, in evaluation order;
        ``state.skip_filter_plugins`` names the plugins PreFilter skipped.
        """

    def nodes_filtered(
        self,
        fwk: Framework,
        state: CycleState,
        node_names: Sequence[str],
        statuses: Sequence[Status],
    ) -> None:
        """:meth:`node_filtered` for many nodes at once, in evaluation order.

        The batch engine tells a whole search this way: thousands of nodes
        share a few statuses (the same object), which a tracer may take
        once each (``statuses`` is then a :class:`SharedStatuses`). By
        default, one :meth:`node_filtered` call per node.
        """
        for node_name, status in zip(node_names, statuses, strict=True):
            self.node_filtered(fwk, state, node_name, status)

    def nodes_scored(self, fwk: Framework, scores: list[NodePluginScores]) -> None:
        """The feasible nodes' weighted scores per plugin (after NormalizeScore and weights)."""

    def host_suggested(self, queued: QueuedPodInfo, result: ScheduleResult) -> None:
        """The algorithm chose ``result.suggested_host``; assume, Reserve and Permit follow."""

    def cycle_ended(self, queued: QueuedPodInfo, outcome: CycleOutcome) -> None:
        """The scheduling cycle ended: success (a binding cycle follows) or failure."""

    def scheduling_failed(self, queued: QueuedPodInfo, status: Status) -> None:
        """The attempt failed with ``status``: the pod was requeued and told (event, condition)."""

    def binding_started(self, assumed: QueuedPodInfo, host: str) -> None:
        """The binding cycle begins, before WaitOnPermit."""

    def permit_waited(self, assumed: QueuedPodInfo, status: Status) -> None:
        """WaitOnPermit returned ``status`` (at once for a pod that was not parked)."""

    def pod_bound(self, assumed: QueuedPodInfo, host: str) -> None:
        """The pod is bound to ``host`` and PostBind has run."""

    def binding_ended(self, assumed: QueuedPodInfo, status: Status) -> None:
        """The binding cycle ended (on its thread), after any failure was handled."""

    def assumed_pod_expired(self, pod: Pod) -> None:
        """The cache dropped ``pod``, assumed on ``pod.spec.node_name``, its TTL over."""

    def pod_group_cycle_started(self, fwk: Framework, namespace: str, name: str) -> None:
        """A PodGroup scheduling cycle begins, its members popped (v1.36+, GenericWorkload)."""

    def pod_group_cycle_ended(
        self, fwk: Framework, namespace: str, name: str, result: str
    ) -> None:
        """The PodGroup cycle's members were bound or requeued; ``result`` is the label of
        ``scheduler_podgroup_scheduling_attempt_duration_seconds``: ``scheduled``,
        ``unschedulable``, ``waiting_on_preemption`` or ``error``."""


def traces_nodes(tracer: SchedulingTracer) -> bool:
    """Whether ``tracer`` overrides a per-node hook (so the algorithm must call it)."""
    return any(
        getattr(type(tracer), hook) is not getattr(SchedulingTracer, hook)
        for hook in PER_NODE_HOOKS
    )


def combine(tracers: list[SchedulingTracer]) -> SchedulingTracer | None:
    """None for no tracer (nothing to call), the tracer itself for one, :class:`Tracers` for more."""
    if not tracers:
        return None
    return tracers[0] if len(tracers) == 1 else Tracers(list(tracers))


class Tracers(SchedulingTracer):
    """Several tracers told as one, in the order they were added."""

    def __init__(self, tracers: list[SchedulingTracer]) -> None:
        self.tracers = tracers

    def cycle_started(self, fwk: Framework, queued: QueuedPodInfo) -> None:
        for tracer in self.tracers:
            tracer.cycle_started(fwk, queued)

    def node_filtered(
        self, fwk: Framework, state: CycleState, node_name: str, status: Status
    ) -> None:
        for tracer in self.tracers:
            tracer.node_filtered(fwk, state, node_name, status)

    def nodes_filtered(
        self,
        fwk: Framework,
        state: CycleState,
        node_names: Sequence[str],
        statuses: Sequence[Status],
    ) -> None:
        for tracer in self.tracers:
            tracer.nodes_filtered(fwk, state, node_names, statuses)

    def nodes_scored(self, fwk: Framework, scores: list[NodePluginScores]) -> None:
        for tracer in self.tracers:
            tracer.nodes_scored(fwk, scores)

    def host_suggested(self, queued: QueuedPodInfo, result: ScheduleResult) -> None:
        for tracer in self.tracers:
            tracer.host_suggested(queued, result)

    def cycle_ended(self, queued: QueuedPodInfo, outcome: CycleOutcome) -> None:
        for tracer in self.tracers:
            tracer.cycle_ended(queued, outcome)

    def scheduling_failed(self, queued: QueuedPodInfo, status: Status) -> None:
        for tracer in self.tracers:
            tracer.scheduling_failed(queued, status)

    def binding_started(self, assumed: QueuedPodInfo, host: str) -> None:
        for tracer in self.tracers:
            tracer.binding_started(assumed, host)

    def permit_waited(self, assumed: QueuedPodInfo, status: Status) -> None:
        for tracer in self.tracers:
            tracer.permit_waited(assumed, status)

    def pod_bound(self, assumed: QueuedPodInfo, host: str) -> None:
        for tracer in self.tracers:
            tracer.pod_bound(assumed, host)

    def binding_ended(self, assumed: QueuedPodInfo, status: Status) -> None:
        for tracer in self.tracers:
            tracer.binding_ended(assumed, status)

    def assumed_pod_expired(self, pod: Pod) -> None:
        for tracer in self.tracers:
            tracer.assumed_pod_expired(pod)

    def pod_group_cycle_started(self, fwk: Framework, namespace: str, name: str) -> None:
        for tracer in self.tracers:
            tracer.pod_group_cycle_started(fwk, namespace, name)

    def pod_group_cycle_ended(
        self, fwk: Framework, namespace: str, name: str, result: str
    ) -> None:
        for tracer in self.tracers:
            tracer.pod_group_cycle_ended(fwk, namespace, name, result)
