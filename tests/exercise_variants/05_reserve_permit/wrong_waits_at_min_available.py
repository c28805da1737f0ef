"""Chapter 5, wrong on purpose:

a group of exactly min-available members is complete: wait only while fewer members have a
node (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(
    variant_namespace("05_reserve_permit", "right")["make"](wait_at_min_available=True)
)
