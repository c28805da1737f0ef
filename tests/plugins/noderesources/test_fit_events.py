"""NodeResourcesFit's cluster events and queueing hints: which changes can make a rejected pod fit.

Cases port ``TestEventsToRegister``, ``Test_isSchedulableAfterPodEvent``,
``Test_isSchedulableAfterNodeChange`` and ``TestIsFit`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/fit_test.go``
(v1.33, queueing hints on), plus the nominated-pod deletion that
kubernetes/kubernetes#129058 added in v1.33.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
)
from framework.featuregate import new_feature_gates
from framework.interface import EnqueueExtensions
from framework.objects import Node, Pod
from framework.plugins.noderesources.fit import Fit
from framework.plugins.noderesources.fits import have_any_requested_resources_increased, is_fit
from tests.plugins.noderesources.helpers import (
    EXTENDED_A,
    EXTENDED_B,
    capacity,
    make_pod,
    requests,
)

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def cpu(amount: str, **meta: Any) -> Pod:
    return make_pod({"cpu": amount}, **meta)


def memory_pod(amount: int, **scalars: int) -> Pod:
    names = {"a": EXTENDED_A, "b": EXTENDED_B}
    return make_pod(requests(memory=amount, scalars={names[k]: v for k, v in scalars.items()}))


@pytest.mark.parametrize(
    ("enabled", "pod_action"),
    [
        (True, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
        (False, ActionType.DELETE),
    ],
    ids=[
        "Register events with InPlacePodVerticalScaling feature enabled",
        "Register events with InPlacePodVerticalScaling feature disabled",
    ],
)
def test_events_to_register(enabled: bool, pod_action: ActionType) -> None:
    # Go's cases run with DRAExtendedResource off (it adds a DeviceClass event: see
    # test_fit_dra_extended.py); it is off before v1.36.
    handle = SimpleNamespace(feature_gates=new_feature_gates("1.35"))
    fit = Fit(handle=handle, enable_in_place_pod_vertical_scaling=enabled)
    assert isinstance(fit, EnqueueExtensions)
    events = fit.events_to_register()
    assert [e.event for e in events] == [
        ClusterEvent(EventResource.POD, pod_action),
        ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
    ]
    assert all(e.queueing_hint_fn is not None for e in events)


POD_EVENTS = [
    pytest.param(Pod(), "not-a-pod", None, True, QUEUE, id="backoff-wrong-old-object"),
    pytest.param(Pod(), None, "not-a-pod", True, QUEUE, id="backoff-wrong-new-object"),
    pytest.param(
        cpu("1", name="pod1"),
        cpu("1", name="pod2", node_name="fake"),
        None,
        True,
        QUEUE,
        id="queue-on-other-pod-deleted",
    ),
    pytest.param(Pod(), Pod(), None, True, SKIP, id="skip-queue-on-unscheduled-pod-deleted"),
    # kubernetes#129058 (v1.33): a nominated pod held room too.
    pytest.param(
        cpu("1", name="pod1"),
        cpu("1", name="pod2", nominated_node_name="fake"),
        None,
        True,
        QUEUE,
        id="queue-on-nominated-pod-deleted",
    ),
    pytest.param(
        cpu("1", name="pod1"),
        cpu("2", name="pod2", node_name="fake"),
        cpu("1", name="pod2", node_name="fake"),
        False,
        SKIP,
        id="skip-queue-on-disable-inplace-pod-vertical-scaling",
    ),
    pytest.param(
        cpu("1", name="pod1", uid="uid0"),
        cpu("2", name="pod2", uid="uid1"),
        cpu("1", name="pod2", uid="uid1"),
        True,
        SKIP,
        id="skip-queue-on-other-unscheduled-pod",
    ),
    pytest.param(
        cpu("1", name="pod1", uid="uid0"),
        make_pod(name="pod2", uid="uid1", node_name="fake", labels={"k": "v"}),
        make_pod(name="pod2", uid="uid1", node_name="fake", labels={"foo": "bar"}),
        True,
        SKIP,
        id="skip-queue-on-other-pod-non-resource-changes",
    ),
    pytest.param(
        cpu("1", name="pod1", uid="uid0"),
        make_pod({"memory": "2"}, name="pod2", uid="uid1", node_name="fake"),
        make_pod({"memory": "1"}, name="pod2", uid="uid1", node_name="fake"),
        True,
        SKIP,
        id="skip-queue-on-other-pod-unrelated-resource-changes",
    ),
    pytest.param(
        cpu("1", name="pod1", uid="uid0"),
        cpu("1", name="pod2", uid="uid1", node_name="fake"),
        cpu("2", name="pod2", uid="uid1", node_name="fake"),
        True,
        SKIP,
        id="skip-queue-on-other-pod-resource-scale-up",
    ),
    pytest.param(
        cpu("1", name="pod1", uid="uid0"),
        cpu("2", name="pod2", uid="uid1", node_name="fake"),
        cpu("1", name="pod2", uid="uid1", node_name="fake"),
        True,
        QUEUE,
        id="queue-on-other-pod-some-resource-scale-down",
    ),
    pytest.param(
        cpu("1", name="pod1", uid="uid0"),
        cpu("2", name="pod1", uid="uid0"),
        cpu("1", name="pod1", uid="uid0"),
        True,
        QUEUE,
        id="queue-on-target-pod-some-resource-scale-down",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "enabled", "want"), POD_EVENTS)
def test_is_schedulable_after_pod_event(
    pod: Pod, old: Any, new: Any, enabled: bool, want: QueueingHint
) -> None:
    fit = Fit(enable_in_place_pod_vertical_scaling=enabled)
    assert fit.is_schedulable_after_pod_event(pod, old, new) == want


def mem_ext(memory: str, extended_a: str) -> Node:
    return capacity("n1", {"memory": memory, EXTENDED_A: extended_a})


NODE_EVENTS = [
    pytest.param(Pod(), None, "not-a-node", QUEUE, id="backoff-wrong-new-object"),
    pytest.param(Pod(), "not-a-node", Node(), QUEUE, id="backoff-wrong-old-object"),
    pytest.param(
        memory_pod(2),
        None,
        capacity("n1", {"memory": "1"}),
        SKIP,
        id="skip-queue-on-node-add-without-sufficient-resources",
    ),
    pytest.param(
        memory_pod(0, a=1),
        None,
        capacity("n1", {EXTENDED_B: "1"}),
        SKIP,
        id="skip-queue-on-node-add-without-required-resource-type",
    ),
    pytest.param(
        memory_pod(2, a=1),
        None,
        mem_ext("4", "2"),
        QUEUE,
        id="queue-on-node-add-with-sufficient-resources",
    ),
    pytest.param(
        memory_pod(2, a=1),
        mem_ext("4", "2"),
        mem_ext("1", "2"),
        SKIP,
        id="skip-queue-on-node-changes-from-suitable-to-unsuitable",
    ),
    pytest.param(
        memory_pod(2, a=1),
        mem_ext("1", "2"),
        mem_ext("4", "2"),
        QUEUE,
        id="queue-on-node-changes-from-unsuitable-to-suitable",
    ),
    # The last three are ours, from haveAnyRequestedResourcesIncreased (kubernetes#127473).
    pytest.param(
        memory_pod(2, a=1),
        mem_ext("4", "2"),
        mem_ext("4", "2"),
        SKIP,
        id="skip-queue-on-node-changes-without-an-increase-the-pod-cares-about",
    ),
    pytest.param(
        make_pod({"cpu": "1"}),
        capacity("n1", {"cpu": "2", "memory": "1"}),
        capacity("n1", {"cpu": "2", "memory": "8"}),
        SKIP,
        id="skip-queue-on-node-growing-in-a-resource-the-pod-does-not-request",
    ),
    pytest.param(
        make_pod({"cpu": "1"}),
        capacity("n1", {"cpu": "2"}),
        Node.from_dict(
            {"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2", "pods": "64"}}}
        ),
        QUEUE,
        id="queue-on-node-gaining-pod-slots",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), NODE_EVENTS)
def test_is_schedulable_after_node_change(
    pod: Pod, old: Any, new: Any, want: QueueingHint
) -> None:
    assert Fit().is_schedulable_after_node_change(pod, old, new) == want


@pytest.mark.parametrize(
    ("pod", "node", "want"),
    [
        pytest.param(Pod(), None, False, id="nil node"),
        pytest.param(cpu("2"), capacity("n1", {"cpu": "1"}), False, id="insufficient resource"),
        pytest.param(cpu("1"), capacity("n1", {"cpu": "2"}), True, id="sufficient resource"),
    ],
)
def test_is_fit(pod: Pod, node: Node | None, want: bool) -> None:
    assert is_fit(pod, node) is want


def test_a_pod_requesting_nothing_only_cares_about_pod_slots() -> None:
    before = capacity("n1", {"cpu": "1"})
    after = capacity("n1", {"cpu": "8"})
    assert not have_any_requested_resources_increased(Pod(), before, after)
