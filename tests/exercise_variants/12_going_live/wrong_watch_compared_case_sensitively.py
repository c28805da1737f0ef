"""Chapter 12, wrong on purpose:

compare the watch parameter after lowering it (hint 3), so watch=False is a list. Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

request_verb = variant_namespace("12_going_live", "right")["make"](watch_case_sensitive=True)
