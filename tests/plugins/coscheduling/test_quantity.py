"""Go's resource.Quantity, as far as a resource gap's message needs it.

Expectations from ``k8s.io/apimachinery/pkg/api/resource/quantity.go``
(``ParseQuantity``'s fast path and its canonical-string cache, ``Sub``,
``NewQuantity``, ``NewMilliQuantity``) and ``amount.go`` (``int64Amount.Add``:
the smaller scale wins), and from Go's ``fmt``, which prints a struct value
field by field and a map with its keys sorted.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.plugins.coscheduling.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    GoQuantity,
    go_resource_list,
)


@pytest.mark.parametrize(
    ("text", "value", "scale", "fmt", "cached"),
    [
        ("0", 0, 0, DECIMAL_SI, "0"),
        ("10", 10, 0, DECIMAL_SI, "10"),
        ("1000", 1000, 0, DECIMAL_SI, ""),
        ("500m", 500, -3, DECIMAL_SI, "500m"),
        ("1.5", 15, -1, DECIMAL_SI, ""),
        ("0.5", 5, -1, DECIMAL_SI, ""),
        ("007", 7, 0, DECIMAL_SI, "007"),
        ("-1", -1, 0, DECIMAL_SI, "-1"),
        ("1k", 1, 3, DECIMAL_SI, "1k"),
        ("2Gi", 2 * 2**30, 0, BINARY_SI, "2Gi"),
        ("8Gi", 8 * 2**30, 0, BINARY_SI, ""),
        ("1e3", 1, 3, DECIMAL_EXPONENT, "1e3"),
        ("100n", 100, -9, DECIMAL_SI, "100n"),
    ],
    ids=[
        "zero",
        "an integer",
        "trailing zeros are not canonical",
        "millis",
        "a fraction",
        "a fraction below one",
        "leading zeros",
        "negative",
        "kilo",
        "a binary suffix",
        "a binary value divisible by 8 is not canonical",
        "an exponent",
        "nanos",
    ],
)
def test_parse_keeps_what_go_keeps(
    text: str, value: int, scale: int, fmt: str, cached: str
) -> None:
    q = GoQuantity.parse(text)
    assert (q.value, q.scale, q.format, q.cached) == (value, scale, fmt, cached)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (
            GoQuantity.parse("10"),
            GoQuantity.milli(4000, DECIMAL_SI),
            "{{6000 -3} {<nil>}  DecimalSI}",
        ),
        (
            GoQuantity.milli(4000, DECIMAL_SI),
            GoQuantity.parse("1"),
            "{{3000 -3} {<nil>}  DecimalSI}",
        ),
        (
            GoQuantity.new(3, DECIMAL_SI),
            GoQuantity.new(32, BINARY_SI),
            "{{-29 0} {<nil>}  DecimalSI}",
        ),
        (GoQuantity.parse("2"), GoQuantity.new(0, ""), "{{2 0} {<nil>}  DecimalSI}"),
        (
            GoQuantity.new(0, DECIMAL_SI),
            GoQuantity.new(5, BINARY_SI),
            "{{-5 0} {<nil>}  BinarySI}",
        ),
    ],
    ids=[
        "the smaller scale wins",
        "a larger scale is brought down",
        "the receiver keeps its format",
        "subtracting zero only clears the cached string",
        "a zero receiver takes the other's format",
    ],
)
def test_sub_as_go_subtracts(a: GoQuantity, b: GoQuantity, expected: str) -> None:
    a.sub(b)
    assert a.go_format() == expected


def test_a_resource_list_prints_as_go_prints_a_map() -> None:
    gap = {"pods": GoQuantity.new(1, DECIMAL_SI), "cpu": GoQuantity.milli(2000, DECIMAL_SI)}
    assert go_resource_list(gap) == (
        "map[cpu:{{2000 -3} {<nil>}  DecimalSI} pods:{{1 0} {<nil>}  DecimalSI}]"
    )


@given(
    st.integers(-(10**9), 10**9),
    st.integers(-9, 6),
    st.integers(-(10**9), 10**9),
    st.integers(-9, 6),
)
def test_sub_is_exact_and_sign_follows(a: int, sa: int, b: int, sb: int) -> None:
    """Whatever the scales, the difference is exact (int64Amount never rounds when it fits)."""
    q = GoQuantity(a, sa, DECIMAL_SI)
    q.sub(GoQuantity(b, sb, DECIMAL_SI))
    exact = Fraction(a) * Fraction(10) ** sa - Fraction(b) * Fraction(10) ** sb
    assert Fraction(q.value) * Fraction(10) ** q.scale == exact
    assert q.sign() == (exact > 0) - (exact < 0)
