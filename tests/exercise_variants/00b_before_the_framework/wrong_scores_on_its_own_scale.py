"""Chapter 0b, wrong on purpose:

score a preferred node 1 and the others 0, the extender's own scale, instead
of MAX_NODE_SCORE and MIN_NODE_SCORE (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("00b_before_the_framework", "right")["make"](own_scale=True))
