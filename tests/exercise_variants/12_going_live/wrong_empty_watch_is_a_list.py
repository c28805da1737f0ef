"""Chapter 12, wrong on purpose:

an empty watch parameter is a watch; only false and 0 make a list (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

request_verb = variant_namespace("12_going_live", "right")["make"](empty_watch_is_list=True)
