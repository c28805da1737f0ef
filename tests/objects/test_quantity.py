"""Quantities are counted as Kubernetes counts them (``resource.Quantity`` in apimachinery)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.objects import Quantity, QuantityError


@pytest.mark.parametrize(
    ("text", "milli", "units"),
    [
        ("500m", 500, 1),
        ("2", 2000, 2),
        ("1.5", 1500, 2),
        ("0.1m", 1, 1),  # finer than a milli-core rounds up (ScaledValue rounds up)
        ("1Ki", 1024_000, 1024),
        ("1Gi", 1073741824_000, 1073741824),
        ("1.5Gi", 1610612736_000, 1610612736),
        ("128974848", 128974848_000, 128974848),
        ("129e6", 129_000_000_000, 129_000_000),
        ("1k", 1_000_000, 1000),
        ("1M", 10**9, 10**6),
        ("100n", 1, 1),
        ("0", 0, 0),
        ("+1", 1000, 1),
    ],
)
def test_quantities_parse_to_kubernetes_integers(text: str, milli: int, units: int) -> None:
    quantity = Quantity.parse(text)
    assert (quantity.milli, quantity.units) == (milli, units)


@pytest.mark.parametrize(
    "text",
    ["1 core", "", "Infinity", "NaN", "1_000", " 1", "1Kb", "1ki", "m", "1.2.3", "1e", "--1"],
)
def test_invalid_quantities_are_rejected(text: str) -> None:
    with pytest.raises(QuantityError, match="is not a valid quantity"):
        Quantity.parse(text)


@pytest.mark.parametrize("value", [True, None, [1], {"a": 1}, float("inf")])
def test_non_numbers_are_rejected(value: object) -> None:
    with pytest.raises(QuantityError):
        Quantity.parse(value)


def test_numbers_in_manifests_are_quantities_too() -> None:
    assert Quantity.parse(2).milli == 2000
    assert Quantity.parse(0.5).milli == 500
    assert Quantity.parse(2).raw == 2  # written back as the user wrote it


@given(st.integers(0, 10**9))
def test_milli_constructor_agrees_with_the_parser(milli: int) -> None:
    made = Quantity.from_milli(milli)
    parsed = Quantity.parse(str(made))
    assert (parsed.milli, parsed.units, parsed.value) == (made.milli, made.units, made.value)


@given(st.integers(0, 2**50))
def test_units_constructor_agrees_with_the_parser(units: int) -> None:
    made = Quantity.from_units(units)
    assert Quantity.parse(str(made)) == made


# What the API server writes back for a quantity: Quantity.MarshalJSON -> CanonicalizeBytes
# (k8s.io/apimachinery/pkg/api/resource/quantity.go, v0.33; the cases follow quantity_test.go).
CANONICAL = [
    ("0", "0"),
    ("0m", "0"),
    (3, "3"),
    ("3", "3"),
    ("1.5", "1500m"),
    (1.5, "1500m"),
    (0.5, "500m"),
    ("1000", "1k"),
    ("1000m", "1"),
    ("1500m", "1500m"),
    ("0.1m", "100u"),
    ("0.1n", "1n"),  # finer than nano: rounded up to it
    ("1.5G", "1500M"),
    ("128974848", "128974848"),
    ("1Gi", "1Gi"),
    ("1.5Gi", "1536Mi"),
    ("1000Mi", "1000Mi"),
    ("1024Mi", "1Gi"),
    ("0.5Ki", "512"),  # below 1024 a binary quantity is written in decimal
    ("1.5Ki", "1536"),
    ("1e3", "1e3"),
    ("1E3", "1e3"),
    ("1.5e3", "1500"),
    ("100e-3", "100e-3"),
    ("-1.5Gi", "-1536Mi"),
    ("-1500m", "-1500m"),
    ("+1", "1"),
]


@pytest.mark.parametrize(("raw", "canonical"), CANONICAL)
def test_quantities_are_written_back_in_kubernetes_canonical_form(
    raw: str | int | float, canonical: str
) -> None:
    assert Quantity.parse(raw).canonical == canonical
    assert Quantity.parse(canonical).canonical == canonical  # a fixed point


@given(
    st.integers(min_value=-(10**12), max_value=10**12),
    st.sampled_from(["n", "m", "", "k", "Ki", "Mi", "e2", "e-4"]),
)
def test_the_canonical_form_means_the_same_quantity(number: int, suffix: str) -> None:
    q = Quantity.parse(f"{number}{suffix}")
    assert Quantity.parse(q.canonical).value == q.value
    assert isinstance(q.canonical, str)
