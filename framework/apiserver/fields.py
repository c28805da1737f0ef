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

from collections.abc import Callable, Mapping
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


def _pod_ip(pod: Pod) -> str:
    extra: Mapping[str, Any] = pod.status.extra
    pod_ips = extra.get("podIPs") or []
    return str(pod_ips[0].get("ip", "")) if pod_ips else str(extra.get("podIP", ""))


FieldGetter = Callable[[Any], str]
"""Reads one selectable field of an object, as the string a selector compares."""

_META_GETTERS: Mapping[str, FieldGetter] = {
    "metadata.name": lambda obj: obj.metadata.name,
    "metadata.namespace": lambda obj: obj.metadata.namespace,
}

# Per kind, how to read each selectable field (GetAttrs, field by field), so that a
# watch's selector can be compiled into the few reads it needs.
_GETTERS: Mapping[type[KubeObject], Mapping[str, FieldGetter]] = {
    Pod: {
        "spec.nodeName": lambda pod: pod.spec.node_name,
        "spec.restartPolicy": lambda pod: pod.spec.restart_policy,
        "spec.schedulerName": lambda pod: pod.spec.scheduler_name,
        "spec.serviceAccountName": lambda pod: str(pod.spec.extra.get("serviceAccountName", "")),
        "spec.hostNetwork": lambda pod: _bool(pod.spec.host_network),
        "status.phase": lambda pod: pod.status.phase,
        "status.podIP": _pod_ip,
        "status.nominatedNodeName": lambda pod: pod.status.nominated_node_name,
    },
    Node: {"spec.unschedulable": lambda node: _bool(node.spec.unschedulable)},
    Namespace: {"status.phase": lambda ns: str((ns.status or {}).get("phase", ""))},
    Event: {
        "involvedObject.kind": lambda e: e.involved_object.kind,
        "involvedObject.namespace": lambda e: e.involved_object.namespace,
        "involvedObject.name": lambda e: e.involved_object.name,
        "involvedObject.uid": lambda e: e.involved_object.uid,
        "involvedObject.apiVersion": lambda e: e.involved_object.api_version,
        "involvedObject.resourceVersion": lambda e: e.involved_object.resource_version,
        "involvedObject.fieldPath": lambda e: e.involved_object.field_path,
        "reason": lambda e: e.reason,
        "reportingComponent": lambda e: e.reporting_component,
        "source": lambda e: e.source.component or e.reporting_component,
        "type": lambda e: e.type,
    },
}


def _getters(obj: KubeObject) -> Mapping[str, FieldGetter]:
    for kind, getters in _GETTERS.items():
        if isinstance(obj, kind):
            return {**_META_GETTERS, **getters}
    return _META_GETTERS


def selectable_fields(obj: KubeObject) -> dict[str, str]:
    """The selectable fields of ``obj`` and their values as strings (``GetAttrs``)."""
    return {field: get(obj) for field, get in _getters(obj).items()}


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

    def compiled(self, kind: type[KubeObject]) -> Callable[[KubeObject], bool]:
        """:meth:`matches` for objects of ``kind``, reading only the fields it names.

        A watch calls its selector on every change of its kind, twice (the
        object and its previous state): this skips building every
        selectable field of the object each time.
        """
        if not self.requirements:
            return lambda obj: True
        getters = {**_META_GETTERS, **_GETTERS.get(kind, {})}
        if any(r.field not in getters for r in self.requirements):
            return self.matches  # not a field of this kind: read them all, as before
        checks = tuple((getters[r.field], r.value, r.operator == "=") for r in self.requirements)

        def matches(obj: KubeObject) -> bool:
            for get, value, equal in checks:  # noqa: SIM110 (a loop: no generator per call)
                if (get(obj) == value) is not equal:
                    return False
            return True

        return matches

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
