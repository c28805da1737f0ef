"""The shared plugin helpers: DefaultNormalizeScore and the untolerated-taint finder.

The normalising table is ``TestDefaultNormalizeScore`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/helper/normalize_score_test.go``
(v1.33); the taint cases follow ``TestFindMatchingUntoleratedTaint`` of
``staging/src/k8s.io/component-helpers/scheduling/corev1/helpers_test.go``
and ``DoNotScheduleTaintsFilterFunc`` (``.../plugins/helper/taint.go``), in
our own words.
"""

from __future__ import annotations

import pytest

from framework.interface import NodeScore
from framework.objects import Taint, Toleration
from framework.plugins.helper import (
    TaintFilter,
    default_normalize_score,
    do_not_schedule_taints_filter_func,
    find_matching_untolerated_taint,
    go_div,
)

NORMALIZE_CASES = [
    pytest.param(False, [1, 2, 3, 4], [25, 50, 75, 100], id="proportional to the highest"),
    pytest.param(True, [1, 2, 3, 4], [75, 50, 25, 0], id="reversed: the highest gets 0"),
    pytest.param(False, [1000, 10, 20, 30], [100, 1, 2, 3], id="integer division truncates"),
    pytest.param(True, [1000, 10, 20, 30], [0, 99, 98, 97], id="reversed after truncating"),
    pytest.param(False, [1, 1, 1, 1], [100, 100, 100, 100], id="all equal: all full marks"),
    pytest.param(False, [1000, 1, 1, 1], [100, 0, 0, 0], id="small scores vanish"),
    pytest.param(True, [0, 1, 1, 1], [100, 0, 0, 0], id="reversed, zero is best"),
    pytest.param(False, [0, 0, 0, 0], [0, 0, 0, 0], id="all zero stay zero"),
    pytest.param(True, [0, 0, 0, 0], [100, 100, 100, 100], id="all zero reversed: all 100"),
    pytest.param(False, [], [], id="no nodes"),
]


@pytest.mark.parametrize(("reverse", "raw", "expected"), NORMALIZE_CASES)
def test_default_normalize_score(reverse: bool, raw: list[int], expected: list[int]) -> None:
    scores = [NodeScore(f"node{i}", s) for i, s in enumerate(raw)]
    assert default_normalize_score(100, reverse, scores) is None
    assert [s.score for s in scores] == expected
    assert [s.name for s in scores] == [f"node{i}" for i in range(len(raw))]


def test_negative_raw_scores_count_as_no_highest_and_are_left_alone() -> None:
    # The search for the highest starts at 0, as Go's does.
    scores = [NodeScore("a", -3), NodeScore("b", -1)]
    default_normalize_score(100, False, scores)
    assert [s.score for s in scores] == [-3, -1]


def test_a_negative_score_below_a_positive_highest_truncates_toward_zero() -> None:
    scores = [NodeScore("a", 3), NodeScore("b", -1)]
    default_normalize_score(100, False, scores)
    assert [s.score for s in scores] == [100, -33]  # Go: 100 * -1 / 3 == -33, not -34


def test_go_div_truncates_toward_zero() -> None:
    assert [go_div(7, 2), go_div(-7, 2), go_div(7, -2), go_div(-7, -2)] == [3, -3, -3, 3]


# --- Taints ----------------------------------------------------------------------------------

NO_SCHEDULE = Taint(key="dedicated", value="gpu", effect="NoSchedule")
NO_EXECUTE = Taint(key="maintenance", effect="NoExecute")
PREFER = Taint(key="spot", value="true", effect="PreferNoSchedule")


def test_the_do_not_schedule_filter_keeps_no_schedule_and_no_execute() -> None:
    keep = do_not_schedule_taints_filter_func()
    assert [keep(t) for t in (NO_SCHEDULE, NO_EXECUTE, PREFER)] == [True, True, False]


UNTOLERATED_CASES = [
    pytest.param([], [], None, None, id="empty tolerations tolerate empty taints"),
    pytest.param(
        [], [Toleration(operator="Exists")], None, None, id="tolerations tolerate empty taints"
    ),
    pytest.param(
        [NO_SCHEDULE, NO_EXECUTE],
        [Toleration(operator="Exists")],
        None,
        None,
        id="a toleration of everything tolerates all taints",
    ),
    pytest.param(
        [NO_SCHEDULE, NO_EXECUTE],
        [Toleration(key="dedicated", operator="Equal", value="gpu", effect="NoSchedule")],
        None,
        NO_EXECUTE,
        id="the first taint not tolerated is returned",
    ),
    pytest.param(
        [NO_EXECUTE, NO_SCHEDULE],
        [],
        None,
        NO_EXECUTE,
        id="taints are walked in the node's order",
    ),
    pytest.param(
        [PREFER, NO_SCHEDULE],
        [],
        do_not_schedule_taints_filter_func(),
        NO_SCHEDULE,
        id="the filter skips PreferNoSchedule taints",
    ),
    pytest.param(
        [PREFER],
        [],
        do_not_schedule_taints_filter_func(),
        None,
        id="nothing left after the filter: nothing untolerated",
    ),
    pytest.param([PREFER], [], None, PREFER, id="without a filter every taint is considered"),
]


@pytest.mark.parametrize(("taints", "tolerations", "keep", "expected"), UNTOLERATED_CASES)
def test_find_matching_untolerated_taint(
    taints: list[Taint],
    tolerations: list[Toleration],
    keep: TaintFilter | None,
    expected: Taint | None,
) -> None:
    assert find_matching_untolerated_taint(taints, tolerations, keep) == expected
