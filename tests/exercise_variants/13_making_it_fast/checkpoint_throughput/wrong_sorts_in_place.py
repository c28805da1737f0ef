"""Chapter 13's checkpoint, wrong on purpose:

sort the caller's list in place instead of a copy. Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

summarize = variant_namespace("13_making_it_fast/checkpoint_throughput", "right")["make"](
    sorts_in_place=True
)
