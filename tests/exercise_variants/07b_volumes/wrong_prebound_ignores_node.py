"""Chapter 7b, wrong on purpose:

a volume pre-bound to the claim wins even where the node cannot use it (hint 1). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("07b_volumes", "right")["make"](prebound_ignores_node=True))
