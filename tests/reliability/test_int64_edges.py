"""The largest int64 a field may hold breaks no computation: times saturate instead of raising.

``terminationGracePeriodSeconds`` is an ``*int64`` (``pkg/apis/core/types.go``),
so ``9223372036854775807`` is valid, and a victim of preemption is deleted
with it (``pkg/scheduler/framework/preemption/preemption.go``, ``prepareCandidate``
deletes with the pod's own grace period). The deletion deadline it implies is
past any date RFC 3339 can write: it stops at the last second of year 9999.
"""

from __future__ import annotations

import framework
from framework.clock import rfc3339, rfc3339_micro

LARGEST_INT64 = 2**63 - 1

CLUSTER = f"""
kind: PriorityClass
apiVersion: scheduling.k8s.io/v1
metadata: {{name: high}}
value: 1000
---
kind: Node
metadata: {{name: n1}}
status: {{allocatable: {{cpu: "1", memory: 1Gi, pods: "10"}}}}
---
kind: Pod
metadata: {{name: low}}
spec:
  terminationGracePeriodSeconds: {LARGEST_INT64}
  containers: [{{name: c, image: i, resources: {{requests: {{cpu: "1"}}}}}}]
---
kind: Pod
metadata: {{name: high}}
spec:
  priorityClassName: high
  containers: [{{name: c, image: i, resources: {{requests: {{cpu: "1"}}}}}}]
"""


def test_a_victim_with_the_largest_grace_period_is_preempted_and_the_preemptor_placed() -> None:
    result = framework.simulate(CLUSTER)
    assert result.placements == {"default/low": None, "default/high": "n1"}


def test_timestamps_past_year_9999_or_before_year_1_saturate() -> None:
    assert rfc3339(float(LARGEST_INT64)) == "9999-12-31T23:59:59Z"
    assert rfc3339(-1e30) == "0001-01-01T00:00:00Z"
    assert rfc3339_micro(1e30) == "9999-12-31T23:59:59.000000Z"
