"""Chapter 5, wrong on purpose:

name the rejected sibling in the message instead of the member that was unreserved (hint 5).
Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(
    variant_namespace("05_reserve_permit", "right")["make"](message_names_the_sibling=True)
)
