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

What goes back out is the **canonical form** the API server writes
(:func:`canonical_form`, Go's ``Quantity.CanonicalizeBytes``): ``1.5`` is
written ``1500m``, ``1.5Gi`` is ``1536Mi``, a number is a string. The text
as given stays in ``raw``.

The client is imported on first use, not at ``import framework``, because the
``kubernetes`` package loads its whole generated client on import.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from decimal import ROUND_UP, Decimal
from typing import Any

__all__ = ["MAX_UNITS", "Quantity", "QuantityError", "canonical_form"]

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


_DECIMAL_SUFFIXES = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T"}
_DECIMAL_SUFFIXES |= {15: "P", 18: "E"}
_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_NANO = Decimal("1e-9")


def _format_of(text: str) -> str:
    """Which of Go's formats a quantity's suffix picks: ``BinarySI``, ``DecimalExponent``, ``DecimalSI``."""
    if text[-1:] == "i":
        return "BinarySI"
    if re.search(r"[eE][+-]?[0-9]+$", text):
        return "DecimalExponent"
    return "DecimalSI"


def canonical_form(value: Decimal, fmt: str) -> str:
    """The text Go's ``Quantity.String`` writes for ``value`` parsed in format ``fmt``.

    Decimal formats: the digits without trailing zeros, the exponent brought
    down to a multiple of three, written as an SI suffix (``DecimalSI``) or
    as ``e<n>`` (``DecimalExponent``). ``BinarySI``: a whole number of at
    least 1024 is divided by 1024 while it divides (``Ki``, ``Mi``, ...);
    anything else is written as ``DecimalSI``, never rounded.
    Mirrors ``CanonicalizeBytes`` and ``AsCanonicalBytes`` in
    ``k8s.io/apimachinery/pkg/api/resource/quantity.go`` (v0.33).
    """
    if value == 0:
        return "0"
    if fmt == "BinarySI":
        if -1024 < value < 1024 or value != value.to_integral_value():
            fmt = "DecimalSI"
        else:
            amount, power = int(value), 0
            while amount % 1024 == 0 and power < len(_BINARY_SUFFIXES) - 1:
                amount, power = amount // 1024, power + 1
            return f"{amount}{_BINARY_SUFFIXES[power]}"
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: the parser refuses the rest
    amount = int("".join(map(str, digits)) or "0")
    while amount and amount % 10 == 0:
        amount, exponent = amount // 10, exponent + 1
    shift = exponent % 3
    amount, exponent = amount * 10**shift, exponent - shift
    number = f"{'-' if sign else ''}{amount}"
    if fmt == "DecimalExponent":
        return number if exponent == 0 else f"{number}e{exponent}"
    return number + _DECIMAL_SUFFIXES.get(exponent, f"e{exponent}")


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
    canonical: str = ""

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
        if value != value.quantize(_NANO, rounding=ROUND_UP):
            # ParseQuantity keeps nothing finer than nano: it rounds up (away from zero).
            value = value.quantize(_NANO, rounding=ROUND_UP)
        return cls(
            raw=raw,
            value=value,
            milli=math.ceil(value * 1000),
            units=math.ceil(value),
            canonical=canonical_form(value, _format_of(text)),
        )

    @classmethod
    def from_milli(cls, milli: int) -> Quantity:
        """A CPU-style quantity from milli-units (``from_milli(250)`` is ``250m``)."""
        raw = f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"
        value = Decimal(milli) / 1000
        return cls(
            raw=raw,
            value=value,
            milli=milli,
            units=math.ceil(milli / 1000),
            canonical=canonical_form(value, "DecimalSI"),
        )

    @classmethod
    def from_units(cls, units: int) -> Quantity:
        """A quantity of whole units (bytes, pods, devices)."""
        value = Decimal(units)
        return cls(
            raw=str(units),
            value=value,
            milli=units * 1000,
            units=units,
            canonical=canonical_form(value, "DecimalSI"),
        )

    def __str__(self) -> str:
        return str(self.raw)

    def is_negative(self) -> bool:
        return self.value < 0


@functools.lru_cache(maxsize=4096, typed=True)
def _parse_cached(raw: str | int | float) -> Quantity:
    # typed: 1 and 1.0 are written back as they were given, so they are different keys.
    return Quantity._parse(raw)
