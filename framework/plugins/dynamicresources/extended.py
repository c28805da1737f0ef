"""Extended resources backed by DRA: ``example.com/gpu: 1`` served by a DeviceClass.

A DeviceClass may name an *extended resource* (``spec.extendedResourceName``);
every class also stands for its implicit one,
``deviceclass.resource.kubernetes.io/<class name>``. A pod that asks for such
a resource in a container's ``resources`` (``limits: {example.com/gpu: 1}``),
on a node that does not advertise it in ``allocatable``, gets it from DRA:
NodeResourcesFit leaves the resource alone there, and DynamicResources
allocates a *special claim* for the pod, one request per container and
resource, with the devices of the class.

This module holds what both plugins need:

* :class:`DeviceClassResolver`: which class serves a resource name
  (``GetDeviceClass``). When several classes name the same resource, the
  newest (``creationTimestamp``) wins, the lower name breaking a tie;
* :class:`ExtendedResourceCache`: the resolver kept up to date from a watch
  on DeviceClasses (the scheduler's ``ExtendedResourceCache``);
* :func:`create_requests_and_mappings`: the special claim's requests for the
  resources a node must provide through DRA, and which container each one
  serves (``status.extendedResourceClaimStatus.requestMappings``);
* :func:`special_claim` and :func:`find_extended_resource_claim`: the
  in-memory claim a scheduling cycle starts from, and the one a previous
  cycle wrote to the API server.

Mirrors, read in the index's newest copies (v1.36/v1.37-era master, no tag
attached): ``extendeddynamicresources.go`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/dynamicresources/``
(``hasDeviceClassMappedExtendedResource``, ``findExtendedResourceClaim``,
``preFilterExtendedResources``' claim, ``partitionContainerIndices``,
``createResourceRequestAndMappings``, ``createRequestsAndMappings``; index id
52277332836), ``staging/src/k8s.io/dynamic-resource-allocation/deviceclass/
extendedresourcecache`` (``betterDeviceClass``, ``recomputeWinner``; index id
57560242437) and ``IsDRAExtendedResourceName`` of ``pkg/scheduler/util``.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from framework.objects import Pod
from framework.objects.meta import ObjectMeta
from framework.objects.quantity import Quantity
from framework.objects.resource import (
    ALLOCATION_MODE_EXACT_COUNT,
    DeviceClass,
    DeviceRequest,
    ExactDeviceRequest,
    ResourceClaim,
)
from framework.objects.resource_names import is_extended_resource_name
from framework.plugins.listers import ObjectTracker

__all__ = [
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "RESOURCE_DEVICE_CLASS_PREFIX",
    "SPECIAL_CLAIM_IN_MEM_NAME",
    "ContainerExtendedResourceRequest",
    "DeviceClassResolver",
    "ExtendedResourceCache",
    "create_requests_and_mappings",
    "find_extended_resource_claim",
    "is_dra_extended_resource_name",
    "special_claim",
]

RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"
"""The implicit extended resource of class ``c`` is this prefix and ``c`` (``ResourceDeviceClassPrefix``)."""
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
"""Marks the special claim (``"true"``) the scheduler creates (``ExtendedResourceClaimAnnotation``)."""
SPECIAL_CLAIM_IN_MEM_NAME = "<extended-resources>"
"""The special claim's name until PreBind creates it (not a valid name, on purpose)."""


def is_dra_extended_resource_name(name: str) -> bool:
    """An extended resource name, or an implicit ``deviceclass.resource.kubernetes.io/`` one."""
    return is_extended_resource_name(name) or name.startswith(RESOURCE_DEVICE_CLASS_PREFIX)


def _created(device_class: DeviceClass) -> datetime.datetime:
    stamp = device_class.metadata.creation_timestamp
    if not stamp:
        return datetime.datetime.min.replace(tzinfo=datetime.UTC)
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _better(a: DeviceClass, b: DeviceClass | None) -> bool:
    """Whether ``a`` wins an explicit name over ``b``: newer first, then the lower name."""
    if b is None:
        return True
    if _created(a) != _created(b):
        return _created(a) > _created(b)
    return a.metadata.name < b.metadata.name


class DeviceClassResolver:
    """Which class serves an extended resource name (``DeviceClassResolver``), from the classes."""

    def __init__(self, classes: Iterable[DeviceClass] = ()) -> None:
        self._by_name: dict[str, DeviceClass] = {}
        explicit: dict[str, DeviceClass] = {}
        for device_class in classes:
            self._by_name[RESOURCE_DEVICE_CLASS_PREFIX + device_class.metadata.name] = device_class
            wanted = device_class.spec.extended_resource_name
            if wanted is not None and _better(device_class, explicit.get(wanted)):
                explicit[wanted] = device_class
        self._by_name.update(explicit)

    def get_device_class(self, resource_name: str) -> DeviceClass | None:
        return self._by_name.get(resource_name)


class ExtendedResourceCache:
    """The resolver, made again whenever a DeviceClass changes (a watch, read at each use)."""

    def __init__(self, classes: ObjectTracker[DeviceClass] | None = None) -> None:
        self.classes = classes if classes is not None else ObjectTracker(DeviceClass)
        self._resolver: tuple[int, DeviceClassResolver] | None = None

    def resolver(self, client: Any) -> DeviceClassResolver:
        """The resolver for what ``client``'s server holds now (no client: no classes)."""
        self.classes.refresh(client)
        generation = self.classes.generation
        if self._resolver is None or self._resolver[0] != generation:
            self._resolver = (generation, DeviceClassResolver(self.classes.values()))
        return self._resolver[1]

    def stop(self) -> None:
        self.classes.stop()


@dataclass(frozen=True, slots=True)
class ContainerExtendedResourceRequest:
    """Which request of the special claim serves a container's resource (``v1.ContainerExtendedResourceRequest``)."""

    container_name: str
    resource_name: str
    request_name: str

    def to_dict(self) -> dict[str, str]:
        return {
            "containerName": self.container_name,
            "resourceName": self.resource_name,
            "requestName": self.request_name,
        }


def has_device_class_mapped_extended_resource(
    requests: Mapping[str, int], resolver: DeviceClassResolver
) -> bool:
    """Whether the pod asks for a (non-zero) extended resource some class serves."""
    return any(
        amount
        and is_dra_extended_resource_name(name)
        and resolver.get_device_class(name) is not None
        for name, amount in requests.items()
    )


def find_extended_resource_claim(
    pod: Pod, claims: Iterable[ResourceClaim]
) -> ResourceClaim | None:
    """The special claim a previous cycle created for the pod: annotated, controlled by the pod."""
    for claim in claims:
        if claim.metadata.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            continue
        for ref in claim.metadata.owner_references:
            if (
                isinstance(ref, Mapping)
                and ref.get("name") == pod.metadata.name
                and ref.get("controller")
                and ref.get("uid") == pod.metadata.uid
            ):
                return claim
    return None


def special_claim(pod: Pod) -> ResourceClaim:
    """The in-memory special claim: no requests yet, a temporary uid, owned by the pod."""
    return ResourceClaim(
        metadata=ObjectMeta(
            name=SPECIAL_CLAIM_IN_MEM_NAME,
            namespace=pod.metadata.namespace,
            uid=str(uuid.uuid4()),  # for the in-flight bookkeeping, as Go's uuid.NewUUID()
            generate_name=f"{pod.metadata.name}-extended-resources-",
            owner_references=(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": pod.metadata.name,
                    "uid": pod.metadata.uid,
                    "controller": True,
                },
            ),
            annotations={EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
        )
    )


def _partition_container_indices(
    containers: Sequence[Any], init_count: int
) -> tuple[list[int], list[int]]:
    """Long-lived (regular and sidecar) and short-lived (plain init) containers, by index."""
    long_lived: list[int] = []
    short_lived: list[int] = []
    for i, container in enumerate(containers):
        if i < init_count and container.restart_policy != "Always":
            short_lived.append(i)
        else:
            long_lived.append(i)
    return long_lived, short_lived


def _count(quantity: Any) -> int | None:
    """The quantity as a whole number (``AsInt64``), or None when it is not one."""
    value = (quantity if isinstance(quantity, Quantity) else Quantity.parse(quantity)).value
    return int(value) if value == value.to_integral_value() else None


def _request_and_mappings(
    index: int,
    container: Any,
    resource: str,
    class_name: str,
    reusable: Sequence[DeviceRequest | None],
) -> tuple[DeviceRequest | None, list[ContainerExtendedResourceRequest]]:
    """The container's request for ``resource`` beyond what ``reusable`` requests give it."""
    requests = container.resources.requests
    if resource not in requests:
        return None, []
    wanted = _count(requests[resource])
    if not wanted:
        return None, []
    mappings: list[ContainerExtendedResourceRequest] = []
    total = 0
    for other in reusable:
        if other is None or other.exactly is None:
            continue
        total += other.exactly.count or 0
        mappings.append(ContainerExtendedResourceRequest(container.name, resource, other.name))
        if total >= wanted:
            return None, mappings
    # The resource's position among the container's request names, sorted (a map in Go).
    position = sorted(requests).index(resource)
    name = f"container-{index}-request-{position}"
    request = DeviceRequest(
        name=name,
        exactly=ExactDeviceRequest(
            device_class_name=class_name,
            allocation_mode=ALLOCATION_MODE_EXACT_COUNT,
            count=wanted - total,  # the devices still missing
        ),
    )
    mappings.append(ContainerExtendedResourceRequest(container.name, resource, name))
    return request, mappings


def create_requests_and_mappings(
    pod: Pod, extended_resources: Mapping[str, int], resolver: DeviceClassResolver
) -> tuple[list[DeviceRequest], list[ContainerExtendedResourceRequest]]:
    """The special claim's requests for ``extended_resources``, and the containers they serve.

    Containers are numbered init containers first. A regular or sidecar
    container gets a request of its own; a plain init container first reuses
    the requests of the long-lived containers after it (they hold their
    devices already), and the plain init containers share one request, the
    largest, since they run one at a time. Requests come sorted by name.
    """
    init_count = len(pod.spec.init_containers)
    containers = [*pod.spec.init_containers, *pod.spec.containers]
    long_lived, short_lived = _partition_container_indices(containers, init_count)
    device_requests: list[DeviceRequest] = []
    mappings: list[ContainerExtendedResourceRequest] = []
    for resource in sorted(extended_resources):
        device_class = resolver.get_device_class(resource)
        if device_class is None:
            continue
        class_name = device_class.metadata.name
        long_requests: list[DeviceRequest | None] = [None] * len(containers)
        long_mappings: list[ContainerExtendedResourceRequest] = []
        for i in long_lived:
            request, found = _request_and_mappings(i, containers[i], resource, class_name, ())
            long_requests[i] = request
            long_mappings.extend(found)
        largest: DeviceRequest | None = None
        short_names: set[str] = set()
        short_mappings: list[ContainerExtendedResourceRequest] = []
        for i in short_lived:
            request, found = _request_and_mappings(
                i, containers[i], resource, class_name, long_requests[i:]
            )
            if request is not None:
                short_names.add(request.name)
                if largest is None or _exact_count(largest) < _exact_count(request):
                    largest = request
            short_mappings.extend(found)
        if largest is not None and len(short_names) > 1:
            short_names.discard(largest.name)
            short_mappings = [
                ContainerExtendedResourceRequest(m.container_name, m.resource_name, largest.name)
                if m.request_name in short_names
                else m
                for m in short_mappings
            ]
        if largest is not None:
            device_requests.append(largest)
        device_requests.extend(r for r in long_requests if r is not None)
        mappings.extend(long_mappings)
        mappings.extend(short_mappings)
    device_requests.sort(key=lambda r: r.name)
    return device_requests, mappings


def _exact_count(request: DeviceRequest) -> int:
    return request.exactly.count or 0 if request.exactly is not None else 0
