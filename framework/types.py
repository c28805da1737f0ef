"""The framework's wrappers around a pod: PodInfo, and QueuedPodInfo while it waits in the queue.

A :class:`PodInfo` is a pod plus what the framework derives from it once
rather than on every node of every cycle. A :class:`QueuedPodInfo` is the
queue's record of one pending pod: when it entered the queue, how many
times it has been tried, which plugins rejected it last time, and whether a
PreEnqueue plugin is holding it at the gate.

Mirrors ``PodInfo`` and ``QueuedPodInfo`` in
``kubernetes/kubernetes:pkg/scheduler/framework/types.go`` (v1.33).
Simplified: Go's PodInfo parses the pod's inter-pod affinity terms when it is
built; here InterPodAffinity compiles them the first time it needs them and
keeps them in ``PodInfo.parsed_affinity_terms``
(:func:`~framework.plugins.interpodaffinity.terms.pod_info_terms`).

A pod's resource requests (:meth:`PodInfo.calculate_resource`) are computed
the first time a NodeInfo adds or removes it and kept on the PodInfo. v1.33's
``NodeInfo.update`` recomputes them (``calculateResource(pod)``) on every
add and remove; later releases cache them the same way
(``PodInfo.CalculateResource`` and ``cachedResource`` in types.go), because
preemption's dry runs remove and re-add the same pods many times. Since
v1.34 they follow ``PodLevelResources`` and, as in v1.33, count an in-place
resize in flight (``InPlacePodVerticalScaling``); the NodeInfo passes the
run's two gates (:class:`~framework.objects.resources.ResourceGates`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from framework.cluster_event import ClusterEventWithHint
from framework.objects import Pod
from framework.objects.resources import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    MEMORY,
    ResourceGates,
    is_pod_level_requests_set,
    pod_requests,
)

__all__ = ["NominatingInfo", "NominatingMode", "PodInfo", "PodResource", "QueuedPodInfo"]

# The scoring defaults for a container that requests no CPU or memory at all.
_NON_MISSING = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
_V137 = ResourceGates()


@dataclass(frozen=True, slots=True)
class PodResource:
    """What a pod adds to a node's totals (``PodResource`` in later releases' types.go).

    ``requests`` are its effective requests by resource name (what Filter
    compares with allocatable); ``non0_cpu`` and ``non0_mem`` are its CPU and
    memory with the scoring defaults for containers that request none.
    """

    requests: dict[str, int]
    non0_cpu: int
    non0_mem: int


@dataclass(slots=True)
class PodInfo:
    """A pod and what is derived from it once."""

    pod: Pod
    # InterPodAffinity's compiled terms of ``pod`` (Go's RequiredAffinityTerms and
    # the three other term fields), filled on first use so that an existing pod's
    # selectors are compiled once, not once per cycle.
    parsed_affinity_terms: Any = field(default=None, compare=False, repr=False)
    # What calculate_resource returned, kept until the pod is replaced.
    cached_resource: PodResource | None = field(default=None, compare=False, repr=False)
    cached_for: ResourceGates | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        """``namespace/name``: the pod's identity in the queue and the cache."""
        return self.pod.key

    def update(self, pod: Pod) -> None:
        """Replace the pod with a newer version of the same pod."""
        self.pod = pod
        self.parsed_affinity_terms = None
        self.cached_resource = None

    def calculate_resource(self, gates: ResourceGates = _V137) -> PodResource:
        """The pod's requests, computed once (``PodInfo.CalculateResource``; see the module docstring).

        ``gates`` are the run's ``InPlacePodVerticalScaling`` and
        ``PodLevelResources`` (the NodeInfo's); a pod that states pod-level
        requests gets the scoring defaults only for cpu or memory it states
        nowhere (Go's ``getNonMissingContainerRequests``).
        """
        cached = self.cached_resource
        # One ResourceGates object serves a whole cache, so identity settles it at once.
        if cached is None or (self.cached_for is not gates and self.cached_for != gates):
            status = gates.in_place_pod_vertical_scaling
            skip = not gates.pod_level_resources
            requests = pod_requests(
                self.pod, use_status_resources=status, skip_pod_level_resources=skip
            )
            if gates.pod_level_resources and is_pod_level_requests_set(self.pod):
                non_missing = {k: v for k, v in _NON_MISSING.items() if k not in requests}
            else:
                non_missing = _NON_MISSING
            non_zero = (
                pod_requests(
                    self.pod,
                    non_missing=non_missing,
                    use_status_resources=status,
                    skip_pod_level_resources=skip,
                )
                if non_missing
                else requests
            )
            cached = PodResource(requests, non_zero.get(CPU, 0), non_zero.get(MEMORY, 0))
            self.cached_resource = cached
            self.cached_for = gates
        return cached


@dataclass(slots=True, eq=False)
class QueuedPodInfo:
    """The scheduling queue's record of a pending pod.

    ``timestamp`` is when the pod last entered the queue (refreshed each
    time a failed attempt returns it), and is the tie-break of the queue
    order and the start of its backoff. ``attempts`` counts pops.
    ``initial_attempt_timestamp`` is set once, when the pod first enters activeQ.
    ``unschedulable_plugins`` and ``pending_plugins`` name the plugins that
    rejected the pod in its last attempt: only events those plugins
    registered can move it out of the unschedulable pods.
    ``gating_plugin`` is the PreEnqueue plugin holding it back, if any.
    """

    pod_info: PodInfo
    timestamp: float
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gating_plugin: str = ""
    gating_plugin_events: tuple[ClusterEventWithHint, ...] = ()

    @property
    def pod(self) -> Pod:
        return self.pod_info.pod

    @property
    def key(self) -> str:
        return self.pod_info.key

    def gated(self) -> bool:
        """Whether a PreEnqueue plugin keeps this pod out of activeQ."""
        return bool(self.gating_plugin)


class NominatingMode(IntEnum):
    """Whether a scheduling result changes the pod's nominated node (``ModeNoop``/``ModeOverride``)."""

    NOOP = 0
    OVERRIDE = 1


@dataclass(frozen=True, slots=True)
class NominatingInfo:
    """A nomination decided by PostFilter (preemption): which node, and whether to apply it.

    With ``OVERRIDE`` the pod's nominated node becomes ``nominated_node_name``
    (an empty name clears it); with ``NOOP`` it stays what it was.
    """

    nominated_node_name: str = ""
    mode: NominatingMode = NominatingMode.NOOP
