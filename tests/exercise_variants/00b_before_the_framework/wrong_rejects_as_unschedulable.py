"""Chapter 0b, wrong on purpose:

reject a draining node as plain ``Unschedulable``, which preemption could
resolve, instead of ``UnschedulableAndUnresolvable`` (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(
    variant_namespace("00b_before_the_framework", "right")["make"](reject_as_unschedulable=True)
)
