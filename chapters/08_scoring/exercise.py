"""Chapter 8 exercise: NodeResourcesFit's LeastAllocated and MostAllocated scores.

Both strategies score a node from two lists with one entry per configured
resource (CPU and memory by default): what would be ``requested`` on the
node if the pod went there, and what the node has, its ``allocatable``.
Write the four functions below, then check them::

    python -m pytest chapters/08_scoring --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/noderesources/least_allocated.py`` and
``most_allocated.py``. Stuck? ``python -m framework hint 8`` shows the hints
one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.config.args_noderesources import ResourceSpec
from framework.interface import MAX_NODE_SCORE
from framework.plugins.noderesources.resource_allocation import Scorer

__all__ = [
    "MAX_NODE_SCORE",
    "ResourceSpec",
    "Scorer",
    "least_requested_score",
    "least_resource_scorer",
    "most_requested_score",
    "most_resource_scorer",
]


def _todo(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"chapter 8 exercise: write {what} in chapters/08_scoring/exercise.py "
        "(the rules are in the chapter's 'Exercise' section; hints: python -m framework hint 8)"
    )


def least_requested_score(requested: int, capacity: int) -> int:
    """The share of one resource left free, on a 0-100 scale (integer arithmetic)."""
    # TODO 1: a node without the resource, or one where the request would not
    #         fit, leaves nothing free: 0. Otherwise the free share, times
    #         MAX_NODE_SCORE, divided by the capacity, rounded down.
    raise _todo("least_requested_score")


def most_requested_score(requested: int, capacity: int) -> int:
    """The share of one resource in use, on a 0-100 scale, the request capped at the capacity."""
    # TODO 2: a node without the resource scores 0. A request above the
    #         capacity counts as the capacity (scoring counts request-less
    #         containers as 100m and 200 MiB, so this happens on nodes the pod
    #         fits on). Then the used share, times MAX_NODE_SCORE, rounded down.
    raise _todo("most_requested_score")


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    """A function ``score(requested, allocatable) -> int``: the weighted mean of the LeastAllocated scores.

    ``resources[i].weight`` is the weight of entry ``i`` of both lists.
    """
    # TODO 3: return a function of (requested, allocatable). It skips every
    #         resource whose allocatable is 0 (it takes part in neither sum),
    #         adds score * weight and the weight of the others, and returns the
    #         sum of scores divided by the sum of weights, rounded down; 0 when
    #         no resource took part.
    raise _todo("least_resource_scorer")


def most_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    """A function ``score(requested, allocatable) -> int``: the weighted mean of the MostAllocated scores."""
    # TODO 4: the same weighted mean as TODO 3, over most_requested_score.
    raise _todo("most_resource_scorer")
