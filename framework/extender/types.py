"""The extender wire protocol: what kube-scheduler POSTs to an extender, and what comes back.

An extender is a web service. For each verb it implements, kube-scheduler
sends one JSON document and reads one back:

==============  =================================  ==================================
verb            request                            response
==============  =================================  ==================================
filter          :class:`ExtenderArgs`              :class:`ExtenderFilterResult`
prioritize      :class:`ExtenderArgs`              a list of :class:`HostPriority`
bind            :class:`ExtenderBindingArgs`       :class:`ExtenderBindingResult`
preempt         :class:`ExtenderPreemptionArgs`    :class:`ExtenderPreemptionResult`
==============  =================================  ==================================

The Go structs behind these documents have **no json tags**, so their keys
are the Go field names, capitalised (``"Pod"``, ``"NodeNames"``,
``"FailedNodes"``, ``"Host"``), and a nil pointer or map is written as
``null``, not left out. Go's decoder matches keys without regard to case,
so an extender may answer ``{"nodenames": [...]}``; :func:`lookup` reads
keys the same way. The pods and nodes inside are ordinary API objects,
with their usual camelCase keys (``metadata``, ``spec``...).

Extender scores are on their own scale, :data:`MIN_EXTENDER_PRIORITY` to
:data:`MAX_EXTENDER_PRIORITY` (0 to 10); the scheduler scales them to the
plugins' 0 to 100 (:mod:`framework.scheduler.extenders`).

Contract: every ``to_json`` returns plain JSON data that ``json.dumps``
writes as Go's ``json.Marshal`` would (up to key order inside the API
objects), and every ``from_json`` accepts what Go's ``json.Unmarshal``
accepts, raising :class:`WireFormatError` naming the field otherwise.

Mirrors ``k8s.io/kube-scheduler/extender/v1/types.go``
(``kubernetes/kubernetes:staging/src/k8s.io/kube-scheduler/extender/v1/types.go``,
v1.33), and its ``TestCompatibility`` for the key spelling. Simplified: an
object inside is written by our object model, which keeps ``apiVersion``
off (as Go's empty ``TypeMeta`` does) but does not write Go's empty
defaults (``"creationTimestamp": null``, ``"status": {}``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from framework.objects import Node, Pod
from framework.objects.schema import ObjectInvalid

__all__ = [
    "MAX_EXTENDER_PRIORITY",
    "MIN_EXTENDER_PRIORITY",
    "ExtenderArgs",
    "ExtenderBindingArgs",
    "ExtenderBindingResult",
    "ExtenderFilterResult",
    "ExtenderPreemptionArgs",
    "ExtenderPreemptionResult",
    "HostPriority",
    "MetaPod",
    "MetaVictims",
    "Victims",
    "WireFormatError",
    "WireVictims",
    "decode_host_priority_list",
    "encode_host_priority_list",
    "lookup",
    "node_list_names",
]

MIN_EXTENDER_PRIORITY = 0
"""The lowest score an extender gives a node (``MinExtenderPriority``)."""
MAX_EXTENDER_PRIORITY = 10
"""The highest score an extender gives a node (``MaxExtenderPriority``)."""


class WireFormatError(ValueError):
    """A document that does not have the shape the protocol says; the message names the field."""


def lookup(data: Mapping[str, Any], name: str) -> Any:
    """``data[name]``, matching the key without regard to case as Go's decoder does.

    An exact match wins; otherwise the first key equal to ``name`` up to
    case. Missing is ``None``, as a field Go leaves at its zero value.

    >>> lookup({"nodenames": ["n1"]}, "NodeNames")
    ['n1']
    """
    if name in data:
        return data[name]
    folded = name.casefold()
    for key, value in data.items():
        if isinstance(key, str) and key.casefold() == folded:
            return value
    return None


def _object(data: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise WireFormatError(f"{where}: expected a JSON object, got {type(data).__name__}")
    return data


def _list(data: Any, where: str) -> list[Any]:
    if not isinstance(data, list):
        raise WireFormatError(f"{where}: expected a JSON array, got {type(data).__name__}")
    return data


def _string_map(data: Any, where: str) -> dict[str, str]:
    if data is None:
        return {}
    mapping = _object(data, where)
    out: dict[str, str] = {}
    for key, value in mapping.items():
        if not isinstance(value, str):
            raise WireFormatError(
                f"{where}[{key!r}]: expected a string, got {type(value).__name__}"
            )
        out[str(key)] = value
    return out


def _int(data: Any, where: str) -> int:
    if data is None:
        return 0
    if isinstance(data, bool) or not isinstance(data, int):
        raise WireFormatError(f"{where}: expected an integer, got {data!r}")
    return data


def _str(data: Any, where: str) -> str:
    if data is None:
        return ""
    if not isinstance(data, str):
        raise WireFormatError(f"{where}: expected a string, got {type(data).__name__}")
    return data


_ENCODED: dict[int, tuple[Node, dict[str, Any]]] = {}
_ENCODED_LIMIT = 50_000


def _encode_object(obj: Pod | Node) -> dict[str, Any]:
    if isinstance(obj, Node):
        # A Node is immutable and the scheduler sends the same ones for pod after pod: its
        # JSON is kept while the object lives (the entry holds it, so its id is not reused).
        cached = _ENCODED.get(id(obj))
        if cached is not None and cached[0] is obj:
            return cached[1]
    out = obj.to_dict()
    # Go's embedded TypeMeta is empty on these objects, and omitted.
    out.pop("apiVersion", None)
    out.pop("kind", None)
    if isinstance(obj, Node):
        if len(_ENCODED) >= _ENCODED_LIMIT:
            _ENCODED.clear()
        _ENCODED[id(obj)] = (obj, out)
    return out


def _decode_pod(data: Any, where: str) -> Pod:
    try:
        return Pod.from_dict(_object(data, where), where)
    except ObjectInvalid as error:
        raise WireFormatError(str(error)) from None


def _decode_node(data: Any, where: str) -> Node:
    try:
        return Node.from_dict(_object(data, where), where)
    except ObjectInvalid as error:
        raise WireFormatError(str(error)) from None


def _encode_node_list(nodes: Sequence[Node] | None) -> dict[str, Any] | None:
    if nodes is None:
        return None
    return {"metadata": {}, "items": [_encode_object(n) for n in nodes]}


def _decode_node_list(data: Any, where: str) -> tuple[Node, ...] | None:
    if data is None:
        return None
    items = lookup(_object(data, where), "items")
    if items is None:
        return ()
    return tuple(
        _decode_node(item, f"{where}.items[{i}]")
        for i, item in enumerate(_list(items, f"{where}.items"))
    )


def node_list_names(data: Any, where: str = "Nodes") -> tuple[str, ...] | None:
    """The names in a ``NodeList`` document, without decoding the nodes; ``null`` is None.

    What the scheduler needs of an extender's ``Nodes`` answer: it keeps its
    own NodeInfos and matches them by name.
    """
    if data is None:
        return None
    items = lookup(_object(data, where), "items")
    names = []
    for i, item in enumerate(_list(items, f"{where}.items") if items is not None else []):
        metadata = lookup(_object(item, f"{where}.items[{i}]"), "metadata")
        name = lookup(_object(metadata, f"{where}.items[{i}].metadata"), "name")
        names.append(_str(name, f"{where}.items[{i}].metadata.name"))
    return tuple(names)


def _decode_names(data: Any, where: str) -> tuple[str, ...] | None:
    if data is None:
        return None
    return tuple(_str(n, f"{where}[{i}]") for i, n in enumerate(_list(data, where)))


@dataclass(frozen=True, slots=True)
class ExtenderArgs:
    """The request of ``filter`` and ``prioritize``: the pod, and the candidate nodes.

    Exactly one of ``nodes`` (whole Node objects) and ``node_names`` is set:
    names when the extender is ``nodeCacheCapable`` (it keeps its own copy of
    the nodes), whole nodes otherwise.
    """

    pod: Pod
    nodes: tuple[Node, ...] | None = None
    node_names: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        names = None if self.node_names is None else list(self.node_names)
        return {
            "Pod": _encode_object(self.pod),
            "Nodes": _encode_node_list(self.nodes),
            "NodeNames": names,
        }

    @classmethod
    def from_json(cls, data: Any) -> ExtenderArgs:
        doc = _object(data, "ExtenderArgs")
        return cls(
            pod=_decode_pod(lookup(doc, "Pod"), "Pod"),
            nodes=_decode_node_list(lookup(doc, "Nodes"), "Nodes"),
            node_names=_decode_names(lookup(doc, "NodeNames"), "NodeNames"),
        )


@dataclass(frozen=True, slots=True)
class ExtenderFilterResult:
    """The answer to ``filter``: the nodes that pass, and why the others do not.

    ``nodes`` or ``node_names`` (as in the request) lists the nodes that
    pass; ``failed_nodes`` maps a node that does not to the reason, and
    ``failed_and_unresolvable_nodes`` a node where preemption would not help
    either (it wins when a node is in both). A non-empty ``error`` fails
    the whole call.
    """

    nodes: tuple[Node, ...] | None = None
    node_names: tuple[str, ...] | None = None
    failed_nodes: Mapping[str, str] = field(default_factory=dict)
    failed_and_unresolvable_nodes: Mapping[str, str] = field(default_factory=dict)
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        names = None if self.node_names is None else list(self.node_names)
        return {
            "Nodes": _encode_node_list(self.nodes),
            "NodeNames": names,
            "FailedNodes": dict(self.failed_nodes) or None,
            "FailedAndUnresolvableNodes": dict(self.failed_and_unresolvable_nodes) or None,
            "Error": self.error,
        }

    @classmethod
    def from_json(cls, data: Any) -> ExtenderFilterResult:
        doc = _object(data, "ExtenderFilterResult")
        return cls(
            nodes=_decode_node_list(lookup(doc, "Nodes"), "Nodes"),
            node_names=_decode_names(lookup(doc, "NodeNames"), "NodeNames"),
            failed_nodes=_string_map(lookup(doc, "FailedNodes"), "FailedNodes"),
            failed_and_unresolvable_nodes=_string_map(
                lookup(doc, "FailedAndUnresolvableNodes"), "FailedAndUnresolvableNodes"
            ),
            error=_str(lookup(doc, "Error"), "Error"),
        )


@dataclass(frozen=True, slots=True)
class HostPriority:
    """One node's score from ``prioritize``, 0 to 10 (``HostPriority``)."""

    host: str
    score: int

    def to_json(self) -> dict[str, Any]:
        return {"Host": self.host, "Score": self.score}

    @classmethod
    def from_json(cls, data: Any, where: str = "HostPriority") -> HostPriority:
        doc = _object(data, where)
        return cls(
            host=_str(lookup(doc, "Host"), f"{where}.Host"),
            score=_int(lookup(doc, "Score"), f"{where}.Score"),
        )


def encode_host_priority_list(priorities: Iterable[HostPriority]) -> list[dict[str, Any]]:
    """The answer to ``prioritize`` as JSON data (``HostPriorityList``)."""
    return [p.to_json() for p in priorities]


def decode_host_priority_list(data: Any) -> list[HostPriority]:
    """Read the answer to ``prioritize``; ``null`` is an empty list, as in Go."""
    if data is None:
        return []
    return [
        HostPriority.from_json(item, f"HostPriorityList[{i}]")
        for i, item in enumerate(_list(data, "HostPriorityList"))
    ]


@dataclass(frozen=True, slots=True)
class ExtenderBindingArgs:
    """The request of ``bind``: which pod, and the node the scheduler chose."""

    pod_name: str
    pod_namespace: str
    pod_uid: str
    node: str

    def to_json(self) -> dict[str, Any]:
        return {
            "PodName": self.pod_name,
            "PodNamespace": self.pod_namespace,
            "PodUID": self.pod_uid,
            "Node": self.node,
        }

    @classmethod
    def from_json(cls, data: Any) -> ExtenderBindingArgs:
        doc = _object(data, "ExtenderBindingArgs")
        return cls(
            pod_name=_str(lookup(doc, "PodName"), "PodName"),
            pod_namespace=_str(lookup(doc, "PodNamespace"), "PodNamespace"),
            pod_uid=_str(lookup(doc, "PodUID"), "PodUID"),
            node=_str(lookup(doc, "Node"), "Node"),
        )


@dataclass(frozen=True, slots=True)
class ExtenderBindingResult:
    """The answer to ``bind``: empty ``error`` means the extender bound the pod."""

    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"Error": self.error}

    @classmethod
    def from_json(cls, data: Any) -> ExtenderBindingResult:
        doc = _object(data, "ExtenderBindingResult")
        return cls(error=_str(lookup(doc, "Error"), "Error"))


@dataclass(frozen=True, slots=True)
class Victims:
    """The pods to preempt on one node, most important first, and how many break a budget."""

    pods: tuple[Pod, ...] = ()
    num_pdb_violations: int = 0


@dataclass(frozen=True, slots=True)
class MetaPod:
    """A victim named by UID alone (``MetaPod``)."""

    uid: str

    def to_json(self) -> dict[str, Any]:
        return {"UID": self.uid}


@dataclass(frozen=True, slots=True)
class MetaVictims:
    """One node's victims by UID, and how many of them break a PodDisruptionBudget."""

    pods: tuple[MetaPod, ...] = ()
    num_pdb_violations: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "Pods": [p.to_json() for p in self.pods],
            "NumPDBViolations": self.num_pdb_violations,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> MetaVictims:
        doc = _object(data, where)
        pods = lookup(doc, "Pods")
        metas = tuple(
            MetaPod(
                _str(lookup(_object(p, f"{where}.Pods[{i}]"), "UID"), f"{where}.Pods[{i}].UID")
            )
            for i, p in enumerate(_list(pods, f"{where}.Pods") if pods is not None else [])
        )
        violations = _int(lookup(doc, "NumPDBViolations"), f"{where}.NumPDBViolations")
        return cls(metas, violations)


@dataclass(frozen=True, slots=True)
class WireVictims:
    """One node's victims as whole pods (``Victims``, sent to extenders without a node cache)."""

    pods: tuple[Pod, ...] = ()
    num_pdb_violations: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "Pods": [_encode_object(p) for p in self.pods],
            "NumPDBViolations": self.num_pdb_violations,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> WireVictims:
        doc = _object(data, where)
        pods = lookup(doc, "Pods")
        decoded = tuple(
            _decode_pod(p, f"{where}.Pods[{i}]")
            for i, p in enumerate(_list(pods, f"{where}.Pods") if pods is not None else [])
        )
        violations = _int(lookup(doc, "NumPDBViolations"), f"{where}.NumPDBViolations")
        return cls(decoded, violations)


@dataclass(frozen=True, slots=True)
class ExtenderPreemptionArgs:
    """The request of ``preempt``: the preemptor and each candidate node's victims.

    ``node_name_to_meta_victims`` (UIDs only) is set for a node-cache-capable
    extender, ``node_name_to_victims`` (whole pods) otherwise.
    """

    pod: Pod
    node_name_to_victims: Mapping[str, WireVictims] | None = None
    node_name_to_meta_victims: Mapping[str, MetaVictims] | None = None

    def to_json(self) -> dict[str, Any]:
        victims = self.node_name_to_victims
        metas = self.node_name_to_meta_victims
        return {
            "Pod": _encode_object(self.pod),
            "NodeNameToVictims": None
            if victims is None
            else {name: v.to_json() for name, v in victims.items()},
            "NodeNameToMetaVictims": None
            if metas is None
            else {name: m.to_json() for name, m in metas.items()},
        }

    @classmethod
    def from_json(cls, data: Any) -> ExtenderPreemptionArgs:
        doc = _object(data, "ExtenderPreemptionArgs")
        victims = lookup(doc, "NodeNameToVictims")
        metas = lookup(doc, "NodeNameToMetaVictims")
        return cls(
            pod=_decode_pod(lookup(doc, "Pod"), "Pod"),
            node_name_to_victims=None
            if victims is None
            else {
                str(name): WireVictims.from_json(v, f"NodeNameToVictims[{name!r}]")
                for name, v in _object(victims, "NodeNameToVictims").items()
            },
            node_name_to_meta_victims=None
            if metas is None
            else {
                str(name): MetaVictims.from_json(m, f"NodeNameToMetaVictims[{name!r}]")
                for name, m in _object(metas, "NodeNameToMetaVictims").items()
            },
        )


@dataclass(frozen=True, slots=True)
class ExtenderPreemptionResult:
    """The answer to ``preempt``: the nodes still worth preempting on, victims by UID."""

    node_name_to_meta_victims: Mapping[str, MetaVictims] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "NodeNameToMetaVictims": {
                name: m.to_json() for name, m in self.node_name_to_meta_victims.items()
            }
            or None
        }

    @classmethod
    def from_json(cls, data: Any) -> ExtenderPreemptionResult:
        doc = _object(data, "ExtenderPreemptionResult")
        metas = lookup(doc, "NodeNameToMetaVictims")
        if metas is None:
            return cls({})
        return cls(
            {
                str(name): MetaVictims.from_json(m, f"NodeNameToMetaVictims[{name!r}]")
                for name, m in _object(metas, "NodeNameToMetaVictims").items()
            }
        )
