"""Chapter 3, wrong on purpose:

read the operator in any case; only Exists and Equal, as spelled, are operators (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("03_plugins", "right")["make"](operator_any_case=True))
