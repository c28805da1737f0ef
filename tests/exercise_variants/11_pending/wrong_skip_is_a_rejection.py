"""Chapter 11, wrong on purpose:

take a Skip for a rejection; only codes other than Success and Skip reject (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

diagnose = variant_namespace("11_pending", "right")["make"](skip_is_a_rejection=True)
