"""Chapter 7b, wrong on purpose:

take the first eligible volume instead of the smallest (hint 1). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("07b_volumes", "right")["make"](first_not_smallest=True))
