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

from collections.abc import Iterable, Mapping

from framework.objects.pod import Pod, ResourceList

__all__ = ["CPU", "MEMORY", "PODS", "pod_requests", "resource_amount"]

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"

Amounts = dict[str, int]


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


def _container_requests(containers: Iterable[ResourceList]) -> Amounts:
    total: Amounts = {}
    for requests in containers:
        _add(total, _amounts(requests))
    return total


def pod_requests(pod: Pod, *, include_overhead: bool = True) -> Amounts:
    """The pod's effective requests, by resource name, in scheduler units."""
    requests = _container_requests(c.resources.requests for c in pod.spec.containers)
    sidecars: Amounts = {}
    init_peak: Amounts = {}
    for init in pod.spec.init_containers:
        own = _amounts(init.resources.requests)
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
