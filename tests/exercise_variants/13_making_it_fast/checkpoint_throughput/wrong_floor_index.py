"""Chapter 13's checkpoint, wrong on purpose:

read percentile p at index floor(n * p / 100) - 1 instead of ceil. Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

summarize = variant_namespace("13_making_it_fast/checkpoint_throughput", "right")["make"](
    floor_index=True
)
