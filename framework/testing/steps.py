"""The loop's steps as ``(step, pod, detail)`` calls: a tracer for tests that log and compare.

Many tests only need the order of a few steps ("p0 was bound before p1 was
tried"). :class:`StepLog` turns the typed hooks of
:class:`~framework.scheduler.tracing.SchedulingTracer` into one call per
step, named by :data:`Step`, with the detail each hook is given. The names
are a ``Literal`` type, so a comparison with a misspelt one is a mypy error.

No Kubernetes counterpart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from framework.objects import Pod
from framework.runtime.framework import Framework
from framework.scheduler.tracing import SchedulingTracer
from framework.status import Status
from framework.types import QueuedPodInfo

if TYPE_CHECKING:
    from framework.scheduler.algorithm import ScheduleResult
    from framework.scheduler.schedule_one import CycleOutcome

__all__ = ["Step", "StepLog"]

Step = Literal[
    "SchedulingCycleStart",
    "Scheduled",
    "SchedulingCycleEnd",
    "SchedulingFailed",
    "BindingCycleStart",
    "Bound",
    "AssumedPodExpired",
]


class StepLog(SchedulingTracer):
    """Calls ``step(name, pod, detail)`` at each step of each attempt.

    The details: ``Scheduled`` the :class:`ScheduleResult`,
    ``SchedulingCycleEnd`` and ``SchedulingFailed`` the status,
    ``BindingCycleStart`` and ``Bound`` the host, ``AssumedPodExpired`` the
    node the pod was assumed on, ``SchedulingCycleStart`` None.
    """

    def __init__(self, step: Callable[[Step, Pod, Any], None]) -> None:
        self.step = step

    def cycle_started(self, fwk: Framework, queued: QueuedPodInfo) -> None:
        self.step("SchedulingCycleStart", queued.pod, None)

    def host_suggested(self, queued: QueuedPodInfo, result: ScheduleResult) -> None:
        self.step("Scheduled", queued.pod, result)

    def cycle_ended(self, queued: QueuedPodInfo, outcome: CycleOutcome) -> None:
        self.step("SchedulingCycleEnd", queued.pod, outcome.status)

    def scheduling_failed(self, queued: QueuedPodInfo, status: Status) -> None:
        self.step("SchedulingFailed", queued.pod, status)

    def binding_started(self, assumed: QueuedPodInfo, host: str) -> None:
        self.step("BindingCycleStart", assumed.pod, host)

    def pod_bound(self, assumed: QueuedPodInfo, host: str) -> None:
        self.step("Bound", assumed.pod, host)

    def assumed_pod_expired(self, pod: Pod) -> None:
        self.step("AssumedPodExpired", pod, pod.spec.node_name)
