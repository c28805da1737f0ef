"""Which cluster events can move a rejected pod, and whether this event should move this pod.

When a plugin rejects a pod, the pod waits among the unschedulable pods. It
would be wasteful to retry it after *every* change to the cluster, so each
profile keeps a :class:`QueueingHintMap`: for every event some plugin
registered, the plugins that registered it and their queueing hint
functions. It is built once per profile by :func:`build_queueing_hint_map`
from the plugins enabled at PreEnqueue, PreFilter, Filter, Reserve and
Permit (the points that can reject a pod). A plugin that does not say which
events help it (it does not implement
:class:`~framework.interface.EnqueueExtensions`) is registered for every
action on every resource: it is retried on anything.

When an event arrives, :func:`is_pod_worth_requeuing` decides for one pod:

1. the pod was rejected by no plugin (an error, not a rejection) →
   ``QUEUE_AFTER_BACKOFF``;
2. the event is a wildcard (``UnschedulableTimeout``, ``ForceActivate``) →
   ``QUEUE_AFTER_BACKOFF``, unless it names another pod;
3. otherwise ask the hint functions of the registrations that match the
   event, but only those of the plugins that rejected this pod. A ``QUEUE``
   from a plugin that answered ``Pending`` means "go now"
   (``QUEUE_IMMEDIATELY``); a ``QUEUE`` from a plugin that answered
   ``Unschedulable`` means ``QUEUE_AFTER_BACKOFF``; a hint that raises
   counts as ``QUEUE``, so a buggy hint never strands a pod;
4. nobody said ``QUEUE`` → ``QUEUE_SKIP``: the pod stays where it is.

Mirrors ``isPodWorthRequeuing``, ``isEventOfInterest``, ``buildEventMap`` and
``QueueingHintMap`` in
``kubernetes/kubernetes:pkg/scheduler/backend/queue/scheduling_queue.go``,
``buildQueueingHintMap`` in ``pkg/scheduler/scheduler.go`` and the default
registration (``UnrollWildCardResource``) in ``pkg/scheduler/framework/types.go``
and ``runtime/framework.go`` (v1.33, ``SchedulerQueueingHints`` on, its
default since v1.32). Simplified: no metrics; hint functions take
``(pod, old, new)`` without a logger; a hint that raises is not logged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from framework.interface import EnqueueExtensions, Plugin
from framework.objects import Pod, pod_uid
from framework.types import QueuedPodInfo

__all__ = [
    "QueueingHintFunction",
    "QueueingHintMap",
    "QueueingStrategy",
    "build_event_map",
    "build_queueing_hint_map",
    "default_queueing_hint_fn",
    "is_event_of_interest",
    "is_pod_worth_requeuing",
]


class QueueingStrategy(IntEnum):
    """Where an event sends a pod; a larger value wins when several events are replayed."""

    QUEUE_SKIP = 0  # stay among the unschedulable pods
    QUEUE_AFTER_BACKOFF = 1  # backoffQ if still backing off, else activeQ
    QUEUE_IMMEDIATELY = 2  # activeQ, backoff or not


@dataclass(frozen=True, slots=True)
class QueueingHintFunction:
    """A hint function and the plugin it belongs to."""

    plugin_name: str
    queueing_hint_fn: QueueingHintFn


class QueueingHintMap(dict[ClusterEvent, list[QueueingHintFunction]]):
    """One profile's registrations: a registered event → the hint functions registered for it."""


def default_queueing_hint_fn(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """The hint of a registration without one: always ``QUEUE``."""
    return QueueingHint.QUEUE


# Every resource with every action: what a plugin without EventsToRegister is retried on.
_UNROLLED_WILDCARD = tuple(
    ClusterEvent(resource, ActionType.ALL)
    for resource in (
        EventResource.POD,
        EventResource.NODE,
        EventResource.PERSISTENT_VOLUME,
        EventResource.PERSISTENT_VOLUME_CLAIM,
        EventResource.CSI_NODE,
        EventResource.STORAGE_CLASS,
    )
)

_NODE_TAINT_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)


def build_queueing_hint_map(plugins: Iterable[Plugin]) -> QueueingHintMap:
    """The hint map of one profile, from its plugins that can reject a pod.

    ``plugins`` are the profile's plugins enabled at PreEnqueue, PreFilter,
    Filter, Reserve or Permit, each once. A plugin that registers no event
    at all adds nothing: only an update of the pod itself can move such a
    pod. A plugin that registers ``Node/Add`` but not a node taint update is
    also registered for ``Node/UpdateNodeTaint``, as kube-scheduler does
    (kubernetes/kubernetes#109437: a node that is added tainted
    ``not-ready`` becomes usable by a taint update, not by an add).
    """
    hint_map = QueueingHintMap()
    for plugin in plugins:
        if isinstance(plugin, EnqueueExtensions):
            registrations = list(plugin.events_to_register())
        else:
            registrations = [ClusterEventWithHint(event) for event in _UNROLLED_WILDCARD]
        node_added = node_taint_updated = False
        for registration in registrations:
            event = registration.event
            if event.resource is EventResource.NODE:
                node_added |= bool(event.action_type & ActionType.ADD)
                node_taint_updated |= bool(event.action_type & ActionType.UPDATE_NODE_TAINT)
            hint = registration.queueing_hint_fn or default_queueing_hint_fn
            hint_map.setdefault(event, []).append(QueueingHintFunction(plugin.name(), hint))
        if node_added and not node_taint_updated:
            hint_map.setdefault(_NODE_TAINT_UPDATE, []).append(
                QueueingHintFunction(plugin.name(), default_queueing_hint_fn)
            )
    return hint_map


def build_event_map(
    hint_maps: Mapping[str, QueueingHintMap],
) -> dict[str, tuple[ClusterEventWithHint, ...]]:
    """Plugin name → the events it registered (across profiles): a gated pod's wake-up calls."""
    events: dict[str, list[ClusterEventWithHint]] = {}
    for hint_map in hint_maps.values():
        for event, functions in hint_map.items():
            for function in functions:
                events.setdefault(function.plugin_name, []).append(
                    ClusterEventWithHint(event, function.queueing_hint_fn)
                )
    return {plugin: tuple(registered) for plugin, registered in events.items()}


def is_event_of_interest(event: ClusterEvent, hint_maps: Mapping[str, QueueingHintMap]) -> bool:
    """Whether any plugin of any profile registered an event matching ``event``."""
    if event.is_wildcard():
        return True
    return any(
        registered.match(event) for hint_map in hint_maps.values() for registered in hint_map
    )


def is_pod_worth_requeuing(
    pod_info: QueuedPodInfo,
    event: ClusterEvent,
    old: Any,
    new: Any,
    hint_map: QueueingHintMap | None,
) -> QueueingStrategy:
    """Where ``event`` (``old`` → ``new``) sends this rejected pod; see the module docstring.

    ``hint_map`` is the map of the pod's profile; None (no such profile)
    requeues after backoff, as Kubernetes does for what it logs as a bug.
    """
    rejectors = pod_info.unschedulable_plugins | pod_info.pending_plugins
    if not rejectors:
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    if event.is_wildcard():
        # A wildcard event with a pod attached (ForceActivate) is meant for that pod only.
        if new is not None and (not isinstance(new, Pod) or pod_uid(new) != pod_uid(pod_info.pod)):
            return QueueingStrategy.QUEUE_SKIP
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    if hint_map is None:
        return QueueingStrategy.QUEUE_AFTER_BACKOFF

    strategy = QueueingStrategy.QUEUE_SKIP
    for registered, functions in hint_map.items():
        if not registered.match(event):
            continue
        for function in functions:
            if function.plugin_name not in rejectors:
                continue
            if _ask(function, pod_info.pod, old, new) is QueueingHint.QUEUE_SKIP:
                continue
            if function.plugin_name in pod_info.pending_plugins:
                return QueueingStrategy.QUEUE_IMMEDIATELY
            if not pod_info.pending_plugins:
                # Only a Pending plugin could still raise this to QUEUE_IMMEDIATELY.
                return QueueingStrategy.QUEUE_AFTER_BACKOFF
            strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF
    return strategy


def _ask(function: QueueingHintFunction, pod: Pod, old: Any, new: Any) -> QueueingHint:
    try:
        hint = function.queueing_hint_fn(pod, old, new)
    except Exception:
        # A failing hint must not strand the pod: treat it as QUEUE, as Kubernetes does.
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP if hint == QueueingHint.QUEUE_SKIP else QueueingHint.QUEUE
