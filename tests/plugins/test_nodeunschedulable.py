"""NodeUnschedulable: the cordon filter, toleration matching, its events and its hints.

The Filter and hint cases follow ``TestNodeUnschedulable``,
``TestIsSchedulableAfterNodeChange`` and
``TestIsSchedulableAfterPodTolerationChange`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go``
(v1.33), in our own words; the toleration table follows
``Toleration.ToleratesTaint`` (``staging/src/k8s.io/api/core/v1/toleration.go``).
The last tests run the plugin in a scheduler on the fake API server.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.cycle_state import CycleState
from framework.interface import EnqueueExtensions, FilterPlugin
from framework.node_info import NodeInfo
from framework.objects import Event, Node, Pod, Taint, Toleration
from framework.plugins import nodeunschedulable
from framework.plugins.nodeunschedulable import (
    ERR_REASON_UNSCHEDULABLE,
    UNSCHEDULABLE_TAINT,
    NodeUnschedulable,
    toleration_tolerates_taint,
    tolerations_tolerate_taint,
)
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import Framework
from framework.status import Code
from tests.scheduler.helpers import Cluster
from tests.scheduler.helpers import pod as cpu_pod

UNSCHEDULABLE_KEY = "node.kubernetes.io/unschedulable"


def make_node(name: str = "n1", *, unschedulable: bool = False, taints: Any = ()) -> Node:
    return Node.from_dict(
        {
            "metadata": {"name": name},
            "spec": {"unschedulable": unschedulable, "taints": list(taints)},
            "status": {"allocatable": {"cpu": "2", "pods": "110"}},
        }
    )


def make_pod(name: str = "p", uid: str = "uid", tolerations: Any = ()) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": uid},
            "spec": {"tolerations": list(tolerations)},
        }
    )


def info(node: Node | None) -> NodeInfo:
    node_info = NodeInfo()
    if node is not None:
        node_info.set_node(node)
    return node_info


# --- Filter ---------------------------------------------------------------------------------


FILTER_CASES = [
    pytest.param(
        make_pod(),
        make_node(unschedulable=True),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        id="does not schedule a pod to an unschedulable node",
    ),
    pytest.param(make_pod(), make_node(), Code.SUCCESS, id="schedules a pod to a normal node"),
    pytest.param(
        make_pod(tolerations=[{"key": UNSCHEDULABLE_KEY, "effect": "NoSchedule"}]),
        make_node(unschedulable=True),
        Code.SUCCESS,
        id="schedules a pod that tolerates the taint to an unschedulable node",
    ),
    pytest.param(
        make_pod(tolerations=[{"operator": "Exists"}]),
        make_node(unschedulable=True),
        Code.SUCCESS,
        id="a toleration of everything tolerates the cordon",
    ),
    pytest.param(
        make_pod(tolerations=[{"key": UNSCHEDULABLE_KEY, "operator": "Exists"}]),
        make_node(unschedulable=True),
        Code.SUCCESS,
        id="a toleration of the key with every effect tolerates the cordon",
    ),
    pytest.param(
        make_pod(
            tolerations=[{"key": UNSCHEDULABLE_KEY, "operator": "Exists", "effect": "NoExecute"}]
        ),
        make_node(unschedulable=True),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        id="a toleration of another effect does not",
    ),
    pytest.param(
        make_pod(tolerations=[{"key": "dedicated", "operator": "Exists"}]),
        make_node(unschedulable=True),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        id="a toleration of another key does not",
    ),
    pytest.param(
        make_pod(),
        make_node(taints=[{"key": UNSCHEDULABLE_KEY, "effect": "NoSchedule"}]),
        Code.SUCCESS,
        id="the taint alone is TaintToleration's business, not this plugin's",
    ),
]


@pytest.mark.parametrize(("pod", "node", "code"), FILTER_CASES)
def test_filter(pod: Pod, node: Node, code: Code) -> None:
    status = NodeUnschedulable().filter(CycleState(), pod, info(node))
    if code is Code.SUCCESS:
        assert status is None
    else:
        assert status is not None
        assert (status.code, status.reasons) == (code, (ERR_REASON_UNSCHEDULABLE,))


def test_the_reason_is_kubernetes_exact_words() -> None:
    assert ERR_REASON_UNSCHEDULABLE == "node(s) were unschedulable"
    assert nodeunschedulable.ERR_REASON_UNKNOWN_CONDITION == "node(s) had unknown conditions"


def test_a_node_info_without_a_node_is_an_error_not_a_rejection() -> None:
    status = NodeUnschedulable().filter(CycleState(), make_pod(), info(None))
    assert status is not None and status.code is Code.ERROR
    assert "node not found" in status.message()


def test_through_the_runner_the_rejection_names_the_plugin() -> None:
    fwk = Framework.from_plugins("default-scheduler", {"filter": [NodeUnschedulable()]})
    status = fwk.run_filter_plugins(CycleState(), make_pod(), info(make_node(unschedulable=True)))
    assert (status.code, status.plugin, status.message()) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "NodeUnschedulable",
        "node(s) were unschedulable",
    )


# --- Toleration matching ----------------------------------------------------------------------


def tol(**fields: Any) -> Toleration:
    return Toleration(**fields)


NO_SCHEDULE = Taint(key="k", value="v", effect="NoSchedule")

TOLERATION_CASES = [
    pytest.param(tol(key="k", operator="Equal", value="v", effect="NoSchedule"), True, id="exact"),
    pytest.param(tol(key="k", value="v", effect="NoSchedule"), True, id="no operator is Equal"),
    pytest.param(tol(key="k", value="w", effect="NoSchedule"), False, id="Equal, other value"),
    pytest.param(
        tol(key="k", operator="Exists", effect="NoSchedule"), True, id="Exists, any value"
    ),
    pytest.param(tol(key="k", operator="Exists"), True, id="empty effect matches every effect"),
    pytest.param(tol(operator="Exists"), True, id="Exists with empty key matches every taint"),
    pytest.param(tol(operator="Exists", effect="NoExecute"), False, id="empty key, other effect"),
    pytest.param(tol(key="j", operator="Exists"), False, id="other key"),
    pytest.param(
        tol(key="k", operator="Exists", effect="PreferNoSchedule"), False, id="other effect"
    ),
    pytest.param(
        tol(key="k", operator="Gt", value="v"), False, id="unknown operator matches nothing"
    ),
    pytest.param(
        tol(key="k", operator="equal", value="v"), False, id="operators are case-sensitive"
    ),
    pytest.param(tol(value="v"), True, id="empty key, Equal: the value still decides"),
]


@pytest.mark.parametrize(("toleration", "expected"), TOLERATION_CASES)
def test_toleration_tolerates_taint(toleration: Toleration, expected: bool) -> None:
    assert toleration_tolerates_taint(toleration, NO_SCHEDULE) is expected


def test_any_matching_toleration_is_enough() -> None:
    unrelated = tol(key="dedicated", operator="Exists")
    cordon = tol(key=UNSCHEDULABLE_KEY, operator="Exists", effect="NoSchedule")
    assert tolerations_tolerate_taint([unrelated, cordon], UNSCHEDULABLE_TAINT)
    assert not tolerations_tolerate_taint([unrelated], UNSCHEDULABLE_TAINT)
    assert not tolerations_tolerate_taint([], UNSCHEDULABLE_TAINT)


# --- Events and hints -------------------------------------------------------------------------


def test_it_registers_node_add_or_taint_update_and_pod_toleration_updates() -> None:
    plugin = NodeUnschedulable()
    events = [r.event for r in plugin.events_to_register()]
    assert events == [
        ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
        ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATIONS),
    ]
    assert all(isinstance(r, ClusterEventWithHint) for r in plugin.events_to_register())
    node_events, pod_events = events
    assert node_events.match(ClusterEvent(EventResource.NODE, ActionType.ADD))
    assert node_events.match(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT))
    assert not node_events.match(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL))
    assert pod_events.match(
        ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_TOLERATIONS)
    )


NODE_HINT_CASES = [
    pytest.param(None, "not-a-node", QueueingHint.QUEUE, id="error-wrong-new-object"),
    pytest.param(
        "not-a-node",
        make_node(unschedulable=True),
        QueueingHint.QUEUE,
        id="error-wrong-old-object",
    ),
    pytest.param(
        None,
        make_node(unschedulable=True),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-unschedulable-node-added",
    ),
    pytest.param(None, make_node(), QueueingHint.QUEUE, id="queue-on-schedulable-node-added"),
    pytest.param(
        make_node(unschedulable=True),
        make_node(unschedulable=True, taints=[{"key": "k", "effect": "NoExecute"}]),
        QueueingHint.QUEUE_SKIP,
        id="skip-unrelated-change-unschedulable-true",
    ),
    pytest.param(
        make_node(),
        make_node(taints=[{"key": "k", "effect": "NoExecute"}]),
        QueueingHint.QUEUE_SKIP,
        id="skip-unrelated-change-unschedulable-false",
    ),
    pytest.param(
        make_node(unschedulable=True),
        make_node(),
        QueueingHint.QUEUE,
        id="queue-on-unschedulable-field-change",
    ),
    pytest.param(
        make_node(),
        make_node(unschedulable=True),
        QueueingHint.QUEUE_SKIP,
        id="skip-when-the-node-is-cordoned",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), NODE_HINT_CASES)
def test_is_schedulable_after_node_change(old: Any, new: Any, expected: QueueingHint) -> None:
    hint = NodeUnschedulable().is_schedulable_after_node_change(make_pod(), old, new)
    assert hint is expected


CORDON_TOLERATION = {"key": UNSCHEDULABLE_KEY, "operator": "Exists", "effect": "NoSchedule"}

POD_HINT_CASES = [
    pytest.param(None, "not-a-pod", QueueingHint.QUEUE, id="error-wrong-new-object"),
    pytest.param("not-a-pod", make_pod(), QueueingHint.QUEUE, id="error-wrong-old-object"),
    pytest.param(
        make_pod("other", uid="different-uid"),
        make_pod("other", uid="different-uid", tolerations=[CORDON_TOLERATION]),
        QueueingHint.QUEUE_SKIP,
        id="skip-different-pod-update",
    ),
    pytest.param(
        make_pod(),
        make_pod(tolerations=[CORDON_TOLERATION]),
        QueueingHint.QUEUE,
        id="queue-when-the-unsched-pod-gets-toleration",
    ),
    pytest.param(
        make_pod(),
        make_pod(tolerations=[{"key": "unrelated-key", "operator": "Exists"}]),
        QueueingHint.QUEUE_SKIP,
        id="skip-when-the-unsched-pod-gets-unrelated-toleration",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), POD_HINT_CASES)
def test_is_schedulable_after_pod_toleration_change(
    old: Any, new: Any, expected: QueueingHint
) -> None:
    hint = NodeUnschedulable().is_schedulable_after_pod_toleration_change(make_pod(), old, new)
    assert hint is expected


# --- Registration -----------------------------------------------------------------------------


def test_the_plugin_is_a_filter_with_enqueue_extensions_registered_in_tree() -> None:
    plugin = nodeunschedulable.new(None, None)
    assert isinstance(plugin, FilterPlugin) and isinstance(plugin, EnqueueExtensions)
    assert plugin.name() == nodeunschedulable.NAME == "NodeUnschedulable"
    assert in_tree_registry()["NodeUnschedulable"] is nodeunschedulable.new


# --- In a scheduler -------------------------------------------------------------------------


def test_a_cordoned_node_gets_no_pod_until_it_is_uncordoned() -> None:
    cluster = Cluster(make_node("a", unschedulable=True), cpu_pod("web"))
    sched = cluster.scheduler("NodeUnschedulable")
    sched.schedule_pending()
    assert cluster.node_of("web") == ""
    failed = [e.message for e in cluster.api.list(Event).items if e.reason == "FailedScheduling"]
    assert failed == ["0/1 nodes are available: 1 node(s) were unschedulable."]

    # A new taint is a taint update too, but the node is still cordoned: QUEUE_SKIP.
    node = cluster.api.get(Node, "a")
    tainted = Taint(key="maintenance", effect="PreferNoSchedule")
    node = cluster.api.update(
        dataclasses.replace(node, spec=dataclasses.replace(node.spec, taints=(tainted,)))
    )
    sched.sync()
    cluster.clock.advance(10)
    sched.queue.flush_backoff_q_completed()
    assert sched.queue.pending_pods()[1] == "activeQ:0; backoffQ:0; unschedulablePods:1"

    cluster.api.update(
        dataclasses.replace(node, spec=dataclasses.replace(node.spec, unschedulable=False))
    )
    sched.sync()  # the uncordon reaches the queue; the hint answers QUEUE
    assert sched.queue.pending_pods()[1] == "activeQ:1; backoffQ:0; unschedulablePods:0"
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("web") == "a"


def test_a_pod_that_tolerates_the_cordon_may_land_there() -> None:
    daemon = cpu_pod("daemon")
    tolerant = dataclasses.replace(
        daemon,
        spec=dataclasses.replace(daemon.spec, tolerations=(Toleration(**CORDON_TOLERATION),)),
    )
    cluster = Cluster(make_node("a", unschedulable=True), tolerant)
    sched = cluster.scheduler("NodeUnschedulable")
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("daemon") == "a"
