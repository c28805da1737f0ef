"""Chapter 1, wrong on purpose:

call a container limited when it limits cpu or memory, not both (hint 3). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

compute_pod_qos = variant_namespace("01_objects", "right")["make"](one_limit_is_enough=True)
