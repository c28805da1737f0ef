"""The PodGroupManager's book of assigned members, Unreserve, the wait time, and the events.

Expectations from ``kubernetes-sigs/scheduler-plugins`` v0.33.5:
``pkg/coscheduling/core/core.go`` (``AddPodFactory`` counts a pod that
arrives with a node, the delete handler and ``Unreserve`` uncount it,
``Permit`` counts the pod at hand), ``pkg/coscheduling/coscheduling.go``
(``Unreserve`` rejects the waiting members, "rejection in Unreserve";
``EventsToRegister``) and ``pkg/util/podgroup.go`` (``GetWaitTimeDuration``).
The learner's half, Permit, is tested in ``chapters/10_coscheduling``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from framework.cluster_event import ActionType, ClusterEvent, EventResource
from framework.cycle_state import CycleState
from framework.objects import Pod, PodGroup
from framework.plugins.coscheduling import (
    MSG_REJECTION_IN_UNRESERVE,
    NAME,
    get_wait_time_duration,
    new,
)
from framework.status import Code
from tests.plugins.coscheduling.helpers import (
    Setup,
    cycle_state,
    make_node,
    make_pod,
    make_pod_group,
)

NODES = [make_node("node", cpu="8")]


def test_the_informer_counts_pods_that_arrive_with_a_node_and_uncounts_those_that_go() -> None:
    setup = Setup(
        pods=[make_pod("b0", "pg", node_name="node"), make_pod("w0", "pg")],
        pod_groups=[make_pod_group("pg", 3)],
        nodes=NODES,
    )
    manager = setup.plugin().pg_mgr
    assert manager.assigned_pods() == {"ns/pg": frozenset({"b0"})}  # listed at start

    setup.api.create(make_pod("b1", "pg", node_name="node"))
    assert manager.get_assigned_pod_count("ns/pg") == 2  # added with a node

    finished = setup.api.get(Pod, "b1", namespace="ns")
    setup.api.update_status(replace(finished, status=replace(finished.status, phase="Failed")))
    assert manager.assigned_pods() == {"ns/pg": frozenset({"b0"})}  # left the informer's view

    setup.api.delete(Pod, "b0", namespace="ns")
    assert manager.assigned_pods() == {}  # deleted; an emptied group leaves nothing behind

    setup.api.delete(Pod, "w0", namespace="ns")  # never had a node: nothing to uncount
    assert manager.assigned_pods() == {}


def test_unreserve_uncounts_the_pod_and_rejects_the_groups_waiting_members() -> None:
    members = [make_pod(f"m{i}", "pg") for i in range(3)]
    stranger = make_pod("s0", "other-pg")
    setup = Setup(
        pods=[*members, stranger],
        pod_groups=[make_pod_group("pg", 3), make_pod_group("other-pg", 2)],
        nodes=NODES,
    )
    plugin = setup.plugin()
    for pod in (members[0], members[1], stranger):
        assert setup.fwk.run_permit_plugins(cycle_state(), pod, "node").is_wait()
    # m2 got a node and passed Permit ... then its binding failed.
    assert plugin.pg_mgr.permit(cycle_state(), members[2]).value == "Success"
    setup.fwk.run_reserve_plugins_unreserve(CycleState(), members[2], "node")

    assert plugin.pg_mgr.assigned_pods() == {
        "ns/pg": frozenset({"m0", "m1"}),
        "ns/other-pg": frozenset({"s0"}),
    }
    outcomes = {}
    for pod in (members[0], members[1], stranger):
        waiting = setup.fwk.get_waiting_pod(pod.metadata.uid)
        assert waiting is not None
        waiting.allow(NAME)
        outcomes[pod.name] = waiting.wait()
    assert {n: (s.code, s.plugin, s.message()) for n, s in outcomes.items()} == {
        "m0": (Code.UNSCHEDULABLE, NAME, MSG_REJECTION_IN_UNRESERVE),
        "m1": (Code.UNSCHEDULABLE, NAME, MSG_REJECTION_IN_UNRESERVE),
        "s0": (Code.SUCCESS, "", ""),
    }


def test_unreserve_is_idempotent_and_ignores_pods_without_a_podgroup() -> None:
    members = [make_pod("m0", "pg"), make_pod("m1", "pg")]
    loner, orphan = make_pod("loner"), make_pod("orphan", "no-such-group")
    setup = Setup(pods=[*members, loner, orphan], pod_groups=[make_pod_group("pg", 3)])
    plugin = setup.plugin()
    for pod in members:
        plugin.pg_mgr.permit(cycle_state(), pod)

    for _ in range(2):
        plugin.unreserve(CycleState(), members[1], "node")
    plugin.unreserve(CycleState(), loner, "node")
    plugin.unreserve(CycleState(), orphan, "node")

    assert plugin.pg_mgr.assigned_pods() == {"ns/pg": frozenset({"m0"})}


def test_unreserve_forgets_that_the_group_passed_the_resource_check() -> None:
    members = [make_pod("m0", "pg"), make_pod("m1", "pg")]
    group = make_pod_group("pg", 2, min_resources={"cpu": "1"})
    setup = Setup(pods=members, pod_groups=[group], nodes=NODES)
    plugin = setup.plugin()
    plugin.pre_filter(cycle_state(), members[0], [])
    assert "ns/pg" in plugin.pg_mgr.permitted_pg
    plugin.unreserve(CycleState(), members[0], "node")
    assert "ns/pg" not in plugin.pg_mgr.permitted_pg


def test_reserve_does_nothing() -> None:
    setup = Setup(pods=[make_pod("m0", "pg")], pod_groups=[make_pod_group("pg", 2)])
    plugin = setup.plugin()
    assert plugin.reserve(CycleState(), make_pod("m0", "pg"), "node") is None
    assert plugin.pg_mgr.assigned_pods() == {}


@pytest.mark.parametrize(
    ("timeout", "args", "want"),
    [
        (5, 10.0, 5.0),
        (0, 10.0, 0.0),
        (-3, 10.0, -3.0),
        (None, 10.0, 10.0),
        (None, 0.0, 60.0),
        (None, None, 60.0),
    ],
    ids=[
        "the PodGroup's scheduleTimeoutSeconds first",
        "even 0 (the plugin then keeps its own)",
        "even negative (the CRD allows it)",
        "else permitWaitingTimeSeconds",
        "a zero permitWaitingTimeSeconds falls back to 60 s",
        "no PodGroup, no args: 60 s",
    ],
)
def test_get_wait_time_duration(timeout: int | None, args: float | None, want: float) -> None:
    pg = make_pod_group("pg", 2, schedule_timeout_seconds=timeout)
    group: PodGroup | None = pg if args is not None or timeout is not None else None
    assert get_wait_time_duration(group, args) == want


def test_events_to_register_are_a_pod_added_and_a_podgroup_added_or_updated() -> None:
    events = new(None, None).events_to_register()
    assert [(e.event, e.queueing_hint_fn) for e in events] == [
        (ClusterEvent(EventResource.POD, ActionType.ADD), None),
        (
            ClusterEvent(
                EventResource.POD_GROUP,
                ActionType.ADD | ActionType.UPDATE,
            ),
            None,
        ),
    ]
    assert EventResource.POD_GROUP.value == "podgroups.v1alpha1.scheduling.x-k8s.io"


def test_without_a_handle_every_pod_is_in_a_group_without_a_podgroup() -> None:
    """``new(None, None)``, as the registry test builds every plugin: no client, no PodGroups."""
    plugin = new(None, None)
    pod = make_pod("m0", "pg")
    assert plugin.pg_mgr.get_pod_group(pod) == ("ns/pg", None)
    assert plugin.pg_mgr.sibling_pods(pod) == []
