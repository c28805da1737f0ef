"""Chapter 10b, wrong: only assumed members count, not those already bound. Must fail."""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

gang_permit = variant_namespace("10b_gangs_in_tree", "right")["make"](ignore_bound=True)
