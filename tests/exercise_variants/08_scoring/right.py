"""Chapter 8 done right: LeastAllocated and MostAllocated. Must pass.

:func:`make` builds the four functions; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tests.exercise_variants import skeleton_namespace

MAX_NODE_SCORE: int = skeleton_namespace("08_scoring")["MAX_NODE_SCORE"]


def make(
    *,
    divide_first: bool = False,
    no_cap: bool = False,
    count_missing_resources: bool = False,
) -> dict[str, Any]:
    def share(part: int, whole: int) -> int:
        if divide_first:
            return part // whole * MAX_NODE_SCORE
        return part * MAX_NODE_SCORE // whole

    def least_requested_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return 0
        return share(capacity - requested, capacity)

    def most_requested_score(requested: int, capacity: int) -> int:
        if capacity == 0:
            return 0
        if requested > capacity and not no_cap:
            requested = capacity
        return share(requested, capacity)

    def scorer(
        one: Callable[[int, int], int], resources: Sequence[Any]
    ) -> Callable[[Sequence[int], Sequence[int]], int]:
        def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
            node_score = weight_sum = 0
            for i, resource in enumerate(resources):
                if allocatable[i] == 0 and not count_missing_resources:
                    continue
                node_score += one(requested[i], allocatable[i]) * resource.weight
                weight_sum += resource.weight
            return 0 if weight_sum == 0 else node_score // weight_sum

        return score

    return {
        "least_requested_score": least_requested_score,
        "most_requested_score": most_requested_score,
        "least_resource_scorer": lambda resources: scorer(least_requested_score, resources),
        "most_resource_scorer": lambda resources: scorer(most_requested_score, resources),
    }


globals().update(make())
