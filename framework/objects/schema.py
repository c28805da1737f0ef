"""How a Kubernetes manifest becomes a typed Python object, and back.

Every API type in :mod:`framework.objects` is a frozen dataclass that derives
from :class:`Model`. Its fields are written in Python manners
(``node_name``) and map to the manifest's camelCase keys (``nodeName``); a
field whose JSON name does not follow from its Python name says so with
:func:`json_field` (``host_ip`` is ``hostIP``).

Two rules make the round trip honest:

* **Unknown keys are kept.** A key a class does not model lands in that
  object's ``extra`` mapping and is written back unchanged, so
  ``livenessProbe`` or ``managedFields`` survive a load and a dump even though
  no scheduler plugin reads them.
* **Quantities go out canonical**, as the API server writes them: always
  a string, ``cpu: 1.5`` comes back as ``cpu: "1500m"``
  (:func:`framework.objects.quantity.canonical_form`).
* **Empty means absent**, as Go's ``omitempty`` does it: a known field whose
  value is its default (``""``, ``0``, ``False``, an empty list or map, ``None``)
  is not written. A manifest that says ``unschedulable: false`` comes back
  without the line, exactly as the real API server would return it.

Type errors name the field by its manifest path
(``spec.containers[0].resources.requests.cpu``), and all errors of one object
are reported together.

Mirrors the role of ``k8s.io/apimachinery``'s JSON decoding into the Go
structs of ``k8s.io/api/core/v1``. Simplified: there is one API version per
kind, no conversion, and the decoder is written once for all types instead of
being generated per type.
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import re
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Self, TypeVar

from framework.objects.quantity import Quantity, QuantityError

__all__ = [
    "FieldError",
    "Model",
    "ObjectInvalid",
    "Path",
    "json_field",
]

_M = TypeVar("_M", bound="Model")


class FieldError(Exception):
    """One bad field: where it is (a manifest path) and what is wrong with it."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class ObjectInvalid(Exception):
    """All the field errors of one object, raised together."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


class Path:
    """A manifest path under construction, rendered the way kubectl prints one."""

    __slots__ = ("_text",)

    def __init__(self, text: str = "") -> None:
        self._text = text

    def key(self, name: str) -> Path:
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return Path(f"{self._text}.{name}" if self._text else name)
        return Path(f"{self._text}[{name}]")

    def index(self, i: int) -> Path:
        return Path(f"{self._text}[{i}]")

    def __str__(self) -> str:
        return self._text


def json_field(name: str, default: Any = dataclasses.MISSING, **kwargs: Any) -> Any:
    """A dataclass field whose manifest key is ``name`` (when camelCase does not fit)."""
    metadata = {"json": name}
    if default is dataclasses.MISSING:
        return dataclasses.field(metadata=metadata, **kwargs)
    return dataclasses.field(default=default, metadata=metadata, **kwargs)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


# --- field codecs -----------------------------------------------------------
#
# Each class's fields are compiled once into codecs: small objects that turn
# one manifest value into a Python value (decode) and back (encode). Decoding
# appends to an error list instead of raising, so one pass reports every
# problem of an object.


class _Codec(abc.ABC):
    @abc.abstractmethod
    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        """The Python value of one manifest value; problems go to ``errors``."""

    def encode(self, value: Any) -> Any:
        return value


_JSON_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    bool: "a boolean",
    float: "a number",
    dict: "an object",
    list: "a list",
}


def _describe(value: Any) -> str:
    for python_type, name in _JSON_TYPE_NAMES.items():
        if type(value) is python_type:
            return f"{name} ({value!r})" if python_type in (str, int, bool, float) else name
    return type(value).__name__


class _Str(_Codec):
    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        if isinstance(value, str):
            return value
        hint = f' (quote it: "{value}")' if isinstance(value, int | float | bool) else ""
        errors.append(FieldError(str(path), f"expected a string, got {_describe(value)}{hint}"))
        return None


_INT64 = range(-(2**63), 2**63)


class _Int(_Codec):
    """An integer field; every one Kubernetes declares is an int32 or an int64."""

    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        if isinstance(value, bool):
            pass
        elif isinstance(value, int | float) and (isinstance(value, int) or value.is_integer()):
            if int(value) in _INT64:
                return int(value)
            # Go's decoder: "cannot unmarshal number ... of type int64".
            errors.append(FieldError(str(path), f"the number {value} does not fit an int64"))
            return None
        errors.append(FieldError(str(path), f"expected an integer, got {_describe(value)}"))
        return None


class _Bool(_Codec):
    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        if isinstance(value, bool):
            return value
        errors.append(FieldError(str(path), f"expected true or false, got {_describe(value)}"))
        return None


class _Float(_Codec):
    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        errors.append(FieldError(str(path), f"expected a number, got {_describe(value)}"))
        return None


class _IntOrString(_Codec):
    """``intstr.IntOrString``: a number or a string (``maxUnavailable: 1`` or ``"25%"``)."""

    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        errors.append(
            FieldError(str(path), f"expected an integer or a string, got {_describe(value)}")
        )
        return None


class _Any(_Codec):
    """A subtree the model keeps as plain JSON (deep-copied, never shared)."""

    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        return copy.deepcopy(value)

    def encode(self, value: Any) -> Any:
        return copy.deepcopy(value)


class _QuantityCodec(_Codec):
    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        try:
            return Quantity.parse(value)
        except QuantityError as exc:
            errors.append(FieldError(str(path), str(exc)))
            return None

    def encode(self, value: Any) -> Any:
        # Always a string, in the API server's canonical form: typed clients require a string.
        return value.canonical


class _ModelCodec(_Codec):
    def __init__(self, cls: type[Model]) -> None:
        self.cls = cls

    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        return self.cls._decode(value, path, errors)

    def encode(self, value: Any) -> Any:
        return value.to_dict()


class _ListCodec(_Codec):
    def __init__(self, item: _Codec) -> None:
        self.item = item

    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        if not isinstance(value, list | tuple):
            errors.append(FieldError(str(path), f"expected a list, got {_describe(value)}"))
            return None
        decoded = []
        for i, element in enumerate(value):
            item = self.item.decode(element, path.index(i), errors)
            if item is not None:
                decoded.append(item)
        return tuple(decoded)

    def encode(self, value: Any) -> Any:
        return [self.item.encode(v) for v in value]


class _MapCodec(_Codec):
    def __init__(self, item: _Codec) -> None:
        self.item = item

    def decode(self, value: Any, path: Path, errors: list[FieldError]) -> Any:
        if not isinstance(value, Mapping):
            errors.append(FieldError(str(path), f"expected an object, got {_describe(value)}"))
            return None
        decoded = {}
        for key, element in value.items():
            if not isinstance(key, str):
                errors.append(FieldError(str(path), f"keys must be strings, got {key!r}"))
                continue
            item = self.item.decode(element, path.key(key), errors)
            if item is not None:
                decoded[key] = item
        return decoded

    def encode(self, value: Any) -> Any:
        return {k: self.item.encode(v) for k, v in value.items()}


def _codec_for(annotation: Any) -> tuple[_Codec, bool]:
    """The codec for a field's type, and whether the field may be None."""
    optional = False
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        if set(args) == {int, str}:
            return _IntOrString(), optional
        if len(args) != 1:
            raise TypeError(f"unsupported union {annotation!r}")
        annotation = args[0]
        origin = typing.get_origin(annotation)
    if annotation is Any:
        return _Any(), optional
    if annotation is str:
        return _Str(), optional
    if annotation is bool:
        return _Bool(), optional
    if annotation is int:
        return _Int(), optional
    if annotation is float:
        return _Float(), optional
    if annotation is Quantity:
        return _QuantityCodec(), optional
    if isinstance(annotation, type) and issubclass(annotation, Model):
        return _ModelCodec(annotation), optional
    if origin is tuple:
        item, _ = _codec_for(typing.get_args(annotation)[0])
        return _ListCodec(item), optional
    if origin in (dict, Mapping, typing.Mapping):
        item, _ = _codec_for(typing.get_args(annotation)[1])
        return _MapCodec(item), optional
    raise TypeError(f"unsupported field type {annotation!r}")


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    name: str
    key: str
    codec: _Codec
    default: Any
    always: bool  # written even when it holds its default (apiVersion, kind)


def _is_empty(value: Any, default: Any) -> bool:
    if value is None:
        return True
    if value == default:
        return True
    return isinstance(value, tuple | dict | Mapping) and len(value) == 0


class Model:
    """Base of every API type: decoding from and encoding to manifest dicts.

    Subclasses are ``@dataclass(frozen=True, slots=True)`` and end with an
    ``extra`` field (see :func:`framework.objects.meta.extra_field`) holding
    the keys they do not model.
    """

    __slots__ = ()

    _fields_cache: ClassVar[dict[type, tuple[_Field, ...]]] = {}
    _ALWAYS: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def _schema(cls) -> tuple[_Field, ...]:
        cached = Model._fields_cache.get(cls)
        if cached is not None:
            return cached
        hints = typing.get_type_hints(cls)
        compiled = []
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name == "extra":
                continue
            codec, _ = _codec_for(hints[f.name])
            if f.default is not dataclasses.MISSING:
                default = f.default
            elif f.default_factory is not dataclasses.MISSING:
                default = f.default_factory()
            else:
                default = None
            key = f.metadata.get("json", _camel(f.name))
            compiled.append(_Field(f.name, key, codec, default, key in cls._ALWAYS))
        result = tuple(compiled)
        Model._fields_cache[cls] = result
        return result

    @classmethod
    def from_dict(cls, data: Any, path: str = "") -> Self:
        """Decode a manifest dict; raise :class:`ObjectInvalid` listing every bad field."""
        errors: list[FieldError] = []
        obj = cls._decode(data, Path(path), errors)
        if errors:
            raise ObjectInvalid(errors)
        return obj

    @classmethod
    def _decode(cls, data: Any, path: Path, errors: list[FieldError]) -> Self:
        if not isinstance(data, Mapping):
            errors.append(FieldError(str(path), f"expected an object, got {_describe(data)}"))
            return cls()
        known = {f.key: f for f in cls._schema()}
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, raw in data.items():
            spec = known.get(key)
            if spec is None:
                extra[key] = copy.deepcopy(raw)
            elif raw is not None:
                value = spec.codec.decode(raw, path.key(key), errors)
                if value is not None:
                    values[spec.name] = value
        return cls(**values, extra=extra)

    def to_dict(self) -> dict[str, Any]:
        """Encode as a manifest dict: known fields that hold a value, then the unknown keys."""
        out: dict[str, Any] = {}
        for spec in self._schema():
            value = getattr(self, spec.name)
            if spec.always or not _is_empty(value, spec.default):
                out[spec.key] = spec.codec.encode(value)
        extra: Mapping[str, Any] = getattr(self, "extra", {})
        for key, value in extra.items():
            out.setdefault(key, copy.deepcopy(value))
        return out

    def iter_fields(self) -> Iterator[tuple[str, Any]]:
        """(manifest key, value) of every known field, for debugging and the docs."""
        for spec in self._schema():
            yield spec.key, getattr(self, spec.name)

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # pragma: no cover - typing aid
        raise TypeError("Model subclasses must be dataclasses")
