"""What DynamicResources keeps between cycles follows the API server exactly.

kube's DRA manager reads claims, slices and classes from informers and keeps
the allocated devices from the claim informer's events
(``pkg/scheduler/framework/plugins/dynamicresources/allocateddevices.go``);
ours follows a watch. Whatever changes in the API server between two pods'
cycles — a claim allocated or deallocated by someone else, a slice replaced,
a class's selector changed — the next PreFilter/Filter must see it, as a
fresh list would.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.featuregate import new_feature_gates
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.resource import DeviceClass, ResourceClaim, ResourceSlice
from framework.plugins.dynamicresources import DynamicResources, cel
from framework.plugins.dynamicresources.structured import DeviceID
from framework.plugins.dynamicresources.tracker import AllocatedDevices, held_devices

DRIVER = "gpu.example.com"


@dataclasses.dataclass
class Handle:
    api: APIServer
    feature_gates: Any

    def client(self) -> APIServer:
        return self.api


def node(name: str) -> Node:
    return Node.from_dict({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}})


def info(of: Node) -> NodeInfo:
    node_info = NodeInfo()
    node_info.set_node(of)
    return node_info


def gpu_slice(node_name: str, devices: int, model: str = "a100") -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": f"{node_name}-{DRIVER}"},
            "spec": {
                "driver": DRIVER,
                "nodeName": node_name,
                "pool": {"name": node_name, "resourceSliceCount": 1},
                "devices": [
                    {"name": f"gpu-{i}", "attributes": {"model": {"string": model}}}
                    for i in range(devices)
                ],
            },
        }
    )


def gpu_class(expression: str = f'device.driver == "{DRIVER}"') -> DeviceClass:
    return DeviceClass.from_dict(
        {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": expression}}]}}
    )


def claim(name: str) -> ResourceClaim:
    return ResourceClaim.from_dict(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}
            },
        }
    )


def pod(name: str, claim_name: str) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimName": claim_name}]},
        }
    )


def allocated(of: ResourceClaim, node_name: str, device: str) -> ResourceClaim:
    result = {"request": "gpu", "driver": DRIVER, "pool": node_name, "device": device}
    allocation = ResourceClaim.from_dict(
        {"status": {"allocation": {"devices": {"results": [result]}}}}
    ).status
    return dataclasses.replace(of, status=allocation)


class Cluster:
    def __init__(self, *nodes: Node) -> None:
        self.api = APIServer(FakeClock())
        self.nodes = list(nodes)
        for n in nodes:
            self.api.create(n)
        self.plugin = DynamicResources(Handle(self.api, new_feature_gates("1.34")))

    def fits(self, the_pod: Pod, node_name: str) -> bool:
        state = CycleState()
        _, status = self.plugin.pre_filter(state, the_pod, [info(n) for n in self.nodes])
        assert status is None, status
        (target,) = [n for n in self.nodes if n.metadata.name == node_name]
        return self.plugin.filter(state, the_pod, info(target)) is None

    def claim(self, name: str) -> ResourceClaim:
        found: ResourceClaim = self.api.get(ResourceClaim, name, "default")
        return found


def test_a_claim_allocated_elsewhere_between_cycles_takes_its_device() -> None:
    c = Cluster(node("n1"))
    c.api.create(gpu_class())
    c.api.create(gpu_slice("n1", 1))
    c.api.create(claim("mine"))
    c.api.create(claim("theirs"))
    assert c.fits(pod("p", "mine"), "n1")
    # Another scheduler (or a test's allocResourceClaims) allocates the only device.
    c.api.update_status(allocated(c.claim("theirs"), "n1", "gpu-0"))
    assert not c.fits(pod("p", "mine"), "n1")
    # Deallocated again, or deleted: the device is free.
    c.api.update_status(dataclasses.replace(c.claim("theirs"), status=claim("x").status))
    assert c.fits(pod("p", "mine"), "n1")
    c.api.update_status(allocated(c.claim("theirs"), "n1", "gpu-0"))
    assert not c.fits(pod("p", "mine"), "n1")
    c.api.delete(ResourceClaim, "theirs", "default")
    assert c.fits(pod("p", "mine"), "n1")


def test_a_replaced_slice_and_a_changed_class_are_seen_by_the_next_pod() -> None:
    c = Cluster(node("n1"))
    c.api.create(gpu_class())
    c.api.create(gpu_slice("n1", 0))
    c.api.create(claim("mine"))
    assert not c.fits(pod("p", "mine"), "n1")
    c.api.update(
        dataclasses.replace(
            gpu_slice("n1", 1), metadata=c.api.get(ResourceSlice, f"n1-{DRIVER}").metadata
        )
    )
    assert c.fits(pod("p", "mine"), "n1")
    current = c.api.get(DeviceClass, "gpu")
    c.api.update(
        dataclasses.replace(
            gpu_class('device.attributes["gpu.example.com"].model == "h100"'),
            metadata=current.metadata,
        )
    )
    assert not c.fits(pod("p", "mine"), "n1")


def test_the_plugin_s_own_binding_takes_the_device_for_the_next_pod() -> None:
    c = Cluster(node("n1"))
    c.api.create(gpu_class())
    c.api.create(gpu_slice("n1", 1))
    c.api.create(claim("first"))
    c.api.create(claim("second"))
    first = pod("first", "first")
    state = CycleState()
    c.plugin.pre_filter(state, first, [info(n) for n in c.nodes])
    assert c.plugin.filter(state, first, info(c.nodes[0])) is None
    assert c.plugin.reserve(state, first, "n1") is None
    assert c.plugin.pre_bind(state, first, "n1") is None
    assert c.claim("first").status.allocation is not None
    assert not c.fits(pod("second", "second"), "n1")


def test_a_cel_runtime_error_is_raised_each_time_it_is_asked() -> None:
    device = cel.Device(DRIVER, {DRIVER: {}}, {})
    expression = cel.compile_expression('device.attributes["gpu.example.com"].model == "x"')
    for _ in range(2):
        try:
            expression.matches(device)
        except cel.CELRuntimeError as error:
            assert "no such key" in str(error)
        else:
            raise AssertionError("no runtime error")


# --- the counts behind the allocated devices: any sequence of changes, same set as a list ----

CLAIMS = [f"c{i}" for i in range(4)]
DEVICES = ["gpu-0", "gpu-1", "gpu-2"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(CLAIMS), st.one_of(st.none(), st.sampled_from(DEVICES))),
        max_size=20,
    )
)
def test_allocated_devices_are_the_union_of_the_stored_allocations(
    changes: list[tuple[str, str | None]],
) -> None:
    devices = AllocatedDevices()
    stored: dict[str, ResourceClaim] = {}
    for name, device in changes:
        new = claim(name) if device is None else allocated(claim(name), "n1", device)
        devices.on_change(stored.get(name), new)
        stored[name] = new
    want = {d for c in stored.values() for d in held_devices(c)}
    assert devices.get() == want
    assert all(isinstance(d, DeviceID) for d in devices.get())


def test_the_scheduler_stops_the_plugin_s_watches() -> None:
    from framework.scheduler.scheduler import Scheduler

    api = APIServer(FakeClock())
    api.create(node("n1"))
    api.create(gpu_class())
    api.create(gpu_slice("n1", 1))
    api.create(claim("mine"))
    scheduler = Scheduler(api, clock=FakeClock(), seed=0, feature_gates=new_feature_gates("1.34"))
    api.create(
        Pod.from_dict(
            {
                "metadata": {"name": "p", "namespace": "default"},
                "spec": {
                    "resourceClaims": [{"name": "gpu", "resourceClaimName": "mine"}],
                    "containers": [{"name": "c", "image": "x"}],
                },
            }
        )
    )
    scheduler.schedule_pending()
    (plugin,) = {
        id(p): p
        for fwk in scheduler.profiles.values()
        for ps in fwk.plugins.values()
        for p in ps
        if isinstance(p, DynamicResources)
    }.values()
    watch = plugin.claims._watch
    assert watch is not None and not watch.stopped
    scheduler.stop()
    assert watch.stopped
