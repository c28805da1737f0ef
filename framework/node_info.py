"""NodeInfo: a node as the scheduler sees it — the node, its pods, and what they add up to.

Plugins never walk the API server's pods to learn how full a node is. The
scheduler cache keeps, per node, the pods bound or *assumed* there and the
running totals: requested resources (what Filter compares with allocatable),
"non-zero" requested resources (what Score uses, counting request-less
containers as 100m CPU and 200 MiB), the host ports in use, the images the
node holds and how many nodes share each image. Every change bumps the
NodeInfo's ``generation`` from one global counter, which is how a snapshot
knows which nodes to copy again.

Mirrors ``NodeInfo``, ``Resource``, ``HostPortInfo`` and
``ImageStateSummary`` in
``kubernetes/kubernetes:pkg/scheduler/framework/types.go`` (v1.33).
Simplified: no PVC reference counts beyond a plain dict. A pod's requests
come from :meth:`PodInfo.calculate_resource <framework.types.PodInfo.calculate_resource>`,
computed once per PodInfo as later releases do (v1.33 recomputes them on
every add and remove), with the run's ``PodLevelResources`` and
``InPlacePodVerticalScaling`` (``resource_gates``, which the cache sets; Go
reads the process-wide gates).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from framework.objects import Node, Pod
from framework.objects.pod import ResourceList
from framework.objects.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    ResourceGates,
    resource_amount,
)
from framework.types import PodInfo

__all__ = [
    "DEFAULT_BIND_ALL_HOST_IP",
    "HostPortInfo",
    "ImageStateSummary",
    "NodeInfo",
    "Resource",
    "next_generation",
]

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"  # the wildcard address of a host port
_V137 = ResourceGates()  # both gates on, as from v1.34

_generation = itertools.count(1)
_generation_lock = threading.Lock()


def next_generation() -> int:
    """The next value of the global generation counter (``nextGeneration`` in types.go)."""
    with _generation_lock:
        return next(_generation)


@dataclass(slots=True)
class Resource:
    """An amount of each resource: milli-CPU, bytes of memory and storage, pods, extended resources."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_resource_list(cls, resources: ResourceList) -> Resource:
        """From a node's ``allocatable`` (``pods`` becomes ``allowed_pod_number``)."""
        r = cls()
        for name in resources:
            r._add_one(name, resource_amount(name, resources))
        return r

    @classmethod
    def from_amounts(cls, amounts: Mapping[str, int]) -> Resource:
        r = cls()
        r.add(amounts)
        return r

    def _add_one(self, name: str, amount: int) -> None:
        if name == CPU:
            self.milli_cpu += amount
        elif name == MEMORY:
            self.memory += amount
        elif name == EPHEMERAL_STORAGE:
            self.ephemeral_storage += amount
        elif name == PODS:
            self.allowed_pod_number += amount
        else:
            self.scalar_resources[name] = self.scalar_resources.get(name, 0) + amount

    def add(self, amounts: Mapping[str, int], sign: int = 1) -> None:
        for name, amount in amounts.items():
            self._add_one(name, sign * amount)

    def get(self, name: str) -> int:
        """One resource by its Kubernetes name."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            dict(self.scalar_resources),
        )


@dataclass(frozen=True, slots=True)
class ImageStateSummary:
    """An image on a node: its size, and on how many nodes of the cluster it is present."""

    size: int
    num_nodes: int


class HostPortInfo:
    """Host ports in use on a node: ``ip -> {(protocol, port)}``.

    An empty IP means ``0.0.0.0`` (all addresses) and an empty protocol
    means TCP, as the kubelet reads them. A wanted port conflicts when the
    same protocol and port are taken on the same IP or on ``0.0.0.0``, or,
    when it wants ``0.0.0.0``, on any IP (``HostPortInfo.CheckConflict``).
    """

    __slots__ = ("_ports",)

    def __init__(self) -> None:
        self._ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP"

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self._ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        entries = self._ports.get(ip)
        if entries is not None:
            entries.discard((protocol, port))
            if not entries:
                del self._ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        wanted = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(wanted in entries for entries in self._ports.values())
        return wanted in self._ports.get(
            DEFAULT_BIND_ALL_HOST_IP, ()
        ) or wanted in self._ports.get(ip, ())

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._ports.values())

    def clone(self) -> HostPortInfo:
        copy = HostPortInfo()
        copy._ports = {ip: set(entries) for ip, entries in self._ports.items()}
        return copy


def _has_affinity(pod: Pod) -> bool:
    affinity = pod.spec.affinity
    return affinity is not None and (
        affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None
    )


def _has_required_anti_affinity(pod: Pod) -> bool:
    affinity = pod.spec.affinity
    return (
        affinity is not None
        and affinity.pod_anti_affinity is not None
        and bool(affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution)
    )


def _host_ports(pod: Pod) -> list[tuple[str, str, int]]:
    # Sidecars (restartable init containers) hold their ports for the pod's whole life:
    # kubernetes#132040, in every release from v1.33's patch releases (#133390) on.
    return [
        (port.host_ip, port.protocol, port.host_port)
        for container in (
            *pod.spec.containers,
            *(c for c in pod.spec.init_containers if c.restart_policy == "Always"),
        )
        for port in container.ports
        if port.host_port > 0
    ]


class NodeInfo:
    """A node and the pods on it (bound or assumed), with running totals.

    Mutated only by the scheduler cache (``add_pod``, ``remove_pod``,
    ``set_node``); plugins read it from a snapshot and must not change it,
    except on a :meth:`clone` they made themselves (as preemption's dry runs
    do).
    """

    __slots__ = (
        "allocatable",
        "generation",
        "image_states",
        "name",
        "node",
        "non_zero_requested",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "pvc_ref_counts",
        "requested",
        "resource_gates",
        "used_ports",
    )

    def __init__(self, *pods: Pod, resource_gates: ResourceGates = _V137) -> None:
        self.node: Node | None = None
        #: How a pod's requests count here (the run's InPlacePodVerticalScaling and PodLevelResources).
        self.resource_gates = resource_gates
        #: The node's name, or "" while the node object is not known (yet). A
        #: field set with the node, not a property: it is read several times
        #: for every node of every cycle (chapter 13).
        self.name = ""
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.pvc_ref_counts: dict[str, int] = {}
        self.generation = next_generation()
        for pod in pods:
            self.add_pod(PodInfo(pod))

    def set_node(self, node: Node) -> None:
        self.node = node
        self.name = node.metadata.name
        self.allocatable = Resource.from_resource_list(node.status.allocatable)
        self.generation = next_generation()

    def remove_node(self) -> None:
        self.node = None
        self.name = ""
        self.generation = next_generation()

    def add_pod(self, pod_info: PodInfo) -> None:
        """Account a pod on this node (``NodeInfo.AddPodInfo``)."""
        self.pods.append(pod_info)
        if _has_affinity(pod_info.pod):
            self.pods_with_affinity.append(pod_info)
        if _has_required_anti_affinity(pod_info.pod):
            self.pods_with_required_anti_affinity.append(pod_info)
        self._update(pod_info, sign=1)

    def remove_pod(self, pod: Pod) -> bool:
        """Remove a pod (matched by uid, as Kubernetes does); False if it was not here."""
        uid = pod.metadata.uid
        for i, info in enumerate(self.pods):
            if info.pod.metadata.uid == uid:
                del self.pods[i]
                # Only a pod with affinity is in these lists (Go checks the same way).
                if _has_affinity(info.pod):
                    self.pods_with_affinity = [p for p in self.pods_with_affinity if p is not info]
                if _has_required_anti_affinity(info.pod):
                    self.pods_with_required_anti_affinity = [
                        p for p in self.pods_with_required_anti_affinity if p is not info
                    ]
                self._update(info, sign=-1)
                return True
        return False

    def _update(self, pod_info: PodInfo, sign: int) -> None:
        # The requests are computed once per PodInfo, not on every add and
        # remove: preemption's dry runs remove and re-add the same pods.
        resource = pod_info.calculate_resource(self.resource_gates)
        self.requested.add(resource.requests, sign)
        self.non_zero_requested.milli_cpu += sign * resource.non0_cpu
        self.non_zero_requested.memory += sign * resource.non0_mem
        for ip, protocol, port in _host_ports(pod_info.pod):
            if sign > 0:
                self.used_ports.add(ip, protocol, port)
            else:
                self.used_ports.remove(ip, protocol, port)
        self.generation = next_generation()

    def clone(self) -> NodeInfo:
        """A copy whose lists and totals can be changed without touching this one."""
        copy = NodeInfo.__new__(NodeInfo)
        copy.node = self.node
        copy.name = self.name
        copy.pods = list(self.pods)
        copy.pods_with_affinity = list(self.pods_with_affinity)
        copy.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        copy.used_ports = self.used_ports.clone()
        copy.requested = self.requested.clone()
        copy.non_zero_requested = self.non_zero_requested.clone()
        copy.allocatable = self.allocatable.clone()
        copy.image_states = dict(self.image_states)
        copy.pvc_ref_counts = dict(self.pvc_ref_counts)
        copy.generation = self.generation
        copy.resource_gates = self.resource_gates
        return copy

    def __repr__(self) -> str:
        return (
            f"NodeInfo({self.name or '<no node>'}, pods={len(self.pods)}, "
            f"requested=cpu:{self.requested.milli_cpu}m mem:{self.requested.memory})"
        )
