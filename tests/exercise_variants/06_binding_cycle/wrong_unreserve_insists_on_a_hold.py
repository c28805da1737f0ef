"""Chapter 6, wrong on purpose:

remove the pod's hold with ``del``, which fails for a pod that holds none (its Reserve never
ran, or Unreserve runs twice) (hint 2). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("06_binding_cycle", "right")["make"](unreserve_insists=True))
