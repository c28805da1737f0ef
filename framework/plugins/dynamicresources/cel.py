"""The subset of CEL that device selectors are evaluated in here.

A DeviceClass or a request selects devices by CEL expressions over one
variable, ``device``: its ``driver``, its ``attributes`` and its
``capacity``, both maps from a *domain* (``gpu.example.com``) to the
attributes of that domain by name. An attribute a slice lists without a
domain (``model``) belongs to the device's driver's domain; one written
``other.example.com/model`` to that domain.

**What is evaluated** (what kube's examples and the DRA drivers' classes use):

* literals: strings (``"..."`` or ``'...'``), integers, ``true``, ``false``;
* ``device.driver``; ``device.attributes["domain"].name`` (or
  ``["domain"]["name"]``); ``device.capacity["domain"].name``;
* ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` on strings, integers and booleans;
* ``&&``, ``||``, ``!`` and parentheses, with CEL's commutative logic (``false && error``
  is false, ``true || error`` is true);
* ``"name" in device.attributes["domain"]`` (is the attribute there);
* quantities: ``quantity("16Gi")`` and, on a capacity or a quantity,
  ``.compareTo(q)``, ``.isGreaterThan(q)``, ``.isLessThan(q)``.

**What is not**: any other function or macro (``semver(...)``,
``.matches``, ``.startsWith``, ``has()``, ``exists``, ``size``...), lists and
maps as literals, arithmetic, the ternary operator, floats and bytes. An
expression that uses one fails to *compile*, with :class:`CELUnsupported`
naming what it met, so a pod asking for such a class fails with an error
that says so (the allocator reports it as kube reports a compile error)
instead of being placed by a guess.

A domain the device has no attribute of is an empty map (as in kube's
environment), a missing attribute in it a runtime error (``no such key``),
and an error a ``&&``/``||`` cannot absorb makes the allocation fail.

>>> device = Device("gpu.example.com", {"gpu.example.com": {"model": "a100", "memory": 80}}, {})
>>> compile_expression('device.driver == "gpu.example.com" && '
...     'device.attributes["gpu.example.com"].model == "a100"').matches(device)
True
>>> compile_expression('device.attributes["gpu.example.com"].memory >= 96').matches(device)
False

Mirrors the CEL environment of
``kubernetes/kubernetes:staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go``
(``device.driver``, ``device.attributes``, ``device.capacity``), in part: a
hand-written evaluator of the subset above, not cel-go.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from framework.objects.quantity import Quantity, QuantityError

__all__ = [
    "SUPPORTED",
    "CELError",
    "CELRuntimeError",
    "CELUnsupported",
    "CompiledExpression",
    "Device",
    "Evaluator",
    "compile_expression",
]

SUPPORTED = (
    "device.driver, device.attributes[domain].name, device.capacity[domain].name, "
    'string/int/bool literals, == != < <= > >=, && || !, "name" in device.attributes[domain], '
    "quantity(...) with compareTo/isGreaterThan/isLessThan"
)
"""What the evaluator understands, as the error for anything else says it."""


class CELError(ValueError):
    """An expression that cannot be compiled (a syntax error)."""


class CELUnsupported(CELError):
    """An expression using CEL this project does not evaluate."""


class CELRuntimeError(ValueError):
    """An evaluation that fails (a missing key, a comparison of unlike types)."""


@dataclass(frozen=True, slots=True)
class Device:
    """What an expression sees: the driver and the domain-qualified attributes and capacity."""

    driver: str
    attributes: Mapping[str, Mapping[str, Any]]
    capacity: Mapping[str, Mapping[str, Quantity]]
    # Each expression's answer for this device (True, False, or a runtime error's message):
    # a device does not change, and every pod's class asks the same question of it.
    results: dict[str, bool | str] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )


_TOKEN = re.compile(
    r"""\s*(?:
    (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    |(?P<number>\d+(?:\.\d+)?)
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>==|!=|<=|>=|&&|\|\||[<>!().\[\],?:+\-*/%{}])
    )""",
    re.VERBOSE,
)

# What a compiled part of an expression is: the value it has for a device (or a missing one).
Evaluator = Callable[[Device], Any]


_EMPTY: Mapping[str, Any] = {}


class _Domains:
    """``device.attributes`` or ``device.capacity``: a map in which every domain is a key."""

    __slots__ = ("domains",)

    def __init__(self, domains: Mapping[str, Mapping[str, Any]]) -> None:
        self.domains = domains


class _Missing:
    """A value that is an error, kept so that ``&&``/``||`` may absorb it."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


def _tokenize(expression: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(expression):
        if expression[pos:].strip() == "":
            break
        match = _TOKEN.match(expression, pos)
        if match is None or match.end() == pos:
            raise CELError(f"Syntax error: unexpected character at {pos}: {expression[pos:]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


class _Parser:
    """A recursive-descent parser producing closures over ``device``."""

    def __init__(self, expression: str) -> None:
        self.tokens = _tokenize(expression)
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise CELError("Syntax error: unexpected end of expression")
        if value is not None and token[1] != value:
            raise CELError(f"Syntax error: expected {value!r}, found {token[1]!r}")
        self.pos += 1
        return token

    def parse(self) -> Evaluator:
        node = self.or_()
        if self.peek() is not None:
            token = self.peek()
            assert token is not None
            raise _unsupported_or_syntax(token[1])
        return node

    def or_(self) -> Evaluator:
        left = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            right = self.and_()
            left = _logical(left, right, absorbing=True)
        return left

    def and_(self) -> Evaluator:
        left = self.relation()
        while self.peek() == ("op", "&&"):
            self.take()
            right = self.relation()
            left = _logical(left, right, absorbing=False)
        return left

    def relation(self) -> Evaluator:
        left = self.unary()
        token = self.peek()
        if token is not None and token[1] in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            right = self.unary()
            return _compare(token[1], left, right)
        if token == ("ident", "in"):
            self.take()
            right = self.unary()
            return _contains(left, right)
        if token is not None and token[1] in ("?", "+", "-", "*", "/", "%"):
            raise CELUnsupported(
                f"operator {token[1]!r} is not evaluated here; supported: {SUPPORTED}"
            )
        return left

    def unary(self) -> Evaluator:
        if self.peek() == ("op", "!"):
            self.take()
            operand = self.unary()

            def negate(device: Device) -> Any:
                value = operand(device)
                if isinstance(value, _Missing):
                    return value
                if not isinstance(value, bool):
                    return _Missing("no such overload: !" + type(value).__name__)
                return not value

            return negate
        if self.peek() == ("op", "-"):
            self.take()
            kind, text = self.take()
            if kind != "number" or "." in text:
                raise CELUnsupported(f"arithmetic is not evaluated here; supported: {SUPPORTED}")
            number = -int(text)
            return lambda device: number
        return self.member()

    def member(self) -> Evaluator:
        node = self.primary()
        while True:
            token = self.peek()
            if token == ("op", "."):
                self.take()
                kind, name = self.take()
                if kind != "ident":
                    raise CELError(f"Syntax error: expected a field name, found {name!r}")
                node = (
                    self.method(node, name) if self.peek() == ("op", "(") else _select(node, name)
                )
            elif token == ("op", "["):
                self.take()
                kind, text = self.take()
                if kind != "string":
                    raise CELUnsupported(
                        f"only string map keys are evaluated here; supported: {SUPPORTED}"
                    )
                self.take("]")
                node = _select(node, _unquote(text))
            else:
                return node

    def method(self, target: Evaluator, name: str) -> Evaluator:
        if name not in ("compareTo", "isGreaterThan", "isLessThan"):
            raise CELUnsupported(
                f"function {name!r} is not evaluated here; supported: {SUPPORTED}"
            )
        self.take("(")
        argument = self.or_()
        self.take(")")

        def call(device: Device) -> Any:
            left, right = target(device), argument(device)
            for value in (left, right):
                if isinstance(value, _Missing):
                    return value
            if not (isinstance(left, Quantity) and isinstance(right, Quantity)):
                return _Missing(f"no such overload: {name} on {type(left).__name__}")
            order = (left.value > right.value) - (left.value < right.value)
            if name == "compareTo":
                return order
            return order > 0 if name == "isGreaterThan" else order < 0

        return call

    def primary(self) -> Evaluator:
        kind, text = self.take()
        if kind == "string":
            value = _unquote(text)
            return lambda device: value
        if kind == "number":
            if "." in text:
                raise CELUnsupported(
                    f"floating point numbers are not evaluated here; supported: {SUPPORTED}"
                )
            number = int(text)
            return lambda device: number
        if text == "(":
            node = self.or_()
            self.take(")")
            return node
        if kind == "ident":
            if text in ("true", "false"):
                truth = text == "true"
                return lambda device: truth
            if text == "device":
                return lambda device: device
            if text == "quantity" and self.peek() == ("op", "("):
                self.take("(")
                arg_kind, arg = self.take()
                self.take(")")
                if arg_kind != "string":
                    raise CELError("Syntax error: quantity() takes a string")
                try:
                    quantity = Quantity.parse(_unquote(arg))
                except QuantityError as error:
                    raise CELError(f"quantity({arg}): {error}") from None
                return lambda device: quantity
            if self.peek() == ("op", "("):
                raise CELUnsupported(
                    f"function {text!r} is not evaluated here; supported: {SUPPORTED}"
                )
            raise CELError(f"undeclared reference to {text!r} (in container '')")
        raise _unsupported_or_syntax(text)


def _unsupported_or_syntax(text: str) -> CELError:
    if text in ("[", "{", "?", ":", "+", "*", "/", "%", ","):
        return CELUnsupported(f"{text!r} is not evaluated here; supported: {SUPPORTED}")
    return CELError(f"Syntax error: unexpected {text!r}")


def _unquote(text: str) -> str:
    body = text[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def _select(target: Evaluator, name: str) -> Evaluator:
    def select(device: Device) -> Any:
        value = target(device)
        if isinstance(value, _Missing):
            return value
        if isinstance(value, Device):
            if name == "driver":
                return value.driver
            if name == "attributes":
                return _Domains(value.attributes)
            if name == "capacity":
                return _Domains(value.capacity)
            return _Missing(f"no such key: {name}")
        if isinstance(value, _Domains):
            return value.domains.get(name, _EMPTY)  # every domain exists, maybe empty
        if isinstance(value, Mapping):
            if name not in value:
                return _Missing(f"no such key: {name}")
            return value[name]
        return _Missing(f"type {type(value).__name__} does not support field selection")

    return select


def _logical(left: Evaluator, right: Evaluator, *, absorbing: bool) -> Evaluator:
    """``||`` (``absorbing``: true wins) or ``&&`` (false wins), errors absorbed by the winner."""

    def evaluate(device: Device) -> Any:
        results = (left(device), right(device))
        if any(r is absorbing for r in results):
            return absorbing
        for r in results:
            if isinstance(r, _Missing):
                return r
            if not isinstance(r, bool):
                return _Missing(
                    f"no such overload: {'||' if absorbing else '&&'} on {type(r).__name__}"
                )
        return not absorbing

    return evaluate


def _comparable(value: Any) -> Any:
    if isinstance(value, Quantity):
        return _Missing("no such overload: compare a quantity with compareTo()")
    return value


def _compare(operator: str, left: Evaluator, right: Evaluator) -> Evaluator:
    def evaluate(device: Device) -> Any:
        a, b = _comparable(left(device)), _comparable(right(device))
        for value in (a, b):
            if isinstance(value, _Missing):
                return value
        if operator == "==":
            return type(a) is type(b) and a == b
        if operator == "!=":
            return not (type(a) is type(b) and a == b)
        if type(a) is not type(b) or isinstance(a, Mapping | Device | _Domains):
            return _Missing(f"no such overload: {type(a).__name__} {operator} {type(b).__name__}")
        if operator == "<":
            return a < b
        if operator == "<=":
            return a <= b
        if operator == ">":
            return a > b
        return a >= b

    return evaluate


def _contains(element: Evaluator, container: Evaluator) -> Evaluator:
    def evaluate(device: Device) -> Any:
        key, mapping = element(device), container(device)
        for value in (key, mapping):
            if isinstance(value, _Missing):
                return value
        if isinstance(mapping, _Domains):
            return key in mapping.domains
        if not isinstance(mapping, Mapping):
            return _Missing(f"no such overload: in {type(mapping).__name__}")
        return key in mapping

    return evaluate


class CompiledExpression:
    """A compiled selector: :meth:`matches` evaluates it for one device."""

    __slots__ = ("_node", "expression")

    def __init__(self, expression: str, node: Evaluator) -> None:
        self.expression = expression
        self._node = node

    def matches(self, device: Device) -> bool:
        """Whether the device is selected; raises :class:`CELRuntimeError` on an error."""
        known = device.results.get(self.expression)
        if known is None:
            known = device.results[self.expression] = self._evaluate(device)
        if isinstance(known, str):
            raise CELRuntimeError(known)
        return known

    def _evaluate(self, device: Device) -> bool | str:
        """The answer, or the runtime error's message."""
        result = self._node(device)
        if isinstance(result, _Missing):
            return result.message
        if not isinstance(result, bool):
            return f"expression must evaluate to a bool, got {type(result).__name__}"
        return result


_COMPILED: dict[str, CompiledExpression] = {}


def compile_expression(expression: str) -> CompiledExpression:
    """Compile ``expression`` (cached); raises :class:`CELError` or :class:`CELUnsupported`."""
    compiled = _COMPILED.get(expression)
    if compiled is None:
        compiled = CompiledExpression(expression, _Parser(expression).parse())
        if len(_COMPILED) > 1024:
            _COMPILED.clear()
        _COMPILED[expression] = compiled
    return compiled
