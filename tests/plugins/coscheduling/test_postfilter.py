"""PostFilter: give up on a doomed group at once, unless it is complete or nearly so.

The first three cases are ``TestPostFilter`` of
``kubernetes-sigs/scheduler-plugins:pkg/coscheduling/coscheduling_test.go``
(v0.33.5); the others follow ``PostFilter`` in ``coscheduling.go``: the
10 % rule (``notAssignedPercentage <= 0.1``, in float32), the rejection of
the waiting members ("optimistic rejection in PostFilter"), the backoff of a
group that has all its pods, and the permitted group forgotten.
"""

from __future__ import annotations

import pytest

from framework.cycle_state import CycleState
from framework.interface import NodeToStatus, PostFilterResult
from framework.objects import Pod
from framework.plugins.coscheduling import MSG_OPTIMISTIC_REJECTION, NAME
from framework.status import Code, Status, as_status
from tests.plugins.coscheduling.helpers import (
    Setup,
    cycle_state,
    make_node,
    make_pod,
    make_pod_group,
)

NODES = [make_node("node", cpu="4")]


def post_filter(setup: Setup, pod: Pod, args: object = None) -> Status:
    plugin = setup.plugin(args)
    result, status = plugin.post_filter(CycleState(), pod, NodeToStatus())
    assert result == PostFilterResult()  # never a nomination
    return as_status(status)


@pytest.mark.parametrize(
    ("pod", "existing", "min_member", "want"),
    [
        pytest.param(
            make_pod("p"),
            [],
            2,
            Status.unschedulable("can not find pod group"),
            id="pod does not belong to any pod group",
        ),
        pytest.param(
            make_pod("p", "pg1"),
            [make_pod("p1", "pg1", node_name="node")],
            1,
            Status.unschedulable(),
            id="enough pods assigned, do not reject all",
        ),
        pytest.param(
            make_pod("p", "pg1"),
            [make_pod("p1", "pg1", node_name="node")],
            2,
            Status.unschedulable(
                "PodGroup ns/pg1 gets rejected due to Pod p is unschedulable even after PostFilter"
            ),
            id="pod failed at filter phase, reject all pods",
        ),
        pytest.param(
            make_pod("p", "pg-missing"),
            [],
            2,
            Status.unschedulable("can not find pod group"),
            id="the group's PodGroup does not exist",
        ),
        pytest.param(
            make_pod("p", "pg1"),
            [make_pod(f"p{i}", "pg1", node_name="node") for i in range(9)],
            10,
            Status.unschedulable(),
            id="a gap of exactly 10 % is left to the next member",
        ),
        pytest.param(
            make_pod("p", "pg1"),
            [make_pod(f"p{i}", "pg1", node_name="node") for i in range(8)],
            10,
            Status.unschedulable(
                "PodGroup ns/pg1 gets rejected due to Pod p is unschedulable even after PostFilter"
            ),
            id="a gap of 20 % rejects the group",
        ),
        pytest.param(
            make_pod("p", "pg1"),
            [make_pod(f"p{i}", "pg1", node_name="node") for i in range(27)],
            30,
            Status.unschedulable(),
            id="3 of 30 missing is 10 % in float32 too",
        ),
    ],
)
def test_post_filter(pod: Pod, existing: list[Pod], min_member: int, want: Status) -> None:
    """Existing members are bound: they count as assigned, as the pod informer reports them."""
    setup = Setup(
        pods=[pod, *existing], pod_groups=[make_pod_group("pg1", min_member)], nodes=NODES
    )
    assert post_filter(setup, pod) == want


def test_post_filter_rejects_the_groups_waiting_members_and_no_one_else() -> None:
    members = [make_pod(f"m{i}", "pg1") for i in range(3)]
    stranger = make_pod("s0", "pg2")
    same_name_elsewhere = make_pod("o0", "pg1", namespace="other")
    setup = Setup(
        pods=[*members, stranger, same_name_elsewhere],
        pod_groups=[
            make_pod_group("pg1", 3),
            make_pod_group("pg2", 2),
            make_pod_group("pg1", 2, namespace="other"),
        ],
        nodes=NODES,
    )
    plugin = setup.plugin()
    for pod in (members[0], members[1], stranger, same_name_elsewhere):
        assert setup.fwk.run_permit_plugins(cycle_state(), pod, "node").is_wait()

    plugin.post_filter(CycleState(), members[2], NodeToStatus())

    decided = {}
    for pod in (members[0], members[1], stranger, same_name_elsewhere):
        waiting = setup.fwk.get_waiting_pod(pod.metadata.uid)
        assert waiting is not None
        waiting.allow(NAME)  # a rejection decided first wins; an intact pod is let through
        decided[pod.name] = waiting.wait()
    assert {n: (s.code, s.plugin, s.message()) for n, s in decided.items()} == {
        "m0": (Code.UNSCHEDULABLE, NAME, MSG_OPTIMISTIC_REJECTION),
        "m1": (Code.UNSCHEDULABLE, NAME, MSG_OPTIMISTIC_REJECTION),
        "s0": (Code.SUCCESS, "", ""),
        "o0": (Code.SUCCESS, "", ""),
    }


@pytest.mark.parametrize(
    ("pods", "backs_off"),
    [(3, True), (2, False)],
    ids=["a group with all its pods backs off", "a group still missing pods does not"],
)
def test_post_filter_backs_the_group_off_only_when_configured_and_complete(
    pods: int, backs_off: bool
) -> None:
    members = [make_pod(f"m{i}", "pg1") for i in range(pods)]
    setup = Setup(pods=members, pod_groups=[make_pod_group("pg1", 3)], nodes=NODES)
    plugin = setup.plugin({"podGroupBackoffSeconds": 30})
    plugin.post_filter(CycleState(), members[0], NodeToStatus())
    assert ("ns/pg1" in plugin.pg_mgr.backed_off_pg) is backs_off

    without = setup.plugin()  # podGroupBackoffSeconds 0: no backoff at all
    without.post_filter(CycleState(), members[0], NodeToStatus())
    assert "ns/pg1" not in without.pg_mgr.backed_off_pg


def test_post_filter_forgets_that_the_group_passed_the_resource_check() -> None:
    members = [make_pod(f"m{i}", "pg1") for i in range(2)]
    group = make_pod_group("pg1", 2, min_resources={"cpu": "1"})
    setup = Setup(pods=members, pod_groups=[group], nodes=NODES)
    plugin = setup.plugin()
    assert as_status(plugin.pre_filter(cycle_state(), members[0], [])[1]).is_success()
    assert "ns/pg1" in plugin.pg_mgr.permitted_pg

    plugin.post_filter(CycleState(), members[0], NodeToStatus())

    assert "ns/pg1" not in plugin.pg_mgr.permitted_pg
