"""Chapter 7c, wrong on purpose:

never mark a pool incomplete (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("07c_devices", "right")["make"](never_incomplete=True))
