"""Chapter 9's checkpoint, wrong on purpose:

compare each budget's whole count of matching pods with disruptionsAllowed, so that every
matching pod violates when there are too many, instead of spending the budget in order. Must
fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

filter_pods_with_pdb_violation = variant_namespace("09_preemption/checkpoint_pdb", "right")[
    "make"
](counted_before_walking=True)
