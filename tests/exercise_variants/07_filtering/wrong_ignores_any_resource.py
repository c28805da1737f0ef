"""Chapter 7, wrong on purpose:

apply the ignore lists to every scalar resource, not only extended ones (hint 4). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("07_filtering", "right")["make"](ignore_any_resource=True))
