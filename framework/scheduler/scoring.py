"""Picking the node among the best: ``selectHost``.

Two small steps end the scoring half of a scheduling cycle. Both are plain
functions, so they can be read and tested without a framework or a cluster:

* :func:`~framework.runtime.scoring.combine_scores` (in the runtime, where Go
  weighs the scores at the end of ``RunScorePlugins``) turns the normalised scores of every Score plugin
  into one total per node. Each score must lie in ``[0, 100]`` once the
  plugin's NormalizeScore has run; it is multiplied by the plugin's weight,
  and a node's total is the plain **sum** of its weighted scores (no
  division: a weight of 2 counts a plugin twice).
* :func:`select_host` picks the node with the highest total. When several
  share it, each is equally likely to win (reservoir sampling, drawing from
  the RNG it is given, so a seed reproduces a run), and the few best nodes
  are reported beside the winner.

:meth:`Framework.run_score_plugins
<framework.runtime.framework.Framework.run_score_plugins>` calls the first,
:meth:`SchedulingAlgorithm.select_host
<framework.scheduler.algorithm.SchedulingAlgorithm.select_host>` the second.

Mirrors ``selectHost`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one.go`` (v1.33); the
``NodePluginScores`` it reads are in :mod:`framework.interface`, as Go's are
in ``interface.go``. Simplified: equal totals are visited in the order given, where Go's heap visits
them in an order of its own (either way each has the same chance); and a
list of one node is its own answer, where Go's ``selectHost`` would index
past the end of its heap (the scheduler never asks: one feasible node skips
scoring altogether).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

# Chapter 4's exercise asks for both steps from this one module, with the types
# they return; the first step is the runtime's (the weighting at the end of
# RunScorePlugins), and the types are the framework's (interface.go), named here too.
from framework.interface import NodePluginScores, PluginScore
from framework.runtime.scoring import InvalidScoreError, combine_scores

__all__ = [
    "ERR_EMPTY_PRIORITY_LIST",
    "EmptyPriorityListError",
    "InvalidScoreError",
    "NodePluginScores",
    "PluginScore",
    "combine_scores",
    "select_host",
]

ERR_EMPTY_PRIORITY_LIST = "empty priorityList"
"""The error text when :func:`select_host` gets no scores (``errEmptyPriorityList``)."""


class EmptyPriorityListError(ValueError):
    """:func:`select_host` was given no nodes to choose from."""

    def __init__(self) -> None:
        super().__init__(ERR_EMPTY_PRIORITY_LIST)


def select_host(
    scores: Sequence[NodePluginScores], count: int, rng: random.Random
) -> tuple[str, list[NodePluginScores]]:
    """The chosen node's name, and the best ``count`` nodes with the chosen one first.

    The chosen node has the highest total; among nodes that tie for it,
    each is chosen with the same probability, drawing on ``rng`` only. The
    report lists nodes from the highest total down, except that the chosen
    node is swapped to the front. Raises :class:`EmptyPriorityListError` if
    ``scores`` is empty.

    >>> scores = [NodePluginScores("a", total_score=10), NodePluginScores("b", total_score=30),
    ...           NodePluginScores("c", total_score=20)]
    >>> host, top = select_host(scores, 2, random.Random(0))
    >>> host, [n.name for n in top]
    ('b', ['b', 'c'])
    """
    if not scores:
        raise EmptyPriorityListError()
    ordered = sorted(scores, key=lambda node_scores: node_scores.total_score, reverse=True)
    top_score = ordered[0].total_score
    report = [ordered[0]]
    selected, count_of_max = 0, 1
    for candidate in ordered[1:]:
        if candidate.total_score != top_score and len(report) >= count:
            break  # every top-scored node has been seen, and the report is full
        if candidate.total_score == top_score:
            # The k-th node with the top score takes over with probability 1/k,
            # which leaves each of them chosen with the same probability.
            count_of_max += 1
            if rng.randrange(count_of_max) == 0:
                selected = count_of_max - 1
        report.append(candidate)
    report[0], report[selected] = report[selected], report[0]
    return report[0].name, report[:count]
