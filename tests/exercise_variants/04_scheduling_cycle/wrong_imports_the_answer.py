"""Chapter 4, wrong on purpose:

import the reference's functions instead of writing them. Must fail.
"""

from __future__ import annotations

from framework.scheduler.scoring import combine_scores, select_host
from tests.exercise_variants import skeleton_namespace

globals().update(skeleton_namespace("04_scheduling_cycle"))
globals().update({"combine_scores": combine_scores, "select_host": select_host})
