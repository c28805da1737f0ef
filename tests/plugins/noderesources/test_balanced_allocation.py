"""NodeResourcesBalancedAllocation: the standard-deviation score, real requests, and the best-effort Skip.

Score cases port ``TestNodeResourcesBalancedAllocation`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go``
(v1.33: fractions of *real* requests, ``int((1 - std) * 100)``), pinned to
``--emulated-version 1.33``; the v1.36 cases score the *change* in balance
(kubernetes/kubernetes#135573); the PreScore cases follow
kubernetes/kubernetes#130260 (v1.33), which skips best-effort pods; the args
cases port ``TestValidateNodeResourcesBalancedAllocationArgs`` of
``pkg/scheduler/apis/config/validation/validation_pluginargs_test.go``.
"""

from __future__ import annotations

import pytest

from framework.config.args_noderesources import (
    InvalidArgsError,
    NodeResourcesBalancedAllocationArgs,
    ResourceSpec,
)
from framework.cycle_state import CycleState
from framework.interface import PreScorePlugin, ScorePlugin
from framework.objects import Node, Pod
from framework.plugins.noderesources import balanced_allocation
from framework.plugins.noderesources.balanced_allocation import (
    PRE_SCORE_STATE_KEY,
    BalancedAllocation,
    BalancedAllocationPreScoreState,
    balanced_resource_scorer,
)
from framework.status import Code
from tests.plugins.noderesources.helpers import at_release, make_node, make_pod, snapshot

GPU = "nvidia.com/gpu"
V1_33 = at_release("1.33")


def machine(name: str, milli_cpu: int, memory: int, **scalars: int) -> Node:
    """``makeNode(name, milliCPU, memory, extended)`` of the noderesources tests."""
    resources = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    resources.update({GPU if k == "gpu" else k: str(v) for k, v in scalars.items()})
    return make_node(name, resources)


def two_containers(node: str = "", name: str = "p") -> Pod:
    """``cpuAndMemory``: 1000m + 2000m CPU, 2000 + 3000 bytes."""
    return make_pod(
        {"cpu": "1000m", "memory": "2000"},
        {"cpu": "2000m", "memory": "3000"},
        node_name=node,
        name=name,
    )


def cpu_only(node: str = "", name: str = "p") -> Pod:
    """``cpuOnly``: 1000m + 2000m CPU, memory explicitly 0."""
    return make_pod(
        {"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}, node_name=node, name=name
    )


SCORE_CASES = [
    pytest.param(
        two_containers(),
        [machine("machine1", 4000, 10000), machine("machine2", 6000, 10000)],
        [],
        [87, 100],
        id="nothing scheduled, resources requested, differently sized machines",
    ),
    pytest.param(
        two_containers(),
        [machine("machine1", 10000, 20000), machine("machine2", 10000, 20000)],
        [cpu_only("machine1", "e1"), two_containers("machine2", "e2")],
        [82, 95],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        two_containers(),
        [machine("machine1", 10000, 20000), machine("machine2", 10000, 50000)],
        [cpu_only("machine1", "e1"), two_containers("machine2", "e2")],
        [82, 80],
        id="resources requested, pods scheduled with resources, differently sized machines",
    ),
    pytest.param(
        cpu_only(),
        [machine("machine1", 4000, 10000), machine("machine2", 4000, 10000)],
        [cpu_only("machine1", "e1"), two_containers("machine2", "e2")],
        [50, 75],
        id="requested resources exceed node capacity",
    ),
    # Go's case scores a request-less pod, which PreScore now skips; ours requests CPU.
    pytest.param(
        cpu_only(),
        [machine("machine1", 0, 0), machine("machine2", 0, 0)],
        [cpu_only("machine1", "e1"), two_containers("machine2", "e2")],
        [100, 100],
        id="zero node resources, pods scheduled with resources",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "existing", "want"), SCORE_CASES)
def test_balanced_allocation_scores_the_spread_of_the_requested_fractions(
    pod: Pod, nodes: list[Node], existing: list[Pod], want: list[int]
) -> None:
    plugin = BalancedAllocation(None, V1_33)
    infos = snapshot(nodes, existing)
    state = CycleState()
    assert plugin.pre_score(state, pod, infos) is None
    got = [plugin.score(state, pod, info) for info in infos]
    assert got == [(score, None) for score in want]


def test_with_three_resources_the_score_uses_the_population_standard_deviation() -> None:
    # Fractions 0.6, 0.25 and 0.5: mean 0.45, std sqrt(0.065 / 3) = 0.1472, score 85.
    args = NodeResourcesBalancedAllocationArgs(
        (ResourceSpec("cpu", 1), ResourceSpec("memory", 1), ResourceSpec(GPU, 1))
    )
    pod = make_pod({"cpu": "3000m", "memory": "5000", GPU: "1"})
    node = machine("m", 10000, 20000, gpu=2)
    infos = snapshot([node], [cpu_only("m", "e1")])
    plugin = BalancedAllocation(args, V1_33)
    state = CycleState()
    plugin.pre_score(state, pod, infos)
    assert plugin.score(state, pod, infos[0]) == (85, None)
    assert balanced_resource_scorer([6000, 5000, 1], [10000, 20000, 2]) == 85


def test_an_extended_resource_the_pod_does_not_request_is_left_out() -> None:
    args = NodeResourcesBalancedAllocationArgs(
        (ResourceSpec("cpu", 1), ResourceSpec("memory", 1), ResourceSpec(GPU, 1))
    )
    infos = snapshot([machine("m", 4000, 10000, gpu=8)])
    plugin = BalancedAllocation(args, V1_33)
    state = CycleState()
    plugin.pre_score(state, two_containers(), infos)
    # Only cpu (0.75) and memory (0.5) count: std 0.125, as without the GPU.
    assert plugin.score(state, two_containers(), infos[0]) == (87, None)


def test_real_requests_count_so_a_request_less_container_adds_nothing() -> None:
    # NodeResourcesFit would count the existing request-less pod as 100m and 200 MiB.
    infos = snapshot([machine("m", 4000, 10000)], [make_pod({}, node_name="m", name="e")])
    plugin = BalancedAllocation(None, V1_33)
    state = CycleState()
    plugin.pre_score(state, two_containers(), infos)
    assert plugin.score(state, two_containers(), infos[0]) == (87, None)


# v1.36 (kubernetes/kubernetes#135573, balanced_allocation.go): the score is
# MaxNodeScore/2 + (MaxNodeScore/2 + scoreWithPod - scoreWithoutPod) / 2, where each of the
# two is v1.33's score of the node's fractions with and without the pod. 75 means "no change",
# 100 "from fully unbalanced to balanced", 50 the reverse.
CHANGE_CASES = [
    pytest.param(
        two_containers(),
        [machine("machine1", 4000, 10000), machine("machine2", 6000, 10000)],
        [],
        # machine1: 87 with, 100 without (empty): 50 + 37 // 2. machine2: 100 and 100.
        [68, 75],
        id="nothing scheduled: the empty nodes are balanced, so only machine2 keeps it so",
    ),
    pytest.param(
        two_containers(),
        [machine("machine1", 10000, 20000), machine("machine2", 10000, 20000)],
        [cpu_only("machine1", "e1"), two_containers("machine2", "e2")],
        # machine1: 82 with (0.6, 0.25), 85 without (0.3, 0): 50 + 47 // 2.
        # machine2: 95 with (0.6, 0.5), 97 without (0.3, 0.25): 50 + 48 // 2.
        [73, 74],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        make_pod({"cpu": "0", "memory": "4000"}),
        [machine("cpu-heavy", 10000, 20000), machine("empty", 10000, 20000)],
        [make_pod({"cpu": "6000m", "memory": "0"}, node_name="cpu-heavy", name="e1")],
        # cpu-heavy: 0.6 / 0.2 with (80), 0.6 / 0 without (70): the pod evens it out, 50 + 60 // 2.
        # empty: 0 / 0.2 with (90), balanced without (100): 50 + 40 // 2. v1.33 ranked them
        # the other way round (80 and 90): it preferred the node that stays more even.
        [80, 70],
        id="a memory-only pod now prefers the node it evens out",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "existing", "want"), CHANGE_CASES)
def test_since_v1_36_balanced_allocation_scores_the_change_in_balance(
    pod: Pod, nodes: list[Node], existing: list[Pod], want: list[int]
) -> None:
    for release in ("1.36", "1.37"):
        plugin = BalancedAllocation(None, at_release(release))
        infos = snapshot(nodes, existing)
        state = CycleState()
        assert plugin.pre_score(state, pod, infos) is None
        assert [plugin.score(state, pod, info) for info in infos] == [(s, None) for s in want]
        # Without PreScore's state (Score called alone) the same formula applies.
        assert [plugin.score(CycleState(), pod, info) for info in infos] == [
            (s, None) for s in want
        ]
    # v1.35 still scores the balance with the pod alone.
    plugin = BalancedAllocation(None, at_release("1.35"))
    infos = snapshot(nodes, existing)
    state = CycleState()
    plugin.pre_score(state, pod, infos)
    assert [plugin.score(state, pod, info)[0] for info in infos] == [
        balanced_resource_scorer(
            *_lists(info, plugin.scorer.calculate_pod_resource_request_list(pod))
        )
        for info in infos
    ]


def _lists(info: object, requests: list[int]) -> tuple[list[int], list[int]]:
    from framework.node_info import NodeInfo

    assert isinstance(info, NodeInfo)
    requested = [info.requested.milli_cpu + requests[0], info.requested.memory + requests[1]]
    return requested, [info.allocatable.milli_cpu, info.allocatable.memory]


@pytest.mark.parametrize(
    "pod",
    [Pod(), make_pod({}), make_pod({"example.com/dongle": "1"})],
    ids=[
        "no containers",
        "a container without requests",
        "only a resource that is not configured",
    ],
)
def test_pre_score_skips_a_best_effort_pod(pod: Pod) -> None:
    plugin = BalancedAllocation()
    state = CycleState()
    status = plugin.pre_score(state, pod, snapshot([machine("m", 4000, 10000)]))
    assert status is not None and status.code is Code.SKIP
    # Score called anyway, without PreScore's state, gives the best-effort pod 0.
    assert plugin.score(CycleState(), pod, snapshot([machine("m", 4000, 10000)])[0]) == (0, None)


def test_score_without_pre_score_computes_the_requests_itself() -> None:
    infos = snapshot([machine("m", 4000, 10000)])
    assert BalancedAllocation(None, V1_33).score(CycleState(), two_containers(), infos[0]) == (
        87,
        None,
    )
    # From v1.36 the change counts: 87 with the pod, 100 without, so 50 + (50 + 87 - 100) // 2.
    assert BalancedAllocation().score(CycleState(), two_containers(), infos[0]) == (68, None)


def test_pre_score_state_holds_the_real_requests_and_clones_to_itself() -> None:
    state = CycleState()
    BalancedAllocation().pre_score(state, make_pod({"cpu": "1"}, {}), [])
    stored = state.read_as(PRE_SCORE_STATE_KEY, BalancedAllocationPreScoreState)
    assert stored.pod_requests == (1000, 0)
    assert stored.clone() is stored


@pytest.mark.parametrize(
    ("resources", "message"),
    [
        pytest.param((ResourceSpec("cpu", 1), ResourceSpec("memory", 1)), None, id="valid config"),
        pytest.param(
            (ResourceSpec("cpu", 2), ResourceSpec("memory", 1)),
            "resources[0].weight: Invalid value: 2: must be 1",
            id="invalid config, weight is not 1",
        ),
        pytest.param(
            (ResourceSpec("cpu", 1), ResourceSpec("cpu", 1)),
            'resources[1].name: Duplicate value: "cpu"',
            id="invalid config, duplicated resources",
        ),
        pytest.param(
            (ResourceSpec("cpu", 2), ResourceSpec("cpu", 1)),
            '[resources[0].weight: Invalid value: 2: must be 1, resources[1].name: Duplicate value: "cpu"]',
            id="every problem at once",
        ),
    ],
)
def test_balanced_allocation_args_validation(
    resources: tuple[ResourceSpec, ...], message: str | None
) -> None:
    args = NodeResourcesBalancedAllocationArgs(resources)
    if message is None:
        BalancedAllocation(args)
        return
    with pytest.raises(InvalidArgsError) as raised:
        BalancedAllocation(args)
    assert str(raised.value) == message


def test_the_factory_decodes_defaults_and_validates_plugin_config_args() -> None:
    plugin = balanced_allocation.new(None, None)
    assert [(r.name, r.weight) for r in plugin.args.resources] == [("cpu", 1), ("memory", 1)]
    plugin = balanced_allocation.new({"resources": [{"name": "cpu"}, {"name": GPU}]}, None)
    assert [(r.name, r.weight) for r in plugin.args.resources] == [("cpu", 1), (GPU, 1)]
    with pytest.raises(InvalidArgsError, match=r'resources\[0\]\.nam: unknown field "nam"'):
        balanced_allocation.new({"resources": [{"nam": "cpu"}]}, None)
    with pytest.raises(InvalidArgsError, match="want args to be of type"):
        balanced_allocation.new([1], None)
    assert isinstance(plugin, PreScorePlugin) and isinstance(plugin, ScorePlugin)
    assert plugin.name() == "NodeResourcesBalancedAllocation"
    assert plugin.score_extensions() is None
