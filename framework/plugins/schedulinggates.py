"""SchedulingGates: a pod with ``spec.schedulingGates`` waits at the gate until they are removed.

Some controllers create pods before they can run, for example a batch
system that first needs to reserve quota: they create the pod with one or
more *scheduling gates* and remove them when the pod may go. Until then the
scheduler must not even try it. This PreEnqueue plugin says so: for a pod
with gates it answers ``UnschedulableAndUnresolvable`` with the reason
``waiting for scheduling gates: [g1 g2]``, and the queue parks the pod among
the unschedulable pods, *gated*, without ever popping it.

Gates can only be removed, never added after creation (API validation), so
the one event that can open the gate is an update of the pod itself that
removes the last one: the plugin registers ``Pod`` /
``UpdatePodSchedulingGatesEliminated``, with a hint that answers ``QUEUE``
only for the gated pod's own update.

>>> from framework.objects import Pod
>>> pod = Pod.from_dict({"metadata": {"name": "job"},
...                      "spec": {"schedulingGates": [{"name": "quota"}, {"name": "team"}]}})
>>> print(SchedulingGates().pre_enqueue(pod))
UnschedulableAndUnresolvable: waiting for scheduling gates: [quota team]

Mirrors ``SchedulingGates`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go``
(v1.33, queueing hints on). Later releases register the event on the new
``TargetPod`` resource, which only the pod itself matches, and drop the UID
check from the hint.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.objects import Pod, pod_uid
from framework.plugins import names
from framework.status import Status

__all__ = ["NAME", "SchedulingGates", "new", "waiting_for_gates"]

NAME = names.SCHEDULING_GATES


def waiting_for_gates(gate_names: Sequence[str]) -> str:
    """The reason, as Go prints it: ``waiting for scheduling gates: [a b]`` (``%v`` of a slice)."""
    return f"waiting for scheduling gates: [{' '.join(gate_names)}]"


class SchedulingGates:
    """Keeps gated pods out of activeQ (PreEnqueue) and says what opens the gate."""

    def name(self) -> str:
        return NAME

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """None (success) without gates; ``UnschedulableAndUnresolvable`` naming them otherwise."""
        if not pod.spec.scheduling_gates:
            return None
        return Status.unresolvable(waiting_for_gates([g.name for g in pod.spec.scheduling_gates]))

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """An update of the pod that removes its last gate."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                self.is_schedulable_after_update_pod_scheduling_gates_eliminated,
            )
        ]

    def is_schedulable_after_update_pod_scheduling_gates_eliminated(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """``QUEUE`` if the update is of this very pod; another pod's gates do not concern it."""
        if not isinstance(new, Pod):
            return QueueingHint.QUEUE  # not a pod: Kubernetes' conversion error, which queues
        return QueueingHint.QUEUE if pod_uid(new) == pod_uid(pod) else QueueingHint.QUEUE_SKIP


def new(args: Any, handle: Any) -> SchedulingGates:
    """The factory the registry calls; SchedulingGates takes no args."""
    return SchedulingGates()


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_enqueue: type[interface.PreEnqueuePlugin] = SchedulingGates
    _enqueue_extensions: type[interface.EnqueueExtensions] = SchedulingGates
