"""Weighing the Score plugins' answers: one total per node, the end of ``RunScorePlugins``.

:func:`combine_scores` turns the normalised scores of every Score plugin into
one total per node. Each score must lie in ``[0, 100]`` once the plugin's
NormalizeScore has run; it is multiplied by the plugin's weight, and a
node's total is the plain **sum** of its weighted scores (no division: a
weight of 2 counts a plugin twice). It is a plain function, so it can be
read and tested without a framework or a cluster;
:meth:`Framework.run_score_plugins
<framework.runtime.framework.Framework.run_score_plugins>` calls it, and
:func:`~framework.scheduler.scoring.select_host` picks among its totals.

Mirrors the weighting loop at the end of ``RunScorePlugins`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``
(v1.33). Simplified: nodes are combined one after another, not on 16
goroutines, so the first invalid score found is always the first in node
order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    NodePluginScores,
    NodeScore,
    PluginScore,
)

__all__ = ["InvalidScoreError", "combine_scores"]


class InvalidScoreError(ValueError):
    """A plugin's score left ``[0, 100]`` after normalising; the message is kube-scheduler's."""

    def __init__(self, plugin: str, score: int) -> None:
        super().__init__(
            f'plugin "{plugin}" returns an invalid score {score}, it should in the range of '
            f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
        )
        self.plugin = plugin
        self.score = score


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
