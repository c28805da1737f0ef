"""Chapter 4, wrong on purpose. Hint 2's warning:

check the plugin's own score before multiplying; 60 x 2 = 120 is a fine weighted score. Must
fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("04_scheduling_cycle", "right"))
combine_scores, select_host = globals()["make"](check_after_weighting=True)
