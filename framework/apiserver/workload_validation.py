"""Validation of the Workload and the in-tree PodGroup, and of a pod's reference to them.

A Workload needs at least one group (v1alpha1 ``podGroups``, v1alpha2
``podGroupTemplates``) and at most 8, each named with a DNS label, names
unique; each group's policy is exactly one of ``basic`` and ``gang``, and a
gang's ``minCount`` is at least 1. A PodGroup's ``schedulingPolicy``
follows the same rules; ``podGroupTemplateRef.workload`` names both the
Workload and the template. A pod names its group with ``workloadRef``
(``name`` and ``podGroup`` required, DNS labels / subdomains) or
``schedulingGroup.podGroupName``.

>>> from framework.objects.workload import Workload
>>> wl = Workload.from_dict({"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
...     "metadata": {"name": "w"}, "spec": {"podGroups": [{"name": "a", "policy": {"gang": {}}}]}})
>>> [str(c) for c in validate_workload(wl)]
['spec.podGroups[0].policy.gang.minCount: Required value']

Mirrors the rules of ``pkg/apis/scheduling/validation/validation.go`` and
the declarative tags of ``staging/src/k8s.io/api/scheduling/v1alpha2/types.go``
(``+k8s:required``, ``+k8s:maxItems=8``, ``+k8s:listMapKey=name``,
``+k8s:minimum=1``, ``+k8s:unionMember``; v1.36-era copy, index id
53752766838), in kube's field-error words. Simplified: immutability on
update is not checked; the union's message is written here as
``must specify exactly one of: `basic`, `gang```.
"""

from __future__ import annotations

from framework.apiserver.errors import FieldCause
from framework.objects import Pod
from framework.objects.labels import validate_dns1123_label, validate_dns1123_subdomain
from framework.objects.workload import (
    WORKLOAD_MAX_POD_GROUPS,
    PodGroupSchedulingPolicy,
    SchedulingPodGroup,
    Workload,
)

__all__ = [
    "MSG_ONE_POLICY",
    "validate_pod_group",
    "validate_pod_scheduling_group",
    "validate_workload",
]

MSG_ONE_POLICY = "must specify exactly one of: `basic`, `gang`"
MSG_MIN_COUNT = "must be greater than or equal to 1"

Causes = list[FieldCause]


def _policy(policy: PodGroupSchedulingPolicy, path: str) -> Causes:
    chosen = [m for m in (policy.basic, policy.gang) if m is not None]
    if len(chosen) != 1:
        return [FieldCause.invalid(path, "", MSG_ONE_POLICY)]
    gang = policy.gang
    if gang is None:
        return []
    if gang.min_count is None:
        return [FieldCause.required(f"{path}.gang.minCount")]
    if gang.min_count < 1:
        return [FieldCause.invalid(f"{path}.gang.minCount", gang.min_count, MSG_MIN_COUNT)]
    return []


def _label(value: str, path: str) -> Causes:
    if not value:
        return [FieldCause.required(path)]
    return [FieldCause.invalid(path, value, p) for p in validate_dns1123_label(value)]


def validate_workload(workload: Workload) -> Causes:
    """Every problem of the Workload's spec; [] when valid."""
    causes: Causes = []
    v1alpha1 = workload.api_version.endswith("/v1alpha1")
    key, policy_key = (
        ("podGroups", "policy") if v1alpha1 else ("podGroupTemplates", "schedulingPolicy")
    )
    groups = [(g.name, g.policy) for g in workload.spec.pod_groups] + [
        (t.name, t.scheduling_policy) for t in workload.spec.pod_group_templates
    ]
    path = f"spec.{key}"
    if not groups:
        causes.append(FieldCause.required(path, "must have at least one pod group"))
    if len(groups) > WORKLOAD_MAX_POD_GROUPS:
        causes.append(
            FieldCause(
                "Too many",
                path,
                f"must have at most {WORKLOAD_MAX_POD_GROUPS} items",
                len(groups),
                show_value=True,
            )
        )
    seen: set[str] = set()
    for i, (name, policy) in enumerate(groups):
        where = f"{path}[{i}]"
        causes += _label(name, f"{where}.name")
        if name and name in seen:
            causes.append(FieldCause.duplicate(f"{where}.name", name))
        seen.add(name)
        causes += _policy(policy, f"{where}.{policy_key}")
    ref = workload.spec.controller_ref
    if ref is not None:
        if not ref.kind:
            causes.append(FieldCause.required("spec.controllerRef.kind"))
        if not ref.name:
            causes.append(FieldCause.required("spec.controllerRef.name"))
    return causes


#: A PodGroup's ``disruptionMode`` values (KEP-5710; Go's ``DisruptionModeSingle``/``All``).
DISRUPTION_MODES = ("Single", "All")


def validate_pod_group(pod_group: SchedulingPodGroup) -> Causes:
    """Every problem of the in-tree PodGroup's spec; [] when valid."""
    causes = _policy(pod_group.spec.scheduling_policy, "spec.schedulingPolicy")
    mode = pod_group.spec.disruption_mode
    if mode is not None and mode not in DISRUPTION_MODES:
        causes.append(
            FieldCause.not_supported("spec.disruptionMode", mode, list(DISRUPTION_MODES))
        )
    ref = pod_group.spec.pod_group_template_ref
    if ref is not None:
        if ref.workload is None:
            causes.append(
                FieldCause.invalid(
                    "spec.podGroupTemplateRef", "", "must specify one of: `workload`"
                )
            )
        else:
            where = "spec.podGroupTemplateRef.workload"
            causes += _label(ref.workload.workload_name, f"{where}.workloadName")
            causes += _label(ref.workload.pod_group_template_name, f"{where}.podGroupTemplateName")
    constraints = pod_group.spec.scheduling_constraints
    if constraints is not None:
        for i, tc in enumerate(constraints.topology_constraints):
            if not tc.topology_key:
                causes.append(
                    FieldCause.required(
                        f"spec.schedulingConstraints.topologyConstraints[{i}].topologyKey"
                    )
                )
    return causes


def validate_pod_scheduling_group(pod: Pod) -> Causes:
    """The pod's ``workloadRef`` or ``schedulingGroup``, if it has one; [] when valid."""
    causes: Causes = []
    ref = pod.spec.workload_ref
    if ref is not None:
        if not ref.name:
            causes.append(FieldCause.required("spec.workloadRef.name"))
        else:
            causes += [
                FieldCause.invalid("spec.workloadRef.name", ref.name, p)
                for p in validate_dns1123_subdomain(ref.name)
            ]
        causes += _label(ref.pod_group, "spec.workloadRef.podGroup")
    group = pod.spec.scheduling_group
    if group is not None:
        if not group.pod_group_name:
            causes.append(FieldCause.required("spec.schedulingGroup.podGroupName"))
        else:
            causes += [
                FieldCause.invalid("spec.schedulingGroup.podGroupName", group.pod_group_name, p)
                for p in validate_dns1123_subdomain(group.pod_group_name)
            ]
    if ref is not None and group is not None:
        causes.append(
            FieldCause.forbidden(
                "spec.schedulingGroup", "may not be set together with spec.workloadRef"
            )
        )
    return causes
