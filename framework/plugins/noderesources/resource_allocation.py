"""What the resource scores are computed from: per resource, the node's allocatable and its requested.

Every resource score (LeastAllocated, MostAllocated, RequestedToCapacityRatio,
BalancedAllocation) is a function of two lists with one entry per configured
resource: what the node *can* give (``allocatable``) and what would be
requested on it *if the pod went there* (the node's pods plus this pod). A
:class:`ResourceAllocationScorer` builds the two lists for one node and hands
them to its ``scorer``.

Which "requested" is used is the one subtle rule. NodeResourcesFit scores
with **non-zero** requests: a container that states no CPU or memory request
counts as 100m CPU and 200 MiB (``DEFAULT_MILLI_CPU_REQUEST`` and
``DEFAULT_MEMORY_REQUEST`` of :mod:`framework.objects.resources`), on the node
(``NodeInfo.non_zero_requested``) and for the pod, so that a node full of
request-less pods does not look empty. BalancedAllocation
(``use_requested=True``) uses the **real** requests (``NodeInfo.requested``).
Ephemeral storage and extended resources always use the real ones.

Two more rules keep a resource out of the score: an extended (scalar)
resource the pod does not request, and any resource the node has none of
(allocatable 0). Both come back as ``(0, 0)`` and the scorers skip them, so
they change neither the sum nor the weights.

Mirrors ``resourceAllocationScorer``, ``calculateResourceAllocatableRequest``,
``calculatePodResourceRequest``, ``calculatePodResourceRequestList`` and
``isBestEffortPod`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/resource_allocation.go``
(v1.33; ``calculatePodResourceRequest`` as a v1.37-era copy has it, index id
3571686475: pod-level requests with ``PodLevelResources``, an in-place resize
in flight with ``InPlacePodVerticalScaling``, each from the plugin's gates).
Simplified: no V(10) logging of the two lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from framework.config.args_noderesources import ResourceSpec
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.resource_names import is_scalar_resource_name
from framework.objects.resources import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    EPHEMERAL_STORAGE,
    MEMORY,
)
from framework.objects.resources import pod_requests as compute_pod_requests
from framework.plugins.pernode import PerNodeCache
from framework.status import Code, Status

__all__ = [
    "MSG_RESOURCES_NOT_FOUND",
    "NON_MISSING_CONTAINER_REQUESTS",
    "NodeScorer",
    "ResourceAllocationScorer",
    "Scorer",
    "is_best_effort_pod",
    "score_node_for",
]

Scorer = Callable[[Sequence[int], Sequence[int]], int]
"""``scorer(requested, allocatable) -> score``: one entry per configured resource, 0 for a skipped one."""

NON_MISSING_CONTAINER_REQUESTS = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
"""What scoring assumes for a container that states no CPU or memory request at all."""

MSG_RESOURCES_NOT_FOUND = "resources not found"
"""The Error a scorer with no resources configured returns (never, once args are defaulted)."""


def is_best_effort_pod(pod_requests: Sequence[int]) -> bool:
    """True when the pod requests none of the configured resources (``isBestEffortPod``).

    Not the QoS class: a pod with only limits, or only an extended
    resource that is not configured, counts too.
    """
    return all(request == 0 for request in pod_requests)


@dataclass(frozen=True, slots=True)
class ResourceAllocationScorer:
    """Builds a node's ``(requested, allocatable)`` lists and scores them with ``scorer``.

    ``name`` is the strategy's (``LeastAllocated``...) or the plugin's;
    ``resources`` are the configured ones, in order; ``use_requested``
    picks real requests over non-zero ones for CPU and memory.
    """

    name: str
    scorer: Scorer
    resources: tuple[ResourceSpec, ...]
    use_requested: bool = False
    #: The plugin's ``InPlacePodVerticalScaling`` and ``PodLevelResources`` (Go's
    #: ``enableInPlacePodVerticalScaling`` / ``enablePodLevelResources`` fields).
    enable_in_place_pod_vertical_scaling: bool = True
    enable_pod_level_resources: bool = True

    def score(
        self, pod: Pod, node_info: NodeInfo, pod_requests: Sequence[int]
    ) -> tuple[int, Status | None]:
        """The node's score for the pod, given the pod's requests in the order of ``resources``."""
        if not self.resources:
            return 0, Status(Code.ERROR, (MSG_RESOURCES_NOT_FOUND,))
        requested: list[int] = []
        allocatable: list[int] = []
        for i, resource in enumerate(self.resources):
            alloc, req = self.calculate_resource_allocatable_request(
                node_info, resource.name, pod_requests[i]
            )
            # A resource the node has none of stays (0, 0): the scorers skip it.
            if alloc == 0:
                req = 0
            allocatable.append(alloc)
            requested.append(req)
        return self.scorer(requested, allocatable), None

    def calculate_resource_allocatable_request(
        self, node_info: NodeInfo, resource: str, pod_request: int
    ) -> tuple[int, int]:
        """``(allocatable, requested including the pod)`` of one resource on the node; ``(0, 0)`` to skip it."""
        requested = node_info.requested if self.use_requested else node_info.non_zero_requested
        # An extended resource the pod does not ask for says nothing about this pod.
        if pod_request == 0 and is_scalar_resource_name(resource):
            return 0, 0
        if resource == CPU:
            return node_info.allocatable.milli_cpu, requested.milli_cpu + pod_request
        if resource == MEMORY:
            return node_info.allocatable.memory, requested.memory + pod_request
        if resource == EPHEMERAL_STORAGE:
            return (
                node_info.allocatable.ephemeral_storage,
                node_info.requested.ephemeral_storage + pod_request,
            )
        scalar = node_info.allocatable.scalar_resources
        if is_scalar_resource_name(resource) and resource in scalar:
            return scalar[resource], node_info.requested.scalar_resources.get(
                resource, 0
            ) + pod_request
        return 0, 0

    def _pod_requests(self, pod: Pod) -> dict[str, int]:
        # Unlike the NodeInfo's non-zero totals, every container lacking cpu or memory
        # gets the default here, pod-level requests or not (v1.37-era resource_allocation.go).
        return compute_pod_requests(
            pod,
            non_missing=None if self.use_requested else NON_MISSING_CONTAINER_REQUESTS,
            use_status_resources=self.enable_in_place_pod_vertical_scaling,
            skip_pod_level_resources=not self.enable_pod_level_resources,
        )

    def calculate_pod_resource_request(self, pod: Pod, resource: str) -> int:
        """The pod's request of one resource (milli-CPU or units), non-zero or real as configured."""
        return self._pod_requests(pod).get(resource, 0)

    def calculate_pod_resource_request_list(self, pod: Pod) -> list[int]:
        """The pod's requests of every configured resource, in order (what PreScore stores)."""
        requests = self._pod_requests(pod)
        return [requests.get(resource.name, 0) for resource in self.resources]


NodeScorer = Callable[[NodeInfo], tuple[int, Status | None]]
"""A node's score for the requests PreScore found (what ``ResourceAllocationScorer.score`` returns)."""


def score_node_for(
    scorer: ResourceAllocationScorer,
    cache: PerNodeCache[tuple[int, Status | None]],
    pod: Pod,
    requests: tuple[int, ...],
) -> NodeScorer:
    """``scorer.score`` of a node for these requests, reused while the node's generation stays.

    A node's score is a function of its allocatable and requested totals and
    of the pod's requests, nothing else (the pod is passed on, unused, as in
    Go); the totals change only with the node's generation. So pods with the
    same requests, a Deployment's replicas, share each node's score until a
    pod lands on the node.
    """

    def score_node(node_info: NodeInfo) -> tuple[int, Status | None]:
        return scorer.score(pod, node_info, requests)

    return cache.per_node(requests, score_node)
