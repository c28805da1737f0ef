"""Label selectors: which objects a Service, a spread constraint or an affinity term means.

A label selector is a list of requirements on an object's labels, all of which
must hold. Kubernetes writes them two ways, and both end up here as the same
:class:`Selector`:

* **as text**, in ``kubectl get -l`` and list/watch requests::

      app=web,tier!=cache,zone in (a,b),env notin (dev),gpu,!spot

* **as an object**, ``metav1.LabelSelector`` in manifests (``matchLabels`` and
  ``matchExpressions`` with ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``),
  compiled by :func:`label_selector_as_selector`.

Two rules surprise people, so they are worth stating up front: ``!=`` and
``notin`` **match objects that lack the key**; and a *missing* selector object
(``None``) selects **nothing** while an *empty* one (``{}``) selects
**everything**.

Mirrors ``k8s.io/apimachinery/pkg/labels`` (``selector.go``: ``Requirement``,
``Parse``, ``SelectorFromSet``), ``k8s.io/apimachinery/pkg/apis/meta/v1``
(``LabelSelectorAsSelector``) and the name rules of
``k8s.io/apimachinery/pkg/util/validation``. Simplified: the parser is a small
hand-written one with its own error wording (it names the selector, the place
and what was expected), and ``Selector`` is one immutable class instead of Go's
``internalSelector``/``nothingSelector`` pair.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from framework.objects.meta import LabelSelector

__all__ = [
    "DOES_NOT_EXIST",
    "DOUBLE_EQUALS",
    "EQUALS",
    "EXISTS",
    "GREATER_THAN",
    "IN",
    "LESS_THAN",
    "NOT_EQUALS",
    "NOT_IN",
    "Requirement",
    "Selector",
    "SelectorError",
    "label_selector_as_selector",
    "parse_selector",
    "selector_from_set",
    "validate_dns1123_label",
    "validate_dns1123_subdomain",
    "validate_label_key",
    "validate_label_value",
]

# The operators, spelled as ``k8s.io/apimachinery/pkg/selection`` spells them.
DOES_NOT_EXIST = "!"
EQUALS = "="
DOUBLE_EQUALS = "=="
IN = "in"
NOT_EQUALS = "!="
NOT_IN = "notin"
EXISTS = "exists"
GREATER_THAN = "gt"
LESS_THAN = "lt"


class SelectorError(ValueError):
    """A selector that cannot be parsed or compiled; the message shows it and what was expected."""


# --- name rules (k8s.io/apimachinery/pkg/util/validation) ---------------------

_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")

_QUALIFIED_NAME_RULE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    f"validation is '{_QUALIFIED_NAME.pattern}')"
)


def validate_dns1123_subdomain(value: str) -> list[str]:
    """Why ``value`` is no lowercase RFC 1123 subdomain (``IsDNS1123Subdomain``); [] if it is."""
    problems = []
    if len(value) > 253:
        problems.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        problems.append(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            f"'example.com', regex used for validation is '{_DNS1123_SUBDOMAIN.pattern}')"
        )
    return problems


def validate_dns1123_label(value: str) -> list[str]:
    """Why ``value`` is not a lowercase RFC 1123 label (``IsDNS1123Label``); [] if it is."""
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not _DNS1123_LABEL.fullmatch(value):
        problems.append(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
            "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
            f"'123-abc', regex used for validation is '{_DNS1123_LABEL.pattern}')"
        )
    return problems


def validate_label_key(key: str) -> list[str]:
    """Why ``key`` is not a qualified name like ``app`` or ``example.com/tier``; [] if it is.

    (``IsQualifiedName``.)
    """
    prefix, slash, name = key.rpartition("/")
    if slash and "/" in prefix:
        return [f"a qualified name {_QUALIFIED_NAME_RULE} with an optional DNS subdomain prefix"]
    problems = []
    if slash:
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            problems.extend(f"prefix part {p}" for p in validate_dns1123_subdomain(prefix))
    if not name:
        problems.append("name part must be non-empty")
    elif len(name) > 63:
        problems.append("name part must be no more than 63 characters")
    elif not _QUALIFIED_NAME.fullmatch(name):
        problems.append(f"name part {_QUALIFIED_NAME_RULE}")
    return problems


def validate_label_value(value: str) -> list[str]:
    """Why ``value`` is not a label value (``IsValidLabelValue``); the empty string is one."""
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not _LABEL_VALUE.fullmatch(value):
        problems.append(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
            f"or 'my_value',  or '12345', regex used for validation is '{_LABEL_VALUE.pattern}')"
        )
    return problems


# --- requirements and selectors -----------------------------------------------

_ONE_VALUE = frozenset({EQUALS, DOUBLE_EQUALS, NOT_EQUALS})
_SET_VALUES = frozenset({IN, NOT_IN})
_NO_VALUES = frozenset({EXISTS, DOES_NOT_EXIST})
_NUMERIC = frozenset({GREATER_THAN, LESS_THAN})


@dataclass(frozen=True, slots=True)
class Requirement:
    """One condition on one label key: ``zone in (a,b)``, ``!spot``, ``tier!=cache``.

    ``values`` are kept sorted and without duplicates, so two requirements that
    mean the same thing are equal. Build them with :meth:`new`, which checks
    the key, the values and that the operator gets the number of values it
    needs, as ``labels.NewRequirement`` does.
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()

    @classmethod
    def new(cls, key: str, operator: str, values: Iterable[str] = ()) -> Requirement:
        """A checked requirement; raise :class:`SelectorError` saying what is wrong."""
        vals = tuple(sorted(set(values)))
        where = f"requirement on key {key!r}"
        problems = [f"invalid label key {key!r}: {p}" for p in validate_label_key(key)]
        if operator in _SET_VALUES and not vals:
            problems.append(f"for 'in', 'notin' operators, values set can't be empty ({where})")
        elif operator in _ONE_VALUE and len(vals) != 1:
            problems.append(f"exact-match compatibility requires one single value ({where})")
        elif operator in _NO_VALUES and vals:
            problems.append(f"values set must be empty for exists and does not exist ({where})")
        elif operator in _NUMERIC:
            if len(vals) != 1:
                problems.append(
                    f"for 'Gt', 'Lt' operators, exactly one value is required ({where})"
                )
            elif not re.fullmatch(r"[+-]?[0-9]+", vals[0]):
                problems.append(
                    f"for 'Gt', 'Lt' operators, the value must be an integer ({where})"
                )
        elif operator not in _ONE_VALUE | _SET_VALUES | _NO_VALUES:
            problems.append(f"operator {operator!r} is not recognized ({where})")
        for value in vals:
            problems.extend(
                f"invalid label value {value!r}: {p}" for p in validate_label_value(value)
            )
        if problems:
            raise SelectorError("; ".join(problems))
        return cls(key, operator, vals)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether a label set satisfies this requirement (``Requirement.Matches``)."""
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if op in (NOT_IN, NOT_EQUALS):
            # A missing key is "not equal" to anything: the rule that surprises people.
            return self.key not in labels or labels[self.key] not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        # Gt / Lt: the label must exist and read as an integer.
        raw = labels.get(self.key)
        if raw is None or not re.fullmatch(r"[+-]?[0-9]+", raw):
            return False
        have, want = int(raw), int(self.values[0])
        return have > want if op == GREATER_THAN else have < want

    def __str__(self) -> str:
        if self.operator == EXISTS:
            return self.key
        if self.operator == DOES_NOT_EXIST:
            return f"!{self.key}"
        if self.operator in _SET_VALUES:
            return f"{self.key} {self.operator} ({','.join(self.values)})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(self.operator, self.operator)
        return f"{self.key}{symbol}{self.values[0]}"


@dataclass(frozen=True, slots=True)
class Selector:
    """Requirements that must all hold; the unit every list, watch and plugin filters by.

    ``Selector.everything()`` (no requirements) matches every label set;
    ``Selector.nothing()`` matches none. Requirements are kept sorted by key,
    so ``str(selector)`` is canonical, as Kubernetes prints it.
    """

    requirements: tuple[Requirement, ...] = ()
    matches_nothing: bool = False

    @classmethod
    def everything(cls) -> Selector:
        return cls()

    @classmethod
    def nothing(cls) -> Selector:
        return cls(matches_nothing=True)

    def add(self, *requirements: Requirement) -> Selector:
        """A new selector with more requirements (``Selector.Add``)."""
        merged = sorted((*self.requirements, *requirements), key=lambda r: r.key)
        return Selector(tuple(merged), self.matches_nothing)

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.matches_nothing:
            return False
        # A plain loop, not all(<generator>): plugins call this once per pod per node.
        for requirement in self.requirements:  # noqa: SIM110
            if not requirement.matches(labels):
                return False
        return True

    def empty(self) -> bool:
        """True for the selector that matches everything (``Selector.Empty``)."""
        return not self.matches_nothing and not self.requirements

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        if self.matches_nothing:
            return "Selector.nothing()"
        return f"Selector({str(self)!r})" if self.requirements else "Selector.everything()"


def selector_from_set(labels: Mapping[str, str]) -> Selector:
    """``key=value`` per pair (``labels.SelectorFromSet``); an empty set selects everything."""
    return Selector.everything().add(*(Requirement.new(k, EQUALS, [v]) for k, v in labels.items()))


_EXPRESSION_OPERATORS = {
    "In": IN,
    "NotIn": NOT_IN,
    "Exists": EXISTS,
    "DoesNotExist": DOES_NOT_EXIST,
}


def label_selector_as_selector(selector: LabelSelector | None) -> Selector:
    """Compile a ``metav1.LabelSelector`` (``LabelSelectorAsSelector``).

    ``None`` selects nothing; a selector with neither ``matchLabels`` nor
    ``matchExpressions`` selects everything. ``matchLabels`` entries become
    ``key=value``; expressions keep their operator. An unknown operator (the
    API spells them ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``) raises
    :class:`SelectorError`.
    """
    if selector is None:
        return Selector.nothing()
    if not selector.match_labels and not selector.match_expressions:
        return Selector.everything()
    requirements = [Requirement.new(k, EQUALS, [v]) for k, v in selector.match_labels.items()]
    for i, expression in enumerate(selector.match_expressions):
        operator = _EXPRESSION_OPERATORS.get(expression.operator)
        if operator is None:
            raise SelectorError(
                f"matchExpressions[{i}]: {expression.operator!r} is not a valid label selector "
                f"operator (expected one of {', '.join(_EXPRESSION_OPERATORS)})"
            )
        requirements.append(Requirement.new(expression.key, operator, expression.values))
    return Selector.everything().add(*requirements)


# --- the text syntax -------------------------------------------------------------

# Tokens: the operators and punctuation, or an identifier (a run of anything else).
_TOKEN = re.compile(r"\s*(?:(==|!=|[=!(),<>])|([^\s=!(),<>]+))")


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    is_symbol: bool
    at: int  # character offset in the selector, for error messages


def _tokenize(text: str) -> list[_Token]:
    tokens = []
    position = 0
    while text[position:].strip():
        match = _TOKEN.match(text, position)
        assert match is not None  # the two alternatives cover every non-space character
        symbol, word = match.group(1), match.group(2)
        tokens.append(_Token(symbol or word, symbol is not None, match.start(1 if symbol else 2)))
        position = match.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens; one method per grammar rule."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.index = 0

    def fail(self, expected: str) -> SelectorError:
        token = self.peek()
        found = f"found {token.text!r}" if token else "found the end"
        at = token.at if token else len(self.text)
        return SelectorError(
            f"invalid label selector {self.text!r}: at position {at} {found}, expected {expected} "
            "(syntax: key=value, key!=value, key in (v1,v2), key notin (v1), key, !key; "
            "joined by commas)"
        )

    def peek(self) -> _Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def accept(self, *texts: str, word: bool = False) -> str | None:
        """Consume the next token if it is one of ``texts`` (symbols, or words like ``in``)."""
        token = self.peek()
        if token is None or token.is_symbol == word or token.text not in texts:
            return None
        self.index += 1
        return token.text

    def identifier(self, what: str) -> str:
        token = self.peek()
        if token is None or token.is_symbol:
            raise self.fail(what)
        self.index += 1
        return token.text

    def selector(self) -> Selector:
        requirements = []
        while self.peek() is not None:
            requirements.append(self.requirement())
            if self.peek() is None:
                break
            if not self.accept(","):
                raise self.fail("',' or the end of the selector")
            if self.peek() is None:
                raise self.fail("a requirement after ','")
        return Selector.everything().add(*requirements)

    def requirement(self) -> Requirement:
        if self.accept("!"):
            return self.build(self.identifier("a label key after '!'"), DOES_NOT_EXIST, [])
        key = self.identifier("a label key")
        token = self.peek()
        if token is None or (token.is_symbol and token.text == ","):
            return self.build(key, EXISTS, [])
        if operator := self.accept("=", "==", "!="):
            return self.build(key, operator, [self.optional_value()])
        if comparison := self.accept("<", ">"):
            operator = GREATER_THAN if comparison == ">" else LESS_THAN
            return self.build(key, operator, [self.identifier("an integer")])
        if operator := self.accept(IN, NOT_IN, word=True):
            return self.build(key, operator, self.value_set())
        raise self.fail("'=', '==', '!=', 'in', 'notin', ',' or the end after a label key")

    def optional_value(self) -> str:
        # ``key=`` means "the label is the empty string".
        token = self.peek()
        if token is None or token.is_symbol:
            return ""
        self.index += 1
        return token.text

    def value_set(self) -> list[str]:
        if not self.accept("("):
            raise self.fail("'(' to open the set of values")
        values = [self.optional_value()]
        while self.accept(","):
            values.append(self.optional_value())
        if not self.accept(")"):
            raise self.fail("',' or ')' in the set of values")
        return values

    def build(self, key: str, operator: str, values: list[str]) -> Requirement:
        try:
            return Requirement.new(key, operator, values)
        except SelectorError as exc:
            raise SelectorError(f"invalid label selector {self.text!r}: {exc}") from None


def parse_selector(text: str) -> Selector:
    """Parse the text form (``labels.Parse``); the empty string selects everything.

    >>> s = parse_selector("tier!=cache,app=web")
    >>> str(s), s.matches({"app": "web"}), s.matches({"app": "web", "tier": "cache"})
    ('app=web,tier!=cache', True, False)
    """
    return _Parser(text).selector()
