"""Chapter 6, wrong on purpose:

give up at the first Conflict instead of reading the pod again and retrying (hint 4). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("06_binding_cycle", "right")["make"](conflict_is_final=True))
