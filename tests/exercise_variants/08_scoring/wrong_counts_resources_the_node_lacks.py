"""Chapter 8, wrong on purpose:

let a resource with no allocatable take part in the mean (hint 5). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("08_scoring", "right")["make"](count_missing_resources=True))
