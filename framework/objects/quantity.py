"""Resource quantities, counted the way Kubernetes counts them.

A quantity is what a manifest writes under ``resources.requests`` or
``status.allocatable``: ``500m``, ``2``, ``1.5Gi``, ``128974848``, ``1e3``.
The scheduler never compares the text; it compares integers:

* CPU in **milli-cores** (``500m`` → 500, ``2`` → 2000): Go's
  ``Quantity.MilliValue()``;
* everything else (memory, ephemeral storage, pods, ``nvidia.com/gpu``) in
  whole **units** (``1Gi`` → 1073741824): Go's ``Quantity.Value()``.

Both round *up* when the quantity is finer than the unit (``0.1m`` of CPU is 1
milli-core), as ``resource.Quantity.ScaledValue`` does.

The number itself is read by the official client's parser,
``kubernetes.utils.quantity.parse_quantity``. That parser is lenient where the
API server is not (Python's ``Decimal`` accepts ``"Infinity"``, ``"1_000"``
and surrounding spaces), so the text is first checked against the grammar of
``k8s.io/apimachinery/pkg/api/resource/quantity.go``.

A quantity too large for an ``int64`` of whole units (``1e99999999``) is
refused. Go parses one, but ``Quantity.Value()`` cannot return it (the result
is undefined past ``math.MaxInt64``), and counting it here in milli-units
would build an integer of millions of digits.

The client is imported on first use, not at ``import framework``, because the
``kubernetes`` package loads its whole generated client on import.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = ["MAX_UNITS", "Quantity", "QuantityError"]

MAX_UNITS = 2**63 - 1
"""``math.MaxInt64``: the largest whole-unit value a quantity may have."""

# <signedNumber><suffix>, where suffix is a binary SI suffix (Ki..Ei), a
# decimal SI suffix (n u m "" k M G T P E) or a decimal exponent (e3, E-2).
_QUANTITY_GRAMMAR = re.compile(
    r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?"
)


class QuantityError(ValueError):
    """A value that is not a Kubernetes quantity."""


def _parse_quantity(text: str) -> Decimal:
    from kubernetes.utils.quantity import parse_quantity  # lazy: see module docstring

    parsed: Decimal = parse_quantity(text)  # type: ignore[no-untyped-call]  # untyped library
    return Decimal(parsed)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity: what was written (``raw``) and its exact value.

    ``raw`` is kept so that a manifest written back says ``500m`` where the
    user wrote ``500m``. ``milli`` and ``units`` are computed once, because
    the scheduler reads them for every pod on every node.

    >>> Quantity.parse("500m").milli, Quantity.parse("1Gi").units
    (500, 1073741824)
    >>> Quantity.parse("0.1m").milli  # rounded up, as Kubernetes does
    1
    """

    raw: str | int | float
    value: Decimal
    milli: int
    units: int

    @classmethod
    def parse(cls, raw: Any) -> Quantity:
        """Parse a manifest value; raise :class:`QuantityError` with the reason."""
        if isinstance(raw, str | int | float) and not isinstance(raw, bool):
            # Manifests repeat a few quantities thousands of times; a Quantity is immutable.
            return _parse_cached(raw)
        return cls._parse(raw)

    @classmethod
    def _parse(cls, raw: Any) -> Quantity:
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            raise QuantityError(
                f"{raw!r} is not a valid quantity (expected text such as 500m or 1Gi)"
            )
        text = raw if isinstance(raw, str) else repr(raw)
        if not _QUANTITY_GRAMMAR.fullmatch(text):
            raise QuantityError(
                f'"{text}" is not a valid quantity '
                "(expected a number with an optional suffix such as 500m, 2, 1.5Gi or 1e3)"
            )
        try:
            value: Decimal | None = _parse_quantity(text)
        except ArithmeticError:  # decimal.Overflow: an exponent beyond what Decimal holds
            value = None
        # copy_abs, not abs(): it never rounds, so an exponent past Decimal's range cannot trap.
        if value is None or value.copy_abs() > MAX_UNITS:
            raise QuantityError(
                f'"{text}" is too large a quantity '
                f"(Kubernetes counts quantities in int64: at most {MAX_UNITS} units)"
            )
        return cls(
            raw=raw,
            value=value,
            milli=math.ceil(value * 1000),
            units=math.ceil(value),
        )

    @classmethod
    def from_milli(cls, milli: int) -> Quantity:
        """A CPU-style quantity from milli-units (``from_milli(250)`` is ``250m``)."""
        raw = f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"
        return cls(
            raw=raw, value=Decimal(milli) / 1000, milli=milli, units=math.ceil(milli / 1000)
        )

    @classmethod
    def from_units(cls, units: int) -> Quantity:
        """A quantity of whole units (bytes, pods, devices)."""
        return cls(raw=str(units), value=Decimal(units), milli=units * 1000, units=units)

    def __str__(self) -> str:
        return str(self.raw)

    def is_negative(self) -> bool:
        return self.value < 0


@functools.lru_cache(maxsize=4096, typed=True)
def _parse_cached(raw: str | int | float) -> Quantity:
    # typed: 1 and 1.0 are written back as they were given, so they are different keys.
    return Quantity._parse(raw)
