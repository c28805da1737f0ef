"""Cluster events: which changes to the cluster can make a rejected pod schedulable.

When a plugin rejects a pod, the pod waits among the unschedulable pods
until something changes that could make that plugin say yes: a node is
added, a node's labels or taints change, a pod on a node is deleted...
Each plugin *registers* the events that can help the pods it rejected
(:meth:`~framework.interface.EnqueueExtensions.events_to_register`),
optionally with a **queueing hint**: a function that looks at the actual
change and answers ``QUEUE`` or ``QUEUE_SKIP`` for one pod.

An event is a resource and an action. Actions are bits, so an incoming
event can be specific (``UPDATE_NODE_LABEL``) while a registration can be
broad (``UPDATE``, every kind of update). A registration matches an
incoming event when the resources match, the action bits overlap, and the
incoming event is at least as specific as the registration
(:meth:`ClusterEvent.match`).

Mirrors ``ClusterEvent``, ``ActionType``, ``EventResource``,
``QueueingHint`` and ``ClusterEventWithHint`` in
``kubernetes/kubernetes:pkg/scheduler/framework/types.go`` and
``interface.go`` (v1.33). Simplified: only the resources this project
serves (pods and nodes) have named constants; the storage resources exist
so that plugins can register for them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum, IntFlag, StrEnum
from typing import Any

from framework.objects import Pod

__all__ = [
    "ASSIGNED_POD_ADD",
    "ASSIGNED_POD_DELETE",
    "ASSIGNED_POD_UPDATE",
    "BACKOFF_COMPLETE",
    "FORCE_ACTIVATE",
    "NODE_ADD",
    "SCHEDULE_ATTEMPT_FAILURE",
    "UNSCHEDULABLE_TIMEOUT",
    "UNSCHEDULED_POD_ADD",
    "UNSCHEDULED_POD_DELETE",
    "UNSCHEDULED_POD_UPDATE",
    "WILDCARD_EVENT",
    "ActionType",
    "ClusterEvent",
    "ClusterEventWithHint",
    "EventResource",
    "QueueingHint",
    "QueueingHintFn",
]


class ActionType(IntFlag):
    """What happened to the resource; update actions are split by what changed."""

    NONE = 0
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4  # taints, or spec.unschedulable
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    UPDATE_POD_SCALE_DOWN = 1 << 8  # a pod's requests went down
    UPDATE_POD_TOLERATIONS = 1 << 9
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 11
    UPDATE_POD_OTHER = 1 << 12  # any other change of an unscheduled pod's spec or labels
    UPDATE = (
        UPDATE_NODE_ALLOCATABLE
        | UPDATE_NODE_LABEL
        | UPDATE_NODE_TAINT
        | UPDATE_NODE_CONDITION
        | UPDATE_NODE_ANNOTATION
        | UPDATE_POD_LABEL
        | UPDATE_POD_SCALE_DOWN
        | UPDATE_POD_TOLERATIONS
        | UPDATE_POD_SCHEDULING_GATES_ELIMINATED
        | UPDATE_POD_GENERATED_RESOURCE_CLAIM
        | UPDATE_POD_OTHER
    )
    ALL = (1 << 13) - 1


class EventResource(StrEnum):
    """The kind of object an event is about (the API resource, or a scheduler view of pods)."""

    POD = "Pod"  # matches any of the three pod views below
    ASSIGNED_POD = "AssignedPod"  # a pod bound to a node (in the cache)
    UNSCHEDULED_POD = "UnscheduledPod"  # a pod waiting to be scheduled (in the queue)
    TARGET_POD = "TargetPod"  # the very pod being requeued
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    CSI_NODE = "storage.k8s.io/CSINode"
    RESOURCE_CLAIM = "resource.k8s.io/ResourceClaim"
    RESOURCE_SLICE = "resource.k8s.io/ResourceSlice"
    DEVICE_CLASS = "resource.k8s.io/DeviceClass"
    # A custom resource is named <plural>.<version>.<group>, as kube-scheduler names GVK events.
    POD_GROUP = "podgroups.v1alpha1.scheduling.x-k8s.io"  # scheduler-plugins' Coscheduling
    # scheduling.k8s.io's gangs (KEP-4671), by the names kube-scheduler gives them.
    WORKLOAD = "Workload"
    SCHEDULING_POD_GROUP = "PodGroup"
    WILDCARD = "*"


_POD_VIEWS = frozenset(
    {EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD, EventResource.TARGET_POD}
)


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """A change to the cluster: a resource, an action and, for special events, a label.

    >>> registered = ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE)
    >>> registered.match(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL))
    True
    >>> ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL).match(
    ...     ClusterEvent(EventResource.NODE, ActionType.UPDATE))
    False
    """

    resource: EventResource
    action_type: ActionType
    custom_label: str = ""

    def is_wildcard(self) -> bool:
        return self.resource is EventResource.WILDCARD and self.action_type == ActionType.ALL

    def match(self, incoming: ClusterEvent) -> bool:
        """Whether an ``incoming`` event is covered by this (registered) event."""
        if self.is_wildcard():
            return True
        return (
            _resources_match(self.resource, incoming.resource)
            and bool(self.action_type & incoming.action_type)
            # The incoming event must be as specific as the registration or more.
            and incoming.action_type <= self.action_type
        )

    def label(self) -> str:
        """The event's name in metrics and logs, e.g. ``NodeAdd`` or ``AssignedPodDelete``."""
        if self.custom_label:
            return self.custom_label
        return f"{self.resource.value}{_action_label(self.action_type)}"


def _resources_match(registered: EventResource, incoming: EventResource) -> bool:
    if registered is EventResource.WILDCARD or registered is incoming:
        return True
    return registered is EventResource.POD and incoming in _POD_VIEWS


def _action_label(action: ActionType) -> str:
    if action == ActionType.ALL:
        return "All"
    if action == ActionType.UPDATE:
        return "Update"
    names = [
        flag.name or ""
        for flag in ActionType
        if flag.value.bit_count() == 1 and (action & flag) == flag
    ]
    return "".join(name.title().replace("_", "") for name in names)


class QueueingHint(IntEnum):
    """A hint's answer for one pod and one event: requeue it, or leave it where it is."""

    QUEUE_SKIP = 0
    QUEUE = 1


QueueingHintFn = Callable[[Pod, Any, Any], QueueingHint]
"""``hint(pod, old_object, new_object)``: whether this change may make ``pod`` schedulable."""


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    """A registered event and, optionally, the hint that filters it (None: always QUEUE)."""

    event: ClusterEvent
    queueing_hint_fn: QueueingHintFn | None = None


# Events the scheduler itself raises, by the labels kube-scheduler uses.
WILDCARD_EVENT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "WildCardEvent")
UNSCHEDULABLE_TIMEOUT = ClusterEvent(
    EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout"
)
FORCE_ACTIVATE = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "ForceActivate")
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
ASSIGNED_POD_UPDATE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE)
ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
UNSCHEDULED_POD_ADD = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD)
UNSCHEDULED_POD_UPDATE = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE)
UNSCHEDULED_POD_DELETE = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.DELETE)

# Labels of queue moves that are not cluster events (metrics labels in Kubernetes).
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
