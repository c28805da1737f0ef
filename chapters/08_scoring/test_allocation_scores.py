"""Chapter 8: NodeResourcesFit's LeastAllocated and MostAllocated scores, to the integer.

The table cases follow ``TestLeastAllocatedScoringStrategy`` and
``TestMostAllocatedScoringStrategy`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go``
and ``most_allocated_test.go`` (v1.33), told in our own words and reduced to
what the scorer sees: for each configured resource, what would be requested
on the node with the pod on it, and what the node has. (As in Kubernetes'
tests, the numbers are small and only their ratios matter; a resource the
scorer must skip, one the node lacks or an extended one the pod does not
ask for, arrives as allocatable 0.) Two Hypothesis properties close the file:
every score lies in [0, 100], and more requests never make LeastAllocated
like a node more, nor MostAllocated less. Run against your code with
``python -m pytest chapters/08_scoring --exercise``.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.config.args_noderesources import ResourceSpec

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.noderesources.strategies",
    skeleton="exercise.py",
    asks=[
        "least_requested_score",
        "most_requested_score",
        "least_resource_scorer",
        "most_resource_scorer",
    ],
)

CPU_MEMORY = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
MEMORY_TWICE = (ResourceSpec("memory", 2), ResourceSpec("cpu", 1))
WITH_EXTENDED = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1), ResourceSpec("abc.com/xyz", 1))
EXTENDED_FIRST = (
    ResourceSpec("abc.com/xyz", 2),
    ResourceSpec("cpu", 1),
    ResourceSpec("memory", 1),
)

# (resources, requested, allocatable, want), one row per node of Kubernetes' case.
LEAST_ALLOCATED = [
    pytest.param(
        CPU_MEMORY, [0, 0], [4000, 10000], 100, id="nothing scheduled, nothing requested"
    ),
    pytest.param(
        CPU_MEMORY,
        [3000, 5000],
        [4000, 10000],
        37,
        id="nothing scheduled, resources requested, the smaller node",
    ),
    pytest.param(
        CPU_MEMORY,
        [3000, 5000],
        [6000, 10000],
        50,
        id="nothing scheduled, resources requested, the larger node",
    ),
    pytest.param(
        CPU_MEMORY,
        [6000, 0],
        [10000, 20000],
        70,
        id="no resources requested, pods scheduled with resources, node1",
    ),
    pytest.param(
        CPU_MEMORY,
        [6000, 5000],
        [10000, 20000],
        57,
        id="no resources requested, pods scheduled with resources, node2",
    ),
    pytest.param(
        CPU_MEMORY,
        [6000, 10000],
        [10000, 20000],
        45,
        id="resources requested, pods scheduled with resources, node2",
    ),
    pytest.param(
        CPU_MEMORY,
        [6000, 10000],
        [10000, 50000],
        60,
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        CPU_MEMORY, [6000, 0], [4000, 10000], 50, id="requested resources exceed node capacity"
    ),
    pytest.param(
        CPU_MEMORY,
        [6000, 5000],
        [4000, 10000],
        25,
        id="requested cpu exceeds node capacity, half the memory is left",
    ),
    pytest.param(CPU_MEMORY, [0, 0], [0, 0], 0, id="zero node resources"),
    pytest.param(
        MEMORY_TWICE,
        [5000, 3000],
        [10000, 4000],
        41,
        id="resources requested with different weight on CPU and memory",
    ),
    pytest.param(
        WITH_EXTENDED,
        [3000, 5000, 0],
        [6000, 10000, 0],
        50,
        id="bypass extended resource if the pod does not request",
    ),
    pytest.param(
        WITH_EXTENDED,
        [3000, 5000, 2],
        [6000, 10000, 10],
        60,
        id="honor extended resource if the pod requests",
    ),
    pytest.param(
        EXTENDED_FIRST,
        [0, 3000, 4000],
        [0, 6000, 10000],
        55,
        id="if the node doesn't have a resource",
    ),
]

MOST_ALLOCATED = [
    pytest.param(CPU_MEMORY, [0, 0], [4000, 10000], 0, id="nothing scheduled, nothing requested"),
    pytest.param(
        CPU_MEMORY,
        [3000, 5000],
        [4000, 10000],
        62,
        id="nothing scheduled, resources requested, the smaller node",
    ),
    pytest.param(
        CPU_MEMORY,
        [6000, 0],
        [10000, 20000],
        30,
        id="no resources requested, pods scheduled with resources, node1",
    ),
    pytest.param(
        CPU_MEMORY,
        [6000, 5000],
        [10000, 20000],
        42,
        id="no resources requested, pods scheduled with resources, node2",
    ),
    pytest.param(
        CPU_MEMORY,
        [6000, 10000],
        [10000, 20000],
        55,
        id="resources requested, pods scheduled with resources, node2",
    ),
    pytest.param(
        CPU_MEMORY,
        [5000, 9000],
        [5000, 10000],
        95,
        id="resources requested equal node capacity, node1",
    ),
    pytest.param(
        CPU_MEMORY,
        [5000, 9000],
        [10000, 9000],
        75,
        id="resources requested equal node capacity, node2",
    ),
    pytest.param(
        MEMORY_TWICE,
        [5000, 3000],
        [10000, 4000],
        58,
        id="resources requested with different weight on CPU and memory",
    ),
    pytest.param(
        CPU_MEMORY,
        [300, 600 * 1024 * 1024],
        [250, 1000 * 1024 * 1024],
        80,
        id="nonzero requests exceed the node's cpu: capped at 100",
    ),
    pytest.param(
        CPU_MEMORY,
        [100, 200 * 1024 * 1024],
        [250, 1000 * 1024 * 1024],
        30,
        id="nonzero requests of one best-effort pod",
    ),
    pytest.param(
        WITH_EXTENDED,
        [3000, 5000, 0],
        [6000, 10000, 0],
        50,
        id="bypass extended resource if the pod does not request",
    ),
    pytest.param(
        WITH_EXTENDED,
        [3000, 5000, 2],
        [6000, 10000, 10],
        40,
        id="honor extended resource if the pod requests",
    ),
    pytest.param(
        EXTENDED_FIRST,
        [0, 3000, 4000],
        [0, 6000, 10000],
        45,
        id="if the node doesn't have a resource",
    ),
    pytest.param(CPU_MEMORY, [0, 0], [0, 0], 0, id="zero node resources"),
]


@pytest.mark.parametrize(("resources", "requested", "allocatable", "want"), LEAST_ALLOCATED)
def test_least_allocated_scores_the_weighted_free_share(
    impl: ModuleType,
    resources: Sequence[ResourceSpec],
    requested: list[int],
    allocatable: list[int],
    want: int,
) -> None:
    assert impl.least_resource_scorer(resources)(requested, allocatable) == want


@pytest.mark.parametrize(("resources", "requested", "allocatable", "want"), MOST_ALLOCATED)
def test_most_allocated_scores_the_weighted_used_share(
    impl: ModuleType,
    resources: Sequence[ResourceSpec],
    requested: list[int],
    allocatable: list[int],
    want: int,
) -> None:
    assert impl.most_resource_scorer(resources)(requested, allocatable) == want


@pytest.mark.parametrize(
    ("requested", "capacity", "least", "most"),
    [
        pytest.param(0, 4000, 100, 0, id="nothing requested"),
        pytest.param(1000, 4000, 75, 25, id="a quarter requested"),
        pytest.param(1, 3, 66, 33, id="rounded down, both ways"),
        pytest.param(4000, 4000, 0, 100, id="exactly full"),
        pytest.param(6000, 4000, 0, 100, id="more than the node has"),
        pytest.param(0, 0, 0, 0, id="the node has none"),
        pytest.param(5, 0, 0, 0, id="the node has none, something requested"),
    ],
)
def test_one_resource_scores(
    impl: ModuleType, requested: int, capacity: int, least: int, most: int
) -> None:
    assert impl.least_requested_score(requested, capacity) == least
    assert impl.most_requested_score(requested, capacity) == most


def test_a_resource_the_node_lacks_takes_no_part_in_the_mean(impl: ModuleType) -> None:
    # Counted as a 0, the missing resource would pull both means down to 33 and 16.
    resources = (ResourceSpec("gpu", 1), ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
    assert impl.least_resource_scorer(resources)([0, 0, 0], [0, 4000, 8000]) == 100
    assert impl.most_resource_scorer(resources)([0, 2000, 4000], [0, 4000, 8000]) == 50


def test_the_weighted_mean_rounds_down_after_dividing(impl: ModuleType) -> None:
    # cpu 25 and memory 50: a mean of 37.5 is 37; weighting memory 3 gives 175 // 4 = 43.
    assert impl.least_resource_scorer(CPU_MEMORY)([3000, 5000], [4000, 10000]) == 37
    weighted = (ResourceSpec("cpu", 1), ResourceSpec("memory", 3))
    assert impl.least_resource_scorer(weighted)([3000, 5000], [4000, 10000]) == 43


RESOURCE_SETS = st.lists(
    st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(1, 100)),
    min_size=1,
    max_size=4,
)
HEALTH = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)


def split(rows: list[tuple[int, int, int]]) -> tuple[list[ResourceSpec], list[int], list[int]]:
    resources = [ResourceSpec(f"r{i}", weight) for i, (_, _, weight) in enumerate(rows)]
    return resources, [row[0] for row in rows], [row[1] for row in rows]


@HEALTH
@given(rows=RESOURCE_SETS)
def test_every_score_lies_in_0_to_100(impl: ModuleType, rows: list[tuple[int, int, int]]) -> None:
    resources, requested, allocatable = split(rows)
    for scorer in (impl.least_resource_scorer, impl.most_resource_scorer):
        assert 0 <= scorer(resources)(requested, allocatable) <= 100


@HEALTH
@given(rows=RESOURCE_SETS, index=st.integers(0, 3), more=st.integers(1, 10**6))
def test_more_requests_never_raise_least_nor_lower_most(
    impl: ModuleType, rows: list[tuple[int, int, int]], index: int, more: int
) -> None:
    resources, requested, allocatable = split(rows)
    grown = list(requested)
    grown[index % len(grown)] += more
    least, most = impl.least_resource_scorer(resources), impl.most_resource_scorer(resources)
    assert least(grown, allocatable) <= least(requested, allocatable)
    assert most(grown, allocatable) >= most(requested, allocatable)


@HEALTH
@given(capacity=st.integers(1, 10**9), fraction=st.fractions(0, 1))
def test_free_and_used_shares_add_up_to_99_or_100(
    impl: ModuleType, capacity: int, fraction: object
) -> None:
    requested = int(capacity * fraction)  # type: ignore[operator]
    total = impl.least_requested_score(requested, capacity) + impl.most_requested_score(
        requested, capacity
    )
    assert total in (99, 100)
