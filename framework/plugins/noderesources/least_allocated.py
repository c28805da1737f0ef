"""LeastAllocated: the node with the most room left after placing the pod scores highest.

For each configured resource the score is the share of the node that
would stay free, on a 0-100 scale, in integer arithmetic::

    score(resource) = (allocatable - requested) * 100 // allocatable   (0 if requested > allocatable)

and the node's score is the weighted mean, again rounded down::

    score(node) = sum(score(r) * weight(r)) // sum(weight(r))

over the resources the node has (allocatable > 0) and, for extended
resources, that the pod requests. Spreading pods this way leaves headroom
on every node, which is why it is kube-scheduler's default strategy.

Worked example (``least_allocated_test.go``, "nothing scheduled, resources
requested, differently sized nodes"): a pod asking 3000 CPU and 5000 memory
on a node of 4000 CPU and 10000 memory scores CPU ``1000*100//4000 = 25``,
memory ``5000*100//10000 = 50``, node ``(25 + 50) // 2 = 37``.

>>> from framework.config.args_noderesources import DEFAULT_RESOURCES
>>> least_resource_scorer(DEFAULT_RESOURCES)([3000, 5000], [4000, 10000])
37

Mirrors ``leastResourceScorer`` and ``leastRequestedScore`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/least_allocated.go``
(v1.33).
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.config.args_noderesources import ResourceSpec
from framework.interface import MAX_NODE_SCORE
from framework.plugins.noderesources.resource_allocation import Scorer

__all__ = ["least_requested_score", "least_resource_scorer"]


def least_requested_score(requested: int, capacity: int) -> int:
    """The free share of one resource on a 0-100 scale; 0 when nothing would be left."""
    if capacity == 0 or requested > capacity:
        return 0
    # Both operands are non-negative, so // truncates exactly as Go's / does.
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    """The weighted mean of :func:`least_requested_score` over the resources the node has."""

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, resource in enumerate(resources):
            if allocatable[i] == 0:
                continue
            node_score += least_requested_score(requested[i], allocatable[i]) * resource.weight
            weight_sum += resource.weight
        if weight_sum == 0:
            return 0
        return node_score // weight_sum

    return score
