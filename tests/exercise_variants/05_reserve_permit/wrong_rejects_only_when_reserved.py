"""Chapter 5, wrong on purpose:

reject the waiting siblings only when the unreserved pod held a reservation (hint 4). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(
    variant_namespace("05_reserve_permit", "right")["make"](reject_only_when_reserved=True)
)
