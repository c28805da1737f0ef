"""Chapter 9 checkpoint: which victims would break a PodDisruptionBudget.

A small step before the chapter's exercise. Preemption sorts the potential
victims of a node most important first, then splits them in two: those
whose eviction would take a budget below zero (*violating*) and the others.
Write :func:`filter_pods_with_pdb_violation` (Go's
``filterPodsWithPDBViolation``), then check it::

    python -m pytest chapters/09_preemption/test_checkpoint_pdb.py --exercise

The rule is in the chapter's "PodDisruptionBudgets" section.
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.objects import PodDisruptionBudget
from framework.objects.labels import SelectorError, label_selector_as_selector
from framework.types import PodInfo

__all__ = ["SelectorError", "filter_pods_with_pdb_violation", "label_selector_as_selector"]


def filter_pods_with_pdb_violation(
    pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """``(violating, non_violating)``, each in the order given.

    You have: ``pdb.status.disruptions_allowed``, ``pdb.status.disrupted_pods``
    (pod names), ``pdb.namespace``, ``pdb.spec.selector`` and
    ``label_selector_as_selector(selector)`` (raises :class:`SelectorError`
    for an invalid one; the result has ``.empty()`` and ``.matches(labels)``),
    and on each pod ``pod_info.pod.namespace``, ``.name`` and ``.metadata.labels``.
    """
    # TODO 1: keep a count of what each budget still allows, starting from
    #         disruptionsAllowed; walk the pods in the order given.
    # TODO 2: a budget counts for a pod of its namespace that its selector matches
    #         (an empty or invalid selector matches nothing, nor does a pod without
    #         labels), unless the pod is already in the budget's disruptedPods.
    # TODO 3: each budget that counts spends one; a pod that takes any budget below
    #         zero is violating.
    raise NotImplementedError(
        "chapter 9 checkpoint: write filter_pods_with_pdb_violation in "
        "chapters/09_preemption/checkpoint_pdb.py"
    )
