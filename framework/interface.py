"""The contract between the framework and its plugins: one Protocol per extension point.

A plugin is any object with a ``name()``; it joins an extension point by
having that point's method(s). The framework finds out which points a plugin
implements the way Go does with interface assertions: here,
``isinstance(plugin, FilterPlugin)`` on these ``runtime_checkable``
Protocols. Configuration then decides at which of those points the plugin
is *enabled*.

The points are listed in the order a pod meets them. Each docstring says
when the point runs, which status codes it may return and what the
framework does with each, and the rules a plugin must not break.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/interface.go``
(v1.33). Python manners: ``PreEnqueue`` is ``pre_enqueue``; Go's
``context.Context`` argument is dropped (cancellation is the framework's
business here); a plugin may return ``None`` for success, as Go plugins
return a nil ``*Status``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from framework.cluster_event import ClusterEventWithHint
from framework.objects import Pod
from framework.status import Status
from framework.types import QueuedPodInfo

__all__ = [
    "EnqueueExtensions",
    "Plugin",
    "PreEnqueuePlugin",
    "QueueSortPlugin",
]


@runtime_checkable
class Plugin(Protocol):
    """Every plugin has a name, unique in the registry: the name configuration uses."""

    def name(self) -> str: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Decides whether a pod may enter the active queue at all.

    Runs when a pod is added to the queue or moved back into activeQ. If any
    PreEnqueue plugin returns anything but success, the pod is parked among
    the unschedulable pods ("gated") and that plugin becomes its gating
    plugin; only events the gating plugin registered re-examine it. Must be
    cheap: it runs inside event handlers. Example: ``SchedulingGates``.
    """

    def pre_enqueue(self, pod: Pod) -> Status | None: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    """Orders the pods waiting in activeQ: ``less(a, b)`` is true when ``a`` goes first.

    Exactly one QueueSort plugin is enabled per profile, and every profile
    must use the same one, because all profiles share one queue and a heap
    has exactly one order. ``less`` must be a strict weak ordering (never
    true both ways), or the heap's order is undefined.
    """

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


@runtime_checkable
class EnqueueExtensions(Protocol):
    """Which cluster events can make a pod this plugin rejected schedulable again.

    Consulted for plugins at PreEnqueue, PreFilter, Filter, Reserve and
    Permit. A plugin at those points that does not implement this is
    assumed to be helped by *every* event. Returning an event with a
    queueing hint lets the plugin decide, per pod and per change, whether
    the change really helps (``QUEUE``) or not (``QUEUE_SKIP``).
    """

    def events_to_register(self) -> list[ClusterEventWithHint]: ...
