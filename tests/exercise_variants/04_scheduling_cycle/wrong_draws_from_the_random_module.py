"""Chapter 4, wrong on purpose. Hint 4's warning:

draw with the rng given, never the random module's functions (a seed must reproduce the
choice). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("04_scheduling_cycle", "right"))
combine_scores, select_host = globals()["make"](global_random=True)
