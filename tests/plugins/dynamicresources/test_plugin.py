"""DynamicResources' table test, transcribed from kube's ``TestPlugin``.

Source: ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/dynamicresources/``
``dynamicresources_test.go`` (resource.k8s.io/v1 era, index id 413406178): the
fixtures (``workerNode``, ``workerNodeSlice``, ``pendingClaim``, ``allocatedClaim``,
``inUseClaim``, ``brokenSelector``...) and the cases ``empty``, ``claim-reference``,
``claim-template``, ``missing-claim``, ``deleted-claim``, ``wrong-claim``,
``no-resources``, ``with-resources``, ``with-resources-has-finalizer``, ``skip-bind``,
``exhausted-resources``, ``claim-parameters-CEL-runtime-error``,
``class-parameters-CEL-runtime-error``, ``missing-class``, ``wrong-topology``,
``good-topology``, ``bind-failure``, ``reserved-okay``, ``DRA-disabled``,
``claim-with-request-with-unknown-device-class`` and ``claim-with-prioritized-list``,
with the statuses they expect. Cases about features not modelled (admin
access, device taints, extended resources, binding conditions, PostFilter's
deallocation) are left out. Go's ``st.MakeResourceClaim().Request(class)`` names
its requests ``req-1``, ``req-2``...; ``st.MakeResourceSlice(node, driver)`` makes
a slice for that node whose pool is named after it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.apiserver.errors import NotFound, resource_for
from framework.apiserver.store import ListResult
from framework.cycle_state import CycleState
from framework.featuregate import new_feature_gates
from framework.node_info import NodeInfo
from framework.objects import KubeObject, Node, Pod
from framework.objects.resource import (
    FINALIZER,
    DeviceClass,
    ResourceClaim,
    ResourceSlice,
)
from framework.plugins.dynamicresources import DynamicResources
from framework.status import Code, Status

NODE = "worker"
DRIVER = "some-driver"
POD = "my-pod"
POD_UID = "1234"
RESOURCE = "my-resource"
CLAIM = f"{POD}-{RESOURCE}"
CLASS = "my-resource-class"
ATTR = "healthy"  # only on worker-2's device


class Client:
    """The fake clientset: objects by kind and key; ``update`` and ``update_status`` replace."""

    def __init__(self, objects: list[KubeObject]) -> None:
        self.objects = {(type(o), o.key): o for o in objects}

    def list(self, kind: type[Any], namespace: str | None = None) -> ListResult[Any]:
        found = [o for (k, _), o in self.objects.items() if k is kind]
        return ListResult(tuple(found), "1")

    def get(self, kind: type[Any], name: str, namespace: str | None = None) -> Any:
        key = f"{namespace}/{name}" if kind.NAMESPACED else name
        if (kind, key) not in self.objects:
            raise NotFound(resource_for(kind), name)
        return self.objects[(kind, key)]

    def update(self, obj: KubeObject) -> KubeObject:
        self.objects[(type(obj), obj.key)] = obj
        return obj

    update_status = update


@dataclasses.dataclass
class Handle:
    fake: Client
    feature_gates: Any

    def client(self) -> Client:
        return self.fake


def node(name: str = NODE) -> Node:
    return Node.from_dict({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}})


def info(of: Node) -> NodeInfo:
    node_info = NodeInfo()
    node_info.set_node(of)
    return node_info


def device_slice(node_name: str = NODE, attributes: dict[str, Any] | None = None) -> ResourceSlice:
    device: dict[str, Any] = {"name": "instance-1"}
    if attributes:
        device["attributes"] = attributes
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": f"{node_name}-{DRIVER}"},
            "spec": {
                "driver": DRIVER,
                "nodeName": node_name,
                "pool": {"name": node_name, "resourceSliceCount": 1},
                "devices": [device],
            },
        }
    )


DEVICE_CLASS = DeviceClass.from_dict({"metadata": {"name": CLASS}})


def pod(*, template: bool = False, in_status: bool = True, uid: str = POD_UID) -> Pod:
    source = {"resourceClaimTemplateName": CLAIM} if template else {"resourceClaimName": CLAIM}
    document: dict[str, Any] = {
        "metadata": {"name": POD, "namespace": "default", "uid": uid},
        "spec": {"resourceClaims": [{"name": RESOURCE, **source}]},
    }
    if template and in_status:
        document["status"] = {
            "resourceClaimStatuses": [{"name": RESOURCE, "resourceClaimName": CLAIM}]
        }
    return Pod.from_dict(document)


def claim(
    name: str = CLAIM,
    *,
    class_name: str = CLASS,
    selector: str | None = None,
    first_available: bool = False,
) -> ResourceClaim:
    exactly: dict[str, Any] = {
        "deviceClassName": class_name,
        "allocationMode": "ExactCount",
        "count": 1,
    }
    if selector is not None:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    request: dict[str, Any] = {"name": "req-1"}
    if first_available:
        request["firstAvailable"] = [
            {"name": "subreq-1", "deviceClassName": class_name, "count": 1}
        ]
    else:
        request["exactly"] = exactly
    return ResourceClaim.from_dict(
        {
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": f"uid-{name}",
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "name": POD,
                        "uid": POD_UID,
                        "controller": True,
                    }
                ],
            },
            "spec": {"devices": {"requests": [request]}},
        }
    )


PENDING = claim()

ALLOCATION = {
    "devices": {
        "results": [{"request": "req-1", "driver": DRIVER, "pool": NODE, "device": "instance-1"}]
    },
    "nodeSelector": {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE]}]}
        ]
    },
}
RESERVED_FOR = [{"resource": "pods", "name": POD, "uid": POD_UID}]


def with_status(base: ResourceClaim, **status: Any) -> ResourceClaim:
    document = base.to_dict()
    document["metadata"]["finalizers"] = [FINALIZER]
    document["status"] = status
    return ResourceClaim.from_dict(document)


ALLOCATED = with_status(PENDING, allocation=ALLOCATION)
IN_USE = with_status(PENDING, allocation=ALLOCATION, reservedFor=RESERVED_FOR)
OTHER_ALLOCATED = with_status(claim("not-my-claim"), allocation=ALLOCATION)


def topology(key: str, value: str) -> ResourceClaim:
    allocation = {
        **ALLOCATION,
        "nodeSelector": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}
            ]
        },
    }
    return with_status(PENDING, allocation=allocation)


@dataclasses.dataclass
class Run:
    plugin: DynamicResources
    client: Client
    state: CycleState
    pod: Pod
    nodes: list[Node]

    def pre_enqueue(self) -> Status | None:
        return self.plugin.pre_enqueue(self.pod)

    def pre_filter(self) -> Status | None:
        infos = [info(n) for n in self.nodes]
        return self.plugin.pre_filter(self.state, self.pod, infos)[1]

    def filter(self, name: str = NODE) -> Status | None:
        (found,) = [info(n) for n in self.nodes if n.metadata.name == name]
        return self.plugin.filter(self.state, self.pod, found)

    def stored(self, name: str = CLAIM) -> ResourceClaim:
        found: ResourceClaim = self.client.get(ResourceClaim, name, "default")
        return found


def run(
    the_pod: Pod,
    *objects: KubeObject,
    nodes: list[Node] | None = None,
    version: str = "1.34",
    gates: dict[str, bool] | None = None,
) -> Run:
    client = Client(list(objects))
    handle = Handle(client, new_feature_gates(version, gates or {}))
    return Run(DynamicResources(handle), client, CycleState(), the_pod, nodes or [node()])


def code(status: Status | None) -> Code:
    return status.code if status is not None else Code.SUCCESS


def message(status: Status | None) -> str:
    return status.message() if status is not None else ""


def test_empty() -> None:
    r = run(Pod.from_dict({"metadata": {"name": "foo", "namespace": "default"}}))
    assert r.pre_enqueue() is None
    assert code(r.pre_filter()) == Code.SKIP


@pytest.mark.parametrize(
    "the_pod", [pod(), pod(template=True)], ids=["claim-reference", "claim-template"]
)
def test_claim_reference_and_template(the_pod: Pod) -> None:
    r = run(the_pod, ALLOCATED, OTHER_ALLOCATED)
    assert r.pre_enqueue() is None
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.plugin.reserve(r.state, the_pod, NODE) is None
    assert r.plugin.pre_bind(r.state, the_pod, NODE) is None
    assert r.stored().status.reserved_for == IN_USE.status.reserved_for
    assert r.stored().status.allocation == ALLOCATED.status.allocation


def test_missing_claim() -> None:
    r = run(pod(template=True, in_status=False), ALLOCATED, OTHER_ALLOCATED)
    status = r.pre_enqueue()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == 'pod "default/my-pod": ResourceClaim not created yet'


def test_deleted_claim() -> None:
    deleted = ALLOCATED.with_metadata(deletion_timestamp="2026-12-02T00:00:00Z")
    status = run(pod(template=True), deleted).pre_enqueue()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == 'resourceclaim "my-pod-my-resource" is being deleted'


def test_wrong_claim() -> None:
    owner = {**ALLOCATED.metadata.owner_references[0], "uid": POD_UID + "123"}
    wrong = ALLOCATED.with_metadata(owner_references=(owner,))
    status = run(pod(template=True), wrong).pre_enqueue()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == (
        "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod "
        "(pod is not owner)"
    )


def test_no_resources() -> None:
    r = run(pod(), PENDING, DEVICE_CLASS)
    assert r.pre_filter() is None
    status = r.filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == "cannot allocate all claims"


@pytest.mark.parametrize("has_finalizer", [False, True], ids=["with-resources", "has-finalizer"])
def test_with_resources(has_finalizer: bool) -> None:
    pending = PENDING.with_metadata(finalizers=(FINALIZER,)) if has_finalizer else PENDING
    r = run(pod(), pending, DEVICE_CLASS, device_slice())
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.plugin.reserve(r.state, r.pod, NODE) is None
    # Reserve: the claim, allocated, is in flight; the API server has not seen it yet.
    (in_flight,) = r.plugin.in_flight.claims()
    assert in_flight.status.allocation == ALLOCATED.status.allocation
    assert in_flight.metadata.finalizers == (FINALIZER,)
    assert r.stored().status.allocation is None
    # PreBind: finalizer, allocation and reservation written; no longer in flight.
    assert r.plugin.pre_bind(r.state, r.pod, NODE) is None
    assert r.stored().metadata.finalizers == (FINALIZER,)
    assert r.stored().status == IN_USE.status
    assert r.plugin.in_flight.claims() == []


def test_skip_bind() -> None:
    r = run(pod(), PENDING, DEVICE_CLASS, device_slice())
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.plugin.reserve(r.state, r.pod, NODE) is None
    r.plugin.unreserve(r.state, r.pod, NODE)
    assert r.plugin.in_flight.claims() == []
    assert r.stored() == PENDING


def test_exhausted_resources() -> None:
    r = run(pod(), PENDING, OTHER_ALLOCATED, DEVICE_CLASS, device_slice())
    assert r.pre_filter() is None
    status = r.filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == "cannot allocate all claims"


BROKEN_SELECTOR = f'device.attributes["{DRIVER}"].{ATTR}'


def test_claim_parameters_cel_runtime_error() -> None:
    r = run(pod(), claim(selector=BROKEN_SELECTOR), DEVICE_CLASS, device_slice())
    assert r.pre_filter() is None
    status = r.filter()
    assert code(status) == Code.ERROR
    assert message(status) == (
        "claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy"
    )


def test_class_parameters_cel_runtime_error() -> None:
    broken = DeviceClass.from_dict(
        {
            "metadata": {"name": CLASS},
            "spec": {"selectors": [{"cel": {"expression": BROKEN_SELECTOR}}]},
        }
    )
    r = run(pod(), PENDING, broken, device_slice())
    assert r.pre_filter() is None
    status = r.filter()
    assert code(status) == Code.ERROR
    assert message(status) == (
        "class my-resource-class: selector #0: CEL runtime error: no such key: healthy"
    )


def test_cel_runtime_error_for_one_of_two_nodes() -> None:
    # worker-2's device has the attribute: the selector is fine there, an error on worker.
    healthy = device_slice("worker-2", {ATTR: {"bool": True}})
    r = run(
        pod(),
        claim(selector=BROKEN_SELECTOR),
        DEVICE_CLASS,
        device_slice(),
        healthy,
        nodes=[node(), node("worker-2")],
    )
    assert r.pre_filter() is None
    assert code(r.filter()) == Code.ERROR
    assert r.filter("worker-2") is None


@pytest.mark.parametrize(
    ("the_claim", "detail"),
    [
        (PENDING, "request req-1: device class my-resource-class does not exist"),
        (
            claim(class_name="does-not-exist"),
            "request req-1: device class does-not-exist does not exist",
        ),
        (
            claim(class_name="does-not-exist", first_available=True),
            "request req-1/subreq-1: device class does-not-exist does not exist",
        ),
    ],
    ids=["missing-class", "unknown-device-class", "prioritized-list-unknown-device-class"],
)
def test_missing_class(the_claim: ResourceClaim, detail: str) -> None:
    status = run(pod(), the_claim).pre_filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == detail


def test_wrong_topology() -> None:
    r = run(pod(), topology("no-such-label", "no-such-value"))
    assert r.pre_filter() is None
    status = r.filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == "resourceclaim not available on the node"


def test_good_topology_and_bind_failure() -> None:
    good = topology("kubernetes.io/hostname", NODE)
    r = run(pod(), good)
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.plugin.reserve(r.state, r.pod, NODE) is None
    assert r.plugin.pre_bind(r.state, r.pod, NODE) is None
    assert [ref.uid for ref in r.stored().status.reserved_for] == [POD_UID]
    # bind-failure: Unreserve after PreBind takes the pod out of reservedFor again.
    r.plugin.unreserve(r.state, r.pod, NODE)
    assert r.stored().status.reserved_for == ()
    assert r.stored().status.allocation == good.status.allocation


def test_reserved_okay() -> None:
    r = run(pod(), IN_USE)
    assert r.pre_enqueue() is None
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.plugin.reserve(r.state, r.pod, NODE) is None
    assert r.plugin.pre_bind(r.state, r.pod, NODE) is None
    assert r.stored() == IN_USE


def test_in_use_by_other() -> None:
    # CanBeReserved: reservedFor holds at most 256 consumers (ResourceClaimReservedForMaxSize).
    full = [{"resource": "pods", "name": f"p{i}", "uid": f"u{i}"} for i in range(256)]
    r = run(
        pod(uid=POD_UID + "-II"), with_status(PENDING, allocation=ALLOCATION, reservedFor=full)
    )
    status = r.pre_filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == "resourceclaim in use"


def test_dra_disabled() -> None:
    r = run(pod(), IN_USE, gates={"DynamicResourceAllocation": False}, version="1.33")
    assert code(r.pre_filter()) == Code.SKIP
    assert r.pre_enqueue() is None


def test_claim_with_prioritized_list() -> None:
    r = run(pod(), claim(first_available=True), DEVICE_CLASS, device_slice())
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.plugin.reserve(r.state, r.pod, NODE) is None
    assert r.plugin.pre_bind(r.state, r.pod, NODE) is None
    allocation = r.stored().status.allocation
    assert allocation is not None
    assert [x.request for x in allocation.devices.results] == ["req-1/subreq-1"]


def test_a_claim_in_flight_makes_the_next_attempt_wait() -> None:
    # dynamicresources.go PreFilter: "Allocation in flight? Better wait for that to finish".
    r = run(pod(), PENDING, DEVICE_CLASS, device_slice())
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.plugin.reserve(r.state, r.pod, NODE) is None
    again = r.plugin.pre_filter(CycleState(), r.pod, [info(node())])[1]
    assert code(again) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(again) == (
        "resource claim default/my-pod-my-resource is in the process of being allocated"
    )


def test_a_device_in_flight_is_not_given_to_a_second_pod() -> None:
    # inFlightAllocations: the devices Reserve took count as allocated for the next pod.
    second_claim = claim("second")
    r = run(pod(), PENDING, second_claim, DEVICE_CLASS, device_slice())
    assert r.pre_filter() is None
    assert r.filter() is None
    assert r.plugin.reserve(r.state, r.pod, NODE) is None
    second = Pod.from_dict(
        {
            "metadata": {"name": "second", "namespace": "default", "uid": "5678"},
            "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimName": "second"}]},
        }
    )
    state = CycleState()
    assert r.plugin.pre_filter(state, second, [info(node())])[1] is None
    status = r.plugin.filter(state, second, info(node()))
    assert message(status) == "cannot allocate all claims"
    # Once the first pod's Unreserve gives the device back, the second pod fits.
    r.plugin.unreserve(r.state, r.pod, NODE)
    state = CycleState()
    assert r.plugin.pre_filter(state, second, [info(node())])[1] is None
    assert r.plugin.filter(state, second, info(node())) is None


# --- PostFilter: the cases' ``postfilter`` expectations (dynamicresources.go ``PostFilter``) ------


def post_filter(r: Run) -> Status | None:
    out = r.plugin.post_filter(r.state, r.pod, {})
    return out[1]


def test_post_filter_wrong_topology_deallocates_the_claim() -> None:
    # wrong-topology: the claim is allocated where the pod cannot go, and no pod uses it.
    r = run(pod(), topology("no-such-label", "no-such-value"))
    assert r.pre_filter() is None
    assert r.filter() is not None
    status = post_filter(r)
    assert code(status) == Code.UNSCHEDULABLE
    assert message(status) == "deallocation of ResourceClaim completed"
    assert r.stored().status.allocation is None
    assert r.stored().status.reserved_for == ()


def test_post_filter_keeps_a_claim_another_pod_uses() -> None:
    other = [{"resource": "pods", "name": "other", "uid": "other-uid"}]
    allocated = topology("no-such-label", "no-such-value")
    in_use = with_status(
        PENDING, allocation=allocated.status.allocation.to_dict(), reservedFor=other
    )  # type: ignore[union-attr]
    r = run(pod(), in_use)
    assert r.pre_filter() is None
    assert r.filter() is not None
    status = post_filter(r)
    assert code(status) == Code.UNSCHEDULABLE
    assert message(status) == "still not schedulable"
    assert r.stored().status.allocation is not None


@pytest.mark.parametrize(
    "objects",
    [(PENDING, DEVICE_CLASS), (PENDING, OTHER_ALLOCATED, DEVICE_CLASS, device_slice())],
    ids=["no-resources", "exhausted-resources"],
)
def test_post_filter_has_nothing_to_deallocate(objects: tuple[KubeObject, ...]) -> None:
    r = run(pod(), *objects)
    assert r.pre_filter() is None
    assert r.filter() is not None
    status = post_filter(r)
    assert code(status) == Code.UNSCHEDULABLE
    assert message(status) == "still not schedulable"


def test_post_filter_without_claims() -> None:
    r = run(Pod.from_dict({"metadata": {"name": "plain", "namespace": "default"}}))
    r.pre_filter()
    status = post_filter(r)
    assert code(status) == Code.UNSCHEDULABLE
    # dynamicresources.go PostFilter's fast path; it shows in every FailedScheduling message.
    assert message(status) == "no new claims to deallocate"


def test_pre_bind_pre_flight_skips_a_pod_without_claims_and_has_work_for_one_with_claims() -> None:
    # dynamicresources.go PreBindPreFlight (v1.34 on): Skip when disabled or when the
    # CycleState holds no claims; nil (Success) otherwise, since PreBind writes them.
    empty = run(Pod.from_dict({"metadata": {"name": "foo", "namespace": "default"}}))
    assert code(empty.pre_filter()) == Code.SKIP
    assert code(empty.plugin.pre_bind_pre_flight(empty.state, empty.pod, NODE)) == Code.SKIP
    with_claims = run(pod(), PENDING, DEVICE_CLASS, device_slice())
    assert with_claims.pre_filter() is None
    assert with_claims.plugin.pre_bind_pre_flight(with_claims.state, with_claims.pod, NODE) is None
    disabled = run(pod(), IN_USE, gates={"DynamicResourceAllocation": False}, version="1.33")
    assert code(disabled.plugin.pre_bind_pre_flight(disabled.state, disabled.pod, NODE)) == (
        Code.SKIP
    )
    # Without the PreFilter's state: an Error, as getStateData's.
    fresh = run(pod(), PENDING, DEVICE_CLASS, device_slice())
    assert code(fresh.plugin.pre_bind_pre_flight(fresh.state, fresh.pod, NODE)) == Code.ERROR


def test_filter_without_prefilter_state_is_go_s_bare_error() -> None:
    # dynamicresources.go's getStateData returns CycleState.Read's error unwrapped, and
    # Filter makes it the status: the message is framework.ErrNotFound's "not found".
    r = run(pod(), ALLOCATED)
    status = r.filter()
    assert code(status) == Code.ERROR
    assert message(status) == "not found"
