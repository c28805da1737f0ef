"""Chapter 11, wrong on purpose:

group the nodes by the reason's text alone; the same text with another code is another group (TODO 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

diagnose = variant_namespace("11_pending", "right")["make"](group_by_text_only=True)
