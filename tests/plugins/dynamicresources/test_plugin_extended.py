"""DynamicResources with extended resources backed by DRA (``DRAExtendedResource``).

The cases of kube's ``TestPlugin`` about extended resources, transcribed from
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/dynamicresources/``
``dynamicresources_test.go`` (resource.k8s.io/v1 era, index id 413406178):
``empty-with-extended-resources-enabled``,
``extended-resource-name-with-node-resource``,
``extended-resource-one-device-plugin-one-dra``,
``extended-resource-name-with-zero-allocatable``,
``non-DRA-extended-resource-name-with-zero-allocatable``,
``extended-resource-name-no-resource``, ``extended-resource-name-with-resources``,
``implicit-extended-resource-name-with-resources``,
``implicit-extended-resource-name-two-containers-with-resources``,
``extended-resource-name-with-resources-fail-patch``,
``extended-resource-name-with-resources-has-claim``,
``extended-resource-name-with-resources-delete-claim``,
``extended-resource-name-bind-failure``, ``extended-resource-name-skip-bind`` and
``extended-resource-name-claim-creation-failure``, with the fixtures
``podWithExtendedResourceName`` (``example.com/gpu: 1``), ``deviceClassWithExtendResourceName``
(class ``my-resource-class`` naming ``example.com/gpu``), ``workerNodeWithExtendedResource``
(allocatable ``example.com/gpu: 1``) and the claims ``extendedResourceClaim*``. The plugin's
code was read in the index's newest ``dynamicresources.go`` (index id 882775000) and
``extendeddynamicresources.go`` (index id 52277332836). The Go fake names a created claim
``<generateName>0``; ours does too.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.apiserver.errors import BadRequest, NotFound, resource_for
from framework.cycle_state import CycleState
from framework.featuregate import new_feature_gates
from framework.objects import KubeObject, Node, Pod
from framework.objects.resource import FINALIZER, DeviceClass, ResourceClaim, ResourceSlice
from framework.plugins.dynamicresources import DynamicResources
from framework.plugins.dynamicresources.extended import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    SPECIAL_CLAIM_IN_MEM_NAME,
)
from framework.status import Code, Status
from tests.plugins.dynamicresources.test_plugin import (
    CLASS,
    DRIVER,
    NODE,
    POD,
    POD_UID,
    Client,
    Handle,
    info,
)

EXT = "example.com/gpu"
EXT2 = "example.com/gpu2"
IMPLICIT = f"deviceclass.resource.kubernetes.io/{CLASS}"
CREATED = f"{POD}-extended-resources-0"


class FakeClient(Client):
    """Go's fake clientset with its reactors: create names from generateName, delete, pods."""

    def __init__(
        self, objects: list[KubeObject], *, fail_create: bool = False, fail_patch: bool = False
    ) -> None:
        super().__init__(objects)
        self.fail_create = fail_create
        self.fail_patch = fail_patch

    def create(self, obj: Any, *, namespace: str | None = None) -> Any:
        if self.fail_create:
            raise BadRequest("claim creation errors")
        name = obj.metadata.name or obj.metadata.generate_name + "0"
        created = obj.with_metadata(name=name, uid=f"uid-{name}", resource_version="1")
        self.objects[(type(created), created.key)] = created
        return created

    def update_status(self, obj: Any) -> Any:
        if isinstance(obj, Pod) and self.fail_patch:
            raise BadRequest("patch error")
        return self.update(obj)

    def delete(self, kind: type[Any], name: str, namespace: str | None = None, **_: Any) -> Any:
        key = f"{namespace}/{name}" if kind.NAMESPACED else name
        if (kind, key) not in self.objects:
            raise NotFound(resource_for(kind), name)
        return self.objects.pop((kind, key))


def gpu_pod(requests: dict[str, str] | list[dict[str, str]]) -> Pod:
    containers = requests if isinstance(requests, list) else [requests]
    return Pod.from_dict(
        {
            "metadata": {"name": POD, "namespace": "default", "uid": POD_UID},
            "spec": {
                "containers": [
                    {"name": f"con{i}", "resources": {"requests": r}}
                    for i, r in enumerate(containers)
                ]
            },
        }
    )


POD_EXT = gpu_pod({EXT: "1"})
POD_EXT2 = gpu_pod({EXT: "1", EXT2: "1"})
POD_IMPLICIT = gpu_pod({IMPLICIT: "1", EXT: "2"})
POD_IMPLICIT_TWO = gpu_pod([{IMPLICIT: "1"}, {EXT: "2"}])


def device_class(name: str = CLASS, extended: str | None = EXT) -> DeviceClass:
    spec = {"extendedResourceName": extended} if extended else {}
    return DeviceClass.from_dict({"metadata": {"name": name}, "spec": spec})


CLASS_EXT = device_class()
CLASS_EXT2 = device_class(CLASS + "2", EXT2)
PLAIN_CLASS = device_class(extended=None)


def node(allocatable: str | None = None) -> Node:
    status = {"allocatable": {EXT: allocatable}, "capacity": {EXT: allocatable}}
    return Node.from_dict(
        {
            "metadata": {"name": NODE, "labels": {"kubernetes.io/hostname": NODE}},
            **({"status": status} if allocatable is not None else {}),
        }
    )


def slice_with(*devices: str) -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": f"{NODE}-{DRIVER}"},
            "spec": {
                "driver": DRIVER,
                "nodeName": NODE,
                "pool": {"name": NODE, "resourceSliceCount": 1},
                "devices": [{"name": d} for d in devices],
            },
        }
    )


WORKER_SLICE = slice_with("instance-1")
LARGE_SLICE = slice_with("instance-1", "instance-2", "instance-3", "instance-4")


def extended_claim(node_name: str = NODE) -> ResourceClaim:
    """``extendedResourceClaim`` (or ``...Node2``): a special claim a previous cycle created."""
    return ResourceClaim.from_dict(
        {
            "metadata": {
                "name": CREATED,
                "namespace": "default",
                "uid": "uid-old",
                "generateName": f"{POD}-extended-resources-",
                "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "name": POD,
                        "uid": POD_UID,
                        "controller": True,
                    }
                ],
                "finalizers": [FINALIZER],
            },
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "container-0-request-0",
                            "exactly": {
                                "deviceClassName": CLASS,
                                "allocationMode": "ExactCount",
                                "count": 1,
                            },
                        }
                    ]
                }
            },
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {
                                "request": "container-0-request-0",
                                "driver": DRIVER,
                                "pool": NODE,
                                "device": "instance-1",
                            }
                        ]
                    },
                    "nodeSelector": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {
                                        "key": "metadata.name",
                                        "operator": "In",
                                        "values": [node_name],
                                    }
                                ]
                            }
                        ]
                    },
                }
            },
        }
    )


@dataclasses.dataclass
class Run:
    plugin: DynamicResources
    client: FakeClient
    state: CycleState
    pod: Pod
    node: Node

    def pre_filter(self) -> Status | None:
        return self.plugin.pre_filter(self.state, self.pod, [info(self.node)])[1]

    def filter(self) -> Status | None:
        return self.plugin.filter(self.state, self.pod, info(self.node))

    def reserve(self) -> Status | None:
        return self.plugin.reserve(self.state, self.pod, NODE)

    def pre_bind(self) -> Status | None:
        return self.plugin.pre_bind(self.state, self.pod, NODE)

    def post_filter(self) -> Status | None:
        return self.plugin.post_filter(self.state, self.pod, {})[1]

    def claims(self) -> list[ResourceClaim]:
        return [o for (k, _), o in self.client.objects.items() if k is ResourceClaim]

    def stored_pod(self) -> Pod:
        found: Pod = self.client.get(Pod, POD, "default")
        return found


def run(
    pod: Pod,
    *objects: KubeObject,
    node_: Node | None = None,
    gates: dict[str, bool] | None = None,
    version: str = "1.37",
    **client_options: bool,
) -> Run:
    client = FakeClient([pod, *objects], **client_options)
    handle = Handle(client, new_feature_gates(version, gates or {}))
    return Run(DynamicResources(handle), client, CycleState(), pod, node_ or node())


def code(status: Status | None) -> Code:
    return status.code if status is not None else Code.SUCCESS


def message(status: Status | None) -> str:
    return status.message() if status is not None else ""


def results(claim: ResourceClaim) -> list[tuple[str, str]]:
    assert claim.status.allocation is not None
    return [(r.request, r.device) for r in claim.status.allocation.devices.results]


def requests(claim: ResourceClaim) -> list[tuple[str, str, int | None]]:
    out = []
    for r in claim.spec.devices.requests:
        assert r.exactly is not None
        out.append((r.name, r.exactly.device_class_name, r.exactly.count))
    return out


def test_empty_with_extended_resources_enabled() -> None:
    r = run(Pod.from_dict({"metadata": {"name": "foo", "namespace": "default"}}))
    assert code(r.pre_filter()) == Code.SKIP
    assert message(r.post_filter()) == "no new claims to deallocate"
    assert code(r.plugin.pre_bind_pre_flight(r.state, r.pod, NODE)) == Code.SKIP


def test_extended_resource_name_with_node_resource() -> None:
    # The node's device plugin has the resource: nothing for DRA to allocate or create.
    r = run(POD_EXT, CLASS_EXT, node_=node("1"))
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.reserve() is None
    assert r.plugin.pre_bind_pre_flight(r.state, r.pod, NODE) is None
    assert r.pre_bind() is None
    assert r.claims() == []
    assert r.plugin.in_flight.claims() == []


def test_extended_resource_one_device_plugin_one_dra() -> None:
    r = run(POD_EXT2, CLASS_EXT, CLASS_EXT2, WORKER_SLICE, node_=node("1"))
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.reserve() is None
    (in_flight,) = r.plugin.in_flight.claims()
    assert in_flight.metadata.name == SPECIAL_CLAIM_IN_MEM_NAME
    assert requests(in_flight) == [("container-0-request-1", CLASS + "2", 1)]
    assert results(in_flight) == [("container-0-request-1", "instance-1")]
    assert r.pre_bind() is None
    (created,) = r.claims()
    assert created.metadata.name == CREATED
    assert requests(created) == [("container-0-request-1", CLASS + "2", 1)]
    assert results(created) == [("container-0-request-1", "instance-1")]
    assert [ref.uid for ref in created.status.reserved_for] == [POD_UID]
    assert r.plugin.in_flight.claims() == []


@pytest.mark.parametrize(
    ("the_node", "slice_"),
    [(node(), WORKER_SLICE), (node("0"), WORKER_SLICE)],
    ids=["extended-resource-name-with-resources", "extended-resource-name-with-zero-allocatable"],
)
def test_extended_resource_name_with_resources(the_node: Node, slice_: ResourceSlice) -> None:
    r = run(POD_EXT, CLASS_EXT, slice_, node_=the_node)
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.reserve() is None
    (in_flight,) = r.plugin.in_flight.claims()
    assert in_flight.metadata.name == SPECIAL_CLAIM_IN_MEM_NAME
    assert in_flight.metadata.finalizers == (FINALIZER,)
    assert r.claims() == []  # created only in PreBind
    assert r.pre_bind() is None
    (created,) = r.claims()
    assert created.metadata.name == CREATED
    assert created.metadata.generate_name == f"{POD}-extended-resources-"
    assert created.metadata.annotations == {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"}
    (owner,) = created.metadata.owner_references
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        "Pod",
        POD,
        POD_UID,
        True,
    )
    assert created.metadata.finalizers == (FINALIZER,)
    assert requests(created) == [("container-0-request-0", CLASS, 1)]
    assert results(created) == [("container-0-request-0", "instance-1")]
    assert [ref.uid for ref in created.status.reserved_for] == [POD_UID]
    # The pod's status says which request serves which container's resource.
    assert r.stored_pod().status.extra["extendedResourceClaimStatus"] == {
        "requestMappings": [
            {"containerName": "con0", "resourceName": EXT, "requestName": "container-0-request-0"}
        ],
        "resourceClaimName": CREATED,
    }


def test_non_dra_extended_resource_name_with_zero_allocatable() -> None:
    # The class names no extended resource: the pod is NodeResourcesFit's alone.
    r = run(POD_EXT, PLAIN_CLASS, WORKER_SLICE, node_=node("0"))
    assert code(r.pre_filter()) == Code.SKIP
    assert code(r.plugin.pre_bind_pre_flight(r.state, r.pod, NODE)) == Code.SKIP


def test_extended_resource_name_no_resource() -> None:
    r = run(POD_EXT, CLASS_EXT)
    assert r.pre_filter() is None
    status = r.filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == "cannot allocate all claims"
    status = r.post_filter()
    assert (code(status), message(status)) == (Code.UNSCHEDULABLE, "still not schedulable")
    assert r.claims() == []


@pytest.mark.parametrize(
    ("pod", "want_requests", "want_results"),
    [
        (
            POD_IMPLICIT,
            [("container-0-request-0", CLASS, 1), ("container-0-request-1", CLASS, 2)],
            [
                ("container-0-request-0", "instance-1"),
                ("container-0-request-1", "instance-2"),
                ("container-0-request-1", "instance-3"),
            ],
        ),
        (
            POD_IMPLICIT_TWO,
            [("container-0-request-0", CLASS, 1), ("container-1-request-0", CLASS, 2)],
            [
                ("container-0-request-0", "instance-1"),
                ("container-1-request-0", "instance-2"),
                ("container-1-request-0", "instance-3"),
            ],
        ),
    ],
    ids=[
        "implicit-extended-resource-name-with-resources",
        "implicit-extended-resource-name-two-containers-with-resources",
    ],
)
def test_implicit_extended_resource_name(
    pod: Pod, want_requests: list[Any], want_results: list[Any]
) -> None:
    r = run(pod, CLASS_EXT, LARGE_SLICE)
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.reserve() is None
    assert r.pre_bind() is None
    (created,) = r.claims()
    assert requests(created) == want_requests
    assert results(created) == want_results


def test_extended_resource_name_with_resources_fail_patch() -> None:
    r = run(POD_EXT, CLASS_EXT, WORKER_SLICE, fail_patch=True)
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.reserve() is None
    status = r.pre_bind()
    assert code(status) == Code.ERROR
    assert message(status) == (
        "update pod default/my-pod ExtendedResourceClaimStatus: patch error"
    )
    (created,) = r.claims()  # created and reserved before the pod's status failed
    assert [ref.uid for ref in created.status.reserved_for] == [POD_UID]


@pytest.mark.parametrize(
    "node_name",
    [NODE, "worker-2"],
    ids=[
        "extended-resource-name-with-resources-has-claim",
        "extended-resource-name-with-resources-delete-claim",
    ],
)
def test_a_claim_from_a_previous_cycle_is_deleted(node_name: str) -> None:
    old = extended_claim(node_name)
    r = run(POD_EXT, old, CLASS_EXT, WORKER_SLICE)
    assert r.pre_filter() is None
    status = r.filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == "cannot schedule extended resource claim"
    status = r.post_filter()
    assert (code(status), message(status)) == (
        Code.UNSCHEDULABLE,
        "deletion of ResourceClaim completed",
    )
    assert r.claims() == []


def test_extended_resource_name_bind_failure() -> None:
    r = run(POD_EXT, CLASS_EXT, WORKER_SLICE)
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.reserve() is None
    assert r.pre_bind() is None
    assert [c.metadata.name for c in r.claims()] == [CREATED]
    # Binding failed after PreBind: Unreserve deletes the claim it created.
    r.plugin.unreserve(r.state, r.pod, NODE)
    assert r.claims() == []


def test_extended_resource_name_skip_bind() -> None:
    r = run(POD_EXT, CLASS_EXT, WORKER_SLICE)
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.reserve() is None
    assert len(r.plugin.in_flight.claims()) == 1
    r.plugin.unreserve(r.state, r.pod, NODE)
    assert r.plugin.in_flight.claims() == []
    assert r.claims() == []


def test_extended_resource_name_claim_creation_failure() -> None:
    r = run(POD_EXT, CLASS_EXT, WORKER_SLICE, fail_create=True)
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.reserve() is None
    status = r.pre_bind()
    assert code(status) == Code.ERROR
    assert message(status).endswith("claim creation errors")
    assert r.plugin.in_flight.claims() == []
    r.plugin.unreserve(r.state, r.pod, NODE)
    assert r.claims() == []


def test_a_resource_neither_on_the_node_nor_served_by_a_class() -> None:
    # filterExtendedResources: "cannot fit resource" for a request no one provides.
    pod = gpu_pod({EXT: "1", "example.com/other": "1"})
    r = run(pod, CLASS_EXT, WORKER_SLICE)
    assert r.pre_filter() is None
    status = r.filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == "cannot fit resource"


def test_the_gate_off_leaves_extended_resources_to_node_resources_fit() -> None:
    r = run(POD_EXT, CLASS_EXT, WORKER_SLICE, version="1.35")
    assert code(r.pre_filter()) == Code.SKIP
