"""Chapter 10b, wrong: an assumed UID whose pod is gone still counts. Must fail."""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

gang_permit = variant_namespace("10b_gangs_in_tree", "right")["make"](count_ghosts=True)
