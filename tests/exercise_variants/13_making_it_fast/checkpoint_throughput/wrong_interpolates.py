"""Chapter 13's checkpoint, wrong on purpose:

interpolate between two samples, as numpy's default percentile does. Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

summarize = variant_namespace("13_making_it_fast/checkpoint_throughput", "right")["make"](
    interpolates=True
)
