"""Chapter 8, wrong on purpose:

divide before multiplying by 100, which almost always gives 0 (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("08_scoring", "right")["make"](divide_first=True))
