"""From each plugin's scores to one chosen node: weighting, summing, and picking among the best.

Two small steps end the scoring half of a scheduling cycle. Both are plain
functions, so they can be read and tested without a framework or a cluster:

* :func:`combine_scores` turns the normalised scores of every Score plugin
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

Mirrors the weighting loop at the end of ``RunScorePlugins`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``,
``selectHost`` in ``pkg/scheduler/schedule_one.go``, and
``NodePluginScores``/``PluginScore`` in ``pkg/scheduler/framework/interface.go``
(v1.33). Simplified: nodes are combined one after another, not on 16
goroutines, so the first invalid score found is always the first in node
order; equal totals are visited in the order given, where Go's heap visits
them in an order of its own (either way each has the same chance); and a
list of one node is its own answer, where Go's ``selectHost`` would index
past the end of its heap (the scheduler never asks: one feasible node skips
scoring altogether).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore

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


def combine_scores(
    plugin_scores: Mapping[str, Sequence[NodeScore]],
    weights: Mapping[str, int],
    node_names: Sequence[str],
) -> list[NodePluginScores]:
    """Every node's weighted plugin scores and their total, in ``node_names`` order.

    ``plugin_scores`` maps each Score plugin's name, in the profile's order,
    to its normalised scores: ``plugin_scores[p][i]`` is the score of
    ``node_names[i]``. ``weights[p]`` is the plugin's weight (at least 1; the
    framework makes sure of that). Raises :class:`InvalidScoreError` for the
    first score outside ``[MIN_NODE_SCORE, MAX_NODE_SCORE]``.

    >>> combined = combine_scores(
    ...     {"A": [NodeScore("n1", 10), NodeScore("n2", 90)], "B": [NodeScore("n1", 50), NodeScore("n2", 0)]},
    ...     {"A": 1, "B": 2},
    ...     ["n1", "n2"],
    ... )
    >>> [(n.name, n.total_score) for n in combined]
    [('n1', 110), ('n2', 90)]
    """
    totals = []
    for index, node_name in enumerate(node_names):
        node_scores = NodePluginScores(node_name)
        for plugin, scores in plugin_scores.items():
            score = scores[index].score
            if score > MAX_NODE_SCORE or score < MIN_NODE_SCORE:
                raise InvalidScoreError(plugin, score)
            weighted = score * weights[plugin]
            node_scores.scores.append(PluginScore(plugin, weighted))
            node_scores.total_score += weighted
        totals.append(node_scores)
    return totals


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
