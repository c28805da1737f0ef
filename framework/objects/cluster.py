"""The smaller kinds the scheduler's world needs: Namespace, Event, Binding, PriorityClass.

Mirrors ``k8s.io/api/core/v1`` (``Namespace``, ``Event``, ``Binding``,
``EventSource``) and ``k8s.io/api/scheduling/v1.PriorityClass``.
Simplified: Events are the ``core/v1`` shape (what ``kubectl get events``
shows); kube-scheduler writes ``events.k8s.io/v1`` Events, which the real API
server stores as the same object under other field names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from framework.objects.meta import Extra, KubeObject, ObjectMeta, ObjectReference, extra_field
from framework.objects.schema import Model

__all__ = ["Binding", "Event", "EventSource", "Namespace", "PriorityClass"]


@dataclass(frozen=True, slots=True)
class Namespace(KubeObject):
    """``v1.Namespace`` (cluster-scoped). Namespaced objects can only be created in one that exists."""

    KIND: ClassVar[str] = "Namespace"
    NAMESPACED: ClassVar[bool] = False

    api_version: str = "v1"
    kind: str = "Namespace"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: Any = None
    status: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class EventSource(Model):
    """Who reported an Event (``component``: the scheduler's name)."""

    component: str = ""
    host: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Event(KubeObject):
    """``v1.Event``: something that happened to an object, counted when it repeats."""

    KIND: ClassVar[str] = "Event"

    api_version: str = "v1"
    kind: str = "Event"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    involved_object: ObjectReference = field(default_factory=ObjectReference)
    reason: str = ""
    message: str = ""
    type: str = ""
    count: int = 0
    first_timestamp: str | None = None
    last_timestamp: str | None = None
    event_time: str | None = None
    source: EventSource = field(default_factory=EventSource)
    action: str = ""
    reporting_component: str = ""
    reporting_instance: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Binding(KubeObject):
    """``v1.Binding``: the body of ``POST pods/{name}/binding``, naming the target node."""

    KIND: ClassVar[str] = "Binding"

    api_version: str = "v1"
    kind: str = "Binding"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    target: ObjectReference = field(default_factory=ObjectReference)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PriorityClass(KubeObject):
    """``scheduling.k8s.io/v1`` PriorityClass (cluster-scoped): a name for a pod priority."""

    KIND: ClassVar[str] = "PriorityClass"
    API_VERSION: ClassVar[str] = "scheduling.k8s.io/v1"
    NAMESPACED: ClassVar[bool] = False

    api_version: str = "scheduling.k8s.io/v1"
    kind: str = "PriorityClass"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    value: int = 0
    global_default: bool = False
    description: str = ""
    preemption_policy: str | None = None
    extra: Extra = extra_field()
