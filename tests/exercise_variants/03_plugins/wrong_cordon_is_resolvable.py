"""Chapter 3, wrong on purpose:

reject with Unschedulable; a cordon is UnschedulableAndUnresolvable, which preemption cannot change (hint 4). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("03_plugins", "right")["make"](cordon_is_resolvable=True))
