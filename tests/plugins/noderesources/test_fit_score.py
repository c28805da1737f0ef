"""NodeResourcesFit's PreScore and Score under each strategy, with Kubernetes' worked numbers.

Cases port ``TestFitScore`` (``fit_test.go``),
``TestLeastAllocatedScoringStrategy`` (``least_allocated_test.go``),
``TestMostAllocatedScoringStrategy`` (``most_allocated_test.go``),
``TestRequestedToCapacityRatioScoringStrategy``, ``TestBrokenLinearFunction``,
``TestResourceBinPackingSingleExtended`` and
``TestResourceBinPackingMultipleExtended`` (``requested_to_capacity_ratio_test.go``),
all in ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/``
(v1.33). As there, ``"cpu": "4000"`` is 4000 cores: only ratios matter.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from framework.config.args_noderesources import (
    DEFAULT_RESOURCES,
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    InvalidArgsError,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from framework.cycle_state import CycleState
from framework.interface import PreScorePlugin, ScorePlugin
from framework.objects import Node, Pod
from framework.plugins.helper import go_div
from framework.plugins.noderesources.fit import PRE_SCORE_STATE_KEY, Fit, PreScoreState
from framework.plugins.noderesources.requested_to_capacity_ratio import (
    FunctionShapePoint,
    build_broken_linear_function,
    go_round,
)
from framework.plugins.noderesources.resource_allocation import MSG_RESOURCES_NOT_FOUND
from framework.status import Code
from tests.plugins.noderesources.helpers import capacity, make_node, make_pod, snapshot

EXTENDED = "abc.com/xyz"  # ``extendedRes`` of least_allocated_test.go
EXTENDED_SET = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1), ResourceSpec(EXTENDED, 1))


def req(**resources: str) -> dict[str, str]:
    """A container's requests, by name (``st.MakePod().Req(...)``)."""
    return dict(resources)


def pod(*containers: dict[str, str], node: str = "", name: str = "p") -> Pod:
    return make_pod(*containers, node_name=node, name=name)


def nodes(*sizes: tuple[str, str]) -> list[Node]:
    """``node1``, ``node2``... with (cpu, memory) capacities."""
    return [
        capacity(f"node{i}", {"cpu": cpu, "memory": memory})
        for i, (cpu, memory) in enumerate(sizes, 1)
    ]


def strategy(
    kind: str,
    resources: Sequence[ResourceSpec] = DEFAULT_RESOURCES,
    shape: Sequence[tuple[int, int]] | None = None,
) -> NodeResourcesFitArgs:
    rtcr = None
    if shape is not None:
        rtcr = RequestedToCapacityRatioParam(tuple(UtilizationShapePoint(u, s) for u, s in shape))
    return NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(kind, tuple(resources), rtcr))


def scores(
    args: NodeResourcesFitArgs,
    incoming: Pod,
    all_nodes: Sequence[Node],
    existing: Sequence[Pod] = (),
    *,
    pre_score: bool = True,
) -> list[tuple[str, int]]:
    fit = Fit(args)
    infos = snapshot(all_nodes, existing)
    state = CycleState()
    if pre_score:
        assert fit.pre_score(state, incoming, infos) is None
    result = []
    for info in infos:
        value, status = fit.score(state, incoming, info)
        assert status is None
        result.append((info.name, value))
    return result


SMALL_AND_LARGE = nodes(("4000", "10000"), ("6000", "10000"))
EXISTING = [
    pod(req(cpu="2000", memory="4000"), node="node1", name="e1"),
    pod(req(cpu="1000", memory="2000"), node="node2", name="e2"),
]

FIT_SCORE = [
    pytest.param(
        strategy(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 10), (100, 0)]),
        pod(req(cpu="3000", memory="5000")),
        [("node1", 10), ("node2", 32)],
        id="test case for ScoringStrategy RequestedToCapacityRatio case1",
    ),
    pytest.param(
        strategy(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 0), (100, 10)]),
        pod(req(cpu="3000", memory="5000")),
        [("node1", 95), ("node2", 68)],
        id="test case for ScoringStrategy RequestedToCapacityRatio case2",
    ),
    pytest.param(
        strategy(MOST_ALLOCATED),
        pod(req(cpu="1000", memory="2000")),
        [("node1", 67), ("node2", 36)],
        id="test case for ScoringStrategy MostAllocated",
    ),
    pytest.param(
        strategy(LEAST_ALLOCATED),
        pod(req(cpu="1000", memory="2000")),
        [("node1", 32), ("node2", 63)],
        id="test case for ScoringStrategy LeastAllocated",
    ),
]


@pytest.mark.parametrize("pre_score", [True, False], ids=["", "if PreScore is not called"])
@pytest.mark.parametrize(("args", "incoming", "want"), FIT_SCORE)
def test_fit_score_by_strategy(
    args: NodeResourcesFitArgs, incoming: Pod, want: list[tuple[str, int]], pre_score: bool
) -> None:
    assert scores(args, incoming, SMALL_AND_LARGE, EXISTING, pre_score=pre_score) == want


TWO_CONTAINERS = pod(req(cpu="1000", memory="2000"), req(cpu="2000", memory="3000"))
BIG = nodes(("10000", "20000"), ("10000", "20000"))

LEAST_ALLOCATED_CASES = [
    pytest.param(
        pod(),
        nodes(("4000", "10000"), ("4000", "10000")),
        [],
        DEFAULT_RESOURCES,
        [("node1", 100), ("node2", 100)],
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        TWO_CONTAINERS,
        SMALL_AND_LARGE,
        [],
        DEFAULT_RESOURCES,
        [("node1", 37), ("node2", 50)],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        pod(),
        nodes(("4000", "10000"), ("4000", "10000")),
        [pod(node="node1", name=f"e{i}") for i in range(2)]
        + [pod(node="node2", name=f"f{i}") for i in range(2)],
        DEFAULT_RESOURCES,
        [("node1", 100), ("node2", 100)],
        id="no resources requested, pods scheduled",
    ),
    pytest.param(
        pod(),
        BIG,
        [
            pod(req(cpu="3000", memory="0"), node="node1", name="e1"),
            pod(req(cpu="3000", memory="0"), node="node1", name="e2"),
            pod(req(cpu="3000", memory="0"), node="node2", name="e3"),
            pod(req(cpu="3000", memory="5000"), node="node2", name="e4"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 70), ("node2", 57)],
        id="no resources requested, pods scheduled with resources",
    ),
    pytest.param(
        TWO_CONTAINERS,
        BIG,
        [
            pod(req(cpu="3000", memory="0"), node="node1", name="e1"),
            pod(req(cpu="3000", memory="5000"), node="node2", name="e2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 57), ("node2", 45)],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        TWO_CONTAINERS,
        nodes(("10000", "20000"), ("10000", "50000")),
        [
            pod(req(cpu="3000", memory="0"), node="node1", name="e1"),
            pod(req(cpu="3000", memory="5000"), node="node2", name="e2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 57), ("node2", 60)],
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        pod(req(cpu="3000", memory="0")),
        nodes(("4000", "10000"), ("4000", "10000")),
        [
            pod(req(cpu="3000", memory="0"), node="node1", name="e1"),
            pod(req(cpu="3000", memory="5000"), node="node2", name="e2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 50), ("node2", 25)],
        id="requested resources exceed node capacity",
    ),
    pytest.param(
        pod(),
        [make_node("node1"), make_node("node2")],
        [
            pod(req(cpu="3000", memory="0"), node="node1", name="e1"),
            pod(req(cpu="3000", memory="5000"), node="node2", name="e2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 0), ("node2", 0)],
        id="zero node resources, pods scheduled with resources",
    ),
    pytest.param(
        TWO_CONTAINERS,
        SMALL_AND_LARGE,
        [],
        (ResourceSpec("memory", 2), ResourceSpec("cpu", 1)),
        [("node1", 41), ("node2", 50)],
        id="nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes",
    ),
    pytest.param(
        TWO_CONTAINERS,
        [
            capacity("node1", {"cpu": "6000", "memory": "10000"}),
            capacity("node2", {"cpu": "6000", "memory": "10000", EXTENDED: "4"}),
        ],
        [],
        EXTENDED_SET,
        [("node1", 50), ("node2", 50)],
        id="bypass extended resource if the pod does not request",
    ),
    pytest.param(
        pod({"cpu": "3000", "memory": "5000", EXTENDED: "2"}),
        [
            capacity("node1", {"cpu": "6000", "memory": "10000", EXTENDED: "4"}),
            capacity("node2", {"cpu": "6000", "memory": "10000", EXTENDED: "10"}),
        ],
        [],
        EXTENDED_SET,
        [("node1", 50), ("node2", 60)],
        id="honor extended resource if the pod requests",
    ),
    pytest.param(
        pod(req(cpu="3000", memory="4000")),
        [
            capacity("node1", {"cpu": "6000", "memory": "10000"}),
            capacity("node2", {"cpu": "6000", "memory": "10000", EXTENDED: "4"}),
        ],
        [],
        (ResourceSpec(EXTENDED, 2), ResourceSpec("cpu", 1), ResourceSpec("memory", 1)),
        [("node1", 55), ("node2", 55)],
        id="if the node doesn't have a resource",
    ),
]


@pytest.mark.parametrize(
    ("incoming", "all_nodes", "existing", "resources", "want"), LEAST_ALLOCATED_CASES
)
def test_least_allocated_prefers_the_emptiest_node(
    incoming: Pod,
    all_nodes: list[Node],
    existing: list[Pod],
    resources: Sequence[ResourceSpec],
    want: list[tuple[str, int]],
) -> None:
    assert scores(strategy(LEAST_ALLOCATED, resources), incoming, all_nodes, existing) == want


MOST_ALLOCATED_CASES = [
    pytest.param(
        pod(),
        nodes(("4000", "10000"), ("4000", "10000")),
        [],
        DEFAULT_RESOURCES,
        [("node1", 0), ("node2", 0)],
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        TWO_CONTAINERS,
        SMALL_AND_LARGE,
        [],
        DEFAULT_RESOURCES,
        [("node1", 62), ("node2", 50)],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        pod(),
        BIG,
        [
            pod(req(cpu="3000", memory="0"), node="node1", name="e1"),
            pod(req(cpu="3000", memory="0"), node="node1", name="e2"),
            pod(req(cpu="3000", memory="0"), node="node2", name="e3"),
            pod(req(cpu="3000", memory="5000"), node="node2", name="e4"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 30), ("node2", 42)],
        id="no resources requested, pods scheduled with resources",
    ),
    pytest.param(
        TWO_CONTAINERS,
        BIG,
        [
            pod(req(cpu="3000", memory="0"), node="node1", name="e1"),
            pod(req(cpu="3000", memory="5000"), node="node2", name="e2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 42), ("node2", 55)],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        pod(req(cpu="2000", memory="4000"), req(cpu="3000", memory="5000")),
        nodes(("5000", "10000"), ("10000", "9000")),
        [],
        DEFAULT_RESOURCES,
        [("node1", 95), ("node2", 75)],
        id="resources requested equal node capacity",
    ),
    pytest.param(
        TWO_CONTAINERS,
        SMALL_AND_LARGE,
        [],
        (ResourceSpec("memory", 2), ResourceSpec("cpu", 1)),
        [("node1", 58), ("node2", 50)],
        id="nothing scheduled, resources requested with different weight on CPU and memory",
    ),
    pytest.param(
        pod({}),
        nodes(("250m", "1000Mi"), ("250m", "1000Mi")),
        [pod({}, node="node1", name="e1"), pod({}, node="node1", name="e2")],
        DEFAULT_RESOURCES,
        [("node1", 80), ("node2", 30)],
        id="no resources requested, pods scheduled, nonzero request for resource",
    ),
    pytest.param(
        TWO_CONTAINERS,
        [
            capacity("node1", {"cpu": "6000", "memory": "10000"}),
            capacity("node2", {"cpu": "6000", "memory": "10000", EXTENDED: "4"}),
        ],
        [],
        EXTENDED_SET,
        [("node1", 50), ("node2", 50)],
        id="bypass extended resource if the pod does not request",
    ),
    pytest.param(
        pod({"cpu": "3000", "memory": "5000", EXTENDED: "2"}),
        [
            capacity("node1", {"cpu": "6000", "memory": "10000", EXTENDED: "4"}),
            capacity("node2", {"cpu": "6000", "memory": "10000", EXTENDED: "10"}),
        ],
        [],
        EXTENDED_SET,
        [("node1", 50), ("node2", 40)],
        id="honor extended resource if the pod request",
    ),
    pytest.param(
        pod(req(cpu="3000", memory="4000")),
        [
            capacity("node1", {"cpu": "6000", "memory": "10000"}),
            capacity("node2", {"cpu": "6000", "memory": "10000", EXTENDED: "4"}),
        ],
        [],
        (ResourceSpec(EXTENDED, 2), ResourceSpec("cpu", 1), ResourceSpec("memory", 1)),
        [("node1", 45), ("node2", 45)],
        id="if the node doesn't have a resource",
    ),
]


@pytest.mark.parametrize(
    ("incoming", "all_nodes", "existing", "resources", "want"), MOST_ALLOCATED_CASES
)
def test_most_allocated_prefers_the_fullest_node(
    incoming: Pod,
    all_nodes: list[Node],
    existing: list[Pod],
    resources: Sequence[ResourceSpec],
    want: list[tuple[str, int]],
) -> None:
    assert scores(strategy(MOST_ALLOCATED, resources), incoming, all_nodes, existing) == want


@pytest.mark.parametrize("kind", [LEAST_ALLOCATED, MOST_ALLOCATED])
def test_a_strategy_without_resources_scores_with_an_error(kind: str) -> None:
    """ "Resources not set, pods scheduled with error": Score answers Error, score 0."""
    fit = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(kind)))
    info = snapshot(SMALL_AND_LARGE)[0]
    state = CycleState()
    fit.pre_score(state, TWO_CONTAINERS, [info])
    value, status = fit.score(state, TWO_CONTAINERS, info)
    assert value == 0 and status is not None
    assert (status.code, status.message()) == (Code.ERROR, MSG_RESOURCES_NOT_FOUND)


@pytest.mark.parametrize(
    ("resources", "message"),
    [
        (
            (ResourceSpec("memory", -1), ResourceSpec("cpu", 1)),
            "scoringStrategy.resources[0].weight: Invalid value: -1: "
            "resource weight of memory not in valid range (0, 100]",
        ),
        (
            (ResourceSpec("memory", 1), ResourceSpec("cpu", 0)),
            "scoringStrategy.resources[1].weight: Invalid value: 0: "
            "resource weight of cpu not in valid range (0, 100]",
        ),
        (
            (ResourceSpec("memory", 1), ResourceSpec("cpu", 101)),
            "scoringStrategy.resources[1].weight: Invalid value: 101: "
            "resource weight of cpu not in valid range (0, 100]",
        ),
    ],
    ids=[
        "resource with negative weight",
        "resource with zero weight",
        "resource weight larger than MaxNodeScore",
    ],
)
def test_a_strategy_weight_outside_1_to_100_is_refused_at_construction(
    resources: tuple[ResourceSpec, ...], message: str
) -> None:
    with pytest.raises(InvalidArgsError) as raised:
        Fit(strategy(LEAST_ALLOCATED, resources))
    assert str(raised.value) == message


RTCR_SHAPE = [(0, 10), (100, 0)]

RTCR_CASES = [
    pytest.param(
        pod(),
        nodes(("4000", "10000"), ("4000", "10000")),
        [pod(node="node1", name="e1"), pod(node="node1", name="e2")],
        [("node1", 100), ("node2", 100)],
        id="nothing scheduled, nothing requested (default - least requested nodes have priority)",
    ),
    pytest.param(
        TWO_CONTAINERS,
        SMALL_AND_LARGE,
        [pod(node="node1", name="e1"), pod(node="node1", name="e2")],
        [("node1", 38), ("node2", 50)],
        id="nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",  # noqa: E501
    ),
    pytest.param(
        pod(),
        SMALL_AND_LARGE,
        [
            pod(req(cpu="3000", memory="5000"), node="node1", name="e1"),
            pod(req(cpu="3000", memory="5000"), node="node2", name="e2"),
        ],
        [("node1", 38), ("node2", 50)],
        id="no resources requested, pods scheduled with resources (default - least requested nodes have priority)",
    ),
]


@pytest.mark.parametrize(("incoming", "all_nodes", "existing", "want"), RTCR_CASES)
def test_requested_to_capacity_ratio_follows_the_shape(
    incoming: Pod, all_nodes: list[Node], existing: list[Pod], want: list[tuple[str, int]]
) -> None:
    args = strategy(REQUESTED_TO_CAPACITY_RATIO, shape=RTCR_SHAPE)
    assert scores(args, incoming, all_nodes, existing) == want


def foo_node(name: str, foo: int, bar: int | None = None) -> Node:
    """``makeNode(name, 4000, 10000*1024*1024, {"intel.com/foo": foo, ...})``."""
    resources = {"cpu": "4", "memory": str(10000 * 1024 * 1024), "intel.com/foo": str(foo)}
    if bar is not None:
        resources["intel.com/bar"] = str(bar)
    return make_node(name, resources)


@pytest.mark.parametrize(
    ("incoming", "existing", "want"),
    [
        pytest.param(
            pod(),
            [pod(name="e")],
            [("node1", 0), ("node2", 0)],
            id="nothing scheduled, nothing requested",
        ),
        pytest.param(
            pod({"intel.com/foo": "2"}),
            [pod(name="e")],
            [("node1", 2), ("node2", 5)],
            id="resources requested, pods scheduled with less resources",
        ),
        pytest.param(
            pod({"intel.com/foo": "2"}),
            [pod({"intel.com/foo": "2"}, node="node2", name="e")],
            [("node1", 2), ("node2", 10)],
            id="resources requested, pods scheduled with resources, on node with existing pod running",
        ),
        pytest.param(
            pod({"intel.com/foo": "4"}),
            [pod(name="e")],
            [("node1", 5), ("node2", 10)],
            id="resources requested, pods scheduled with more resources",
        ),
    ],
)
def test_bin_packing_of_a_single_extended_resource(
    incoming: Pod, existing: list[Pod], want: list[tuple[str, int]]
) -> None:
    """``TestResourceBinPackingSingleExtended``: shape (0, 0), (100, 1) on intel.com/foo alone."""
    args = strategy(
        REQUESTED_TO_CAPACITY_RATIO, (ResourceSpec("intel.com/foo", 1),), [(0, 0), (100, 1)]
    )
    all_nodes = [foo_node("node1", 8), foo_node("node2", 4)]
    assert scores(args, incoming, all_nodes, existing) == want


FOO2_BAR2 = {"intel.com/foo": "2", "intel.com/bar": "2"}
FOO4_BAR2 = {"intel.com/foo": "4", "intel.com/bar": "2"}


@pytest.mark.parametrize(
    ("incoming", "existing", "want"),
    [
        pytest.param(
            pod(), [], [("node1", 0), ("node2", 0)], id="nothing scheduled, nothing requested"
        ),
        pytest.param(
            pod(FOO2_BAR2),
            [pod(name="e")],
            [("node1", 4), ("node2", 3)],
            id="resources requested, pods scheduled with less resources",
        ),
        pytest.param(
            pod(FOO2_BAR2),
            [pod(FOO4_BAR2, node="node2", name="e")],
            [("node1", 4), ("node2", 7)],
            id="resources requested, pods scheduled with resources, on node with existing pod running",
        ),
        pytest.param(
            pod(FOO4_BAR2),
            [pod(name="e")],
            [("node1", 5), ("node2", 5)],
            id="resources requested, pods scheduled with more resources",
        ),
    ],
)
def test_bin_packing_of_two_weighted_extended_resources(
    incoming: Pod, existing: list[Pod], want: list[tuple[str, int]]
) -> None:
    """``TestResourceBinPackingMultipleExtended``: foo weight 3, bar weight 5, shape (0, 0), (100, 1).

    The per-resource scores are 0-10 and the mean is rounded: node1 of the
    second case is (2*3 + 5*5) / 8 = 3.875, which rounds to 4; a request
    above the capacity counts as 100% utilization (node2 of the third case).
    """
    args = strategy(
        REQUESTED_TO_CAPACITY_RATIO,
        (ResourceSpec("intel.com/foo", 3), ResourceSpec("intel.com/bar", 5)),
        [(0, 0), (100, 1)],
    )
    all_nodes = [foo_node("node1", 8, bar=4), foo_node("node2", 4, bar=8)]
    assert scores(args, incoming, all_nodes, existing) == want


BROKEN_LINES = [
    pytest.param(
        [(10, 1), (90, 9)],
        [
            (-10, 1),
            (0, 1),
            (9, 1),
            (10, 1),
            (15, 1),
            (19, 1),
            (20, 2),
            (89, 8),
            (90, 9),
            (99, 9),
            (100, 9),
            (110, 9),
        ],
        id="case_0",
    ),
    pytest.param(
        [(0, 2), (40, 10), (100, 0)],
        [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
        id="case_1",
    ),
    pytest.param(
        [(0, 2), (40, 2), (100, 2)],
        [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)],
        id="case_2",
    ),
    # Our own: on a falling segment Go truncates toward zero; floor division would give 9.
    pytest.param(
        [(0, 2), (40, 10), (100, 0)],
        [(41, 10), (46, 9)],
        id="falling segment truncates toward zero",
    ),
]


@pytest.mark.parametrize(("points", "assertions"), BROKEN_LINES)
def test_broken_linear_function(
    points: list[tuple[int, int]], assertions: list[tuple[int, int]]
) -> None:
    """``TestBrokenLinearFunction``."""
    line = build_broken_linear_function([FunctionShapePoint(u, s) for u, s in points])
    assert [(p, line(p)) for p, _ in assertions] == assertions


def test_go_integer_division_and_rounding() -> None:
    assert [go_div(7, 2), go_div(-7, 2), go_div(7, -2), go_div(-7, -2)] == [3, -3, -3, 3]
    assert [go_round(x) for x in (36.5, 37.5, -0.5, 0.49999999999999994, 2.4)] == [
        37.0,
        38.0,
        -1.0,
        0.0,
        2.0,
    ]


def test_rtcr_without_its_shape_object_is_refused_instead_of_crashing() -> None:
    # kube-scheduler v1.33 passes validation and then dereferences nil in NewFit.
    with pytest.raises(InvalidArgsError, match=r"requestedToCapacityRatio is required"):
        Fit(strategy(REQUESTED_TO_CAPACITY_RATIO))


def test_pre_score_stores_the_non_zero_requests_of_the_strategy_resources() -> None:
    fit = Fit()
    state = CycleState()
    assert fit.pre_score(state, pod({}, {"cpu": "1"}), []) is None
    stored = state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)
    # The request-less container counts as 100m and 200 MiB; the other as 1 CPU and 200 MiB.
    assert stored.pod_requests == (1100, 2 * 200 * 1024 * 1024)
    assert stored.clone() is stored
    assert isinstance(fit, PreScorePlugin) and isinstance(fit, ScorePlugin)
    assert fit.score_extensions() is None
