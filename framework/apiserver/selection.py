"""Which objects a list or watch request asks for: namespace, label selector, field selector.

A request may narrow a list or a watch three ways, all of which must hold:
a namespace, a label selector (:mod:`framework.objects.labels`) and a field
selector (:mod:`framework.apiserver.fields`). Each selector may come as text
(``"app=web"``), already compiled, or, for labels, as the
``metav1.LabelSelector`` of a manifest. A selector the server cannot parse,
or a field it does not offer, is a ``400 BadRequest``, refused before any
object is read.

Mirrors ``k8s.io/apiserver/pkg/storage/selection_predicate.go``
(``SelectionPredicate``). Simplified: no index on ``spec.nodeName`` (lists
filter every object; gets and updates never filter).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from framework.apiserver.errors import BadRequest
from framework.apiserver.fields import FieldSelector, parse_field_selector
from framework.objects import KubeObject, LabelSelector
from framework.objects.labels import (
    Selector,
    SelectorError,
    label_selector_as_selector,
    parse_selector,
)

__all__ = ["FieldSelectorArg", "LabelSelectorArg", "SelectionPredicate"]

LabelSelectorArg = str | Selector | LabelSelector | None
FieldSelectorArg = str | FieldSelector | None


def _compile_labels(selector: LabelSelectorArg) -> Selector:
    try:
        if selector is None:
            return Selector.everything()
        if isinstance(selector, LabelSelector):
            return label_selector_as_selector(selector)
        return selector if isinstance(selector, Selector) else parse_selector(selector)
    except SelectorError as exc:
        raise BadRequest(str(exc)) from None


def _compile_fields(selector: FieldSelectorArg, kind: str) -> FieldSelector:
    if selector is None:
        return FieldSelector.everything()
    compiled = selector if isinstance(selector, FieldSelector) else parse_field_selector(selector)
    return compiled.for_kind(kind)


@dataclass(frozen=True, slots=True)
class SelectionPredicate:
    """A compiled request filter; call it with an object to know whether the request wants it."""

    namespace: str | None
    labels: Selector
    fields: FieldSelector
    #: The three checks as one function, reading only what they need (see :meth:`compile`).
    check: Callable[[KubeObject], bool] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def compile(
        cls,
        kind: type[KubeObject],
        namespace: str | None = None,
        label_selector: LabelSelectorArg = None,
        field_selector: FieldSelectorArg = None,
    ) -> SelectionPredicate:
        """Check and compile a request's filters for ``kind``; :class:`BadRequest` if malformed.

        ``namespace`` is ignored for cluster-scoped kinds.
        """
        scope = namespace if kind.NAMESPACED else None
        labels = _compile_labels(label_selector)
        fields = _compile_fields(field_selector, kind.KIND)
        return cls(scope, labels, fields, _checker(scope, labels, fields.compiled(kind)))

    def __call__(self, obj: KubeObject) -> bool:
        if self.check is not None:
            return self.check(obj)
        return (
            (self.namespace is None or obj.metadata.namespace == self.namespace)
            and self.labels.matches(obj.metadata.labels)
            and self.fields.matches(obj)
        )


def _checker(
    namespace: str | None, labels: Selector, fields: Callable[[KubeObject], bool]
) -> Callable[[KubeObject], bool]:
    """One function for the three checks, leaving out those that select everything.

    The scheduler's pod watch, for one, has only a field selector
    (``status.phase!=Succeeded,status.phase!=Failed``) and is asked about
    every pod change twice.
    """
    if namespace is None and labels.empty():
        return fields

    def check(obj: KubeObject) -> bool:
        return (
            (namespace is None or obj.metadata.namespace == namespace)
            and labels.matches(obj.metadata.labels)
            and fields(obj)
        )

    return check
