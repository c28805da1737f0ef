"""NodeResourcesFit with extended resources backed by DRA (``DRAExtendedResource``).

A node that does not advertise an extended resource (allocatable absent or
0) leaves it to DynamicResources when a DeviceClass serves it
(``shouldDelegateResourceToDRA``); a node whose device plugin advertises it is
checked as always. Read in the index's newest
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/fit.go``
(index id 277813796: ``shouldDelegateResourceToDRA``, ``fitsRequest``,
``isSchedulableAfterDeviceClassEvent``, ``haveAnyRequestedResourcesIncreased``,
``EventsToRegister``, ``SignPod``), with cases from its ``fit_test.go``
(``TestEventsToRegister``: "Register events with DRAExtendedResource feature
enabled"/"disabled", index id 789199930) and ``balanced_allocation_test.go``
("DRA extended resource enabled - returns unschedulable", index id 122590693).
kubernetes.io's scheduler-perf-tuning page says it too: opportunistic batching
needs ``DRAExtendedResource`` off.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.apiserver.store import ListResult
from framework.cluster_event import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.cycle_state import CycleState
from framework.featuregate import FeatureGates, new_feature_gates
from framework.objects import KubeObject, Node, Pod
from framework.objects.resource import DeviceClass
from framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from framework.plugins.noderesources.fit import Fit
from framework.status import Code
from tests.plugins.noderesources.helpers import make_pod, node_info

GPU = "example.com/gpu"
IMPLICIT = "deviceclass.resource.kubernetes.io/gpu-class"
QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


class Client:
    def __init__(self, objects: list[KubeObject]) -> None:
        self.objects = list(objects)

    def list(self, kind: type[Any], namespace: str | None = None) -> ListResult[Any]:
        return ListResult(tuple(o for o in self.objects if isinstance(o, kind)), "1")


@dataclasses.dataclass
class Handle:
    fake: Client
    feature_gates: FeatureGates

    def client(self) -> Client:
        return self.fake


def gpu_class(extended: str | None = GPU, name: str = "gpu-class") -> DeviceClass:
    spec = {"extendedResourceName": extended} if extended else {}
    return DeviceClass.from_dict({"metadata": {"name": name}, "spec": spec})


def fit(*objects: KubeObject, version: str = "1.37") -> Fit:
    return Fit(handle=Handle(Client(list(objects)), new_feature_gates(version)))


def node(gpus: str | None = None) -> Node:
    allocatable = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    if gpus is not None:
        allocatable[GPU] = gpus
    return Node.from_dict(
        {
            "metadata": {"name": "n1"},
            "status": {"allocatable": allocatable, "capacity": allocatable},
        }
    )


def gpu_pod(amount: str = "1", name: str = GPU) -> Pod:
    return make_pod({"cpu": "100m", name: amount})


def filter_(plugin: Fit, pod: Pod, the_node: Node) -> Any:
    state = CycleState()
    assert plugin.pre_filter(state, pod, [])[1] is None
    return plugin.filter(state, pod, node_info(the_node))


@pytest.mark.parametrize(
    ("objects", "version", "the_node", "pod", "want"),
    [
        ([gpu_class()], "1.37", node(), gpu_pod(), None),
        ([gpu_class()], "1.37", node("0"), gpu_pod(), None),
        ([gpu_class()], "1.37", node("1"), gpu_pod("2"), f"Insufficient {GPU}"),
        ([gpu_class()], "1.37", node("2"), gpu_pod("2"), None),
        ([], "1.37", node(), gpu_pod(), f"Insufficient {GPU}"),
        ([gpu_class(None)], "1.37", node(), gpu_pod(), f"Insufficient {GPU}"),
        ([gpu_class(None)], "1.37", node(), gpu_pod("1", IMPLICIT), None),
        ([gpu_class()], "1.35", node(), gpu_pod(), f"Insufficient {GPU}"),
    ],
    ids=[
        "DRA-backed, the node does not advertise it",
        "DRA-backed, the node advertises 0",
        "the node's device plugin serves it: checked as always",
        "the node's device plugin has enough",
        "no class serves it",
        "the class names no extended resource",
        "the class's implicit name",
        "gate off (v1.35): checked as always",
    ],
)
def test_filter_leaves_dra_backed_resources_to_dynamic_resources(
    objects: list[KubeObject], version: str, the_node: Node, pod: Pod, want: str | None
) -> None:
    status = filter_(fit(*objects, version=version), pod, the_node)
    if want is None:
        assert status is None
    else:
        assert status is not None and status.reasons == (want,)


def test_events_to_register_with_the_gate() -> None:
    on = [e.event for e in fit(version="1.37").events_to_register()]
    assert on[-1] == ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE)
    off = [e.event for e in fit(version="1.35").events_to_register()]
    assert all(e.resource != EventResource.DEVICE_CLASS for e in off)


@pytest.mark.parametrize(
    ("old", "new", "pod", "want"),
    [
        (None, gpu_class(), gpu_pod(), QUEUE),
        (None, gpu_class(None), gpu_pod(), SKIP),
        (None, gpu_class(None), gpu_pod("1", IMPLICIT), QUEUE),
        (gpu_class(), gpu_class(), gpu_pod(), SKIP),
        (gpu_class(None), gpu_class(), gpu_pod(), QUEUE),
        (gpu_class(), gpu_class("example.com/other"), gpu_pod(), SKIP),
    ],
    ids=[
        "a class for the pod's resource is added",
        "an added class names nothing the pod asks for",
        "an added class whose implicit name the pod asks for",
        "an update that keeps the extended resource name",
        "an update that gives the class the pod's resource",
        "an update to another resource",
    ],
)
def test_is_schedulable_after_device_class_event(
    old: DeviceClass | None, new: DeviceClass, pod: Pod, want: QueueingHint
) -> None:
    assert fit().is_schedulable_after_device_class_event(pod, old, new) == want


def test_a_node_without_the_resource_fits_when_a_class_serves_it() -> None:
    # isSchedulableAfterNodeChange: isFit and haveAnyRequestedResourcesIncreased delegate too.
    plugin = fit(gpu_class())
    assert plugin.is_schedulable_after_node_change(gpu_pod(), None, node()) == QUEUE
    assert fit().is_schedulable_after_node_change(gpu_pod(), None, node()) == SKIP
    assert plugin.is_schedulable_after_node_change(gpu_pod(), node(), node()) == QUEUE


@pytest.mark.parametrize("version", ["1.37", "1.36"])
def test_no_signature_with_the_gate_on(version: str) -> None:
    handle = Handle(Client([]), new_feature_gates(version))
    for plugin in (Fit(handle=handle), BalancedAllocation(handle=handle)):
        fragments, status = plugin.sign_pod(gpu_pod())
        assert fragments is None
        assert status is not None and status.code == Code.UNSCHEDULABLE
        assert status.message() == "signature disabled when dra extended resources enabled"


def test_a_signature_with_the_gate_off() -> None:
    handle = Handle(Client([]), new_feature_gates("1.35"))
    for plugin in (Fit(handle=handle), BalancedAllocation(handle=handle)):
        fragments, status = plugin.sign_pod(gpu_pod())
        assert status is None and fragments
