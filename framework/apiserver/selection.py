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

from dataclasses import dataclass

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
        return cls(
            namespace if kind.NAMESPACED else None,
            _compile_labels(label_selector),
            _compile_fields(field_selector, kind.KIND),
        )

    def __call__(self, obj: KubeObject) -> bool:
        return (
            (self.namespace is None or obj.metadata.namespace == self.namespace)
            and self.labels.matches(obj.metadata.labels)
            and self.fields.matches(obj)
        )
