"""Chapter 7c, wrong on purpose:

keep the slices of every generation, not only the newest (hint 1). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("07c_devices", "right")["make"](every_generation=True))
