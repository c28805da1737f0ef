"""PreFilter: backoff, then enough pods, then the cluster's free room for minResources.

The first table is ``TestPreFilter`` of
``kubernetes-sigs/scheduler-plugins:pkg/coscheduling/core/core_test.go``
(two nodes of 4 CPUs each), with the message each failure carries in
``core.go`` and the code ``coscheduling.go`` gives it:
``UnschedulableAndUnresolvable``, so that preemption is not tried. The
resource check is ``TestCheckClusterResource`` of the same file (two nodes
of 3 CPUs each). The backoff case is ``TestPodGroupBackoffTime`` of
``coscheduling_test.go``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from framework.cache.snapshot import new_snapshot
from framework.objects import Pod, PodGroup
from framework.plugins.coscheduling import check_cluster_resource
from framework.plugins.coscheduling.quantity import DECIMAL_SI, GoQuantity
from framework.status import Code, as_status
from tests.plugins.coscheduling.helpers import (
    Setup,
    cycle_state,
    make_node,
    make_pod,
    make_pod_group,
)

NODES = [make_node("node-a", cpu="4"), make_node("node-b", cpu="4")]


@pytest.mark.parametrize(
    ("pod", "pending", "groups", "message"),
    [
        pytest.param(
            make_pod("p"),
            [make_pod("p1", "pg1"), make_pod("p2", "pg2")],
            [make_pod_group("pg1", 1), make_pod_group("pg2", 1)],
            None,
            id="pod does not belong to any pg",
        ),
        pytest.param(
            make_pod("p", "pg-non-existent"),
            [],
            [make_pod_group("pg1", 1)],
            None,
            id="pod belongs to a non-existent pg",
        ),
        pytest.param(
            make_pod("p", "pg1"),
            [make_pod("pg2-1", "pg2")],
            [make_pod_group("pg1", 2), make_pod_group("pg2", 2)],
            "pre-filter pod p cannot find enough sibling pods, current pods number: 1, "
            "minMember of group: 2",
            id="pod count less than minMember",
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [make_pod("p1b", "pg1")],
            [make_pod_group("pg1", 2), make_pod_group("pg2", 2)],
            None,
            id="pod count equal minMember",
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [make_pod("p1b", "pg1"), make_pod("p1c", "pg1")],
            [make_pod_group("pg1", 2), make_pod_group("pg2", 2)],
            None,
            id="pod count more than minMember",
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [make_pod("p1b", "pg1"), make_pod("p1c", "pg1")],
            [make_pod_group("pg1", 2, min_resources={"cpu": "6"})],
            None,
            id="cluster's resource satisfies minResource",
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [make_pod("p1b", "pg1"), make_pod("p1c", "pg1")],
            [make_pod_group("pg1", 2, min_resources={"cpu": "10"})],
            "resource gap: map[cpu:{{2000 -3} {<nil>}  DecimalSI}]",
            id="cluster's resource cannot satisfy minResource",
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [make_pod("p1b", "pg1", namespace="other")],
            [make_pod_group("pg1", 2)],
            "pre-filter pod p1a cannot find enough sibling pods, current pods number: 1, "
            "minMember of group: 2",
            id="pods of the same group name in another namespace do not count",
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [],
            [make_pod_group("pg1")],
            None,
            id="a group without minMember asks for no quorum",
        ),
        pytest.param(
            make_pod("p1a", "pg1"),
            [make_pod("p1b", "pg1")],
            [make_pod_group("pg1", 2, min_resources={"cpu": "8", "pods": "70"})],
            None,
            id="minMember replaces the pods of minResources",
        ),
    ],
)
def test_pre_filter(
    pod: Pod, pending: list[Pod], groups: list[PodGroup], message: str | None
) -> None:
    setup = Setup(pods=[pod, *pending], pod_groups=groups, nodes=NODES)
    plugin = setup.plugin()

    result, status = plugin.pre_filter(cycle_state(), pod, list(setup.fwk.snapshot.list()))

    assert result is None
    if message is None:
        assert as_status(status).is_success()
    else:
        assert (as_status(status).code, as_status(status).message()) == (
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            message,
        )


def test_a_finished_pod_is_no_sibling() -> None:
    """The pods counted are those kube-scheduler's informer lists: not Succeeded, not Failed."""
    setup = Setup(
        pods=[make_pod("p1a", "pg1"), make_pod("p1b", "pg1")],
        pod_groups=[make_pod_group("pg1", 2)],
        nodes=NODES,
    )
    done = setup.api.get(Pod, "p1b", namespace="ns")
    setup.api.update_status(replace(done, status=replace(done.status, phase="Succeeded")))
    plugin = setup.plugin()
    _, status = plugin.pre_filter(cycle_state(), make_pod("p1a", "pg1"), [])
    assert as_status(status).message() == (
        "pre-filter pod p1a cannot find enough sibling pods, current pods number: 1, "
        "minMember of group: 2"
    )


# --- minResources ----------------------------------------------------------------------------

SMALL_NODES = [make_node("node-a", cpu="3"), make_node("node-b", cpu="3")]


@pytest.mark.parametrize(
    ("existing", "gap"),
    [
        pytest.param(
            [make_pod("p1", node_name="node-a", cpu="2")],
            None,
            id="Cluster resource enough",
        ),
        pytest.param(
            [
                make_pod("p1", node_name="node-a", cpu="2"),
                make_pod("p2", node_name="node-b", cpu="1"),
            ],
            "resource gap: map[cpu:{{1000 -3} {<nil>}  DecimalSI}]",
            id="Cluster resource not enough",
        ),
        pytest.param(
            [
                make_pod("p1", "pg1", node_name="node-a", cpu="2"),
                make_pod("p2", node_name="node-b", cpu="1"),
            ],
            None,
            id="Cluster resource enough as p1's resource needs to be excluded from minResources",
        ),
    ],
)
def test_check_cluster_resource(existing: list[Pod], gap: str | None) -> None:
    setup = Setup(pods=existing, nodes=SMALL_NODES)
    request = {"cpu": GoQuantity.new(4, DECIMAL_SI)}
    assert check_cluster_resource(setup.fwk.snapshot.list(), request, "ns/pg1") == gap


def test_a_passed_resource_check_is_remembered_for_permit_waiting_time_seconds() -> None:
    pods = [make_pod("p0", "pg1"), make_pod("p1", "pg1")]
    setup = Setup(
        pods=pods, pod_groups=[make_pod_group("pg1", 2, min_resources={"cpu": "6"})], nodes=NODES
    )
    plugin = setup.plugin({"permitWaitingTimeSeconds": 10})
    assert as_status(plugin.pre_filter(cycle_state(), pods[0], [])[1]).is_success()

    # The room goes (another workload takes 3 of the 8 CPUs) ...
    setup.fwk.snapshot = new_snapshot([make_pod("busy", node_name="node-a", cpu="3")], NODES)
    # ... but for 10 seconds the group is known to have passed.
    setup.clock.advance(10)
    assert as_status(plugin.pre_filter(cycle_state(), pods[1], [])[1]).is_success()
    setup.clock.advance(1)
    _, status = plugin.pre_filter(cycle_state(), pods[1], [])
    assert as_status(status).message() == ("resource gap: map[cpu:{{1000 -3} {<nil>}  DecimalSI}]")


def test_a_group_that_failed_recently_is_turned_away_until_its_backoff_ends() -> None:
    """``TestPodGroupBackoffTime``: Permit, then PostFilter with a backoff, then PreFilter."""
    pods = [make_pod(f"pod{i}", "pg1") for i in (1, 2, 3)]
    setup = Setup(pods=pods, pod_groups=[make_pod_group("pg1", 3)], nodes=NODES)
    plugin = setup.plugin({"podGroupBackoffSeconds": 1})

    status, _ = plugin.permit(cycle_state(), pods[0], "node-a")
    assert as_status(status).code is Code.WAIT
    plugin.post_filter(cycle_state(), pods[1], None)  # type: ignore[arg-type]
    _, status = plugin.pre_filter(cycle_state(), pods[2], [])

    assert (as_status(status).code, as_status(status).message()) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "podGroup ns/pg1 failed recently",
    )
    setup.clock.advance(1)
    assert (
        as_status(plugin.pre_filter(cycle_state(), pods[2], [])[1]).code
        is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    )
    setup.clock.advance(0.001)
    assert as_status(plugin.pre_filter(cycle_state(), pods[2], [])[1]).is_success()
