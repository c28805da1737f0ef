"""Dynamic resource allocation objects: device classes, slices, claims and claim templates.

Devices that are not CPU or memory (GPUs, NICs, FPGAs) are described by
their drivers in **ResourceSlices**: one slice lists devices of a driver's
*pool*, each with typed ``attributes`` and ``capacity``, and says which
nodes can reach them (``nodeName``, a ``nodeSelector``, or ``allNodes``).
An administrator groups devices into **DeviceClasses** by CEL selectors
(``device.driver == "gpu.example.com"``). A pod asks for devices through a
**ResourceClaim**: *requests*, each for devices of a class, optionally
narrowed by selectors of its own. The pod names its claims in
``spec.resourceClaims``: an existing claim (``resourceClaimName``, which pods
may share) or a **ResourceClaimTemplate** (``resourceClaimTemplateName``),
from which the resourceclaim controller makes a claim for this pod alone
and records its name in the pod's ``status.resourceClaimStatuses``.

The scheduler *allocates* the claim: picks devices on the chosen node and
writes them into ``status.allocation``, and reserves the claim for the pod in
``status.reservedFor``. A container uses a claim by naming it in
``resources.claims``.

Only the fields the scheduler reads are typed; the rest travels in
``extra``. The pod's own fields are read by :func:`pod_resource_claims` and
:func:`pod_claim_statuses` from the pod's ``extra``, as
:func:`framework.objects.storage.pod_volumes` reads its volumes.

>>> claim = ResourceClaim.from_dict({"metadata": {"name": "gpu"},
...     "spec": {"devices": {"requests": [{"name": "gpu",
...         "exactly": {"deviceClassName": "gpu.example.com"}}]}}})
>>> claim.spec.devices.requests[0].exactly.device_class_name
'gpu.example.com'

Mirrors ``k8s.io/api/resource/v1`` (``DeviceClass``, ``ResourceSlice``,
``ResourceClaim``, ``ResourceClaimTemplate``; GA in v1.34) and ``PodResourceClaim``
/ ``PodResourceClaimStatus`` of ``k8s.io/api/core/v1``, and ``Name`` /
``IsForPod`` / ``IsReservedForPod`` / ``CanBeReserved`` of
``staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go``.
Simplified: a device's ``consumesCounters`` and ``taints``, a slice's
``sharedCounters``, a claim's ``config`` and a request's ``tolerations`` are
kept as plain data (the allocator reads them as such:
:mod:`framework.plugins.dynamicresources.structured`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from framework.objects.meta import Extra, KubeObject, ObjectMeta, extra_field
from framework.objects.pod import NodeSelector, Pod
from framework.objects.quantity import Quantity
from framework.objects.schema import Model, json_field

__all__ = [
    "ALLOCATION_MODE_ALL",
    "ALLOCATION_MODE_EXACT_COUNT",
    "ANN_POD_CLAIM_NAME",
    "API_VERSION",
    "EVENT_RESOURCE_KINDS",
    "FINALIZER",
    "RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE",
    "RESOURCE_KINDS",
    "AllocationResult",
    "CELDeviceSelector",
    "ClaimNameError",
    "Device",
    "DeviceAllocationResult",
    "DeviceAttribute",
    "DeviceCapacity",
    "DeviceClaim",
    "DeviceClass",
    "DeviceClassSpec",
    "DeviceConstraint",
    "DeviceRequest",
    "DeviceRequestAllocationResult",
    "DeviceSelector",
    "DeviceSubRequest",
    "ExactDeviceRequest",
    "PodResourceClaim",
    "PodResourceClaimStatus",
    "ResourceClaim",
    "ResourceClaimConsumerReference",
    "ResourceClaimSpec",
    "ResourceClaimStatus",
    "ResourceClaimTemplate",
    "ResourceClaimTemplateSpec",
    "ResourcePool",
    "ResourceSlice",
    "ResourceSliceSpec",
    "can_be_reserved",
    "claim_name",
    "is_for_pod",
    "is_reserved_for_pod",
    "pod_claim_statuses",
    "pod_resource_claims",
]

API_VERSION = "resource.k8s.io/v1"
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
ALLOCATION_MODE_ALL = "All"
FINALIZER = "resource.kubernetes.io/delete-protection"
"""The finalizer the scheduler adds to a claim it allocates (``resourceapi.Finalizer``)."""
ANN_POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"
"""Annotation on a generated claim naming the pod's ``spec.resourceClaims`` entry it is for."""
RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE = 256
"""How many consumers ``status.reservedFor`` may list (``ResourceClaimReservedForMaxSize``)."""


# --- DeviceClass ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CELDeviceSelector(Model):
    """``cel.expression``: a CEL expression over ``device`` that must be true."""

    expression: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceSelector(Model):
    """One selector (only ``cel`` exists)."""

    cel: CELDeviceSelector | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceClassSpec(Model):
    """``spec``: the selectors every device of the class satisfies, its config."""

    selectors: tuple[DeviceSelector, ...] = ()
    config: tuple[Any, ...] = ()
    extended_resource_name: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceClass(KubeObject):
    """``resource.k8s.io/v1`` DeviceClass (cluster-scoped)."""

    KIND: ClassVar[str] = "DeviceClass"
    API_VERSION: ClassVar[str] = API_VERSION
    NAMESPACED: ClassVar[bool] = False

    api_version: str = API_VERSION
    kind: str = "DeviceClass"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: DeviceClassSpec = field(default_factory=DeviceClassSpec)
    extra: Extra = extra_field()


# --- ResourceSlice --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceAttribute(Model):
    """One attribute value: exactly one of ``int``, ``bool``, ``string``, ``version``."""

    int_value: int | None = json_field("int", None)
    bool_value: bool | None = json_field("bool", None)
    string: str | None = None
    version: str | None = None
    extra: Extra = extra_field()

    def value(self) -> int | bool | str | None:
        """The one value set (a version as its string), or None."""
        for value in (self.int_value, self.bool_value, self.string, self.version):
            if value is not None:
                return value
        return None


@dataclass(frozen=True, slots=True)
class DeviceCapacity(Model):
    """One capacity: ``value``, a quantity."""

    value: Quantity | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Device(Model):
    """One device of a slice: its name, attributes and capacity (``v1.Device``)."""

    name: str = ""
    attributes: Mapping[str, DeviceAttribute] = field(default_factory=dict)
    capacity: Mapping[str, DeviceCapacity] = field(default_factory=dict)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourcePool(Model):
    """``spec.pool``: the pool's name, generation and how many slices it has."""

    name: str = ""
    generation: int = 0
    resource_slice_count: int = 0
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourceSliceSpec(Model):
    """``spec``: the driver, the pool, the nodes that reach the devices, the devices."""

    driver: str = ""
    pool: ResourcePool = field(default_factory=ResourcePool)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    per_device_node_selection: bool | None = None
    devices: tuple[Device, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourceSlice(KubeObject):
    """``resource.k8s.io/v1`` ResourceSlice (cluster-scoped)."""

    KIND: ClassVar[str] = "ResourceSlice"
    API_VERSION: ClassVar[str] = API_VERSION
    NAMESPACED: ClassVar[bool] = False

    api_version: str = API_VERSION
    kind: str = "ResourceSlice"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: ResourceSliceSpec = field(default_factory=ResourceSliceSpec)
    extra: Extra = extra_field()


# --- ResourceClaim --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExactDeviceRequest(Model):
    """``exactly``: devices of one class, by ``allocationMode`` (``ExactCount`` of ``count``, or ``All``)."""

    device_class_name: str = ""
    selectors: tuple[DeviceSelector, ...] = ()
    allocation_mode: str | None = None
    count: int | None = None
    admin_access: bool | None = None
    tolerations: tuple[Any, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceSubRequest(Model):
    """One alternative of ``firstAvailable``: a named :class:`ExactDeviceRequest`."""

    name: str = ""
    device_class_name: str = ""
    selectors: tuple[DeviceSelector, ...] = ()
    allocation_mode: str | None = None
    count: int | None = None
    tolerations: tuple[Any, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceRequest(Model):
    """One request: ``exactly`` one kind of device, or the ``firstAvailable`` of alternatives."""

    name: str = ""
    exactly: ExactDeviceRequest | None = None
    first_available: tuple[DeviceSubRequest, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceConstraint(Model):
    """``matchAttribute``: the devices of ``requests`` (all, if empty) agree on this attribute."""

    requests: tuple[str, ...] = ()
    match_attribute: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceClaim(Model):
    """``spec.devices``: requests, constraints, config."""

    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config: tuple[Any, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourceClaimSpec(Model):
    """``spec``: ``devices``."""

    devices: DeviceClaim = field(default_factory=DeviceClaim)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceRequestAllocationResult(Model):
    """One allocated device: for which request, which driver, pool and device."""

    request: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    admin_access: bool | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeviceAllocationResult(Model):
    """``allocation.devices``: the results, and the config that applies to them."""

    results: tuple[DeviceRequestAllocationResult, ...] = ()
    config: tuple[Any, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class AllocationResult(Model):
    """``status.allocation``: the devices, and the nodes that can use them (None: all)."""

    devices: DeviceAllocationResult = field(default_factory=DeviceAllocationResult)
    node_selector: NodeSelector | None = None
    allocation_timestamp: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourceClaimConsumerReference(Model):
    """One ``reservedFor`` entry: the consumer (a pod) by resource, name and uid."""

    api_group: str = ""
    resource: str = ""
    name: str = ""
    uid: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourceClaimStatus(Model):
    """``status``: the allocation and who it is reserved for."""

    allocation: AllocationResult | None = None
    reserved_for: tuple[ResourceClaimConsumerReference, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourceClaim(KubeObject):
    """``resource.k8s.io/v1`` ResourceClaim."""

    KIND: ClassVar[str] = "ResourceClaim"
    API_VERSION: ClassVar[str] = API_VERSION

    api_version: str = API_VERSION
    kind: str = "ResourceClaim"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus = field(default_factory=ResourceClaimStatus)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourceClaimTemplateSpec(Model):
    """``spec``: the metadata and spec each claim made from the template gets."""

    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = field(default_factory=ResourceClaimSpec)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ResourceClaimTemplate(KubeObject):
    """``resource.k8s.io/v1`` ResourceClaimTemplate."""

    KIND: ClassVar[str] = "ResourceClaimTemplate"
    API_VERSION: ClassVar[str] = API_VERSION

    api_version: str = API_VERSION
    kind: str = "ResourceClaimTemplate"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: ResourceClaimTemplateSpec = field(default_factory=ResourceClaimTemplateSpec)
    extra: Extra = extra_field()


# --- a pod's claims -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PodResourceClaim(Model):
    """One entry of a pod's ``spec.resourceClaims``: a claim by name, or a template."""

    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodResourceClaimStatus(Model):
    """One entry of ``status.resourceClaimStatuses``: the claim made for a template entry."""

    name: str = ""
    resource_claim_name: str | None = None
    extra: Extra = extra_field()


RESOURCE_KINDS: tuple[type[KubeObject], ...] = (
    DeviceClass,
    ResourceSlice,
    ResourceClaimTemplate,
    ResourceClaim,
)
"""The resource.k8s.io kinds, in the order their objects refer to one another."""

EVENT_RESOURCE_KINDS: Mapping[str, type[KubeObject]] = {
    "resource.k8s.io/ResourceClaim": ResourceClaim,
    "resource.k8s.io/ResourceSlice": ResourceSlice,
    "resource.k8s.io/DeviceClass": DeviceClass,
}
"""The kinds behind kube-scheduler's DRA event resources (``fwk.ResourceClaim``...)."""

_NO_CLAIMS: tuple[PodResourceClaim, ...] = ()
_NO_STATUSES: tuple[PodResourceClaimStatus, ...] = ()


def pod_resource_claims(pod: Pod) -> tuple[PodResourceClaim, ...]:
    """The pod's ``spec.resourceClaims``, typed (the pod model keeps them in ``spec.extra``)."""
    raw = pod.spec.extra.get("resourceClaims")
    if not raw:
        return _NO_CLAIMS
    return tuple(PodResourceClaim.from_dict(c) for c in raw if isinstance(c, Mapping))


def pod_claim_statuses(pod: Pod) -> tuple[PodResourceClaimStatus, ...]:
    """The pod's ``status.resourceClaimStatuses``, typed."""
    raw = pod.status.extra.get("resourceClaimStatuses")
    if not raw:
        return _NO_STATUSES
    return tuple(PodResourceClaimStatus.from_dict(s) for s in raw if isinstance(s, Mapping))


class ClaimNameError(ValueError):
    """A pod's claim has no name yet (its claim was not generated), or the entry is malformed."""


def claim_name(pod: Pod, pod_claim: PodResourceClaim) -> tuple[str | None, bool]:
    """The claim a ``spec.resourceClaims`` entry stands for, and whether the pod must own it.

    ``resourceClaimName`` names it directly; for ``resourceClaimTemplateName``
    the name is in the pod's status, once the resourceclaim controller made
    the claim (None there: no claim was needed). Raises :class:`ClaimNameError`
    with kube's message otherwise (``resourceclaim.Name``).
    """
    if pod_claim.resource_claim_name is not None:
        return pod_claim.resource_claim_name, False
    pod_key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    if pod_claim.resource_claim_template_name is not None:
        for status in pod_claim_statuses(pod):
            if status.name == pod_claim.name:
                return status.resource_claim_name, True
        raise ClaimNameError(f'pod "{pod_key}": ResourceClaim not created yet')
    raise ClaimNameError(
        f'pod "{pod_key}", spec.resourceClaim "{pod_claim.name}": '
        "none of the supported fields are set"
    )


def is_for_pod(pod: Pod, claim: ResourceClaim) -> str | None:
    """None when the pod controls the claim (``IsForPod``), else kube's message."""
    for ref in claim.metadata.owner_references:
        if (
            isinstance(ref, Mapping)
            and ref.get("controller")
            and ref.get("uid") == pod.metadata.uid
        ):
            return None
    return (
        f"ResourceClaim {claim.metadata.namespace}/{claim.metadata.name} was not created for "
        f"pod {pod.metadata.namespace}/{pod.metadata.name} (pod is not owner)"
    )


def is_reserved_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    """Whether ``status.reservedFor`` names the pod (``IsReservedForPod``), by uid."""
    return any(ref.uid == pod.metadata.uid for ref in claim.status.reserved_for)


def can_be_reserved(claim: ResourceClaim) -> bool:
    """Whether ``reservedFor`` has room for one more consumer (``CanBeReserved``)."""
    return len(claim.status.reserved_for) < RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE
