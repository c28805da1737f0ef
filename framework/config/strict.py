"""Strict decoding: a configuration key kube-scheduler does not know is an error, not a comment.

Manifests of API objects keep keys they do not model (see
:mod:`framework.objects.schema`), because an object must survive a round trip
through the scheduler unchanged. A configuration file is different: a typo
such as ``plugin:`` for ``plugins:`` would silently configure nothing, so
kube-scheduler decodes its configuration *strictly* and refuses unknown and
duplicate fields. :class:`StrictModel` is :class:`~framework.objects.schema.Model`
with that rule, plus the range checks that Go's fixed-size integers impose
while decoding (a ``weight`` is an ``int32``) and Go's duration syntax
(``15s``, ``1m30s``) for ``metav1.Duration`` fields.

Contract: ``StrictModel.from_dict(data)`` returns the object or raises
:class:`~framework.objects.schema.ObjectInvalid` listing every bad field, each
with its manifest path. An unknown key is reported as ``unknown field "key"``,
with the closest known field suggested when there is one.

Mirrors the strict mode of the ``kubescheduler.config.k8s.io`` codecs
(``pkg/scheduler/apis/config/scheme/scheme.go``: ``serializer.EnableStrict``,
decoded by ``sigs.k8s.io/json``, which is case-sensitive) and ``time.ParseDuration``.
Simplified: the error names the unknown key under its path instead of Go's
``strict decoding error: unknown field "profiles[0].plugin"``, which says the
same thing once the path is printed in front.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from framework.objects.schema import FieldError, Model, Path

__all__ = [
    "INT32",
    "INT64",
    "MSG_UNKNOWN_FIELD",
    "StrictModel",
    "parse_duration",
]

INT32 = (-(2**31), 2**31 - 1)
"""The range of Go's ``int32`` (weights, ``parallelism``, percentages)."""
INT64 = (-(2**63), 2**63 - 1)
"""The range of Go's ``int64`` (backoff seconds, extender weights)."""

MSG_UNKNOWN_FIELD = 'unknown field "{field}"'
"""The strict decoder's complaint about a key it does not know (the suggestion follows)."""

# Keys users carry over from older configuration versions, with what to do instead.
_REMOVED_FIELDS = {
    "healthzBindAddress": (
        "not part of kubescheduler.config.k8s.io/v1; kube-scheduler serves /healthz on its "
        "--secure-port, so delete this line"
    ),
    "metricsBindAddress": (
        "not part of kubescheduler.config.k8s.io/v1; kube-scheduler serves /metrics on its "
        "--secure-port, so delete this line"
    ),
}

_DURATION_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Seconds in a Go duration string (``"15s"``, ``"1m30s"``, ``"250ms"``, ``"0"``).

    Raises :class:`ValueError` with Go's wording (``time: invalid duration
    "15x"``, ``time: missing unit in duration "15"``) and the fix.
    """
    body = text[1:] if text[:1] in "+-" else text
    sign = -1.0 if text.startswith("-") else 1.0
    if body == "0":
        return 0.0
    if re.fullmatch(r"\d+(\.\d*)?", body):
        raise ValueError(
            f'time: missing unit in duration "{text}" (write it with a unit: "{body}s")'
        )
    position = 0
    total = 0.0
    for match in _DURATION_PART.finditer(body):
        if match.start() != position:
            break
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        position = match.end()
    if not body or position != len(body):
        raise ValueError(
            f'time: invalid duration "{text}" (use a number and a unit: ns, us, ms, s, m, h; '
            'e.g. "15s" or "1m30s")'
        )
    return sign * total


def _describe(value: Any) -> str:
    if isinstance(value, bool | int | float | str):
        return f"{type(value).__name__} {value!r}"
    return type(value).__name__


def _unknown_field(key: str, known: list[str]) -> str:
    message = MSG_UNKNOWN_FIELD.format(field=key)
    if key in _REMOVED_FIELDS:
        return f"{message}: {_REMOVED_FIELDS[key]}"
    by_case = [k for k in known if k.lower() == key.lower()]
    close = by_case or difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        return f'{message}; did you mean "{close[0]}"? (field names are case-sensitive)'
    return f"{message}; the known fields here are: {', '.join(sorted(known))}"


class StrictModel(Model):
    """A :class:`~framework.objects.schema.Model` that rejects unknown keys and out-of-range numbers.

    Subclasses are ``@dataclass(frozen=True, slots=True)`` without an
    ``extra`` field. They list their fixed-size integer fields (by manifest
    key) in ``_INT32`` / ``_INT64`` and their ``metav1.Duration`` fields in
    ``_DURATIONS``.
    """

    __slots__ = ()

    _INT32: ClassVar[frozenset[str]] = frozenset()
    _INT64: ClassVar[frozenset[str]] = frozenset()
    _DURATIONS: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def _decode(cls, data: Any, path: Path, errors: list[FieldError]) -> Self:
        if not isinstance(data, Mapping):
            errors.append(FieldError(str(path), f"expected an object, got {_describe(data)}"))
            return cls()
        # The schema engine compiles each dataclass once; we reuse its codecs
        # and only change what happens to a key it does not know.
        known = {spec.key: spec for spec in cls._schema()}
        values: dict[str, Any] = {}
        for key, raw in data.items():
            spec = known.get(key) if isinstance(key, str) else None
            if spec is None:
                errors.append(
                    FieldError(str(path.key(str(key))), _unknown_field(str(key), list(known)))
                )
                continue
            if raw is None:  # JSON null: the field keeps its default, as a nil pointer does in Go
                continue
            where = path.key(key)
            value = spec.codec.decode(raw, where, errors)
            if value is None or not cls._in_range(key, value, where, errors):
                continue
            values[spec.name] = value
        return cls(**values)

    @classmethod
    def _in_range(cls, key: str, value: Any, where: Path, errors: list[FieldError]) -> bool:
        for keys, (low, high), go_type in (
            (cls._INT32, INT32, "int32"),
            (cls._INT64, INT64, "int64"),
        ):
            if key in keys and not low <= value <= high:
                errors.append(
                    FieldError(
                        str(where),
                        f"{value} does not fit in this field's Go type {go_type} "
                        f"(between {low} and {high})",
                    )
                )
                return False
        if key in cls._DURATIONS:
            try:
                parse_duration(value)
            except ValueError as exc:
                errors.append(FieldError(str(where), str(exc)))
                return False
        return True
