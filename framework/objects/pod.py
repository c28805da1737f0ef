"""The Pod, with every field a scheduler plugin reads.

A pod asks for a place to run. What the scheduler reads of it: the
containers' and init containers' resource requests (and limits, for the QoS
class), host ports, the node selector, node and inter-pod affinity,
tolerations, topology spread constraints, priority, the scheduler name, the
scheduling gates, the node it is bound to, the node it was nominated for by
preemption, and the pod overhead.

Mirrors ``k8s.io/api/core/v1`` (``Pod``, ``PodSpec``, ``Container``, ...).
Simplified: fields no scheduler plugin reads (probes, volumes, env, ...) are
not typed; they travel in each object's ``extra`` and come back on output.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from framework.objects.meta import Extra, KubeObject, LabelSelector, ObjectMeta, extra_field
from framework.objects.quantity import Quantity
from framework.objects.schema import Model, json_field

__all__ = [
    "DO_NOT_SCHEDULE",
    "HONOR",
    "IGNORE",
    "SCHEDULE_ANYWAY",
    "Affinity",
    "Container",
    "ContainerPort",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PodCondition",
    "PodSchedulingGate",
    "PodSchedulingGroup",
    "PodSpec",
    "PodStatus",
    "PreferredSchedulingTerm",
    "ResourceList",
    "ResourceRequirements",
    "Toleration",
    "TopologySpreadConstraint",
    "WeightedPodAffinityTerm",
    "WorkloadReference",
]

ResourceList = Mapping[str, Quantity]
"""``v1.ResourceList``: resource name (``cpu``, ``memory``, ``nvidia.com/gpu``) to quantity."""


@dataclass(frozen=True, slots=True)
class ResourceRequirements(Model):
    """A container's ``resources``: what it asks for (requests) and may use at most (limits)."""

    limits: ResourceList = field(default_factory=dict)
    requests: ResourceList = field(default_factory=dict)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ContainerPort(Model):
    """A port; only ``hostPort`` matters to scheduling (the NodePorts plugin)."""

    name: str = ""
    host_port: int = 0
    container_port: int = 0
    protocol: str = ""
    host_ip: str = json_field("hostIP", "")
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Container(Model):
    """One container (or init container) of a pod.

    ``restart_policy`` is set only on init containers that are sidecars
    (``Always``, Kubernetes 1.29+): their requests add up like regular
    containers' instead of being maxed like other init containers'.
    """

    name: str = ""
    image: str = ""
    resources: ResourceRequirements = field(default_factory=ResourceRequirements)
    ports: tuple[ContainerPort, ...] = ()
    restart_policy: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Toleration(Model):
    """Lets a pod onto nodes with a matching taint (TaintToleration plugin)."""

    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement(Model):
    """``key`` ``operator`` (In, NotIn, Exists, DoesNotExist, Gt, Lt) ``values``, on node labels or fields."""

    key: str = ""
    operator: str = ""
    values: tuple[str, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm(Model):
    """Requirements that must all hold (``matchExpressions`` on labels, ``matchFields`` on fields)."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class NodeSelector(Model):
    """Terms of which at least one must hold (the terms are ORed)."""

    node_selector_terms: tuple[NodeSelectorTerm, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm(Model):
    """A soft node preference and its weight (1-100)."""

    weight: int = 0
    preference: NodeSelectorTerm = field(default_factory=NodeSelectorTerm)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class NodeAffinity(Model):
    """Hard (required) and soft (preferred) rules on node labels."""

    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: tuple[PreferredSchedulingTerm, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodAffinityTerm(Model):
    """Pods matching ``label_selector`` in ``namespaces`` share (or do not share) a ``topology_key`` domain."""

    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] = ()
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm(Model):
    """A soft inter-pod (anti-)affinity term and its weight (1-100)."""

    weight: int = 0
    pod_affinity_term: PodAffinityTerm = field(default_factory=PodAffinityTerm)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodAffinity(Model):
    """Run near pods that match."""

    required_during_scheduling_ignored_during_execution: tuple[PodAffinityTerm, ...] = ()
    preferred_during_scheduling_ignored_during_execution: tuple[WeightedPodAffinityTerm, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodAntiAffinity(Model):
    """Stay away from pods that match."""

    required_during_scheduling_ignored_during_execution: tuple[PodAffinityTerm, ...] = ()
    preferred_during_scheduling_ignored_during_execution: tuple[WeightedPodAffinityTerm, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Affinity(Model):
    """``spec.affinity``: node affinity, pod affinity and pod anti-affinity."""

    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAntiAffinity | None = None
    extra: Extra = extra_field()


DO_NOT_SCHEDULE = "DoNotSchedule"
"""``whenUnsatisfiable`` of a hard constraint: Filter enforces it (``v1.DoNotSchedule``)."""
SCHEDULE_ANYWAY = "ScheduleAnyway"
"""``whenUnsatisfiable`` of a soft constraint: Score prefers nodes that keep it (``v1.ScheduleAnyway``)."""
HONOR = "Honor"
"""``NodeInclusionPolicy``: count only the nodes the pod could use (``v1.NodeInclusionPolicyHonor``)."""
IGNORE = "Ignore"
"""``NodeInclusionPolicy``: count every node that has the topology key (``v1.NodeInclusionPolicyIgnore``)."""


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint(Model):
    """Spread matching pods evenly across the domains of ``topology_key`` (PodTopologySpread)."""

    max_skew: int = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodSchedulingGate(Model):
    """A gate that keeps the pod out of scheduling until it is removed."""

    name: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class WorkloadReference(Model):
    """``spec.workloadRef`` (v1.35, gate GenericWorkload): the Workload group the pod belongs to.

    ``pod_group_replica_key`` tells apart replicas of one group; pods are
    siblings only when all three fields match (``k8s.io/api/core/v1``).
    """

    name: str = ""
    pod_group: str = ""
    pod_group_replica_key: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodSchedulingGroup(Model):
    """``spec.schedulingGroup`` (v1.36+, gate GenericWorkload): the PodGroup the pod belongs to."""

    pod_group_name: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodSpec(Model):
    """``spec``: what the pod runs and every constraint on where it may run."""

    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    node_name: str = ""
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    scheduler_name: str = ""
    priority_class_name: str = ""
    priority: int | None = None
    preemption_policy: str | None = None
    scheduling_gates: tuple[PodSchedulingGate, ...] = ()
    overhead: ResourceList = field(default_factory=dict)
    host_network: bool = False
    restart_policy: str = ""
    termination_grace_period_seconds: int | None = None
    dns_policy: str = ""
    workload_ref: WorkloadReference | None = None
    scheduling_group: PodSchedulingGroup | None = None
    #: Pod-level requests and limits (``PodLevelResources``, KEP-2837): the pod's
    #: ``cpu``/``memory`` (and hugepages) budget, replacing the containers' sum.
    resources: ResourceRequirements | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodCondition(Model):
    """A ``status.conditions`` entry, such as ``PodScheduled=False (Unschedulable)``."""

    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""
    last_probe_time: str | None = None
    last_transition_time: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodStatus(Model):
    """``status``: phase, conditions, QoS class and the preemption nomination."""

    phase: str = ""
    conditions: tuple[PodCondition, ...] = ()
    nominated_node_name: str = ""
    qos_class: str = ""
    start_time: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Pod(KubeObject):
    """``v1.Pod``."""

    KIND: ClassVar[str] = "Pod"

    api_version: str = "v1"
    kind: str = "Pod"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: PodSpec = field(default_factory=PodSpec)
    status: PodStatus = field(default_factory=PodStatus)
    extra: Extra = extra_field()
