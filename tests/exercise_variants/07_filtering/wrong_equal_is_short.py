"""Chapter 7, wrong on purpose:

call a request short when it equals what is left; equal fits (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("07_filtering", "right")["make"](equal_is_short=True))
