"""Chapter 4, wrong on purpose. Hint 5's warning:

stopping as soon as the report has count nodes leaves a tied node further down no chance. Must
fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("04_scheduling_cycle", "right"))
combine_scores, select_host = globals()["make"](stop_when_report_full=True)
