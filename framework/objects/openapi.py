"""Kubernetes' own schema of each kind: which fields exist, for strict decoding and ``kubectl explain``.

The typed models of :mod:`framework.objects` hold only what the scheduler
reads and keep every other key in ``extra``, so they cannot tell
``livenessProbe`` (a real field nobody here reads) from ``nodeSelecter`` (a
typo). Kubernetes can: its decoder knows every field of every type, and
with ``fieldValidation=Strict`` an unknown one is an error,
``strict decoding error: unknown field "spec.nodeSelecter"``; with ``Warn``
(the server's default) or ``Ignore`` it is dropped, with or without a
warning.

The list of fields comes from the official ``kubernetes`` client, which is
generated from Kubernetes' OpenAPI document: ``V1Pod``, ``V1PodSpec`` and so
on, each field with its JSON name, type and description. A kind the client
does not know (the scheduler-plugins ``PodGroup``) is described by this
project's model of it instead. The same tree gives :func:`openapi_schemas`,
the schemas ``serve`` publishes under ``/openapi/v3`` for ``kubectl explain``.

Quantities in fields the typed models do not hold (``emptyDir.sizeLimit``,
a status's ``allocatedResources``) are written in canonical form on the way
in (:func:`check_fields`), as Go's decoder would store them, so that every
quantity the server returns is a string.

Mirrors ``sigs.k8s.io/json``'s strict mode as used by
``k8s.io/apimachinery/pkg/runtime/serializer/json`` and the field
validation directives of ``k8s.io/apiserver/pkg/endpoints/handlers``
(``create.go``, ``update.go``, ``patch.go``: ``fieldValidation``, Warn by
default since v1.27 when the parameter is absent). Simplified: a field of
the wrong JSON type inside a part the models do not type is not reported
here (Go's decoder would: ``cannot unmarshal string into Go struct field``);
a key written twice in a JSON body is not reported (YAML's are, by the
loader).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
import types
import typing
from collections.abc import Mapping
from typing import Any

from framework.objects.quantity import Quantity, QuantityError

__all__ = [
    "FIELD_VALIDATION_DIRECTIVES",
    "SchemaNode",
    "check_fields",
    "kind_schema",
    "openapi_schemas",
    "strict_decoding_error",
    "suggest_field",
]

FIELD_VALIDATION_DIRECTIVES = ("Ignore", "Warn", "Strict")
"""``metav1.FieldValidation*``: drop unknown fields, drop them with a warning, or refuse them."""

# Fields typed as plain strings in the client that are resource.Quantity in Go.
_QUANTITY_MAPS = frozenset(
    {"limits", "requests", "capacity", "allocatable", "allocatedResources", "overhead", "hard"}
)
_QUANTITY_MAPS |= {"used", "minResources"}
_QUANTITY_FIELDS = frozenset({"sizeLimit", "storage"})


@dataclasses.dataclass(slots=True, eq=False)
class SchemaNode:
    """One type in the schema tree.

    ``kind`` is ``object`` (``fields`` by JSON name, resolved on first use:
    the tree is recursive), ``array`` or ``map`` (of ``item``), ``quantity``,
    ``string``, ``integer``, ``number``, ``boolean``, ``int-or-string`` or
    ``any`` (free-form JSON, never checked).
    """

    kind: str
    name: str = ""
    description: str = ""
    item: SchemaNode | None = None
    source: Any = None
    _fields: dict[str, tuple[SchemaNode, str]] | None = None

    @property
    def fields(self) -> dict[str, tuple[SchemaNode, str]]:
        """JSON name -> (type, description), for an object."""
        if self._fields is None:
            self._fields = _resolve(self.source)
        return self._fields


def _client_models() -> Any:
    import kubernetes.client.models as models  # lazy: the client is large

    if not _ADDED_FIELDS:
        _ADDED_FIELDS.update(_added_fields())
    return models


def _strip(annotation: Any) -> Any:
    """``Optional[Annotated[X, Strict]]`` -> ``X``; unions of two scalars stay unions."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return tuple(_strip(a) for a in args)
            annotation = args[0]
        else:
            return annotation


_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _node_for(annotation: Any, json_name: str) -> SchemaNode:
    annotation = _strip(annotation)
    if isinstance(annotation, tuple):
        return SchemaNode("int-or-string" if set(annotation) == {int, str} else "any")
    origin = typing.get_origin(annotation)
    if origin in (list, typing.List):  # noqa: UP006 - the client's annotations
        return SchemaNode("array", item=_node_for(typing.get_args(annotation)[0], ""))
    if origin in (dict, typing.Dict):  # noqa: UP006
        value = typing.get_args(annotation)[1]
        if json_name in _QUANTITY_MAPS and _strip(value) is str:
            return SchemaNode("map", item=SchemaNode("quantity"))
        return SchemaNode("map", item=_node_for(value, ""))
    if annotation is str and json_name in _QUANTITY_FIELDS:
        return SchemaNode("quantity")
    if annotation in _SCALARS:
        return SchemaNode(_SCALARS[annotation])
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        return _object_node(annotation)
    return SchemaNode("string" if getattr(annotation, "__name__", "") == "datetime" else "any")


_CLIENT_NAME = re.compile(r"(CoreV1|EventsV1|V[0-9]+(?:alpha[0-9]+|beta[0-9]+)?)(.+)")


@functools.cache
def _object_node(cls: type) -> SchemaNode:
    doc = (cls.__doc__ or "").strip().split("\n\n")[0].strip()
    if "Attributes:" in doc:
        doc = doc.split("Attributes:")[0].strip()
    # Named as Kubernetes' OpenAPI names it, so kubectl explain shows <[]Toleration>.
    match = _CLIENT_NAME.fullmatch(cls.__name__)
    name = f"io.k8s.api.{match[1].lower()}.{match[2]}" if match else cls.__name__
    return SchemaNode("object", name=name, description=doc, source=cls)


def _resolve(source: Any) -> dict[str, tuple[SchemaNode, str]]:
    from framework.objects.schema import Model

    if isinstance(source, type) and issubclass(source, Model):
        return _model_fields(source)
    fields: dict[str, tuple[SchemaNode, str]] = {}
    for name, info in source.model_fields.items():
        json_name = info.serialization_alias or name
        fields[json_name] = (_node_for(info.annotation, json_name), info.description or "")
    for json_name, model in _ADDED_FIELDS.get(source.__name__, {}).items():
        fields.setdefault(json_name, (_model_node(model), _ADDED_DESCRIPTIONS[json_name]))
    return fields


def _added_fields() -> dict[str, dict[str, type]]:
    from framework.objects.pod import WorkloadReference

    return {"V1PodSpec": {"workloadRef": WorkloadReference}}


# Fields of a release the installed client does not know: v1.35's pod.spec.workloadRef was
# replaced by schedulingGroup in v1.36, so a v1.36+ client lacks it.
_ADDED_FIELDS: dict[str, dict[str, type]] = {}
_ADDED_DESCRIPTIONS = {
    "workloadRef": "The Workload pod group this pod belongs to (v1.35, GenericWorkload).",
}


def _model_fields(cls: Any) -> dict[str, tuple[SchemaNode, str]]:
    """The fields of a kind the client lacks, from this project's model of it."""

    fields: dict[str, tuple[SchemaNode, str]] = {}
    for spec in cls._schema():
        fields[spec.key] = (_codec_node(spec.codec, spec.key), "")
    return fields


def _codec_node(codec: Any, key: str) -> SchemaNode:
    from framework.objects import schema

    if key == "metadata":
        return _object_node(_client_models().V1ObjectMeta)
    match codec:
        case schema._ModelCodec():
            return _model_node(codec.cls)
        case schema._ListCodec():
            return SchemaNode("array", item=_codec_node(codec.item, ""))
        case schema._MapCodec():
            return SchemaNode("map", item=_codec_node(codec.item, ""))
        case schema._QuantityCodec():
            return SchemaNode("quantity")
        case schema._IntOrString():
            return SchemaNode("int-or-string")
        case schema._Str():
            return SchemaNode("string")
        case schema._Int():
            return SchemaNode("integer")
        case schema._Bool():
            return SchemaNode("boolean")
        case schema._Float():
            return SchemaNode("number")
    return SchemaNode("any")


_MODEL_NODES: dict[type, SchemaNode] = {}


def _model_node(cls: type) -> SchemaNode:
    node = _MODEL_NODES.get(cls)
    if node is None:
        node = _MODEL_NODES[cls] = _new_model_node(cls)
    return node


def _new_model_node(cls: type) -> SchemaNode:
    name = f"{cls.__module__}.{cls.__name__}"
    return SchemaNode("object", name=name, description=(cls.__doc__ or "").strip(), source=cls)


_CLIENT_PREFIX = {"events.k8s.io/v1": "EventsV1"}


def kind_schema(kind: str, api_version: str, model: type | None = None) -> SchemaNode | None:
    """The schema of ``kind`` in ``api_version``: the client's model, else ``model``'s fields."""
    models = _client_models()
    version = api_version.rpartition("/")[2]
    prefix = _CLIENT_PREFIX.get(api_version, version[:1].upper() + version[1:])
    name = "CoreV1Event" if (kind, api_version) == ("Event", "v1") else f"{prefix}{kind}"
    cls = getattr(models, name, None)
    if cls is not None and hasattr(cls, "model_fields"):
        return _object_node(cls)
    if model is not None:
        return _model_node(model)
    return None


def check_fields(data: Any, schema: SchemaNode, drop: bool = True) -> list[str]:
    """The paths of the fields ``schema`` does not have (``spec.nodeSelecter``), in order.

    With ``drop``, they are removed from ``data`` (in place), as Go's
    decoder leaves them behind. Quantities are rewritten in canonical form.
    The walk follows the schema, which is a few levels deep, never the data.
    """
    unknown: list[str] = []
    _walk(data, schema, "", unknown, drop)
    return unknown


def _walk(value: Any, node: SchemaNode, path: str, unknown: list[str], drop: bool) -> None:
    kind = node.kind
    if kind == "object" and isinstance(value, dict):
        fields = node.fields
        for key in list(value):
            entry = fields.get(key) if isinstance(key, str) else None
            where = f"{path}.{key}" if path else str(key)
            if entry is None:
                unknown.append(where)
                if drop:
                    del value[key]
            elif entry[0].kind == "quantity":
                value[key] = _canonical(value[key])
            elif entry[0].kind in _CONTAINERS:
                _walk(value[key], entry[0], where, unknown, drop)
    elif node.item is None:
        return
    elif kind == "array" and isinstance(value, list) and node.item.kind in _CONTAINERS:
        for i, element in enumerate(value):
            _walk(element, node.item, f"{path}[{i}]", unknown, drop)
    elif kind == "map" and isinstance(value, dict):
        if node.item.kind == "quantity":
            for key in value:
                value[key] = _canonical(value[key])
        elif node.item.kind in _CONTAINERS:
            for key, element in value.items():
                _walk(element, node.item, f"{path}[{key}]", unknown, drop)


_CONTAINERS = frozenset({"object", "array", "map"})


def _canonical(value: Any) -> Any:
    try:
        return Quantity.parse(value).canonical
    except QuantityError:
        return value  # the typed model (or validation) reports it, in its words


def strict_decoding_error(unknown: list[str]) -> str:
    """``strict decoding error: unknown field "a", unknown field "b"`` (``runtime.NewStrictDecodingError``)."""
    return "strict decoding error: " + ", ".join(f'unknown field "{p}"' for p in unknown)


def suggest_field(path: str, schema: SchemaNode) -> str:
    """The known field closest to an unknown one's last part (``nodeSelector`` for ``nodeSelecter``)."""
    node: SchemaNode | None = schema
    parts = path.replace("]", "").replace("[", ".").split(".")
    for part in parts[:-1]:
        if node is None:
            return ""
        if node.kind in ("array", "map"):
            node = node.item
            continue
        if node.kind != "object" or part not in node.fields:
            return ""
        node = node.fields[part][0]
        while node is not None and node.kind in ("array", "map") and part.isdigit():
            node = node.item
    while node is not None and node.kind in ("array", "map"):
        node = node.item
    if node is None or node.kind != "object":
        return ""
    close = difflib.get_close_matches(parts[-1], list(node.fields), n=1, cutoff=0.6)
    return close[0] if close else ""


def openapi_schemas(roots: Mapping[str, SchemaNode]) -> dict[str, Any]:
    """OpenAPI v3 ``components.schemas`` for ``roots`` and every type they reach, by type name."""
    out: dict[str, Any] = {}
    pending = list(roots.values())
    while pending:
        node = pending.pop()
        if node.name in out:
            continue
        properties: dict[str, Any] = {}
        out[node.name] = {
            "type": "object",
            "description": node.description,
            "properties": properties,
        }
        for key, (child, description) in node.fields.items():
            properties[key] = _property(child, description, pending)
    return out


def _property(node: SchemaNode, description: str, pending: list[SchemaNode]) -> dict[str, Any]:
    prop: dict[str, Any] = {"description": description} if description else {}
    if node.kind == "object":
        pending.append(node)
        prop["allOf"] = [{"$ref": f"#/components/schemas/{node.name}"}]
    elif node.kind == "array" and node.item is not None:
        prop.update(type="array", items=_property(node.item, "", pending))
    elif node.kind == "map" and node.item is not None:
        prop.update(type="object", additionalProperties=_property(node.item, "", pending))
    elif node.kind == "quantity":
        prop.update(type="string", format="quantity")
    elif node.kind == "int-or-string":
        prop.update({"x-kubernetes-int-or-string": True})
    elif node.kind == "any":
        prop.update({"x-kubernetes-preserve-unknown-fields": True})
    else:
        prop["type"] = node.kind
    return prop
