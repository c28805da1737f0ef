"""Chapter 13's checkpoint done right: SchedulingThroughput's summary. Must pass.

:func:`make` builds the function; each wrong variant turns on one mistake.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from tests.exercise_variants import skeleton_namespace

PERCENTILES: Any = skeleton_namespace("13_making_it_fast", "checkpoint_throughput.py")[
    "PERCENTILES"
]


def make(
    *, floor_index: bool = False, interpolates: bool = False, sorts_in_place: bool = False
) -> Callable[[Sequence[float]], dict[str, float]]:
    def summarize(values: Sequence[float]) -> dict[str, float]:
        if not values:
            return {}
        if sorts_in_place:
            values.sort()  # type: ignore[attr-defined]
            ordered = list(values)
        else:
            ordered = sorted(values)
        n = len(ordered)
        summary = {"Average": sum(ordered) / n}
        for p in PERCENTILES:
            if interpolates:
                rank = (n - 1) * p / 100
                low = math.floor(rank)
                high = min(low + 1, n - 1)
                summary[f"Perc{p}"] = ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
            elif floor_index:
                summary[f"Perc{p}"] = ordered[max(0, int(n * p / 100) - 1)]
            else:
                summary[f"Perc{p}"] = ordered[math.ceil(n * p / 100) - 1]
        return summary

    return summarize


summarize = make()
