"""Chapter 4 exercise: weighted score combination and host selection.

The last two steps of scoring, as plain functions:

1. :func:`combine_scores`: every Score plugin's normalised scores, checked to
   be in ``[0, 100]``, multiplied by the plugin's weight and summed per node.
2. :func:`select_host`: the node with the highest total, chosen uniformly at
   random among ties (reservoir sampling, with the RNG you are given), and
   the best ``count`` nodes with the chosen one first.

Fill in both, then check them::

    python -m pytest chapters/04_scheduling_cycle --exercise

The tests are the same ones that run against the reference code in
``framework/scheduler/scoring.py``. Stuck? ``python -m framework hint 4``
shows the hints one at a time.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore

__all__ = [
    "ERR_EMPTY_PRIORITY_LIST",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "EmptyPriorityListError",
    "InvalidScoreError",
    "NodePluginScores",
    "NodeScore",
    "PluginScore",
    "combine_scores",
    "select_host",
]

# --- given: the types the two functions pass around -----------------------------------------------

ERR_EMPTY_PRIORITY_LIST = "empty priorityList"
"""The error text when :func:`select_host` gets no scores (``errEmptyPriorityList``)."""


@dataclass(frozen=True, slots=True)
class PluginScore:
    """One plugin's weighted score for one node."""

    name: str
    score: int


@dataclass(slots=True)
class NodePluginScores:
    """A node's weighted score from each plugin, in plugin order, and their sum."""

    name: str
    scores: list[PluginScore] = field(default_factory=list)
    total_score: int = 0


class InvalidScoreError(ValueError):
    """A plugin's score left ``[0, 100]`` after normalising; the message is kube-scheduler's."""

    def __init__(self, plugin: str, score: int) -> None:
        super().__init__(
            f'plugin "{plugin}" returns an invalid score {score}, it should in the range of '
            f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
        )
        self.plugin = plugin
        self.score = score


class EmptyPriorityListError(ValueError):
    """:func:`select_host` was given no nodes to choose from."""

    def __init__(self) -> None:
        super().__init__(ERR_EMPTY_PRIORITY_LIST)


# --- yours ------------------------------------------------------------------------------------------


def combine_scores(
    plugin_scores: Mapping[str, Sequence[NodeScore]],
    weights: Mapping[str, int],
    node_names: Sequence[str],
) -> list[NodePluginScores]:
    """Return one :class:`NodePluginScores` per node, in ``node_names`` order.

    You have: ``plugin_scores``, which maps each plugin's name (in the
    profile's order) to its normalised scores, ``plugin_scores[p][i].score``
    being the score of ``node_names[i]``; and ``weights[p]``, the plugin's
    weight. Each node's entry lists a :class:`PluginScore` per plugin (the
    plugin's name and its *weighted* score), in plugin order, and their sum
    in ``total_score``.
    """
    # TODO 1: for every node, walk the plugins in order and read the score.
    # TODO 2: a score below MIN_NODE_SCORE or above MAX_NODE_SCORE is the
    #         plugin's bug: raise InvalidScoreError(plugin_name, score).
    # TODO 3: multiply by the plugin's weight, record it as a PluginScore and
    #         add it to the node's total. Nothing is divided.
    raise NotImplementedError(
        "chapter 4 exercise: write combine_scores in chapters/04_scheduling_cycle/exercise.py "
        "(the rule is in the chapter's 'Exercise' section; hints: python -m framework hint 4)"
    )


def select_host(
    scores: Sequence[NodePluginScores], count: int, rng: random.Random
) -> tuple[str, list[NodePluginScores]]:
    """Return the chosen node's name and the best ``count`` nodes, the chosen one first.

    The chosen node has the highest ``total_score``; when several nodes share
    it, each must be equally likely to be chosen, and the only randomness
    allowed is ``rng`` (so that a seed reproduces the choice). The report
    lists nodes from the highest total down, except that the chosen node is
    moved to the front. No scores at all: raise :class:`EmptyPriorityListError`.
    """
    # TODO 4: no scores? Raise EmptyPriorityListError().
    # TODO 5: go through the nodes from the highest total down. The first one
    #         is the choice so far; the k-th node with that same top total
    #         takes its place with probability 1/k (rng.randrange(k) == 0).
    # TODO 6: stop once every top-scored node has been seen *and* you have
    #         ``count`` nodes; put the chosen node first; report ``count`` nodes.
    raise NotImplementedError(
        "chapter 4 exercise: write select_host in chapters/04_scheduling_cycle/exercise.py "
        "(the rule is in the chapter's 'Exercise' section; hints: python -m framework hint 4)"
    )
