"""RequestedToCapacityRatio: score utilization along a curve the administrator draws.

LeastAllocated and MostAllocated are two straight lines through utilization:
falling from 100 to 0, or rising from 0 to 100. RequestedToCapacityRatio
lets a profile draw its own *broken line*, as points
``{utilization: 0-100, score: 0-10}`` (``requestedToCapacityRatio.shape``),
for bin packing of GPUs or any other resource. Per configured resource::

    utilization = requested * 100 // allocatable     (100 if requested > allocatable)
    score       = broken_line(utilization)           (shape scores scaled by 10 to 0-100)

and the node's score is a weighted mean *rounded to the nearest integer*
(``math.Round``, halves away from zero), in which only resources with a
**positive** score take part: a resource that scores 0 adds nothing to the
sum and nothing to the weights, so it cannot pull the mean down.

The broken line is flat before the first point and after the last one, and
linear between points, interpolated with Go's integer division, which
**truncates toward zero**. On a falling segment the product is negative, and
Python's ``//`` would round it the other way;
:func:`~framework.plugins.helper.go_div` does it Go's way.

Worked example (``requested_to_capacity_ratio_test.go``, "nothing
scheduled, resources requested, differently sized nodes"): shape
``(0, 10), (100, 0)`` becomes ``(0, 100), (100, 0)``; 3000 of 4000 CPU is 75%
and scores 25, 5000 of 10000 memory is 50% and scores 50; the node scores
``round(75 / 2) = 38``.

>>> from framework.config.args_noderesources import DEFAULT_RESOURCES, UtilizationShapePoint
>>> shape = (UtilizationShapePoint(0, 10), UtilizationShapePoint(100, 0))
>>> requested_to_capacity_ratio_scorer(DEFAULT_RESOURCES, shape)([3000, 5000], [4000, 10000])
38

Mirrors ``requestedToCapacityRatioScorer`` and
``buildRequestedToCapacityRatioScorerFunction`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio.go``
and ``FunctionShape``, ``FunctionShapePoint`` and ``BuildBrokenLinearFunction``
in ``pkg/scheduler/framework/plugins/helper/shape_score.go`` (v1.33; Go keeps
the curve in ``helper`` because VolumeBinding's capacity scoring uses it too).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from framework.config.args_noderesources import (
    MAX_CUSTOM_PRIORITY_SCORE,
    ResourceSpec,
    UtilizationShapePoint,
)
from framework.interface import MAX_NODE_SCORE
from framework.plugins.helper import go_div
from framework.plugins.noderesources.resource_allocation import Scorer

__all__ = [
    "MAX_UTILIZATION",
    "FunctionShapePoint",
    "build_broken_linear_function",
    "build_requested_to_capacity_ratio_scorer_function",
    "go_round",
    "requested_to_capacity_ratio_scorer",
]

MAX_UTILIZATION = 100


def go_round(x: float) -> float:
    """Round half away from zero, as Go's ``math.Round`` does (Python's ``round`` rounds half to even).

    >>> go_round(36.5), round(36.5)
    (37.0, 36)
    """
    whole = math.trunc(x)
    if abs(x - whole) >= 0.5:
        return whole + math.copysign(1.0, x)
    return float(whole)


@dataclass(frozen=True, slots=True)
class FunctionShapePoint:
    """A point of a broken line: at ``utilization``, ``score`` (already on the 0-100 scale)."""

    utilization: int
    score: int


def build_broken_linear_function(shape: Sequence[FunctionShapePoint]) -> Callable[[int], int]:
    """The broken line through ``shape`` (points by increasing utilization), as a function of ``p``."""
    points = tuple(shape)

    def value(p: int) -> int:
        for i, point in enumerate(points):
            if p <= point.utilization:
                if i == 0:
                    return points[0].score
                before = points[i - 1]
                rise = (point.score - before.score) * (p - before.utilization)
                return before.score + go_div(rise, point.utilization - before.utilization)
        return points[-1].score

    return value


def build_requested_to_capacity_ratio_scorer_function(
    shape: Sequence[FunctionShapePoint], resources: Sequence[ResourceSpec]
) -> Scorer:
    """The node scorer: each resource's utilization through the curve, then a rounded weighted mean."""
    raw_scoring_function = build_broken_linear_function(shape)

    def resource_scoring_function(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw_scoring_function(MAX_UTILIZATION)
        return raw_scoring_function(requested * MAX_UTILIZATION // capacity)

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, resource in enumerate(resources):
            if allocatable[i] == 0:
                continue
            resource_score = resource_scoring_function(requested[i], allocatable[i])
            if resource_score > 0:
                node_score += resource_score * resource.weight
                weight_sum += resource.weight
        if weight_sum == 0:
            return 0
        # Go divides in float64 here and rounds; so do we.
        return int(go_round(float(node_score) / float(weight_sum)))

    return score


def requested_to_capacity_ratio_scorer(
    resources: Sequence[ResourceSpec], shape: Sequence[UtilizationShapePoint]
) -> Scorer:
    """The scorer for a configured shape, its 0-10 scores scaled to the scheduler's 0-100."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    points = [FunctionShapePoint(p.utilization, p.score * scale) for p in shape]
    return build_requested_to_capacity_ratio_scorer_function(points, resources)
