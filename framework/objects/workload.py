"""The Workload and the in-tree PodGroup: gangs as kube-scheduler itself knows them (KEP-4671).

Since v1.35 kube-scheduler schedules gangs without any add-on. Two objects
of the built-in group ``scheduling.k8s.io`` say what a gang is, and the pod
says which gang it belongs to:

* **v1.35** (``scheduling.k8s.io/v1alpha1``): a **Workload** lists up to 8
  ``podGroups``, each with a name and a ``policy``, either ``basic: {}``
  (schedule as usual) or ``gang: {minCount: N}`` (all or nothing). A pod
  joins with ``spec.workloadRef: {name, podGroup, podGroupReplicaKey}``; the
  replica key tells apart the replicas of one group (a Job's indexes, say).
* **v1.36 and v1.37** (``scheduling.k8s.io/v1alpha2``): the Workload holds
  ``podGroupTemplates`` (same shape, ``policy`` renamed
  ``schedulingPolicy``), and the runtime group is a standalone **PodGroup**
  object, made by the workload's controller from a template
  (``spec.podGroupTemplateRef``), with a ``status`` the scheduler writes
  (condition ``PodGroupScheduled``). A pod joins with
  ``spec.schedulingGroup: {podGroupName}``.

Both API versions decode into the same classes here: a v1alpha1 Workload
fills :attr:`WorkloadSpec.pod_groups`, a v1alpha2 one
:attr:`WorkloadSpec.pod_group_templates`, and ``api_version`` records which
it was. The in-tree PodGroup's class is :class:`SchedulingPodGroup`, as
``PodGroup`` is already scheduler-plugins' custom resource
(:mod:`framework.objects.podgroup`, group ``scheduling.x-k8s.io``); both
have ``kind: PodGroup`` and the manifest loader tells them apart by the
group of ``apiVersion``.

>>> wl = Workload.from_dict({"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
...     "metadata": {"name": "train"},
...     "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 8}}}]}})
>>> wl.policy_for("workers").gang.min_count
8

Mirrors ``Workload``, ``WorkloadSpec``, ``PodGroup`` (v1alpha1: the inline
group), ``PodGroupTemplate``, ``PodGroupSchedulingPolicy``,
``GangSchedulingPolicy``, ``PodGroupSpec``, ``PodGroupStatus``,
``PodGroupTemplateReference`` and ``TopologyConstraint`` in
``kubernetes/kubernetes:staging/src/k8s.io/api/scheduling/v1alpha1/types.go``
(a v1.35-era copy, index id 131553920) and ``.../v1alpha2/types.go`` (a
v1.36-era copy, index id 53752766838). Simplified: v1.37's additions to
the template (``priorityClassName``, ``priority``, ``disruptionMode``,
``resourceClaims``, read in ``pkg/apis/scheduling/types.go``, index id
54594585921) are kept in ``extra`` but not modelled; a PodGroup's own
``disruptionMode`` (``Single`` or ``All``, KEP-5710) is, in every version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from framework.objects.meta import Extra, KubeObject, ObjectMeta, extra_field
from framework.objects.pod import Pod
from framework.objects.policy import Condition
from framework.objects.schema import Model

__all__ = [
    "GROUP",
    "POD_GROUP_SCHEDULED",
    "V1ALPHA1",
    "V1ALPHA2",
    "WORKLOAD_KINDS",
    "WORKLOAD_MAX_POD_GROUPS",
    "BasicSchedulingPolicy",
    "GangSchedulingPolicy",
    "PodGroupSchedulingConstraints",
    "PodGroupSchedulingPolicy",
    "PodGroupTemplate",
    "PodGroupTemplateReference",
    "SchedulingPodGroup",
    "SchedulingPodGroupSpec",
    "SchedulingPodGroupStatus",
    "TopologyConstraint",
    "TypedLocalObjectReference",
    "Workload",
    "WorkloadPodGroup",
    "WorkloadPodGroupTemplateReference",
    "WorkloadSpec",
    "pod_group_key",
    "pod_group_priority",
]

GROUP = "scheduling.k8s.io"
V1ALPHA1 = f"{GROUP}/v1alpha1"
"""What v1.35 serves, the Workload with inline ``podGroups``."""
V1ALPHA2 = f"{GROUP}/v1alpha2"
"""What v1.36 and v1.37 serve, templates in the Workload and standalone PodGroups."""
WORKLOAD_MAX_POD_GROUPS = 8
"""``WorkloadMaxPodGroups`` / ``WorkloadMaxPodGroupTemplates``."""
POD_GROUP_SCHEDULED = "PodGroupScheduled"
"""The condition the scheduler writes on a PodGroup after each of its cycles (v1alpha2)."""


@dataclass(frozen=True, slots=True)
class TypedLocalObjectReference(Model):
    """``controllerRef``: the Job (or other controller) the Workload describes."""

    api_group: str = ""
    kind: str = ""
    name: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class BasicSchedulingPolicy(Model):
    """``basic: {}``: the group's pods are scheduled one by one, as usual."""

    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class GangSchedulingPolicy(Model):
    """``gang: {minCount}``: at least ``minCount`` pods get nodes together, or none does.

    ``min_count`` is None when the manifest leaves it out (validation then
    says it is required, rather than reading Go's zero value).
    """

    min_count: int | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodGroupSchedulingPolicy(Model):
    """``policy`` (v1alpha1) or ``schedulingPolicy`` (v1alpha2): exactly one of basic or gang."""

    basic: BasicSchedulingPolicy | None = None
    gang: GangSchedulingPolicy | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class WorkloadPodGroup(Model):
    """One of a v1alpha1 Workload's ``podGroups``: a name and its ``policy``."""

    name: str = ""
    policy: PodGroupSchedulingPolicy = field(default_factory=PodGroupSchedulingPolicy)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class TopologyConstraint(Model):
    """All of the group's pods in one domain of ``topologyKey`` (TopologyAwareWorkloadScheduling)."""

    topology_key: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodGroupSchedulingConstraints(Model):
    """``schedulingConstraints`` (v1alpha2, alpha gate TopologyAwareWorkloadScheduling)."""

    topology_constraints: tuple[TopologyConstraint, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodGroupTemplate(Model):
    """One of a v1alpha2 Workload's ``podGroupTemplates``."""

    name: str = ""
    scheduling_policy: PodGroupSchedulingPolicy = field(default_factory=PodGroupSchedulingPolicy)
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class WorkloadSpec(Model):
    """``spec``: the controller, and the groups (v1alpha1) or their templates (v1alpha2)."""

    controller_ref: TypedLocalObjectReference | None = None
    pod_groups: tuple[WorkloadPodGroup, ...] = ()
    pod_group_templates: tuple[PodGroupTemplate, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Workload(KubeObject):
    """``scheduling.k8s.io`` Workload (namespaced; no status), in v1alpha1 or v1alpha2."""

    KIND: ClassVar[str] = "Workload"
    API_VERSION: ClassVar[str] = V1ALPHA2
    API_VERSIONS: ClassVar[tuple[str, ...]] = (V1ALPHA1, V1ALPHA2)

    api_version: str = V1ALPHA2
    kind: str = "Workload"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: WorkloadSpec = field(default_factory=WorkloadSpec)
    extra: Extra = extra_field()

    def policy_for(self, group: str) -> PodGroupSchedulingPolicy | None:
        """The policy of the group (v1alpha1) or template (v1alpha2) named ``group``; None if none.

        Go's ``podGroupPolicy`` helper of the v1.35 GangScheduling plugin.
        """
        for pod_group in self.spec.pod_groups:
            if pod_group.name == group:
                return pod_group.policy
        for template in self.spec.pod_group_templates:
            if template.name == group:
                return template.scheduling_policy
        return None


@dataclass(frozen=True, slots=True)
class WorkloadPodGroupTemplateReference(Model):
    """``podGroupTemplateRef.workload``: the Workload and template a PodGroup was made from."""

    workload_name: str = ""
    pod_group_template_name: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodGroupTemplateReference(Model):
    """``podGroupTemplateRef``: a union with one member so far, ``workload``."""

    workload: WorkloadPodGroupTemplateReference | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class SchedulingPodGroupSpec(Model):
    """``spec`` of the in-tree PodGroup: its template, policy and constraints (all immutable)."""

    pod_group_template_ref: PodGroupTemplateReference | None = None
    scheduling_policy: PodGroupSchedulingPolicy = field(default_factory=PodGroupSchedulingPolicy)
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    #: Whether preemption takes the group's pods one by one (``Single``, the default) or
    #: all together (``All``); KEP-5710, Go's v1.37-era ``PodGroupSpec.DisruptionMode``.
    disruption_mode: str | None = None
    #: The group's priority class; the Priority admission plugin resolves it into ``priority``
    #: (the global default class, or 0, when unset), as for a pod. v1.37-era ``PodGroupSpec``.
    priority_class_name: str = ""
    priority: int | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class SchedulingPodGroupStatus(Model):
    """``status``: the ``PodGroupScheduled`` condition the scheduler writes."""

    conditions: tuple[Condition, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class SchedulingPodGroup(KubeObject):
    """``scheduling.k8s.io/v1alpha2`` PodGroup (namespaced, with a ``status`` subresource)."""

    KIND: ClassVar[str] = "PodGroup"
    API_VERSION: ClassVar[str] = V1ALPHA2
    API_VERSIONS: ClassVar[tuple[str, ...]] = (V1ALPHA2,)

    api_version: str = V1ALPHA2
    kind: str = "PodGroup"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: SchedulingPodGroupSpec = field(default_factory=SchedulingPodGroupSpec)
    status: SchedulingPodGroupStatus = field(default_factory=SchedulingPodGroupStatus)
    extra: Extra = extra_field()

    @property
    def min_count(self) -> int:
        """The gang's quorum; 1 for a basic group (``getMinCount``)."""
        gang = self.spec.scheduling_policy.gang
        return 1 if gang is None else gang.min_count or 0


WORKLOAD_KINDS: tuple[type[KubeObject], ...] = (Workload, SchedulingPodGroup)
"""The kinds of ``scheduling.k8s.io`` this module adds (the API server serves both)."""


def pod_group_priority(pg: SchedulingPodGroup) -> int:
    """The group's priority (Go's ``util.PodGroupPriority``): ``spec.priority``, or 0 when unset.

    Preemption reads this for a gang, not its pods' priorities: the group is
    one preemptor, and a pod in a group is a victim at the group's priority.
    """
    return pg.spec.priority if pg.spec.priority is not None else 0


def pod_group_key(pod: Pod) -> tuple[str, ...] | None:
    """Which gang ``pod`` belongs to, whichever field it uses; None for a pod in none.

    ``("workload", namespace, name, podGroup, replicaKey)`` for v1.35's
    ``workloadRef`` (Go's ``podGroupKey``: two pods are siblings when the
    whole reference matches), ``("podgroup", namespace, name)`` for
    ``schedulingGroup``.
    """
    ref = pod.spec.workload_ref
    if ref is not None:
        return ("workload", pod.namespace, ref.name, ref.pod_group, ref.pod_group_replica_key)
    group = pod.spec.scheduling_group
    if group is not None and group.pod_group_name:
        return ("podgroup", pod.namespace, group.pod_group_name)
    return None
