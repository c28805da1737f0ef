"""Chapter 7 exercise: the arithmetic of NodeResourcesFit's Filter.

Given the pod's effective request (already added up for you by
:func:`compute_pod_resource_request`) and a node's
:class:`~framework.node_info.NodeInfo`, list every resource the node is
short of, in Kubernetes' order, as :class:`InsufficientResource` values.
The plugin turns their ``reason`` strings into an ``Unschedulable`` status,
and the scheduler counts them in the ``FailedScheduling`` message. Fill in
:func:`fits_request`, then check it::

    python -m pytest chapters/07_filtering --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/noderesources/fits.py``. Stuck? ``python -m framework hint 7``
shows the hints one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from framework.node_info import NodeInfo, Resource
from framework.objects import Pod
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
    "insufficient_reason",
    "is_extended_resource_name",
]

# --- given: the shortage's shape, its reasons, and the pod's request ------------------------------

ERR_REASON_TOO_MANY_PODS = "Too many pods"
"""The reason when the node has no pod slot left (its ``pods`` allocatable)."""


def insufficient_reason(resource: str) -> str:
    """``Insufficient <resource>``: the reason for a resource the node is short of."""
    return f"Insufficient {resource}"


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """One shortage: which resource, the reason shown, and the numbers behind it."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int


def compute_pod_resource_request(pod: Pod) -> Resource:
    """The pod's effective requests as a :class:`~framework.node_info.Resource`."""
    result = Resource()
    for name, amount in pod_requests(pod).items():
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


# --- yours ------------------------------------------------------------------------------------------


def fits_request(
    pod_request: Resource,
    node_info: NodeInfo,
    ignored_extended_resources: frozenset[str] = frozenset(),
    ignored_resource_groups: frozenset[str] = frozenset(),
) -> list[InsufficientResource]:
    """Every resource the node is short of for this request, in Kubernetes' order; [] if it fits.

    You have: ``pod_request.milli_cpu``, ``.memory``, ``.ephemeral_storage``
    and ``.scalar_resources`` (a dict, name -> amount); the same fields on
    ``node_info.allocatable`` (what the node offers, plus
    ``.allowed_pod_number``, its pod slots) and on ``node_info.requested``
    (what the pods already on the node request); ``node_info.pods``; and
    :func:`insufficient_reason`, :data:`ERR_REASON_TOO_MANY_PODS`,
    :func:`is_extended_resource_name`. Each shortage is
    ``InsufficientResource(resource_name, reason, requested, used, capacity)``.
    """
    # TODO 1: pod slots first, for every pod, even one that requests nothing:
    #         one more pod than the node's allowed_pod_number is "Too many pods"
    #         (resource name "pods", requested 1, used = pods already there).
    # TODO 2: a request of nothing at all (cpu, memory, ephemeral storage 0 and
    #         no scalar resources) fits: stop here.
    # TODO 3: cpu, then memory, then ephemeral-storage: a request above 0 that is
    #         more than allocatable minus requested is short ("Insufficient cpu").
    #         Equal is fine.
    # TODO 4: then each scalar resource, in name order: skip a request of 0; skip
    #         an *extended* resource named in ignored_extended_resources, or whose
    #         domain (the part before "/") is in ignored_resource_groups; the rest
    #         are checked like cpu.
    raise NotImplementedError(
        "chapter 7 exercise: write fits_request in chapters/07_filtering/exercise.py "
        "(the rule is in the chapter's 'Exercise' section; hints: python -m framework hint 7)"
    )


def fits(pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
    """What the node is short of for the pod, ignoring nothing (given: it uses yours)."""
    return fits_request(compute_pod_resource_request(pod), node_info)
