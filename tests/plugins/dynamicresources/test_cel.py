"""The CEL subset device selectors are evaluated in, and the clear refusal of the rest.

Expressions from kube's DRA examples and tests (``dynamicresources_test.go``'s
``brokenSelector``, ``allocator_testing.go``'s capacity comparisons, the
DeviceClass of ``test/e2e/dra/test-driver``).
"""

from __future__ import annotations

import pytest

from framework.objects.quantity import Quantity
from framework.plugins.dynamicresources import cel

GPU = cel.Device(
    "gpu.example.com",
    {"gpu.example.com": {"model": "a100", "index": 3, "healthy": True}},
    {"gpu.example.com": {"memory": Quantity.parse("80Gi")}},
)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('device.driver == "gpu.example.com"', True),
        ("device.driver != 'gpu.example.com'", False),
        ('device.attributes["gpu.example.com"].model == "a100"', True),
        ('device.attributes["gpu.example.com"]["model"] == "h100"', False),
        ('device.attributes["gpu.example.com"].index >= 2', True),
        ('device.attributes["gpu.example.com"].index < -1', False),
        ('device.attributes["gpu.example.com"].healthy', True),
        ('!device.attributes["gpu.example.com"].healthy', False),
        ('device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0', True),
        ('device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("96Gi"))', False),
        ('device.capacity["gpu.example.com"].memory.isLessThan(quantity("96Gi"))', True),
        ('"model" in device.attributes["gpu.example.com"]', True),
        ('"numa" in device.attributes["gpu.example.com"]', False),
        ('"model" in device.attributes["other.example.com"]', False),
        (
            'device.driver == "x" || (device.attributes["gpu.example.com"].index == 3 && true)',
            True,
        ),
        # CEL's commutative logic: the false side wins over an error on the other.
        ('device.attributes["gpu.example.com"].missing == 1 && device.driver == "x"', False),
        ('device.driver == "gpu.example.com" || device.attributes["x"].missing', True),
    ],
)
def test_the_subset_evaluates_as_cel_does(expression: str, expected: bool) -> None:
    assert cel.compile_expression(expression).matches(GPU) is expected


def test_a_missing_attribute_is_a_runtime_error_naming_the_key() -> None:
    # kube: "CEL runtime error: no such key: healthy" (a domain without attributes is empty).
    with pytest.raises(cel.CELRuntimeError, match="no such key: numa"):
        cel.compile_expression('device.attributes["gpu.example.com"].numa == 0').matches(GPU)
    with pytest.raises(cel.CELRuntimeError, match="no such key: model"):
        cel.compile_expression('device.attributes["other.example.com"].model == "a"').matches(GPU)


def test_comparing_unlike_types_is_a_runtime_error() -> None:
    with pytest.raises(cel.CELRuntimeError, match="no such overload"):
        cel.compile_expression('device.attributes["gpu.example.com"].model > 3').matches(GPU)


@pytest.mark.parametrize(
    ("expression", "what"),
    [
        ('device.attributes["gpu.example.com"].model.startsWith("a")', "startsWith"),
        ('device.attributes["gpu.example.com"].model.matches("a.*")', "matches"),
        ('semver("1.0.0") == semver("1.0.0")', "semver"),
        ('has(device.attributes["gpu.example.com"].model)', "has"),
        ('device.attributes["gpu.example.com"].index + 1 == 4', "'+'"),
        ('device.attributes["gpu.example.com"].index == 3 ? true : false', "'?'"),
        ('device.attributes["gpu.example.com"].index in [1, 2]', "'['"),
        ("1.5 > 1", "floating point"),
    ],
)
def test_what_is_not_evaluated_is_refused_by_name(expression: str, what: str) -> None:
    with pytest.raises(cel.CELUnsupported) as refused:
        cel.compile_expression(expression)
    assert what in str(refused.value)
    assert "supported:" in str(refused.value)


def test_syntax_errors_and_unknown_variables_do_not_compile() -> None:
    with pytest.raises(cel.CELError, match="Syntax error"):
        cel.compile_expression("device.driver == ")
    with pytest.raises(cel.CELError, match="undeclared reference to 'gpu'"):
        cel.compile_expression("gpu.driver == 'x'")
