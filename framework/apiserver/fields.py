"""Field selectors: filter a list or watch on a few chosen fields, such as ``spec.nodeName``.

kube-scheduler watches pods twice: the unscheduled ones
(``spec.nodeName=``, that is "nodeName equals the empty string") for its
queue and the scheduled ones (``spec.nodeName!=``) for its cache; a kubelet
watches ``spec.nodeName=<its node>``. Those are field selectors: requirements
``field=value``, ``field==value`` or ``field!=value``, joined by commas, all of
which must hold.

Unlike labels, only a handful of fields per kind can be selected on, and the
server answers any other with ``400 BadRequest: field label not supported``.
:data:`SELECTABLE_FIELDS` lists them; :func:`selectable_fields` reads their
values from an object, as strings (``spec.unschedulable`` is ``"true"`` or
``"false"``, an absent field is ``""``).

Mirrors ``k8s.io/apimachinery/pkg/fields/selector.go`` (``ParseSelector``),
the field label conversion functions of ``pkg/apis/core/v1/conversion.go`` and
the ``ToSelectableFields`` / ``GetAttrs`` functions of
``pkg/registry/core/{pod,node,event,namespace}/strategy.go``.
Simplified: values are read from the typed objects, and ``status.podIPs`` is
not offered (it needs the pod's IP list, which no scheduler test sets).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.apiserver.errors import MSG_FIELD_LABEL_NOT_SUPPORTED, BadRequest
from framework.objects import Event, KubeObject, Namespace, Node, Pod

__all__ = [
    "SELECTABLE_FIELDS",
    "FieldRequirement",
    "FieldSelector",
    "parse_field_selector",
    "selectable_fields",
]

_META = ("metadata.name", "metadata.namespace")

SELECTABLE_FIELDS: Mapping[str, frozenset[str]] = {
    "Pod": frozenset(
        {
            *_META,
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        }
    ),
    # Nodes are cluster-scoped: the real conversion function offers no metadata.namespace.
    "Node": frozenset({"metadata.name", "spec.unschedulable"}),
    "Namespace": frozenset({"metadata.name", "status.phase"}),
    "Event": frozenset(
        {
            *_META,
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        }
    ),
}
"""Per kind, the fields a selector may name; other kinds offer only the two metadata fields."""

# Old v1 clients spell spec.nodeName as spec.host; the server still accepts it.
_ALIASES = {"Pod": {"spec.host": "spec.nodeName"}}


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _pod_fields(pod: Pod) -> dict[str, str]:
    extra: Mapping[str, Any] = pod.status.extra
    pod_ips = extra.get("podIPs") or []
    pod_ip = str(pod_ips[0].get("ip", "")) if pod_ips else str(extra.get("podIP", ""))
    return {
        "spec.nodeName": pod.spec.node_name,
        "spec.restartPolicy": pod.spec.restart_policy,
        "spec.schedulerName": pod.spec.scheduler_name,
        "spec.serviceAccountName": str(pod.spec.extra.get("serviceAccountName", "")),
        "spec.hostNetwork": _bool(pod.spec.host_network),
        "status.phase": pod.status.phase,
        "status.podIP": pod_ip,
        "status.nominatedNodeName": pod.status.nominated_node_name,
    }


def _event_fields(event: Event) -> dict[str, str]:
    ref = event.involved_object
    return {
        "involvedObject.kind": ref.kind,
        "involvedObject.namespace": ref.namespace,
        "involvedObject.name": ref.name,
        "involvedObject.uid": ref.uid,
        "involvedObject.apiVersion": ref.api_version,
        "involvedObject.resourceVersion": ref.resource_version,
        "involvedObject.fieldPath": ref.field_path,
        "reason": event.reason,
        "reportingComponent": event.reporting_component,
        "source": event.source.component or event.reporting_component,
        "type": event.type,
    }


def selectable_fields(obj: KubeObject) -> dict[str, str]:
    """The selectable fields of ``obj`` and their values as strings (``GetAttrs``)."""
    fields = {"metadata.name": obj.metadata.name, "metadata.namespace": obj.metadata.namespace}
    if isinstance(obj, Pod):
        fields.update(_pod_fields(obj))
    elif isinstance(obj, Node):
        fields["spec.unschedulable"] = _bool(obj.spec.unschedulable)
    elif isinstance(obj, Namespace):
        fields["status.phase"] = str((obj.status or {}).get("phase", ""))
    elif isinstance(obj, Event):
        fields.update(_event_fields(obj))
    return fields


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """``field=value`` (``operator`` ``"="``) or ``field!=value`` (``"!="``)."""

    field: str
    operator: str
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        equal = fields.get(self.field, "") == self.value
        return equal if self.operator == "=" else not equal

    def __str__(self) -> str:
        escaped = self.value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")
        return f"{self.field}{self.operator}{escaped}"


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """Field requirements that must all hold; no requirements selects everything."""

    requirements: tuple[FieldRequirement, ...] = ()

    @classmethod
    def everything(cls) -> FieldSelector:
        return cls()

    def matches(self, obj: KubeObject) -> bool:
        if not self.requirements:
            return True
        return self.matches_fields(selectable_fields(obj))

    def matches_fields(self, fields: Mapping[str, str]) -> bool:
        return all(r.matches(fields) for r in self.requirements)

    def for_kind(self, kind: str) -> FieldSelector:
        """This selector checked against what ``kind`` supports, aliases resolved.

        Raise :class:`BadRequest` ``field label not supported: <field>`` for a
        field the real server would refuse.
        """
        supported = SELECTABLE_FIELDS.get(kind, frozenset(_META))
        aliases = _ALIASES.get(kind, {})
        checked = []
        for requirement in self.requirements:
            field = aliases.get(requirement.field, requirement.field)
            if field not in supported:
                raise BadRequest(MSG_FIELD_LABEL_NOT_SUPPORTED.format(field=requirement.field))
            checked.append(FieldRequirement(field, requirement.operator, requirement.value))
        return FieldSelector(tuple(checked))

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


def _split_unescaped(text: str, separator: str) -> list[str]:
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append("\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if escaped:
        current.append("\\")
    parts.append("".join(current))
    return parts


def _unescape(value: str, term: str) -> str:
    out, escaped = [], False
    for char in value:
        if escaped:
            if char not in "\\,=":
                raise BadRequest(
                    f"invalid field selector term {term!r}: invalid escape '\\{char}'"
                )
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ",=":
            raise BadRequest(
                f"invalid field selector term {term!r}: unescaped {char!r} in the value "
                "(write \\, or \\=)"
            )
        else:
            out.append(char)
    if escaped:
        raise BadRequest(f"invalid field selector term {term!r}: a value may not end with '\\'")
    return "".join(out)


def _parse_term(term: str) -> FieldRequirement:
    # The first unescaped operator splits the term; "!=" and "==" are tried before "=".
    i = 0
    while i < len(term):
        if term[i] == "\\":
            i += 2
            continue
        for symbol, operator in (("!=", "!="), ("==", "="), ("=", "=")):
            if term.startswith(symbol, i):
                field = term[:i]
                value = _unescape(term[i + len(symbol) :], term)
                return FieldRequirement(field, operator, value)
        i += 1
    raise BadRequest(
        f"invalid field selector term {term!r}: expected field=value, field==value or field!=value"
    )


def parse_field_selector(text: str) -> FieldSelector:
    """Parse ``spec.nodeName=n1,status.phase!=Failed`` (``fields.ParseSelector``).

    The empty string selects everything. Commas and equals signs inside a
    value are written ``\\,`` and ``\\=``. Syntax errors raise
    :class:`BadRequest`, as the server answers them.

    >>> s = parse_field_selector("spec.nodeName=")
    >>> s.matches_fields({"spec.nodeName": ""}), s.matches_fields({"spec.nodeName": "n1"})
    (True, False)
    """
    if not text.strip():
        return FieldSelector()
    terms = _split_unescaped(text, ",")
    return FieldSelector(tuple(_parse_term(t.strip()) for t in terms))
