"""Chapter 7, wrong on purpose:

return for an empty request before the pod-slot check, which every pod needs (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(
    variant_namespace("07_filtering", "right")["make"](empty_request_skips_pod_slots=True)
)
