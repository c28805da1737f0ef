"""Chapter 10b done right: the gang's quorum at Permit. Must pass.

:func:`make` builds the function; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.exercise_variants import skeleton_namespace

_given = skeleton_namespace("10b_gangs_in_tree")  # the skeleton gives nothing but the signature


def make(*, ignore_bound: bool = False, count_ghosts: bool = False) -> Callable[..., Any]:
    def gang_permit(group: Any, min_count: int) -> tuple[bool, list[Any]]:
        assumed = set(group.assumed) if count_ghosts else set(group.assumed) & set(group.all_pods)
        bound = (
            set()
            if ignore_bound
            else {uid for uid, pod in group.all_pods.items() if pod.spec.node_name}
        )
        scheduled = assumed | bound
        if len(scheduled) >= min_count:
            return True, []
        rest = [pod for uid, pod in group.all_pods.items() if uid not in scheduled]
        return False, sorted(rest, key=lambda p: p.name)

    return gang_permit


gang_permit = make()
