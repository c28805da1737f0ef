"""What a pod asks of a node: its effective resource requests.

A pod's containers run side by side, so their requests add up; its init
containers run one after another *before* them, so only the largest counts;
sidecars (init containers with ``restartPolicy: Always``, Kubernetes 1.29+)
start as init containers but keep running, so they add up with everything
that starts after them. Per resource::

    request = max(sum(containers) + sum(sidecars), max over init containers i of
                  (i's request + sidecars started before i)) + overhead

CPU is counted in milli-cores, everything else in whole units (bytes, pods,
devices), as :class:`~framework.objects.Quantity` gives them.

Mirrors ``PodRequests`` and ``AggregateContainerRequests`` in
``kubernetes/kubernetes:staging/src/k8s.io/component-helpers/resource/helpers.go``
(v1.33), which NodeResourcesFit and the scheduler cache both call.
Simplified: in-place resize (the larger of spec and allocated resources) and
pod-level ``spec.resources`` (alpha in v1.33) are not considered.
"""

from __future__ import annotations

from collections.abc import Mapping

from framework.objects.pod import Pod, ResourceList

__all__ = [
    "CPU",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "MEMORY",
    "PODS",
    "pod_requests",
    "resource_amount",
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


def pod_requests(
    pod: Pod, *, include_overhead: bool = True, non_missing: Mapping[str, int] | None = None
) -> Amounts:
    """The pod's effective requests, by resource name, in scheduler units.

    ``non_missing`` gives a value for each resource a container does not
    request at all (the scoring defaults, ``NonMissingContainerRequests``).
    """
    requests: Amounts = {}
    for container in pod.spec.containers:
        _add(requests, _container_amounts(container.resources.requests, non_missing))
    sidecars: Amounts = {}
    init_peak: Amounts = {}
    for init in pod.spec.init_containers:
        own = _container_amounts(init.resources.requests, non_missing)
        if init.restart_policy == "Always":
            _add(requests, own)
            _add(sidecars, own)
            running = dict(sidecars)
        else:
            running = dict(own)
            _add(running, sidecars)
        _max_into(init_peak, running)
    _max_into(requests, init_peak)
    if include_overhead:
        _add(requests, _amounts(pod.spec.overhead))
    return requests
