"""Choosing a node (schedule_one.go: schedulePod and helpers, v1.33)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from framework.cache.snapshot import new_snapshot
from framework.cycle_state import CycleState
from framework.interface import FitError, NodePluginScores, PreFilterResult
from framework.objects import Node, Pod
from framework.runtime.framework import Framework
from framework.scheduler.algorithm import (
    NoNodesAvailable,
    SchedulingAlgorithm,
    num_feasible_nodes_to_find,
)
from framework.status import Status
from tests.runtime.test_framework import Recorder, plugin


def nodes(*names: str) -> list[Node]:
    return [Node.from_dict({"metadata": {"name": n}}) for n in names]


def a_pod(nominated: str = "") -> Pod:
    manifest: dict[str, Any] = {
        "metadata": {"name": "p", "namespace": "default", "uid": "u"},
        "spec": {"containers": [{"name": "c"}]},
    }
    if nominated:
        manifest["status"] = {"nominatedNodeName": nominated}
    return Pod.from_dict(manifest)


@pytest.mark.parametrize(
    ("percentage", "num_nodes", "expected"),
    [
        (0, 99, 99),
        (0, 100, 100),
        (0, 500, 230),
        (0, 1000, 420),
        (0, 5000, 500),
        (0, 6000, 300),
        (0, 20000, 1000),
        (30, 1000, 300),
        (5, 1000, 100),
        (100, 1000, 1000),
    ],
)
def test_num_feasible_nodes_to_find(percentage: int, num_nodes: int, expected: int) -> None:
    assert num_feasible_nodes_to_find(percentage, num_nodes) == expected


def test_each_search_starts_where_the_last_one_stopped() -> None:
    log = Recorder()
    fwk = Framework.from_plugins("p", {"filter": [plugin("F", log, filter=lambda *_: None)]})
    algorithm = SchedulingAlgorithm()
    snapshot = new_snapshot([], nodes("a", "b", "c"))
    hosts = [
        algorithm.schedule_pod(fwk, CycleState(), a_pod(), snapshot).suggested_host
        for _ in range(4)
    ]
    # No Score plugins: the first feasible node is enough, and the next pod starts after it.
    assert hosts == ["a", "b", "c", "a"]


def test_failed_nodes_count_towards_where_the_next_search_starts() -> None:
    fwk = Framework.from_plugins(
        "p",
        {
            "filter": [
                plugin(
                    "F",
                    Recorder(),
                    filter=lambda _s, _p, n: None if n.name == "c" else Status.unschedulable("no"),
                )
            ]
        },
    )
    algorithm = SchedulingAlgorithm()
    result = algorithm.schedule_pod(
        fwk, CycleState(), a_pod(), new_snapshot([], nodes("a", "b", "c", "d"))
    )
    assert (result.suggested_host, result.evaluated_nodes, result.feasible_nodes) == ("c", 3, 1)
    assert algorithm.next_start_node_index == 3


def test_fit_error_counts_reasons_and_sorts_them_as_text() -> None:
    names = [f"n{i}" for i in range(12)]

    def filter_(_s: Any, _p: Any, info: Any) -> Status:
        return (
            Status.unschedulable("Insufficient cpu")
            if info.name < "n2"
            else Status.unresolvable("node(s) had untolerated taint {x: }")
        )

    fwk = Framework.from_plugins("p", {"filter": [plugin("F", Recorder(), filter=filter_)]})
    with pytest.raises(FitError) as caught:
        SchedulingAlgorithm().schedule_pod(
            fwk, CycleState(), a_pod(), new_snapshot([], nodes(*names))
        )
    # n0, n1, n10, n11 sort before "n2": 4 Insufficient cpu, 8 taints; "4 ..." sorts before "8 ...".
    assert str(caught.value) == (
        "0/12 nodes are available: 4 Insufficient cpu, 8 node(s) had untolerated taint {x: }."
    )
    assert caught.value.diagnosis.unschedulable_plugins == {"F"}


def test_the_message_follows_the_statuses_after_they_change() -> None:
    """The counts behind the message are kept between messages, and dropped by any set."""
    from framework.interface import Diagnosis, NodeToStatus

    cpu = Status.unschedulable("Insufficient cpu")
    taint = Status.unresolvable("node(s) had untolerated taint {x: }")
    statuses = NodeToStatus()
    statuses.set_each(["a", "b", "c"], [cpu, cpu, taint], [(cpu, 2), (taint, 1)])
    error = FitError(a_pod(), 3, Diagnosis(node_to_status=statuses))
    first = "0/3 nodes are available: 1 node(s) had untolerated taint {x: }, 2 Insufficient cpu."
    assert str(error) == str(error) == first
    statuses.set("a", taint)
    assert str(error) == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {x: }."
    )
    # Counts given for a map that already held statuses are not taken: they are counted.
    statuses.set_each(["c", "d"], [cpu, cpu], [(cpu, 2)])
    assert sorted((s.message(), n) for s, n in statuses.status_counts()) == [
        ("Insufficient cpu", 3),
        ("node(s) had untolerated taint {x: }", 1),
    ]
    assert [name for name, _ in statuses.items()] == ["a", "b", "c", "d"]


def test_a_pre_filter_rejection_is_reported_once_for_all_nodes() -> None:
    fwk = Framework.from_plugins(
        "p",
        {
            "preFilter": [
                plugin(
                    "P", Recorder(), pre_filter=lambda *_: (None, Status.unschedulable("too big"))
                )
            ]
        },
    )
    with pytest.raises(FitError) as caught:
        SchedulingAlgorithm().schedule_pod(
            fwk, CycleState(), a_pod(), new_snapshot([], nodes("a", "b", "c"))
        )
    assert str(caught.value) == "0/3 nodes are available: too big."
    assert caught.value.diagnosis.unschedulable_plugins == {"P"}


def test_nodes_outside_a_pre_filter_result_are_counted_as_unresolvable() -> None:
    log = Recorder()
    narrowing = plugin(
        "NodeAffinity", log, pre_filter=lambda *_: (PreFilterResult(frozenset({"b"})), None)
    )
    full = plugin("F", log, filter=lambda *_: Status.unschedulable("Too many pods"))
    fwk = Framework.from_plugins("p", {"preFilter": [narrowing], "filter": [full]})
    with pytest.raises(FitError) as caught:
        SchedulingAlgorithm().schedule_pod(
            fwk, CycleState(), a_pod(), new_snapshot([], nodes("a", "b", "c"))
        )
    assert str(caught.value) == (
        "0/3 nodes are available: 1 Too many pods, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )


def test_a_single_feasible_node_is_chosen_without_scoring() -> None:
    log = Recorder()
    fwk = Framework.from_plugins(
        "p",
        {
            "filter": [
                plugin(
                    "F",
                    log,
                    filter=lambda _s, _p, n: None if n.name == "b" else Status.unschedulable("no"),
                )
            ],
            "score": [plugin("S", log, score=lambda *_: (100, None))],
        },
    )
    result = SchedulingAlgorithm().schedule_pod(
        fwk, CycleState(), a_pod(), new_snapshot([], nodes("a", "b", "c"))
    )
    assert result.suggested_host == "b"
    assert not any(call.startswith("score") for call in log.calls)


def test_the_best_scored_node_wins() -> None:
    scores = {"a": 10, "b": 90, "c": 50}
    fwk = Framework.from_plugins(
        "p", {"score": [plugin("S", Recorder(), score=lambda _s, _p, n: (scores[n.name], None))]}
    )
    result = SchedulingAlgorithm().schedule_pod(
        fwk, CycleState(), a_pod(), new_snapshot([], nodes("a", "b", "c"))
    )
    assert (result.suggested_host, result.feasible_nodes) == ("b", 3)


def test_a_nominated_node_that_fits_is_taken_without_searching_the_others() -> None:
    log = Recorder()
    fwk = Framework.from_plugins(
        "p",
        {
            "filter": [plugin("F", log, filter=lambda *_: None)],
            "score": [plugin("S", log, score=lambda *_: (1, None))],
        },
    )
    result = SchedulingAlgorithm().schedule_pod(
        fwk, CycleState(), a_pod(nominated="c"), new_snapshot([], nodes("a", "b", "c"))
    )
    assert result.suggested_host == "c" and log.calls == ["filter:F"]


def test_no_nodes_is_its_own_error() -> None:
    with pytest.raises(NoNodesAvailable, match="no nodes available to schedule pods"):
        SchedulingAlgorithm().schedule_pod(
            Framework.from_plugins("p", {}), CycleState(), a_pod(), new_snapshot([], [])
        )


def test_select_host_chooses_uniformly_among_the_top_scores() -> None:
    algorithm = SchedulingAlgorithm(rng=random.Random(7))
    scores = [NodePluginScores("low", total_score=1)] + [
        NodePluginScores(n, total_score=9) for n in "xyz"
    ]
    chosen = Counter(algorithm.select_host(scores, 3)[0] for _ in range(3000))
    assert set(chosen) == {"x", "y", "z"}
    assert all(800 < count < 1200 for count in chosen.values()), chosen


def test_select_host_is_reproducible_from_a_seed() -> None:
    scores = [NodePluginScores(n, total_score=5) for n in "abcdef"]
    first = [
        SchedulingAlgorithm(rng=random.Random(42)).select_host(scores, 3)[0] for _ in range(5)
    ]
    again = [
        SchedulingAlgorithm(rng=random.Random(42)).select_host(scores, 3)[0] for _ in range(5)
    ]
    assert first == again


def test_select_host_reports_the_top_three() -> None:
    scores = [
        NodePluginScores(n, total_score=s) for n, s in [("a", 1), ("b", 5), ("c", 3), ("d", 4)]
    ]
    host, report = SchedulingAlgorithm().select_host(scores, 3)
    assert host == "b" and [r.name for r in report] == ["b", "d", "c"]
