"""DynamicResources' batch Score form: one constant column for a pod without claims, else none.

The form decides nothing it cannot know from the plugin's state: a pod with
claims (or no PreFilter state, which Score reports as an error) is scored
node by node with the plugin's own ``score``; the differential test
(``test_differential.py``) checks the columns against the reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from framework.batch.forms import normalize_constant, normalize_form, score_form
from framework.cycle_state import CycleState
from framework.objects import Pod
from tests.plugins.dynamicresources.test_plugin import IN_USE, pod, run

NO_ARRAYS: Any = None  # the form reads only the rows
PLAIN = Pod.from_dict({"metadata": {"name": "plain", "namespace": "default"}})


def test_a_pod_without_claims_scores_one_constant_0() -> None:
    r = run(PLAIN, version="1.37")
    r.pre_filter()
    form = score_form(r.plugin)
    assert form is not None
    verdict = form(r.plugin, r.state, PLAIN, NO_ARRAYS, np.arange(3))
    assert verdict is not None
    assert verdict.constant == 0 and verdict.undecided is None
    assert verdict.scores.tolist() == [0, 0, 0]
    assert normalize_constant(normalize_form(r.plugin), 0) == 0


def test_a_pod_with_claims_or_without_state_is_scored_node_by_node() -> None:
    r = run(pod(), IN_USE, version="1.37")
    assert r.pre_filter() is None
    form = score_form(r.plugin)
    assert form is not None
    assert form(r.plugin, r.state, r.pod, NO_ARRAYS, np.arange(3)) is None
    assert form(r.plugin, CycleState(), r.pod, NO_ARRAYS, np.arange(3)) is None
