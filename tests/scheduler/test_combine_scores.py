"""combine_scores reports the first bad score in kube-scheduler's order.

The weighting loop at the end of ``RunScorePlugins`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``
(v1.33) goes node by node, plugin by plugin, checking each score against
``[MinNodeScore, MaxNodeScore]``; the first score out of range is the one
its error names.
"""

from __future__ import annotations

import pytest

from framework.interface import NodeScore
from framework.runtime.scoring import InvalidScoreError, combine_scores


@pytest.mark.parametrize(
    ("scores", "plugin", "bad"),
    [
        pytest.param(
            {"A": [0, 101], "B": [-1, 0]},
            "B",
            -1,
            id="an earlier node wins over an earlier plugin",
        ),
        pytest.param(
            {"A": [5, 200], "B": [7, 300]}, "A", 200, id="the first plugin at the same node"
        ),
    ],
)
def test_the_first_bad_score_is_the_first_in_node_order(
    scores: dict[str, list[int]], plugin: str, bad: int
) -> None:
    plugin_scores = {
        name: [NodeScore(f"n{i}", s) for i, s in enumerate(values)]
        for name, values in scores.items()
    }
    with pytest.raises(InvalidScoreError) as caught:
        combine_scores(plugin_scores, dict.fromkeys(scores, 1), ["n0", "n1"])
    assert (caught.value.plugin, caught.value.score) == (plugin, bad)
