"""Chapter 8, wrong on purpose:

leave a request above the capacity uncapped in MostAllocated (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("08_scoring", "right")["make"](no_cap=True))
