"""MostAllocated: the fullest node (after placing the pod) scores highest, to pack pods.

For each configured resource the score is the share of the node that would
be used, on a 0-100 scale, with the request capped at what the node has::

    score(resource) = min(requested, allocatable) * 100 // allocatable

and the node's score is the same weighted mean as LeastAllocated's, over the
same resources. Packing leaves whole nodes empty, which a cluster autoscaler
can then remove.

Note the cap: because scoring counts request-less containers as 100m CPU and
200 MiB, "requested" can exceed allocatable on a node the pod fits on (the
Filter uses real requests); the cap keeps such a node at 100, not above.

Worked example (``most_allocated_test.go``, "resources requested, pods
scheduled with resources"): 6000 of 10000 CPU and 5000 of 20000 memory
give ``60`` and ``25``, and the node ``(60 + 25) // 2 = 42``.

>>> from framework.config.args_noderesources import DEFAULT_RESOURCES
>>> most_resource_scorer(DEFAULT_RESOURCES)([6000, 5000], [10000, 20000])
42

Mirrors ``mostResourceScorer`` and ``mostRequestedScore`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/most_allocated.go``
(v1.33).
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.config.args_noderesources import ResourceSpec
from framework.interface import MAX_NODE_SCORE
from framework.plugins.noderesources.resource_allocation import Scorer

__all__ = ["most_requested_score", "most_resource_scorer"]


def most_requested_score(requested: int, capacity: int) -> int:
    """The used share of one resource on a 0-100 scale, the request capped at the capacity."""
    if capacity == 0:
        return 0
    requested = min(requested, capacity)
    # Both operands are non-negative, so // truncates exactly as Go's / does.
    return requested * MAX_NODE_SCORE // capacity


def most_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    """The weighted mean of :func:`most_requested_score` over the resources the node has."""

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, resource in enumerate(resources):
            if allocatable[i] == 0:
                continue
            node_score += most_requested_score(requested[i], allocatable[i]) * resource.weight
            weight_sum += resource.weight
        if weight_sum == 0:
            return 0
        return node_score // weight_sum

    return score
