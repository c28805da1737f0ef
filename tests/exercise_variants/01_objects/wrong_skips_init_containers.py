"""Chapter 1, wrong on purpose:

add up the containers only, not the init containers (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

compute_pod_qos = variant_namespace("01_objects", "right")["make"](skip_init_containers=True)
