"""Chapter 1, wrong on purpose:

count resources other than cpu and memory (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

compute_pod_qos = variant_namespace("01_objects", "right")["make"](every_resource=True)
