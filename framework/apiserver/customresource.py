"""Custom resources: what the API server does for a kind a CustomResourceDefinition declares.

Pods and Nodes are compiled into kube-apiserver, with hand-written defaults,
strategies and validation. A custom resource (here the only one, the
:class:`~framework.objects.PodGroup` of scheduler-plugins) gets generic
rules instead, driven by its CRD:

* **pruning**: a field the CRD's structural schema does not declare is
  dropped from the stored object, silently (``status.scheduled``, which old
  PodGroups had, does not survive a create);
* **OpenAPI validation**: only what the schema declares. For PodGroup that
  is ``spec.minMember`` ``minimum: 1`` (when written), quantities for
  ``spec.minResources`` (checked when the manifest is decoded) and
  ``format: date-time`` for ``status.scheduleStartTime``. Nothing forbids a
  negative ``scheduleTimeoutSeconds``: the CRD does not say so;
* **the status subresource** (``subresources: {status: {}}``): a create
  cannot set ``status``; an update of the main resource keeps the stored
  status, and ``/status`` keeps everything else, labels included;
* **generation**: 1 on create, plus one whenever an update changes anything
  but ``metadata`` and ``status``.

Mirrors ``customResourceStrategy`` and ``statusStrategy`` in
``k8s.io/apiextensions-apiserver/pkg/registry/customresource/`` (``strategy.go``,
``status_strategy.go``), pruning in ``pkg/apiserver/schema/pruning/algorithm.go``
and the CRD of ``kubernetes-sigs/scheduler-plugins:manifests/coscheduling/crd.yaml``
(v0.33.5). Simplified: the schema is written out in code for the one kind,
not read from a CRD object; metadata is not pruned.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TypeVar, cast

from framework.apiserver.errors import FieldCause
from framework.objects import KubeObject, PodGroup, PodGroupSpec, PodGroupStatus

__all__ = [
    "CUSTOM_RESOURCE_KINDS",
    "MIN_MEMBER_MINIMUM",
    "event_resource_name",
    "kind_for_event_resource",
    "prepare_for_create",
    "prepare_for_status_update",
    "prepare_for_update",
    "validate",
]

T = TypeVar("T", bound=KubeObject)

CUSTOM_RESOURCE_KINDS: tuple[type[KubeObject], ...] = (PodGroup,)
"""The kinds this API server serves from a CRD's rules rather than built-in ones."""

MIN_MEMBER_MINIMUM = 1
"""``spec.minMember``'s ``minimum`` in the PodGroup CRD (kubernetes-sigs/scheduler-plugins#758)."""

# RFC 3339 date-time, as kube-openapi's strfmt accepts it (a space or a T between date and time).
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def _pruned(pg: PodGroup) -> PodGroup:
    """``pg`` without the fields the CRD's schema does not declare."""
    return dataclasses.replace(
        pg,
        spec=dataclasses.replace(pg.spec, extra={}),
        status=dataclasses.replace(pg.status, extra={}),
        extra={},
    )


def prepare_for_create(obj: T) -> T:
    """A new custom resource: pruned, without status, at generation 1."""
    if not isinstance(obj, PodGroup):
        return obj
    pg = dataclasses.replace(_pruned(obj), status=PodGroupStatus())
    return cast(T, pg.with_metadata(generation=1))


def prepare_for_update(new: T, old: T) -> T:
    """An update of the main resource: the stored status stays; a changed spec bumps the generation."""
    if not isinstance(new, PodGroup) or not isinstance(old, PodGroup):
        return new
    pg = dataclasses.replace(_pruned(new), status=old.status)
    changed = (pg.spec, pg.extra) != (old.spec, old.extra)
    return cast(T, pg.with_metadata(generation=old.metadata.generation + (1 if changed else 0)))


def prepare_for_status_update(new: T, old: T) -> T:
    """An update of ``/status``: the new status on the stored object; nothing else changes."""
    if not isinstance(new, PodGroup) or not isinstance(old, PodGroup):
        return new
    return cast(T, dataclasses.replace(old, status=_pruned(new).status))


def _body_rule(path: str, rule: str) -> str:
    """kube-openapi's wording: the path in the request body, then the rule broken."""
    return f"{path} in body {rule}"


def _validate_spec(spec: PodGroupSpec) -> list[FieldCause]:
    causes: list[FieldCause] = []
    if spec.min_member is not None and spec.min_member < MIN_MEMBER_MINIMUM:
        path = "spec.minMember"
        rule = f"should be greater than or equal to {MIN_MEMBER_MINIMUM}"
        causes.append(FieldCause.invalid(path, spec.min_member, _body_rule(path, rule)))
    return causes


def _validate_status(status: PodGroupStatus) -> list[FieldCause]:
    stamp = status.schedule_start_time
    if stamp is not None and not _DATE_TIME.fullmatch(stamp):
        path = "status.scheduleStartTime"
        rule = f'must be of type date-time: "{stamp}"'
        return [FieldCause.invalid(path, stamp, _body_rule(path, rule))]
    return []


def validate(obj: KubeObject) -> list[FieldCause]:
    """Every violation of the kind's CRD schema; [] when valid (or not a custom resource)."""
    if not isinstance(obj, PodGroup):
        return []
    return _validate_spec(obj.spec) + _validate_status(obj.status)


def event_resource_name(kind: type[KubeObject]) -> str:
    """``<plural>.<version>.<group>``: how kube-scheduler names the events of a custom resource.

    >>> event_resource_name(PodGroup)
    'podgroups.v1alpha1.scheduling.x-k8s.io'
    """
    group, _, version = kind.API_VERSION.rpartition("/")
    return f"{getattr(kind, 'RESOURCE', kind.KIND.lower() + 's')}.{version}.{group}"


def kind_for_event_resource(name: str) -> type[KubeObject] | None:
    """The custom resource kind whose events are named ``name``, if this server serves it."""
    for kind in CUSTOM_RESOURCE_KINDS:
        if event_resource_name(kind) == name:
            return kind
    return None
