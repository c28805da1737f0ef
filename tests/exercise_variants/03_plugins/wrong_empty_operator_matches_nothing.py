"""Chapter 3, wrong on purpose:

treat a toleration without an operator as an unknown operator; no operator means Equal (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(
    variant_namespace("03_plugins", "right")["make"](empty_operator_matches_nothing=True)
)
