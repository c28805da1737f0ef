"""What a pod asks of a node: its effective resource requests.

A pod's containers run side by side, so their requests add up; its init
containers run one after another *before* them, so only the largest counts;
sidecars (init containers with ``restartPolicy: Always``, Kubernetes 1.29+)
start as init containers but keep running, so they add up with everything
that starts after them. Per resource::

    request = max(sum(containers) + sum(sidecars), max over init containers i of
                  (i's request + sidecars started before i)) + overhead

Two later features change the sum, each behind its feature gate:

* **Pod-level resources** (``PodLevelResources``, alpha v1.32, beta and on
  from v1.34): a pod may state ``spec.resources.requests`` for ``cpu``,
  ``memory`` and hugepages; each one it states *replaces* the containers'
  aggregate for that resource (overhead is still added). Other names there
  are ignored.
* **In-place resize** (``InPlacePodVerticalScaling``, on from v1.33): a
  running pod's containers may be resized; until the kubelet has actuated
  the new size, the pod counts as the larger of what its spec asks, what
  the kubelet allocated (``status.containerStatuses[].allocatedResources``)
  and what is actuated (``...resources.requests``). A resize the kubelet
  marked ``Infeasible`` (condition ``PodResizePending``) no longer counts
  its spec.

CPU is counted in milli-cores, everything else in whole units (bytes, pods,
devices), as :class:`~framework.objects.Quantity` gives them.

Mirrors ``PodRequests``, ``AggregateContainerRequests``,
``IsPodLevelRequestsSet``, ``IsSupportedPodLevelResource`` and
``IsPodResizeInfeasible`` in
``kubernetes/kubernetes:staging/src/k8s.io/component-helpers/resource/helpers.go``
(read in a v1.37-era copy, index id 68478188220), which NodeResourcesFit, the
resource scorers and the scheduler cache all call. The options are Go's
``PodResourcesOptions``: ``skip_pod_level_resources`` (the scheduler passes
``!PodLevelResources``) and ``use_status_resources`` (``InPlacePodVerticalScaling``;
NodeResourcesFit's PreFilter passes False, a pending pod has no status).
Simplified: the status max is taken over the pod's aggregates, as that copy
does; an earlier copy (index id 105051623) takes it per container
(``determineContainerReqs``),
which counts more only when one container grows while another shrinks.
Pod-level *status* resources (``InPlacePodLevelResourcesVerticalScaling``) and
DRA node-allocatable claims are not read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from framework.featuregate import FeatureGates
from framework.objects.pod import Container, Pod, ResourceList
from framework.objects.quantity import Quantity

__all__ = [
    "CPU",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "MEMORY",
    "PODS",
    "ResourceGates",
    "is_pod_level_requests_set",
    "is_pod_resize_infeasible",
    "is_supported_pod_level_resource",
    "pod_requests",
    "resource_amount",
    "resource_gates",
    "same_request_inputs",
]

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"

Amounts = dict[str, int]

# What scoring assumes a container asks for when it states no request at all
# (``pkg/scheduler/util/pod_resources.go``): 0.1 core and 200 MiB, so that
# request-less pods still count towards a node's load. Filtering never uses them.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


def resource_amount(name: str, resources: ResourceList) -> int:
    """One resource of a resource list in scheduler units (milli-CPU, else whole units)."""
    quantity = resources.get(name)
    if quantity is None:
        return 0
    return quantity.milli if name == CPU else quantity.units


def _amounts(resources: ResourceList) -> Amounts:
    return {name: resource_amount(name, resources) for name in resources}


def _add(total: Amounts, more: Mapping[str, int]) -> None:
    for name, amount in more.items():
        total[name] = total.get(name, 0) + amount


def _max_into(total: Amounts, other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        if amount > total.get(name, 0):
            total[name] = amount


def _container_amounts(requests: ResourceList, non_missing: Mapping[str, int] | None) -> Amounts:
    amounts = _amounts(requests)
    if non_missing:
        for name, default in non_missing.items():
            # Only a request that is absent is replaced; an explicit 0 stays 0.
            if name not in requests:
                amounts[name] = default
    return amounts


_SUPPORTED_POD_LEVEL = frozenset({CPU, MEMORY})
_HUGEPAGES_PREFIX = "hugepages-"


def is_supported_pod_level_resource(name: str) -> bool:
    """Whether ``spec.resources`` may state ``name``: cpu, memory, hugepages-* (Go's same name)."""
    return name in _SUPPORTED_POD_LEVEL or name.startswith(_HUGEPAGES_PREFIX)


def is_pod_level_requests_set(pod: Pod) -> bool:
    """Whether the pod states a pod-level request of a supported resource (``IsPodLevelRequestsSet``)."""
    resources = pod.spec.resources
    if resources is None:
        return False
    return any(is_supported_pod_level_resource(name) for name in resources.requests)


def is_pod_resize_infeasible(pod: Pod) -> bool:
    """Whether the kubelet marked the pod's resize ``Infeasible`` (``IsPodResizeInfeasible``)."""
    for condition in pod.status.conditions:
        if condition.type == "PodResizePending":
            return condition.reason == "Infeasible"
    return False


@dataclass(frozen=True, slots=True)
class ResourceGates:
    """The two gates that change a pod's requests, as the scheduler reads them.

    Go reads them from the process-wide gate; here a run's
    :class:`~framework.featuregate.FeatureGates` give them (:func:`resource_gates`)
    to the cache's NodeInfos and to the resource plugins. The defaults are
    v1.37's: both on.
    """

    in_place_pod_vertical_scaling: bool = True
    pod_level_resources: bool = True


def resource_gates(gates: FeatureGates) -> ResourceGates:
    """``InPlacePodVerticalScaling`` and ``PodLevelResources`` of a run's feature gates."""
    return ResourceGates(
        gates.enabled("InPlacePodVerticalScaling"), gates.enabled("PodLevelResources")
    )


_ContainerStatus = Mapping[str, Any]
# What one container counts as, given its status (None without one) and whether the
# pod's resize is infeasible: Go's containerSpecRequests / ...Allocated... / ...Actuated...
_Getter = Callable[[Container, "_ContainerStatus | None", bool], ResourceList | None]


def _status_list(status: _ContainerStatus | None, *path: str) -> ResourceList | None:
    value: Any = status
    for key in path:
        if not isinstance(value, Mapping) or value.get(key) is None:
            return None
        value = value[key]
    if not isinstance(value, Mapping):
        return None
    return {str(name): Quantity.parse(raw) for name, raw in value.items()}


def _spec_requests(container: Container, _: _ContainerStatus | None, __: bool) -> ResourceList:
    return container.resources.requests


def _allocated_requests(
    container: Container, status: _ContainerStatus | None, infeasible: bool
) -> ResourceList | None:
    allocated = _status_list(status, "allocatedResources")
    if allocated is not None:
        return allocated
    return None if infeasible else container.resources.requests


def _actuated_requests(
    container: Container, status: _ContainerStatus | None, infeasible: bool
) -> ResourceList | None:
    actuated = _status_list(status, "resources", "requests")
    if actuated is not None:
        return actuated
    return _allocated_requests(container, status, infeasible)


def _container_statuses(pod: Pod) -> dict[str, _ContainerStatus]:
    found: dict[str, _ContainerStatus] = {}
    # Go's findContainerStatus looks in containerStatuses first, then init ones.
    for key in ("initContainerStatuses", "containerStatuses"):
        for status in pod.status.extra.get(key) or ():
            if isinstance(status, Mapping) and isinstance(status.get("name"), str):
                found[status["name"]] = status
    return found


def _aggregate(
    pod: Pod,
    getter: _Getter,
    non_missing: Mapping[str, int] | None,
    statuses: Mapping[str, _ContainerStatus] | None,
    infeasible: bool,
) -> Amounts:
    def own(container: Container) -> Amounts:
        status = statuses.get(container.name) if statuses is not None else None
        return _container_amounts(getter(container, status, infeasible) or {}, non_missing)

    requests: Amounts = {}
    for container in pod.spec.containers:
        _add(requests, own(container))
    sidecars: Amounts = {}
    init_peak: Amounts = {}
    for init in pod.spec.init_containers:
        amounts = own(init)
        if init.restart_policy == "Always":
            _add(requests, amounts)
            _add(sidecars, amounts)
            running = dict(sidecars)
        else:
            running = dict(amounts)
            _add(running, sidecars)
        _max_into(init_peak, running)
    _max_into(requests, init_peak)
    return requests


def pod_requests(
    pod: Pod,
    *,
    include_overhead: bool = True,
    non_missing: Mapping[str, int] | None = None,
    use_status_resources: bool = False,
    skip_pod_level_resources: bool = False,
) -> Amounts:
    """The pod's effective requests, by resource name, in scheduler units (Go's ``PodRequests``).

    ``non_missing`` gives a value for each resource a container does not
    request at all (the scoring defaults, ``NonMissingContainerRequests``).
    ``use_status_resources`` counts an in-place resize in flight (the larger
    of spec, allocated and actuated); ``skip_pod_level_resources`` ignores
    ``spec.resources`` (``PodLevelResources`` off). See the module docstring.
    """
    if not use_status_resources:
        requests = _aggregate(pod, _spec_requests, non_missing, None, False)
    else:
        infeasible = is_pod_resize_infeasible(pod)
        statuses = _container_statuses(pod)
        allocated = _aggregate(pod, _allocated_requests, non_missing, statuses, infeasible)
        actuated = _aggregate(pod, _actuated_requests, non_missing, statuses, infeasible)
        requests = {} if infeasible else _aggregate(pod, _spec_requests, non_missing, None, False)
        _max_into(requests, allocated)
        _max_into(requests, actuated)
    resources = pod.spec.resources
    if not skip_pod_level_resources and resources is not None and is_pod_level_requests_set(pod):
        for name, quantity in resources.requests.items():
            if is_supported_pod_level_resource(name):
                requests[name] = resource_amount(name, {name: quantity})
    if include_overhead:
        _add(requests, _amounts(pod.spec.overhead))
    return requests


def same_request_inputs(a: Pod, b: Pod) -> bool:
    """Whether :func:`pod_requests` gives ``a`` and ``b`` the same answer, whatever its options.

    True when every part of the two pods it reads is the very same object
    (objects are immutable): the containers, the init containers, the
    overhead, the pod-level resources and the status's container statuses,
    and when both or neither have their resize marked ``Infeasible``. That
    is what a binding leaves alone (it changes the node name and the
    ``PodScheduled`` condition), so the scheduler cache keeps the requests
    it computed for the pod it assumed when the bound pod arrives, as
    kube-scheduler's ``PodInfo.Update`` keeps what it derived from an
    unchanged pod. Anything else (an in-place resize, a new status from the
    kubelet) gives False, and the requests are computed again. Keep it in
    step with what :func:`pod_requests` reads.
    """
    spec_a, spec_b = a.spec, b.spec
    return (
        spec_a.containers is spec_b.containers
        and spec_a.init_containers is spec_b.init_containers
        and spec_a.overhead is spec_b.overhead
        and spec_a.resources is spec_b.resources
        and a.status.extra is b.status.extra
        and is_pod_resize_infeasible(a) == is_pod_resize_infeasible(b)
    )
