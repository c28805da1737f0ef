"""Metadata every Kubernetes object carries, and the types several kinds share.

Mirrors ``k8s.io/apimachinery/pkg/apis/meta/v1`` (``ObjectMeta``,
``LabelSelector``) and ``k8s.io/api/core/v1.ObjectReference``.
Simplified: timestamps stay the RFC 3339 text a manifest holds
(:func:`framework.clock.rfc3339` writes them); ``ownerReferences`` and
``managedFields`` are kept as plain JSON, since no scheduler plugin reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from framework.objects.copying import replace
from framework.objects.schema import Model

__all__ = [
    "KubeObject",
    "LabelSelector",
    "LabelSelectorRequirement",
    "ObjectMeta",
    "ObjectReference",
    "Unstructured",
    "extra_field",
]

Extra = Mapping[str, Any]


def extra_field() -> Any:
    """The ``extra`` field every model ends with: the keys it does not model."""
    return field(default_factory=dict, repr=False)


@dataclass(frozen=True, slots=True)
class ObjectMeta(Model):
    """``metadata``: identity, version and labels of an object."""

    name: str = ""
    generate_name: str = ""
    namespace: str = ""
    uid: str = ""
    resource_version: str = ""
    generation: int = 0
    creation_timestamp: str | None = None
    deletion_timestamp: str | None = None
    deletion_grace_period_seconds: int | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    owner_references: tuple[Any, ...] = ()
    finalizers: tuple[str, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement(Model):
    """One ``matchExpressions`` entry: ``key`` ``operator`` (In, NotIn, Exists, DoesNotExist) ``values``."""

    key: str = ""
    operator: str = ""
    values: tuple[str, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class LabelSelector(Model):
    """``metav1.LabelSelector``: ``matchLabels`` and ``matchExpressions``, all ANDed.

    An empty selector (``{}``) matches every object; a missing one (``None``
    where a selector is optional) matches none. :mod:`framework.objects.labels`
    evaluates both.
    """

    match_labels: Mapping[str, str] = field(default_factory=dict)
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ObjectReference(Model):
    """``v1.ObjectReference``: which object an Event or a Binding is about."""

    kind: str = ""
    namespace: str = ""
    name: str = ""
    uid: str = ""
    api_version: str = ""
    resource_version: str = ""
    field_path: str = ""
    extra: Extra = extra_field()


class KubeObject(Model):
    """A top-level object: ``apiVersion``, ``kind``, ``metadata`` and a kind of its own.

    Subclasses set the class attributes ``KIND`` and ``API_VERSION`` and
    ``NAMESPACED``, and declare ``api_version``, ``kind`` and ``metadata`` as
    their first fields.
    """

    __slots__ = ()

    KIND: ClassVar[str] = ""
    API_VERSION: ClassVar[str] = "v1"
    NAMESPACED: ClassVar[bool] = True
    _ALWAYS: ClassVar[frozenset[str]] = frozenset({"apiVersion", "kind"})

    # Declared by every subclass as a dataclass field.
    metadata: ObjectMeta

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace

    @property
    def key(self) -> str:
        """``namespace/name`` for namespaced objects, ``name`` otherwise, as client-go's cache keys."""
        if self.metadata.namespace:
            return f"{self.metadata.namespace}/{self.metadata.name}"
        return self.metadata.name

    def with_metadata(self, **changes: Any) -> Self:
        """A copy with some ``metadata`` fields changed (objects are immutable)."""
        return replace(self, metadata=replace(self.metadata, **changes))

    def describe(self) -> str:
        """How error messages name the object: ``Pod default/web``."""
        return f"{self.kind_name()} {self.key or '<unnamed>'}"

    def kind_name(self) -> str:
        return getattr(self, "kind", "") or self.KIND


@dataclass(frozen=True, slots=True)
class Unstructured(KubeObject):
    """An object of a kind this project does not model: kept whole, field for field.

    The loader returns these for kinds it does not know (a Deployment, a
    KubeSchedulerConfiguration before its issue lands), so the caller decides
    whether to warn, expand or reject; nothing is lost either way.
    """

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    extra: Extra = extra_field()
