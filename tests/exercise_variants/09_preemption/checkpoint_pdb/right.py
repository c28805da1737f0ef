"""Chapter 9's checkpoint done right: the PodDisruptionBudget split. Must pass.

:func:`make` builds the function; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tests.exercise_variants import skeleton_namespace

_given = skeleton_namespace("09_preemption", "checkpoint_pdb.py")
SelectorError: Any = _given["SelectorError"]
label_selector_as_selector: Any = _given["label_selector_as_selector"]


def make(
    *,
    disrupted_spend_again: bool = False,
    empty_selector_matches_all: bool = False,
    counted_before_walking: bool = False,
) -> Callable[..., Any]:
    def filter_pods_with_pdb_violation(
        pod_infos: Sequence[Any], pdbs: Sequence[Any]
    ) -> tuple[list[Any], list[Any]]:
        allowed = [pdb.status.disruptions_allowed for pdb in pdbs]
        matched = [0 for _ in pdbs]
        selected: list[list[int]] = []
        for pod_info in pod_infos:
            pod = pod_info.pod
            budgets = []
            if pod.metadata.labels:
                for i, pdb in enumerate(pdbs):
                    if pdb.namespace != pod.namespace:
                        continue
                    try:
                        selector = label_selector_as_selector(pdb.spec.selector)
                    except SelectorError:
                        continue
                    if selector.empty() and not empty_selector_matches_all:
                        continue
                    if not selector.empty() and not selector.matches(pod.metadata.labels):
                        continue
                    if pod.name in pdb.status.disrupted_pods and not disrupted_spend_again:
                        continue
                    budgets.append(i)
                    matched[i] += 1
            selected.append(budgets)
        violating: list[Any] = []
        fine: list[Any] = []
        for pod_info, budgets in zip(pod_infos, selected, strict=True):
            violated = False
            for i in budgets:
                if counted_before_walking:
                    violated |= matched[i] > allowed[i]
                else:
                    allowed[i] -= 1
                    violated |= allowed[i] < 0
            (violating if violated else fine).append(pod_info)
        return violating, fine

    return filter_pods_with_pdb_violation


filter_pods_with_pdb_violation = make()
