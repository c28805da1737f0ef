"""The tracing hook: what a scheduling attempt did, told to whoever asks, at no cost otherwise.

kube-scheduler explains itself through logs (``-v=10`` prints every
plugin's score for every node) and metrics. The simulator needs the same
facts as data: for each attempt, which nodes were filtered and what each
Filter plugin said, what each Score plugin gave, and how the attempt ended.
A :class:`SchedulingTracer` receives them. The scheduler holds an optional
tracer (``Scheduling.tracer`` and ``SchedulingAlgorithm.tracer``, both None
by default); every call site is one ``is not None`` test, so a scheduler
without a tracer does no extra work.

The hooks see only what the scheduler already computed; a tracer must not
change anything it is given. ``node_filtered``, ``nodes_scored``,
``cycle_started`` and ``cycle_ended`` run on the scheduling thread, one
attempt at a time; ``permit_waited`` and ``binding_ended`` run on the pod's
binding thread, so a tracer that keeps state guards it with a lock.
``permit_waited`` is the one hook that may block: binding cycles released
from Permit at the same moment run concurrently, and the simulator holds
them there to let them go on one at a time, in an order of its choosing, so
that a run can be repeated exactly.

No Kubernetes counterpart as such: this plays the role of the ``V(10)`` log
lines of ``prioritizeNodes`` and the per-plugin statuses of
``findNodesThatPassFilters`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``
(v1.33), delivered as calls instead of text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from framework.cycle_state import CycleState
from framework.interface import NodePluginScores
from framework.runtime.framework import Framework
from framework.status import Status
from framework.types import QueuedPodInfo

if TYPE_CHECKING:  # schedule_one imports this module
    from framework.scheduler.schedule_one import CycleOutcome

__all__ = ["SchedulingTracer"]


class SchedulingTracer(Protocol):
    """Told each step of each scheduling attempt that explains its outcome."""

    def cycle_started(self, fwk: Framework, queued: QueuedPodInfo) -> None:
        """A scheduling cycle begins for ``queued.pod`` (its ``attempts`` already counts it)."""
        ...

    def node_filtered(
        self, fwk: Framework, state: CycleState, node_name: str, status: Status
    ) -> None:
        """The Filter plugins ran on a node and gave ``status`` (the first failure, or success).

        Called for every node the search evaluated, in evaluation order;
        ``state.skip_filter_plugins`` names the plugins PreFilter skipped.
        """
        ...

    def nodes_scored(self, fwk: Framework, scores: list[NodePluginScores]) -> None:
        """The feasible nodes' weighted scores per plugin (after NormalizeScore and weights)."""
        ...

    def cycle_ended(self, queued: QueuedPodInfo, outcome: CycleOutcome) -> None:
        """The scheduling cycle ended: success (a binding cycle follows) or failure."""
        ...

    def permit_waited(self, assumed: QueuedPodInfo, status: Status) -> None:
        """WaitOnPermit returned ``status`` (at once for a pod that was not parked); may block."""
        ...

    def binding_ended(self, assumed: QueuedPodInfo, status: Status) -> None:
        """The binding cycle ended (on its thread), after any failure was handled."""
        ...
