"""Node selectors, compiled: does a node match a pod's ``nodeSelector`` and node affinity terms?

A pod says where it may run in two ways, and a node must satisfy both:

* ``spec.nodeSelector``, a map of labels the node must carry with exactly
  these values;
* ``spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution``,
  a list of *terms*, of which **at least one** must hold. A term holds when
  **all** its ``matchExpressions`` hold on the node's labels (operators
  ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt``) and all
  its ``matchFields`` hold on the node's fields (only ``metadata.name``,
  operators ``In`` and ``NotIn`` with exactly one value).

The *preferred* terms carry weights; a node's score is the sum of the
weights of the terms it matches (:class:`PreferredSchedulingTerms`).

Rules worth knowing, all Kubernetes':

* A term with neither expressions nor fields matches **no** node (it is
  dropped), and a required affinity with no terms at all matches no node.
* ``NotIn`` and ``DoesNotExist`` match nodes that lack the label.
* ``Gt``/``Lt`` compare integers: a node whose label is missing or is not
  an integer does not match.
* A term that cannot be compiled (an unknown operator, ``In`` without
  values, a field selector with two values...) never matches. For the
  pod's required terms the errors are *lazy*
  (:class:`LazyErrorNodeSelector`): the other terms still count, and the
  errors surface only when nothing matched. Where the terms come from the
  scheduler's own configuration (``addedAffinity``) they are compiled
  strictly (:func:`new_node_selector`), and any error is reported up front.

>>> from framework.objects import Node
>>> required = v1.NodeSelector.from_dict({"nodeSelectorTerms": [
...     {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]},
...     {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n9"]}]}]})
>>> selector = LazyErrorNodeSelector(required)
>>> selector.match(Node.from_dict({"metadata": {"name": "n1", "labels": {"zone": "b"}}}))
(True, [])
>>> selector.match(Node.from_dict({"metadata": {"name": "n9"}}))
(True, [])
>>> selector.match(Node.from_dict({"metadata": {"name": "n2", "labels": {"zone": "c"}}}))
(False, [])

Mirrors ``kubernetes/kubernetes:staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``
(v1.33), with label requirements from :mod:`framework.objects.labels`.
Simplified: a parse error is a ``(field path, message)`` pair rather than a
``field.Error``, and the messages of invalid label requirements are those
of :class:`~framework.objects.labels.Requirement`, not apimachinery's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from framework.objects import Node, Pod
from framework.objects import pod as v1
from framework.objects.errors import aggregate
from framework.objects.labels import (
    DOES_NOT_EXIST,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_IN,
    Requirement,
    Selector,
    SelectorError,
)

__all__ = [
    "OBJECT_NAME_FIELD",
    "VALID_FIELD_SELECTOR_OPERATORS",
    "VALID_SELECTOR_OPERATORS",
    "FieldRequirement",
    "LazyErrorNodeSelector",
    "NodeSelectorParseError",
    "NodeSelectorTermMatcher",
    "ParseProblem",
    "PreferredSchedulingTerms",
    "RequiredNodeAffinity",
    "extract_node_fields",
    "get_required_node_affinity",
    "is_empty_node_selector_term",
    "new_node_selector",
    "new_node_selector_term",
    "new_preferred_scheduling_terms",
]

OBJECT_NAME_FIELD = "metadata.name"
"""The one node field ``matchFields`` can test (``metav1.ObjectNameField``)."""

_LABEL_OPERATORS = {
    "In": IN,
    "NotIn": NOT_IN,
    "Exists": EXISTS,
    "DoesNotExist": DOES_NOT_EXIST,
    "Gt": GREATER_THAN,
    "Lt": LESS_THAN,
}
VALID_SELECTOR_OPERATORS = tuple(_LABEL_OPERATORS)
"""The operators of ``matchExpressions``, as the API spells them."""
VALID_FIELD_SELECTOR_OPERATORS = ("In", "NotIn")
"""The operators of ``matchFields``."""

ParseProblem = tuple[str, str]
"""``(field path, message)``: why one requirement could not be compiled."""


class NodeSelectorParseError(ValueError):
    """Node selector terms that cannot be compiled; ``problems`` lists every one of them."""

    def __init__(self, problems: list[ParseProblem]) -> None:
        texts = [f"{path}: {message}" if path else message for path, message in problems]
        super().__init__(aggregate(texts))  # errors.Flatten(NewAggregate(...))
        self.problems = problems


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f'"{v}"' for v in values)


def _go_string_slice(values: Iterable[str]) -> str:
    return "[]string{" + _quoted(values) + "}"


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """One compiled ``matchFields`` entry: the field must (not) equal the value."""

    key: str
    equal: bool
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        # A field the node does not have reads as "", as in fields.Set.Get.
        have = fields.get(self.key, "")
        return have == self.value if self.equal else have != self.value


def node_selector_requirements_as_selector(
    requirements: Iterable[v1.NodeSelectorRequirement], path: str
) -> tuple[Selector | None, list[ParseProblem]]:
    """``matchExpressions`` as a label selector, or the problems of every bad expression."""
    problems: list[ParseProblem] = []
    compiled: list[Requirement] = []
    for i, expression in enumerate(requirements):
        where = f"{path}[{i}]"
        operator = _LABEL_OPERATORS.get(expression.operator)
        if operator is None:
            problems.append(
                (
                    f"{where}.operator",
                    f'Unsupported value: "{expression.operator}": supported values: '
                    + _quoted(VALID_SELECTOR_OPERATORS),
                )
            )
            continue
        try:
            compiled.append(Requirement.new(expression.key, operator, expression.values))
        except SelectorError as error:
            problems.append((where, str(error)))
    if problems:
        return None, problems
    return Selector.everything().add(*compiled), []


def node_selector_requirements_as_field_selector(
    requirements: Iterable[v1.NodeSelectorRequirement], path: str
) -> tuple[tuple[FieldRequirement, ...] | None, list[ParseProblem]]:
    """``matchFields`` as field requirements (``In``/``NotIn``, one value each), or the problems."""
    problems: list[ParseProblem] = []
    compiled: list[FieldRequirement] = []
    for i, expression in enumerate(requirements):
        where = f"{path}[{i}]"
        if expression.operator in VALID_FIELD_SELECTOR_OPERATORS:
            if len(expression.values) != 1:
                problems.append(
                    (
                        f"{where}.values",
                        f"Invalid value: {_go_string_slice(expression.values)}: "
                        "must have one element",
                    )
                )
            else:
                equal = expression.operator == "In"
                compiled.append(FieldRequirement(expression.key, equal, expression.values[0]))
        else:
            problems.append(
                (
                    f"{where}.operator",
                    f'Unsupported value: "{expression.operator}": supported values: '
                    + _quoted(VALID_FIELD_SELECTOR_OPERATORS),
                )
            )
    if problems:
        return None, problems
    return tuple(compiled), []


@dataclass(frozen=True, slots=True)
class NodeSelectorTermMatcher:
    """One compiled term (``nodeSelectorTerm``): its label selector, its field requirements, or its errors.

    ``None`` for a part means the term has no such part; a term whose
    compilation failed keeps its problems and never matches.
    """

    match_labels: Selector | None = None
    match_fields: tuple[FieldRequirement, ...] | None = None
    parse_errors: tuple[ParseProblem, ...] = ()

    def match(
        self, node_labels: Mapping[str, str], node_fields: Mapping[str, str]
    ) -> tuple[bool, list[ParseProblem]]:
        """Whether the node's labels and fields satisfy the term; its parse errors if it has any."""
        if self.parse_errors:
            return False, list(self.parse_errors)
        return self.matches(node_labels, node_fields), []

    def matches(self, node_labels: Mapping[str, str], node_fields: Mapping[str, str]) -> bool:
        """:meth:`match` without the parse errors: a term that did not compile matches nothing."""
        if self.parse_errors:
            return False
        if self.match_labels is not None and not self.match_labels.matches(node_labels):
            return False
        # A node without a name has no fields, and then matchFields are not checked.
        return (
            self.match_fields is None
            or not node_fields
            or all(f.matches(node_fields) for f in self.match_fields)
        )


def new_node_selector_term(term: v1.NodeSelectorTerm, path: str) -> NodeSelectorTermMatcher:
    """Compile one term, keeping the problems of both its parts."""
    labels: Selector | None = None
    fields: tuple[FieldRequirement, ...] | None = None
    problems: list[ParseProblem] = []
    if term.match_expressions:
        labels, found = node_selector_requirements_as_selector(
            term.match_expressions, _child(path, "matchExpressions")
        )
        problems += found
    if term.match_fields:
        fields, found = node_selector_requirements_as_field_selector(
            term.match_fields, _child(path, "matchFields")
        )
        problems += found
    return NodeSelectorTermMatcher(labels, fields, tuple(problems))


def is_empty_node_selector_term(term: v1.NodeSelectorTerm) -> bool:
    """A term with neither expressions nor fields (it selects no node)."""
    return not term.match_expressions and not term.match_fields


def extract_node_fields(node: Node) -> dict[str, str]:
    """The node's fields that ``matchFields`` can test: its name, if it has one."""
    return {OBJECT_NAME_FIELD: node.name} if node.name else {}


_NO_FIELDS: Mapping[str, str] = MappingProxyType({})


class LazyErrorNodeSelector:
    """Required terms, ORed; a term that does not compile is skipped and its errors kept for later.

    :meth:`match` returns the parse errors only when no term matched, so a
    pod with one broken term and one good term still schedules where the
    good one holds.
    """

    __slots__ = ("terms", "uses_fields")

    def __init__(self, node_selector: v1.NodeSelector, path: str = "") -> None:
        terms_path = _child(path, "nodeSelectorTerms")
        self.terms = [
            new_node_selector_term(term, f"{terms_path}[{i}]")
            for i, term in enumerate(node_selector.node_selector_terms)
            if not is_empty_node_selector_term(term)
        ]
        # Filter calls match once per node: build the node's fields only if a term reads them.
        self.uses_fields = any(term.match_fields is not None for term in self.terms)

    def match(self, node: Node | None) -> tuple[bool, list[ParseProblem]]:
        """Whether some term matches the node; if none does, the parse errors met on the way."""
        if node is None:
            return False, []
        labels = node.metadata.labels
        fields = extract_node_fields(node) if self.uses_fields else _NO_FIELDS
        problems: list[ParseProblem] = []
        for term in self.terms:
            matched, found = term.match(labels, fields)
            if found:
                problems += found
                continue
            if matched:
                return True, []
        return False, problems

    def matches(self, node: Node | None) -> bool:
        """:meth:`match` without the errors (``NodeSelector.Match``).

        Filter asks this once per node and ignores the errors, so it builds
        no list of them, nor a tuple per term.
        """
        if node is None:
            return False
        labels = node.metadata.labels
        fields = extract_node_fields(node) if self.uses_fields else _NO_FIELDS
        for term in self.terms:  # noqa: SIM110 (a loop: any(<generator>) costs a frame per node)
            if term.matches(labels, fields):
                return True
        return False

    def parse_problems(self) -> list[ParseProblem]:
        return [problem for term in self.terms for problem in term.parse_errors]


def new_node_selector(node_selector: v1.NodeSelector, path: str = "") -> LazyErrorNodeSelector:
    """The terms compiled strictly: raise :class:`NodeSelectorParseError` listing every problem."""
    selector = LazyErrorNodeSelector(node_selector, path)
    problems = selector.parse_problems()
    if problems:
        raise NodeSelectorParseError(problems)
    return selector


class PreferredSchedulingTerms:
    """Preferred terms with their weights; :meth:`score` sums the weights of those a node matches.

    Build it with :func:`new_preferred_scheduling_terms`, which skips terms
    of weight 0 and empty terms and rejects terms that do not compile.
    """

    __slots__ = ("_terms",)

    def __init__(self, terms: Iterable[tuple[NodeSelectorTermMatcher, int]]) -> None:
        self._terms = list(terms)

    def score(self, node: Node) -> int:
        """The sum of the weights of the terms the node matches."""
        labels, fields = node.metadata.labels, extract_node_fields(node)
        return sum(weight for term, weight in self._terms if term.match(labels, fields)[0])

    def __len__(self) -> int:
        return len(self._terms)


def new_preferred_scheduling_terms(
    terms: Iterable[v1.PreferredSchedulingTerm], path: str = ""
) -> PreferredSchedulingTerms:
    """Compile preferred terms; raise :class:`NodeSelectorParseError` if any does not compile."""
    problems: list[ParseProblem] = []
    compiled: list[tuple[NodeSelectorTermMatcher, int]] = []
    for i, term in enumerate(terms):
        if term.weight == 0 or is_empty_node_selector_term(term.preference):
            continue
        matcher = new_node_selector_term(term.preference, f"{path}[{i}]")
        if matcher.parse_errors:
            problems += matcher.parse_errors
        else:
            compiled.append((matcher, term.weight))
    if problems:
        raise NodeSelectorParseError(problems)
    return PreferredSchedulingTerms(compiled)


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """A pod's hard placement rules: its ``nodeSelector`` and its required node affinity terms.

    ``node_selector`` is None when the pod has none (or an empty one);
    ``affinity`` is None when the pod has no required node affinity.
    """

    node_selector: Mapping[str, str] | None = None
    affinity: LazyErrorNodeSelector | None = None

    def match(self, node: Node) -> tuple[bool, list[ParseProblem]]:
        """Whether the node satisfies both; parse errors of the terms when no term matched."""
        if self.node_selector is not None:
            labels = node.metadata.labels
            # labels.SelectorFromSet: key=value each, not validated.
            if any(labels.get(k) != v for k, v in self.node_selector.items()):
                return False, []
        if self.affinity is not None:
            return self.affinity.match(node)
        return True, []

    def matches(self, node: Node) -> bool:
        """:meth:`match` without the parse errors, which Filter ignores (a broken term matches nothing)."""
        if self.node_selector is not None:
            labels = node.metadata.labels
            for key, value in self.node_selector.items():
                if labels.get(key) != value:
                    return False
        return self.affinity is None or self.affinity.matches(node)


def get_required_node_affinity(pod: Pod) -> RequiredNodeAffinity:
    """Compile the pod's ``nodeSelector`` and required node affinity (lazily, for old pods' sake)."""
    node_selector = dict(pod.spec.node_selector) if pod.spec.node_selector else None
    affinity = None
    spec_affinity = pod.spec.affinity
    if (
        spec_affinity is not None
        and spec_affinity.node_affinity is not None
        and spec_affinity.node_affinity.required_during_scheduling_ignored_during_execution
        is not None
    ):
        affinity = LazyErrorNodeSelector(
            spec_affinity.node_affinity.required_during_scheduling_ignored_during_execution
        )
    return RequiredNodeAffinity(node_selector, affinity)
