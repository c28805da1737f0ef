"""Chapter 4 done right: combine_scores and select_host. Must pass.

:func:`make` builds both functions; each wrong variant turns on one mistake.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tests.exercise_variants import skeleton_namespace

globals().update(skeleton_namespace("04_scheduling_cycle"))
_given: dict[str, Any] = dict(globals())


def make(
    *,
    check_after_weighting: bool = False,
    stop_when_report_full: bool = False,
    global_random: bool = False,
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    NodePluginScores = _given["NodePluginScores"]
    PluginScore = _given["PluginScore"]
    InvalidScoreError = _given["InvalidScoreError"]
    EmptyPriorityListError = _given["EmptyPriorityListError"]
    low, high = _given["MIN_NODE_SCORE"], _given["MAX_NODE_SCORE"]

    def combine_scores(plugin_scores: Any, weights: Any, node_names: Any) -> list[Any]:
        result = []
        for index, node_name in enumerate(node_names):
            entries, total = [], 0
            for plugin, scores in plugin_scores.items():
                score = scores[index].score
                weighted = score * weights[plugin]
                checked = weighted if check_after_weighting else score
                if not low <= checked <= high:
                    raise InvalidScoreError(plugin, score)
                entries.append(PluginScore(plugin, weighted))
                total += weighted
            result.append(NodePluginScores(node_name, entries, total))
        return result

    def select_host(scores: Any, count: int, rng: random.Random) -> tuple[str, list[Any]]:
        if not scores:
            raise EmptyPriorityListError()
        ordered = sorted(scores, key=lambda n: n.total_score, reverse=True)
        top = ordered[0].total_score
        report, selected, ties = [ordered[0]], 0, 1
        for node in ordered[1:]:
            full = len(report) >= count
            if full and (stop_when_report_full or node.total_score != top):
                break
            if node.total_score == top:
                ties += 1
                draw = random.randrange(ties) if global_random else rng.randrange(ties)
                if draw == 0:
                    selected = ties - 1
            report.append(node)
        report[0], report[selected] = report[selected], report[0]
        return report[0].name, report[:count]

    return combine_scores, select_host


combine_scores, select_host = make()
