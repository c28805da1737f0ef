"""Choosing the node to preempt on: ``SelectCandidate`` and ``pickOneNodeForPreemption``.

The first table is ``TestSelectBestCandidate`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go``
(a dry run on nodes of ``veryLargeRes``, then ``SelectCandidate``); the
second pins each of the six criteria of ``pickOneNodeForPreemption``
(``pkg/scheduler/framework/preemption/preemption.go``) on hand-made victims.
"""

from __future__ import annotations

import pytest

from framework.objects import Pod
from framework.preemption import PRIORITY_SHIFT, Victims, pick_one_node_for_preemption
from tests.plugins.defaultpreemption.helpers import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    NEG,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    build,
    epoch,
    make_node,
    make_pod,
)


def p(name: str, priority: int, node: str, req: dict[str, str], start: int = 0) -> Pod:
    return make_pod(name, priority, node=node, req=req, start=epoch(start))


BEST_CANDIDATE = {
    "a pod that fits on both nodes when lower priority pods are preempted": (
        ["node1", "node2"],
        make_pod("p", HIGH, req=LARGE),
        [p("p1", MID, "node1", LARGE), p("p2", MID, "node2", LARGE)],
        {"node1", "node2"},
    ),
    "node with min highest priority pod is picked": (
        ["node1", "node2", "node3"],
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            p("p1.1", MID, "node1", MEDIUM),
            p("p1.2", MID, "node1", LARGE),
            p("p2.1", MID, "node2", MEDIUM),
            p("p2.2", LOW, "node2", MEDIUM),
            p("p3.1", LOW, "node3", MEDIUM),
            p("p3.2", LOW, "node3", MEDIUM),
        ],
        {"node3"},
    ),
    "when highest priorities are the same, minimum sum of priorities is picked": (
        ["node1", "node2", "node3"],
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            p("p1.1", MID, "node1", MEDIUM),
            p("p1.2", MID, "node1", LARGE),
            p("p2.1", MID, "node2", LARGE),
            p("p2.2", LOW, "node2", MEDIUM),
            p("p3.1", MID, "node3", MEDIUM),
            p("p3.2", MID, "node3", MEDIUM),
        ],
        {"node2"},
    ),
    "when highest priority and sum are the same, minimum number of pods is picked": (
        ["node1", "node2", "node3"],
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            p("p1.1", MID, "node1", SMALL),
            p("p1.2", NEG, "node1", SMALL),
            p("p1.3", MID, "node1", SMALL),
            p("p1.4", NEG, "node1", SMALL),
            p("p2.1", MID, "node2", LARGE),
            p("p2.2", NEG, "node2", MEDIUM),
            p("p3.1", MID, "node3", MEDIUM),
            p("p3.2", NEG, "node3", SMALL),
            p("p3.3", LOW, "node3", SMALL),
        ],
        {"node2"},
    ),
    "sum of adjusted priorities is considered": (
        ["node1", "node2", "node3"],
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            p("p1.1", MID, "node1", SMALL),
            p("p1.2", NEG, "node1", SMALL),
            p("p1.3", NEG, "node1", SMALL),
            p("p2.1", MID, "node2", LARGE),
            p("p2.2", NEG, "node2", MEDIUM),
            p("p3.1", MID, "node3", MEDIUM),
            p("p3.2", NEG, "node3", SMALL),
            p("p3.3", LOW, "node3", SMALL),
        ],
        {"node2"},
    ),
    "non-overlapping lowest high priority, sum priorities, and number of pods": (
        ["node1", "node2", "node3", "node4"],
        make_pod("p", VERY_HIGH, req=VERY_LARGE),
        [
            p("p1.1", MID, "node1", SMALL),
            p("p1.2", LOW, "node1", SMALL),
            p("p1.3", LOW, "node1", SMALL),
            p("p2.1", HIGH, "node2", LARGE),
            p("p3.1", MID, "node3", MEDIUM),
            p("p3.2", LOW, "node3", SMALL),
            p("p3.3", LOW, "node3", SMALL),
            p("p3.4", LOW, "node3", MEDIUM),
            p("p4.1", MID, "node4", MEDIUM),
            p("p4.2", MID, "node4", SMALL),
            p("p4.3", MID, "node4", SMALL),
            p("p4.4", NEG, "node4", SMALL),
        ],
        {"node1"},
    ),
    "same priority, same number of victims, different start time for each node's pod": (
        ["node1", "node2", "node3"],
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            p("p1.1", MID, "node1", MEDIUM, 2),
            p("p1.2", MID, "node1", MEDIUM, 2),
            p("p2.1", MID, "node2", MEDIUM, 3),
            p("p2.2", MID, "node2", MEDIUM, 3),
            p("p3.1", MID, "node3", MEDIUM, 1),
            p("p3.2", MID, "node3", MEDIUM, 1),
        ],
        {"node2"},
    ),
    "same priority, same number of victims, different start time for all pods": (
        ["node1", "node2", "node3"],
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            p("p1.1", MID, "node1", MEDIUM, 4),
            p("p1.2", MID, "node1", MEDIUM, 2),
            p("p2.1", MID, "node2", MEDIUM, 5),
            p("p2.2", MID, "node2", MEDIUM, 1),
            p("p3.1", MID, "node3", MEDIUM, 3),
            p("p3.2", MID, "node3", MEDIUM, 6),
        ],
        {"node3"},
    ),
    "different priority, same number of victims, different start time for all pods": (
        ["node1", "node2", "node3"],
        make_pod("p", HIGH, req=VERY_LARGE),
        [
            p("p1.1", LOW, "node1", MEDIUM, 4),
            p("p1.2", MID, "node1", MEDIUM, 2),
            p("p2.1", MID, "node2", MEDIUM, 6),
            p("p2.2", LOW, "node2", MEDIUM, 1),
            p("p3.1", LOW, "node3", MEDIUM, 3),
            p("p3.2", MID, "node3", MEDIUM, 5),
        ],
        {"node2"},
    ),
}


@pytest.mark.parametrize(
    ("node_names", "preemptor", "pods", "expected"),
    BEST_CANDIDATE.values(),
    ids=BEST_CANDIDATE.keys(),
)
def test_select_best_candidate(
    node_names: list[str], preemptor: Pod, pods: list[Pod], expected: set[str]
) -> None:
    harness = build([make_node(n, VERY_LARGE) for n in node_names], pods)
    node_infos = harness.node_infos()
    offset, num_candidates = harness.plugin.get_offset_and_num_candidates(len(node_infos))
    candidates, _, _ = harness.plugin.evaluator.dry_run_preemption(
        harness.pre_filtered_state(preemptor), preemptor, node_infos, [], offset, num_candidates
    )
    best = harness.plugin.evaluator.select_candidate(candidates)
    assert best is not None and best.name in expected


def v(name: str, priority: int, start: int | None = 0) -> Pod:
    return make_pod(name, priority, start=None if start is None else epoch(start))


PICK = {
    "1. fewest PDB violations, whatever the priorities": (
        {"n1": Victims((v("a", 0),), 1), "n2": Victims((v("b", 900),), 0)},
        "n2",
    ),
    "2. lowest highest-priority victim": (
        {"n1": Victims((v("a", 500), v("b", 1))), "n2": Victims((v("c", 400), v("d", 300)))},
        "n2",
    ),
    "3. smallest sum of priorities": (
        {"n1": Victims((v("a", 500), v("b", 200))), "n2": Victims((v("c", 500), v("d", 100)))},
        "n2",
    ),
    "3. the sum is of shifted priorities: two negative victims cost more than one": (
        {"n1": Victims((v("a", -100), v("b", -100))), "n2": Victims((v("c", -100),))},
        "n2",
    ),
    # Equal shifted sums with different counts take a victim of priority -2**31.
    "4. fewest victims": (
        {"n1": Victims((v("a", 100), v("b", -(2**31)))), "n2": Victims((v("c", 100),))},
        "n2",
    ),
    "3. with the shift, the sum already prefers fewer victims, even more important ones": (
        {
            "n1": Victims((v("a", 5), v("b", 0), v("c", 0))),
            "n2": Victims((v("d", 5), v("e", 4))),
        },
        "n2",
    ),
    "5. latest start of the highest-priority victims": (
        {
            "n1": Victims((v("a", 5, 10), v("b", 1, 99))),
            "n2": Victims((v("c", 5, 20), v("d", 1, 0))),
        },
        "n2",
    ),
    "5. a victim that has not started counts as starting now": (
        {"n1": Victims((v("a", 5, 10),)), "n2": Victims((v("b", 5, None),))},
        "n2",
    ),
    "6. the first node still tied": (
        {"n2": Victims((v("a", 5),)), "n1": Victims((v("b", 5),))},
        "n2",
    ),
}


@pytest.mark.parametrize(("victims", "expected"), PICK.values(), ids=PICK.keys())
def test_pick_one_node_for_preemption(victims: dict[str, Victims], expected: str) -> None:
    assert pick_one_node_for_preemption(victims, now=1000.0) == expected


def test_no_candidates_pick_no_node() -> None:
    assert pick_one_node_for_preemption({}, now=0.0) == ""


def test_the_shift_keeps_every_term_of_the_sum_positive() -> None:
    assert -(2**31) + PRIORITY_SHIFT == 0


def test_custom_score_functions_replace_the_six_criteria() -> None:
    """``OrderedScoreFuncs``: a plugin's own criteria, processed in order, first tie-break wins."""
    victims = {"n1": Victims((v("a", 0),), 1), "n2": Victims((v("b", 900),), 0)}
    assert pick_one_node_for_preemption(victims, 0.0, [lambda node: node == "n1"]) == "n1"
