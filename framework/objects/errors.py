"""Several errors as one message: ``utilerrors.NewAggregate(errs).Error()``.

Kubernetes reports every problem it finds, not just the first, and prints
them the same way everywhere (validation, preemption, node selectors): one
error alone, several in brackets separated by ``", "``, each text once.

>>> aggregate(["a", "b", "a"]), aggregate(["only"]), aggregate([])
('[a, b]', 'only', '')

Mirrors ``aggregate.Error`` in
``kubernetes/kubernetes:staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go``
(v1.33). Simplified: nested aggregates are not flattened (no caller nests them).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["aggregate"]


def aggregate(errors: Iterable[object]) -> str:
    """The errors' texts as one message; empty when there are none."""
    messages = list(dict.fromkeys(str(error) for error in errors))
    if len(messages) == 1:
        return messages[0]
    return "[" + ", ".join(messages) + "]" if messages else ""
