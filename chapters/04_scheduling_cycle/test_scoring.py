"""Chapter 4: weighted score combination and host selection.

``combine_scores`` follows the weighting loop at the end of
``RunScorePlugins`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``;
``select_host`` follows ``selectHost`` in ``pkg/scheduler/schedule_one.go``
and its cases in ``schedule_one_test.go``, in our own words (v1.33). Run
against your code with ``python -m pytest chapters/04_scheduling_cycle --exercise``.
"""

from __future__ import annotations

import random
from collections import Counter
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.interface import NodePluginScores, NodeScore

pytestmark = pytest.mark.exercise(
    reference="framework.scheduler.scoring",
    skeleton="exercise.py",
    asks=["combine_scores", "select_host"],
)

NODES = ["n1", "n2", "n3"]


def plugin_scores(**per_plugin: list[int]) -> dict[str, list[NodeScore]]:
    """``A=[10, 20, 30]`` -> plugin A scored n1 10, n2 20, n3 30 (after normalising)."""
    return {
        plugin: [NodeScore(node, score) for node, score in zip(NODES, scores, strict=True)]
        for plugin, scores in per_plugin.items()
    }


# --- combine_scores ---------------------------------------------------------------------------

COMBINE_CASES = [
    pytest.param(
        plugin_scores(A=[10, 50, 100]),
        {"A": 1},
        [10, 50, 100],
        id="one plugin with weight 1: the scores are the totals",
    ),
    pytest.param(
        plugin_scores(A=[10, 50, 100]),
        {"A": 3},
        [30, 150, 300],
        id="a weight multiplies",
    ),
    pytest.param(
        plugin_scores(A=[10, 50, 100], B=[100, 0, 40]),
        {"A": 1, "B": 1},
        [110, 50, 140],
        id="two plugins: the sum, not the mean",
    ),
    pytest.param(
        plugin_scores(A=[10, 50, 100], B=[100, 0, 40]),
        {"A": 2, "B": 5},
        [520, 100, 400],
        id="two weighted plugins",
    ),
    pytest.param(
        plugin_scores(A=[0, 0, 0], B=[100, 100, 100]),
        {"A": 7, "B": 1},
        [100, 100, 100],
        id="the bounds 0 and 100 are valid",
    ),
    pytest.param(
        plugin_scores(A=[99, 1, 33], B=[1, 99, 67], C=[50, 50, 50]),
        {"A": 1, "B": 1, "C": 2},
        [200, 200, 200],
        id="different scores, equal totals",
    ),
    pytest.param(
        {},
        {},
        [0, 0, 0],
        id="every Score plugin skipped: every total is 0",
    ),
]


@pytest.mark.parametrize(("scores", "weights", "totals"), COMBINE_CASES)
def test_combine_scores_totals(
    impl: ModuleType,
    scores: dict[str, list[NodeScore]],
    weights: dict[str, int],
    totals: list[int],
) -> None:
    combined = impl.combine_scores(scores, weights, NODES)
    assert [(n.name, n.total_score) for n in combined] == list(zip(NODES, totals, strict=True))


def test_combine_scores_lists_each_plugins_weighted_score_in_plugin_order(
    impl: ModuleType,
) -> None:
    combined = impl.combine_scores(
        plugin_scores(B=[100, 0, 40], A=[10, 50, 100]), {"A": 2, "B": 5}, NODES
    )
    assert combined == [
        impl.NodePluginScores(
            "n1", [impl.PluginScore("B", 500), impl.PluginScore("A", 20)], total_score=520
        ),
        impl.NodePluginScores(
            "n2", [impl.PluginScore("B", 0), impl.PluginScore("A", 100)], total_score=100
        ),
        impl.NodePluginScores(
            "n3", [impl.PluginScore("B", 200), impl.PluginScore("A", 200)], total_score=400
        ),
    ]


@pytest.mark.parametrize(
    ("scores", "plugin", "bad"),
    [
        pytest.param(plugin_scores(A=[10, 101, 30]), "A", 101, id="above 100"),
        pytest.param(plugin_scores(A=[10, 20, 30], B=[0, 0, -1]), "B", -1, id="below 0"),
        pytest.param(plugin_scores(A=[1000, 20, 30]), "A", 1000, id="a raw, unnormalised score"),
    ],
)
def test_a_score_outside_0_100_is_an_error_naming_the_plugin_and_the_score(
    impl: ModuleType, scores: dict[str, list[NodeScore]], plugin: str, bad: int
) -> None:
    with pytest.raises(impl.InvalidScoreError) as caught:
        impl.combine_scores(scores, dict.fromkeys(scores, 1), NODES)
    assert str(caught.value) == (
        f'plugin "{plugin}" returns an invalid score {bad}, '
        "it should in the range of [0, 100] after normalizing"
    )


def test_the_range_is_checked_before_the_weight_is_applied(impl: ModuleType) -> None:
    # 60 x 2 = 120 is a fine total; only the plugin's own score must be in [0, 100].
    combined = impl.combine_scores(plugin_scores(A=[60, 60, 60]), {"A": 2}, NODES)
    assert [n.total_score for n in combined] == [120, 120, 120]


# --- select_host ---------------------------------------------------------------------------------


def totals(*pairs: tuple[str, int]) -> list[NodePluginScores]:
    return [NodePluginScores(name, total_score=total) for name, total in pairs]


def test_the_highest_total_wins(impl: ModuleType) -> None:
    scores = totals(("a", 10), ("b", 90), ("c", 50))
    host, _ = impl.select_host(scores, 3, random.Random(0))
    assert host == "b"


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        pytest.param(3, ["b", "e", "c"], id="the top three, best first"),
        pytest.param(1, ["b"], id="count 1: the chosen node alone"),
        pytest.param(10, ["b", "e", "c", "d", "a"], id="count above the number of nodes: all"),
    ],
)
def test_the_report_lists_the_best_count_nodes_from_the_top(
    impl: ModuleType, count: int, expected: list[str]
) -> None:
    scores = totals(("a", 1), ("b", 5), ("c", 3), ("d", 2), ("e", 4))
    host, report = impl.select_host(scores, count, random.Random(0))
    assert host == "b"
    assert [n.name for n in report] == expected


def test_a_single_node_is_chosen(impl: ModuleType) -> None:
    host, report = impl.select_host(totals(("only", 0)), 3, random.Random(0))
    assert host == "only" and [n.name for n in report] == ["only"]


def test_no_nodes_is_an_error(impl: ModuleType) -> None:
    with pytest.raises(impl.EmptyPriorityListError, match=r"^empty priorityList$"):
        impl.select_host([], 3, random.Random(0))


def test_ties_for_the_top_are_chosen_uniformly(impl: ModuleType) -> None:
    scores = totals(("low", 10), ("w", 70), ("x", 70), ("mid", 40), ("y", 70), ("z", 70))
    rng = random.Random(20250101)
    chosen = Counter(impl.select_host(scores, 3, rng)[0] for _ in range(4000))
    assert set(chosen) == {"w", "x", "y", "z"}
    # 1000 expected each; the standard deviation is about 27, so this is very loose.
    assert all(850 < n < 1150 for n in chosen.values()), chosen


def test_the_chosen_node_leads_the_report_even_when_it_was_not_first(impl: ModuleType) -> None:
    scores = totals(("a", 70), ("b", 70), ("c", 70), ("d", 10))
    rng = random.Random(3)
    for _ in range(50):
        host, report = impl.select_host(scores, 2, rng)
        assert report[0].name == host
        assert len(report) == 2
        assert {n.total_score for n in report} == {70}


def test_the_choice_is_reproducible_from_the_rngs_seed_alone(impl: ModuleType) -> None:
    scores = totals(*((f"n{i}", 50) for i in range(8)))

    def run(global_seed: int) -> list[str]:
        random.seed(global_seed)  # the module-level RNG must not matter
        rng = random.Random(42)
        return [impl.select_host(scores, 3, rng)[0] for _ in range(30)]

    first = run(1)
    assert run(2) == first
    assert len(set(first)) > 1  # and it is a real draw, not always the same node


def test_the_choice_is_the_same_whichever_order_the_scores_come_in_without_ties(
    impl: ModuleType,
) -> None:
    scores = totals(("a", 3), ("b", 9), ("c", 6))
    for order in (scores, scores[::-1], scores[1:] + scores[:1]):
        host, report = impl.select_host(order, 3, random.Random(0))
        assert (host, [n.name for n in report]) == ("b", ["b", "c", "a"])


# --- properties ---------------------------------------------------------------------------------

PROPERTY = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@PROPERTY
@given(
    totals_=st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=20),
    count=st.integers(min_value=1, max_value=5),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_the_chosen_host_always_has_the_maximal_total(
    impl: ModuleType, totals_: list[int], count: int, seed: int
) -> None:
    scores = totals(*((f"n{i}", t) for i, t in enumerate(totals_)))
    host, report = impl.select_host(scores, count, random.Random(seed))
    by_name = {f"n{i}": t for i, t in enumerate(totals_)}
    assert by_name[host] == max(totals_)
    assert report[0].name == host
    assert len(report) == min(count, len(totals_))
    assert len({n.name for n in report}) == len(report)
    # The report holds the best totals there are, best first.
    assert (
        sorted((n.total_score for n in report), reverse=True)
        == sorted(totals_, reverse=True)[: len(report)]
    )
    assert [n.total_score for n in report[1:]] == sorted(
        (n.total_score for n in report[1:]), reverse=True
    )


@PROPERTY
@given(
    table=st.lists(
        st.tuples(
            st.integers(min_value=1, max_value=10),
            st.lists(st.integers(min_value=0, max_value=100), min_size=3, max_size=3),
        ),
        max_size=5,
    )
)
def test_a_total_is_the_sum_of_weight_times_score(
    impl: ModuleType, table: list[tuple[int, list[int]]]
) -> None:
    scores = {f"P{i}": row for i, (_, row) in enumerate(table)}
    weights = {f"P{i}": weight for i, (weight, _) in enumerate(table)}
    combined = impl.combine_scores(plugin_scores(**scores), weights, NODES)
    for index, node in enumerate(combined):
        assert node.total_score == sum(w * row[index] for w, row in table)
        assert node.total_score == sum(p.score for p in node.scores)
