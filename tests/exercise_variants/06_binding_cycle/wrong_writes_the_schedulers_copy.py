"""Chapter 6, wrong on purpose:

write the annotation on the scheduler's copy of the pod instead of reading it again from the
API server (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(
    variant_namespace("06_binding_cycle", "right")["make"](writes_the_schedulers_copy=True)
)
