"""Quantities as Go holds and prints them, for the message of a PodGroup's resource gap.

When a PodGroup's ``minResources`` do not fit in what the cluster has free,
Coscheduling's PreFilter answers ``resource gap: %v`` with the amounts still
missing: a Go ``v1.ResourceList``, a map of ``resource.Quantity`` *values*.
``Quantity.String`` has a pointer receiver, so ``%v`` does not call it: it
prints the struct, field by field, keys sorted::

    resource gap: map[cpu:{{2000 -3} {<nil>}  DecimalSI} pods:{{1 0} {<nil>}  DecimalSI}]

Read ``{2000 -3}`` as 2000 × 10⁻³, that is 2 CPUs missing; ``{<nil>}`` is
the unused big-decimal form; the empty field between is the cached string,
which subtraction clears; the last is the format. To print the same text,
:class:`GoQuantity` keeps what Go keeps (an ``int64Amount``: a value and a
power-of-ten scale), parses as ``ParseQuantity`` does on its fast path, and
subtracts as ``Quantity.Sub`` does.

>>> gap = GoQuantity.parse("10")
>>> gap.sub(GoQuantity.milli(4000, DECIMAL_SI)); gap.sub(GoQuantity.milli(4000, DECIMAL_SI))
>>> gap.go_format(), gap.sign()
('{{2000 -3} {<nil>}  DecimalSI}', 1)

Mirrors ``Quantity``, ``ParseQuantity``, ``parseQuantityString``,
``NewQuantity``, ``NewMilliQuantity``, ``Sub`` and ``Sign`` in
``k8s.io/apimachinery/pkg/api/resource/quantity.go`` and ``int64Amount.Add``
in ``amount.go``. Simplified: quantities Go would hold as an ``inf.Dec`` (too
many digits, a fraction of a binary suffix such as ``1.5Gi``, finer than
nanos) are kept as the nearest ``int64Amount`` here; Go would print a pointer
for them, which no one can reproduce anyway.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "GoQuantity",
    "go_resource_list",
]

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_MAX_INT64_FACTORS = 18
_NANO = -9
_INT64 = (-(2**63), 2**63 - 1)

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12}
_DECIMAL_SUFFIXES |= {"P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_NUMBER = re.compile(r"([+-]?)0*(\d*)(?:\.(\d*))?(.*)")


def _interpret(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) of a suffix (``quantitySuffixer.interpret``)."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if suffix[:1] in ("e", "E") and re.fullmatch(r"[+-]?\d+", suffix[1:]):
        return 10, int(suffix[1:]), DECIMAL_EXPONENT
    raise ValueError(f"unable to parse quantity's suffix in {suffix!r}")


def _fits(value: int) -> bool:
    return _INT64[0] <= value <= _INT64[1]


@dataclass(slots=True)
class GoQuantity:
    """A ``resource.Quantity`` in its ``int64Amount`` form: ``value`` × 10^``scale``."""

    value: int
    scale: int
    format: str
    cached: str = ""

    @classmethod
    def new(cls, value: int, fmt: str) -> GoQuantity:
        """``resource.NewQuantity(value, format)``."""
        return cls(value, 0, fmt)

    @classmethod
    def milli(cls, value: int, fmt: str) -> GoQuantity:
        """``resource.NewMilliQuantity(value, format)``."""
        return cls(value, -3, fmt)

    @classmethod
    def parse(cls, text: str) -> GoQuantity:
        """``resource.ParseQuantity(text)`` (its fast path; see the module's simplification)."""
        if text == "0":
            return cls(0, 0, DECIMAL_SI, cached=text)
        match = _NUMBER.fullmatch(text)
        if match is None:
            raise ValueError(f"quantities must match the regular expression: {text!r}")
        sign, num, denom, suffix = match[1], match[2] or "0", match[3] or "", match[4]
        _, exponent, fmt = _interpret(suffix)
        mantissa, scale = 1, 0
        if fmt == BINARY_SI:
            exact = exponent >= 0 and not denom
            if exact:
                mantissa = 1 << exponent
                exact = 15 - len(num) - int(exponent * 3 / 10) - 1 >= 0
        else:
            scale = exponent
            exact = _MAX_INT64_FACTORS - (len(num) + len(denom)) >= 0
        scale -= len(denom)
        shifted = num + denom
        value = int(shifted) * mantissa * (-1 if sign == "-" else 1)
        if exact and scale >= _NANO and _fits(int(shifted)) and _fits(value):
            canonical = (
                exponent % 10 == 0 and int(shifted) & 0x07 != 0
                if fmt == BINARY_SI
                else scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
            )
            return cls(value, scale, fmt, cached=text if canonical else "")
        # Go switches to inf.Dec here; keep the closest int64 form (documented above).
        if scale < _NANO:
            value, scale = -((-value * 10**_NANO) // 10**scale), _NANO  # round up, as Go does
        return cls(value, scale, fmt)

    def sign(self) -> int:
        """-1, 0 or 1 (``Quantity.Sign``)."""
        return (self.value > 0) - (self.value < 0)

    def sub(self, other: GoQuantity) -> None:
        """``self -= other`` in place (``Quantity.Sub`` on two ``int64Amount`` values)."""
        self.cached = ""
        if self.value == 0:
            self.format = other.format
        if other.value == 0:
            return
        if self.value == 0:
            self.value, self.scale = -other.value, other.scale
        elif self.scale == other.scale:
            self.value -= other.value
        elif self.scale > other.scale:
            self.value = self.value * 10 ** (self.scale - other.scale) - other.value
            self.scale = other.scale
        else:
            self.value -= other.value * 10 ** (other.scale - self.scale)

    def go_format(self) -> str:
        """How ``fmt`` prints the struct with ``%v``: ``{{value scale} {<nil>} cached Format}``."""
        return f"{{{{{self.value} {self.scale}}} {{<nil>}} {self.cached} {self.format}}}"


def go_resource_list(resources: Mapping[str, GoQuantity]) -> str:
    """``%v`` of a ``v1.ResourceList``: ``map[name:value ...]``, keys sorted as ``fmt`` sorts them."""
    return "map[" + " ".join(f"{k}:{resources[k].go_format()}" for k in sorted(resources)) + "]"
