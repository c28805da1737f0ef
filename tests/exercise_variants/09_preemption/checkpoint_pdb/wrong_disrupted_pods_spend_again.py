"""Chapter 9's checkpoint, wrong on purpose:

let a pod already in the budget's disruptedPods spend it again. Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

filter_pods_with_pdb_violation = variant_namespace("09_preemption/checkpoint_pdb", "right")[
    "make"
](disrupted_spend_again=True)
