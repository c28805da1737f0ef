"""EventsToRegister and the queueing hints.

The tables follow ``Test_isSchedulableAfterNodeChange`` and
``Test_isSchedulableAfterPodChange`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/plugin_test.go``
(v1.33), in our own words.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.cluster_event import ActionType, EventResource, QueueingHint
from framework.interface import EnqueueExtensions
from framework.plugins.podtopologyspread import PodTopologySpread, PodTopologySpreadArgs
from tests.plugins.podtopologyspread.helpers import HOST, ZONE, node, pod, spread

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def plugin() -> PodTopologySpread:
    return PodTopologySpread(None, PodTopologySpreadArgs(defaulting_type="List"))


def test_events_to_register() -> None:
    pl = plugin()
    assert isinstance(pl, EnqueueExtensions)
    events = [(e.event.resource, e.event.action_type) for e in pl.events_to_register()]
    assert events == [
        (
            EventResource.POD,
            ActionType.ADD
            | ActionType.UPDATE_POD_LABEL
            | ActionType.UPDATE_POD_TOLERATIONS
            | ActionType.DELETE,
        ),
        (
            EventResource.NODE,
            ActionType.ADD
            | ActionType.DELETE
            | ActionType.UPDATE_NODE_LABEL
            | ActionType.UPDATE_NODE_TAINT,
        ),
    ]


TARGET = pod("p", "", spread(1, ZONE), spread(1, HOST))
TAINT = [{"key": "k", "effect": "NoSchedule"}]

NODE_CASES = [
    pytest.param(
        None, node("n", zone="z1", host="n"), QUEUE, id="create node with related labels"
    ),
    pytest.param(None, node("n", foo="x"), SKIP, id="create node with non-related labels"),
    pytest.param(
        None,
        node("n", zone="z1"),
        SKIP,
        id="create node with related labels that only match one of topologySpreadConstraints",
    ),
    pytest.param(
        node("n", zone="z1", host="n"), None, QUEUE, id="delete node with related labels"
    ),
    pytest.param(node("n", foo="x"), None, SKIP, id="delete node with non-related labels"),
    pytest.param(
        node("n", zone="z1", host="n"),
        node("n", zone="z2", host="n"),
        QUEUE,
        id="node updates label which matches topologyKey",
    ),
    pytest.param(
        node("n", foo="x"),
        node("n", foo="y"),
        SKIP,
        id="node that doesn't match topologySpreadConstraints updates non-related label",
    ),
    pytest.param(
        node("n", zone="z1", host="n", foo="x"),
        node("n", zone="z1", host="n", foo="y"),
        SKIP,
        id="node that match topologySpreadConstraints updates non-related label",
    ),
    pytest.param(
        node("n", zone="z1"),
        node("n", zone="z1", host="n"),
        QUEUE,
        id="node gains the missing topology key",
    ),
    pytest.param(
        node("n", zone="z1", host="n"),
        node("n", TAINT, zone="z1", host="n"),
        QUEUE,
        id="update node with related taints",
    ),
    pytest.param(
        node("n", foo="x"),
        node("n", TAINT, foo="x"),
        SKIP,
        id="update node with taints, but it does not match the constraints",
    ),
]


@pytest.mark.parametrize(("old", "new", "want"), NODE_CASES)
def test_is_schedulable_after_node_change(old: Any, new: Any, want: QueueingHint) -> None:
    assert plugin().is_schedulable_after_node_change(TARGET, old, new) is want


ONE = pod("p", "", spread(1, ZONE))
HONOR_TAINTS = pod("p", "", spread(1, ZONE, nodeTaintsPolicy="Honor"))
TOLERATION = {"tolerations": [{"key": "k", "operator": "Exists"}]}

POD_CASES = [
    pytest.param(
        ONE,
        None,
        pod("a", "n"),
        QUEUE,
        id="add pod with labels match topologySpreadConstraints selector",
    ),
    pytest.param(ONE, None, pod("a"), SKIP, id="add un-scheduled pod"),
    pytest.param(ONE, pod("a"), pod("a", labels={"bar": ""}), SKIP, id="update un-scheduled pod"),
    pytest.param(ONE, pod("a"), None, SKIP, id="delete un-scheduled pod"),
    pytest.param(
        ONE, None, pod("a", "n", namespace="ns1"), SKIP, id="add pod with different namespace"
    ),
    pytest.param(
        ONE,
        None,
        pod("a", "n", labels={"bar": ""}),
        SKIP,
        id="add pod with labels don't match topologySpreadConstraints selector",
    ),
    pytest.param(
        ONE,
        pod("a", "n"),
        None,
        QUEUE,
        id="delete pod with labels that match topologySpreadConstraints selector",
    ),
    pytest.param(
        ONE,
        pod("a", "n", labels={"foo": "", "x": "1"}),
        pod("a", "n", labels={"foo": "", "x": "2"}),
        SKIP,
        id="update pod's non-related label",
    ),
    pytest.param(
        ONE,
        pod("a", "n", labels={"bar": ""}),
        pod("a", "n", labels={"bar": "", "foo": ""}),
        QUEUE,
        id="add pod's label that matches topologySpreadConstraints selector",
    ),
    pytest.param(
        ONE,
        pod("a", "n"),
        pod("a", "n", labels={}),
        QUEUE,
        id="delete pod's label that matches topologySpreadConstraints selector",
    ),
    pytest.param(
        HONOR_TAINTS,
        HONOR_TAINTS,
        pod("p", "", spread(1, ZONE, nodeTaintsPolicy="Honor"), spec=TOLERATION),
        QUEUE,
        id="the unschedulable pod gets a toleration, with NodeTaintsPolicy Honor",
    ),
    pytest.param(
        ONE,
        ONE,
        pod("p", "", spread(1, ZONE), spec=TOLERATION),
        SKIP,
        id="the unschedulable pod gets a toleration, with NodeTaintsPolicy Ignore",
    ),
]


@pytest.mark.parametrize(("target", "old", "new", "want"), POD_CASES)
def test_is_schedulable_after_pod_change(
    target: Any, old: Any, new: Any, want: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_pod_change(target, old, new) is want
