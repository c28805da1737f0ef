"""Chapter 5, wrong on purpose:

find the waiting siblings by group name alone, so the same name in another namespace counts
as the group (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(
    variant_namespace("05_reserve_permit", "right")["make"](siblings_by_name_only=True)
)
