"""Does a pod fit on a node? The resource arithmetic behind NodeResourcesFit's Filter.

Three quantities decide it, all in integers (milli-CPU, bytes, counts):

* what the pod asks for: :func:`compute_pod_resource_request`, the pod's
  effective requests (containers summed, the largest init container,
  sidecars, overhead), keeping only the resources the scheduler counts;
* what the node has: its ``allocatable``, including ``pods``, its number of
  pod slots;
* what is already taken: the requests of the pods bound or assumed on the
  node (``NodeInfo.requested``, *real* requests, never the scoring defaults).

:func:`fits_request` lists every resource the node is short of, in a fixed
order: pod slots first (``Too many pods``, checked even for a pod that
requests nothing), then cpu, memory, ephemeral-storage, then each extended
resource by name, skipping the extended resources the plugin's args say to
ignore and any request of 0. A request fits when it is no more than
allocatable minus taken: equal is fine.

The queueing hints reuse the same check on a bare node: :func:`is_fit` asks
whether the pod would fit on the node if it were empty, and
:func:`have_any_requested_resources_increased` whether an update gave the
node more of something the pod wants.

>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> node = NodeInfo()
>>> node.set_node(Node.from_dict({"metadata": {"name": "n1"},
...                               "status": {"allocatable": {"cpu": "1", "pods": "110"}}}))
>>> pod = Pod.from_dict({"metadata": {"name": "web"}, "spec": {"containers": [
...     {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "1500m"}}}]}})
>>> [(r.reason, r.requested, r.used, r.capacity, r.unresolvable) for r in fits(pod, node)]
[('Insufficient cpu', 1500, 0, 1000, True)]

Mirrors ``computePodResourceRequest``, ``fitsRequest``, ``Fits``,
``InsufficientResource``, ``isFit`` and ``haveAnyRequestedResourcesIncreased``
in ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/fit.go``
(v1.33), with v1.34's ``Unresolvable`` mark of a shortage (kubernetes#131345)
and its ``ResourceRequestsOptions.EnablePodLevelResources`` (a v1.35-era
fit.go, index id 277813796; :func:`compute_pod_resource_request`'s
``pod_level_resources``). One difference: extended-resource
shortages are listed in name order, where Go walks a map in random order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from framework.node_info import NodeInfo, Resource
from framework.objects import Node, Pod
from framework.objects.resource_names import (
    is_extended_resource_name,
    is_scalar_resource_name,
)
from framework.objects.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, pod_requests

__all__ = [
    "ERR_REASON_TOO_MANY_PODS",
    "InsufficientResource",
    "compute_pod_resource_request",
    "fits",
    "fits_request",
    "have_any_requested_resources_increased",
    "insufficient_reason",
    "is_fit",
]

ERR_REASON_TOO_MANY_PODS = "Too many pods"
"""The reason when the node has no pod slot left (its ``pods`` allocatable)."""


def insufficient_reason(resource: str) -> str:
    """``Insufficient <resource>``: the reason for a resource the node is short of."""
    return f"Insufficient {resource}"


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """One shortage: which resource, the reason shown, and the numbers behind it.

    ``requested`` is the pod's request, ``used`` what the node's pods already
    request, ``capacity`` the node's allocatable (cluster autoscalers read these).
    ``unresolvable``: the request exceeds the whole allocatable, so even an
    empty node would not do (kubernetes#131345, v1.34; pod slots never are).
    """

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    # Not compared: v1.33's tables (which have no such field) still describe the shortage.
    unresolvable: bool = field(default=False, compare=False)


def compute_pod_resource_request(pod: Pod, *, pod_level_resources: bool = True) -> Resource:
    """The pod's effective requests as a :class:`~framework.node_info.Resource` (only countable names).

    A pending pod has no resize in flight, so its status is not read (Go's
    comment on ``computePodResourceRequest``); ``pod_level_resources`` is
    the ``PodLevelResources`` gate (``ResourceRequestsOptions``).
    """
    result = Resource()
    for name, amount in pod_requests(
        pod, skip_pod_level_resources=not pod_level_resources
    ).items():
        if name == CPU:
            result.milli_cpu = amount
        elif name == MEMORY:
            result.memory = amount
        elif name == EPHEMERAL_STORAGE:
            result.ephemeral_storage = amount
        elif name == PODS:
            result.allowed_pod_number = amount
        elif is_scalar_resource_name(name):
            # Kept even when 0: a zero request of a device is still "a request".
            result.scalar_resources[name] = amount
    return result


def fits_request(
    pod_request: Resource,
    node_info: NodeInfo,
    ignored_extended_resources: frozenset[str] = frozenset(),
    ignored_resource_groups: frozenset[str] = frozenset(),
    dra_backed: frozenset[str] = frozenset(),
) -> list[InsufficientResource]:
    """Every resource the node is short of for this request, in Kubernetes' order; [] if it fits.

    ``dra_backed`` are the extended resources a DeviceClass serves
    (``DRAExtendedResource``): one the node does not advertise is left to
    DynamicResources (``shouldDelegateResourceToDRA``).
    """
    short: list[InsufficientResource] = []
    allocatable, used = node_info.allocatable, node_info.requested
    pods_on_node = len(node_info.pods)
    if pods_on_node + 1 > allocatable.allowed_pod_number:
        short.append(
            InsufficientResource(
                PODS, ERR_REASON_TOO_MANY_PODS, 1, pods_on_node, allocatable.allowed_pod_number
            )
        )
    if (
        pod_request.milli_cpu == 0
        and pod_request.memory == 0
        and pod_request.ephemeral_storage == 0
        and not pod_request.scalar_resources
    ):
        return short
    for name, wanted, have, taken in (
        (CPU, pod_request.milli_cpu, allocatable.milli_cpu, used.milli_cpu),
        (MEMORY, pod_request.memory, allocatable.memory, used.memory),
        (
            EPHEMERAL_STORAGE,
            pod_request.ephemeral_storage,
            allocatable.ephemeral_storage,
            used.ephemeral_storage,
        ),
    ):
        if wanted > 0 and wanted > have - taken:
            short.append(
                InsufficientResource(
                    name, insufficient_reason(name), wanted, taken, have, wanted > have
                )
            )
    scalar = pod_request.scalar_resources
    # sorted() costs a call even on an empty dict, and most pods ask for no extended resource.
    for name in sorted(scalar) if scalar else ():
        wanted = scalar[name]
        if wanted == 0:
            continue
        if is_extended_resource_name(name):
            group = name.split("/")[0] if ignored_resource_groups else ""
            if name in ignored_extended_resources or group in ignored_resource_groups:
                continue
        have = allocatable.scalar_resources.get(name, 0)
        if have <= 0 and name in dra_backed:
            continue  # DynamicResources allocates it from the node's devices
        taken = used.scalar_resources.get(name, 0)
        if wanted > have - taken:
            short.append(
                InsufficientResource(
                    name, insufficient_reason(name), wanted, taken, have, wanted > have
                )
            )
    return short


def fits(
    pod: Pod, node_info: NodeInfo, dra_backed: frozenset[str] = frozenset()
) -> list[InsufficientResource]:
    """What the node is short of for the pod, ignoring nothing (``Fits``, used by other components)."""
    return fits_request(compute_pod_resource_request(pod), node_info, dra_backed=dra_backed)


def is_fit(pod: Pod, node: Node | None, dra_backed: frozenset[str] = frozenset()) -> bool:
    """Whether the pod would fit on the node if the node were empty (False for no node)."""
    if node is None:
        return False
    node_info = NodeInfo()
    node_info.set_node(node)
    return not fits(pod, node_info, dra_backed)


def have_any_requested_resources_increased(
    pod: Pod, original: Node, modified: Node, dra_backed: frozenset[str] = frozenset()
) -> bool:
    """Whether the node gained pod slots, or allocatable of a resource the pod requests.

    Or the pod asks for a resource the node leaves to DRA (``dra_backed``,
    not advertised): an update may have freed devices.
    """
    request = compute_pod_resource_request(pod)
    before = Resource.from_resource_list(original.status.allocatable)
    after = Resource.from_resource_list(modified.status.allocatable)
    if after.allowed_pod_number > before.allowed_pod_number:
        return True
    if (
        request.milli_cpu == 0
        and request.memory == 0
        and request.ephemeral_storage == 0
        and not request.scalar_resources
    ):
        return False
    if (
        (request.milli_cpu > 0 and after.milli_cpu > before.milli_cpu)
        or (request.memory > 0 and after.memory > before.memory)
        or (request.ephemeral_storage > 0 and after.ephemeral_storage > before.ephemeral_storage)
    ):
        return True
    return any(
        wanted > 0
        and (
            after.scalar_resources.get(name, 0) > before.scalar_resources.get(name, 0)
            or (name in dra_backed and after.scalar_resources.get(name, 0) <= 0)
        )
        for name, wanted in request.scalar_resources.items()
    )
