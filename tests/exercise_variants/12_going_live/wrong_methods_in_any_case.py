"""Chapter 12, wrong on purpose:

methods are case-sensitive, so get is no verb (the rule of TODO 1). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

request_verb = variant_namespace("12_going_live", "right")["make"](methods_any_case=True)
