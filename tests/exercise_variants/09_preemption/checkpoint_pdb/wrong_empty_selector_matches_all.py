"""Chapter 9's checkpoint, wrong on purpose:

let an empty selector match every pod of the namespace, as the disruption controller does. Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

filter_pods_with_pdb_violation = variant_namespace("09_preemption/checkpoint_pdb", "right")[
    "make"
](empty_selector_matches_all=True)
