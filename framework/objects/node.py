"""The Node: where pods run, with what room, labels and taints.

What the scheduler reads of a node: its labels (node selectors, affinity,
topology domains), its taints and ``spec.unschedulable``, its allocatable
resources (capacity minus what the system reserves), the images it already
holds (ImageLocality) and its conditions.

Mirrors ``k8s.io/api/core/v1`` (``Node``, ``NodeSpec``, ``NodeStatus``,
``Taint``). Simplified: addresses, ``nodeInfo`` and daemon endpoints travel
untyped in ``extra``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from framework.objects.meta import Extra, KubeObject, ObjectMeta, extra_field
from framework.objects.pod import ResourceList
from framework.objects.schema import Model

__all__ = [
    "LABEL_FAILURE_DOMAIN_BETA_REGION",
    "LABEL_FAILURE_DOMAIN_BETA_ZONE",
    "LABEL_HOSTNAME",
    "LABEL_TOPOLOGY_REGION",
    "LABEL_TOPOLOGY_ZONE",
    "ContainerImage",
    "Node",
    "NodeCondition",
    "NodeSpec",
    "NodeStatus",
    "Taint",
]

# Well-known node labels (k8s.io/api/core/v1/well_known_labels.go).
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
# Deprecated since v1.17, yet still read first by GetZoneKey.
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"


@dataclass(frozen=True, slots=True)
class Taint(Model):
    """Repels pods that do not tolerate it; ``effect`` is NoSchedule, PreferNoSchedule or NoExecute."""

    key: str = ""
    value: str = ""
    effect: str = ""
    time_added: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class NodeSpec(Model):
    """``spec``: cordoned or not, and the taints."""

    unschedulable: bool = False
    taints: tuple[Taint, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ContainerImage(Model):
    """An image present on the node, under all its names, and its size."""

    names: tuple[str, ...] = ()
    size_bytes: int = 0
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class NodeCondition(Model):
    """A ``status.conditions`` entry, such as ``Ready=True``."""

    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""
    last_heartbeat_time: str | None = None
    last_transition_time: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class NodeStatus(Model):
    """``status``: capacity, allocatable, conditions and images."""

    capacity: ResourceList = field(default_factory=dict)
    allocatable: ResourceList = field(default_factory=dict)
    conditions: tuple[NodeCondition, ...] = ()
    images: tuple[ContainerImage, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Node(KubeObject):
    """``v1.Node`` (cluster-scoped)."""

    KIND: ClassVar[str] = "Node"
    NAMESPACED: ClassVar[bool] = False

    api_version: str = "v1"
    kind: str = "Node"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: NodeSpec = field(default_factory=NodeSpec)
    status: NodeStatus = field(default_factory=NodeStatus)
    extra: Extra = extra_field()
