"""Validation: the rules an object must satisfy before the API server stores it.

Validation runs after defaulting and the mutating admission plugins, on the
object as it would be stored. It never changes anything; it returns every
problem it finds as a :class:`FieldCause`, and the server turns a non-empty
list into one ``422 Invalid`` error naming them all. Updates run extra rules
that compare the new object with the stored one, the best known being that a
pod's spec is frozen once created, except for a short list of fields.

Only rules a scheduler author can run into are here: names, labels, a pod's
containers and resources, tolerations, node taints and priority classes.

Mirrors ``pkg/apis/core/validation/validation.go`` (``ValidatePodCreate``,
``ValidateResourceRequirements``, ``ValidateTolerations``, ``ValidateNode``,
``ValidateEventCreate``),
``pkg/apis/scheduling/validation/validation.go`` and
``k8s.io/apimachinery/pkg/api/validation/objectmeta.go``.
What may change in a pod once it exists is :mod:`.pod_update`'s subject;
the binding subresource is validated in :mod:`.pods`.
Affinity and topology spread constraints are :mod:`.scheduling_validation`'s.
Simplified: volumes, probes, ports and security contexts are not validated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from framework.apiserver import customresource, resource_rules, storage_rules
from framework.apiserver.errors import FieldCause
from framework.apiserver.pod_update import validate_pod_update
from framework.apiserver.policy_validation import (
    validate_pod_disruption_budget,
    validate_pod_disruption_budget_status_update,
)
from framework.apiserver.scheduling_validation import validate_scheduling_constraints
from framework.apiserver.workload_validation import (
    validate_pod_group,
    validate_pod_scheduling_group,
    validate_workload,
)
from framework.objects import (
    Container,
    Event,
    KubeObject,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodSpec,
    PriorityClass,
)
from framework.objects.labels import (
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_label_key,
    validate_label_value,
)
from framework.objects.workload import SchedulingPodGroup, Workload

__all__ = [
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "SYSTEM_PRIORITY_CLASSES",
    "TAINT_EFFECTS",
    "TOTAL_ANNOTATION_SIZE_LIMIT_BYTES",
    "validate_create",
    "validate_update",
]

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES: Mapping[str, int] = {
    "system-node-critical": 2_000_001_000,
    "system-cluster-critical": 2_000_000_000,
}
"""The PriorityClasses every cluster has (``pkg/apis/scheduling/types.go``)."""

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024
"""All of an object's annotations, keys and values, in bytes (``TotalAnnotationSizeLimitB``)."""
MSG_IMMUTABLE = "field is immutable"
MSG_NON_NEGATIVE = "must be greater than or equal to 0"

Causes = list[FieldCause]


# --- metadata ------------------------------------------------------------------------

_NAME_RULES: Mapping[type, Callable[[str], list[str]]] = {Namespace: validate_dns1123_label}


def _validate_metadata(obj: KubeObject) -> Causes:
    causes: Causes = []
    name = obj.metadata.name
    if not name:
        causes.append(FieldCause.required("metadata.name", "name or generateName is required"))
    else:
        rule = _NAME_RULES.get(type(obj), validate_dns1123_subdomain)
        causes.extend(FieldCause.invalid("metadata.name", name, p) for p in rule(name))
    prefix = obj.metadata.generate_name
    if prefix:
        # ValidateObjectMetaAccessor: generateName is a name prefix (a trailing dash is masked).
        rule = _NAME_RULES.get(type(obj), validate_dns1123_subdomain)
        masked = prefix[:-1] + "a" if prefix.endswith("-") else prefix
        causes.extend(FieldCause.invalid("metadata.generateName", prefix, p) for p in rule(masked))
    for key, value in obj.metadata.labels.items():
        causes.extend(
            FieldCause.invalid("metadata.labels", key, p) for p in validate_label_key(key)
        )
        causes.extend(
            FieldCause.invalid("metadata.labels", value, p) for p in validate_label_value(value)
        )
    for key in obj.metadata.annotations:
        causes.extend(
            FieldCause.invalid("metadata.annotations", key, p)
            for p in validate_label_key(key.lower())
        )
    size = sum(len(k.encode()) + len(v.encode()) for k, v in obj.metadata.annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES:
        causes.append(
            FieldCause.too_long("metadata.annotations", TOTAL_ANNOTATION_SIZE_LIMIT_BYTES)
        )
    return causes


def _validate_metadata_update(new: KubeObject, old: KubeObject) -> Causes:
    if new.metadata.uid != old.metadata.uid:
        return [FieldCause.invalid("metadata.uid", new.metadata.uid, MSG_IMMUTABLE)]
    return []


# --- pods ------------------------------------------------------------------------------


def _is_overcommit_allowed(resource: str) -> bool:
    # Native resources (no domain, or a kubernetes.io one) but hugepages may be overcommitted.
    native = "/" not in resource or "kubernetes.io/" in resource
    return native and not resource.startswith("hugepages-")


def _validate_resources(container: Container, path: str) -> Causes:
    causes: Causes = []
    requests, limits = container.resources.requests, container.resources.limits
    for kind, amounts in (("limits", limits), ("requests", requests)):
        for name, quantity in amounts.items():
            if quantity.is_negative():
                causes.append(
                    FieldCause.invalid(
                        f"{path}.resources.{kind}[{name}]",
                        str(quantity),
                        "must be greater than or equal to 0",
                    )
                )
    for name, request in requests.items():
        limit = limits.get(name)
        if limit is None:
            if not _is_overcommit_allowed(name):
                causes.append(
                    FieldCause.required(
                        f"{path}.resources.limits",
                        "Limit must be set for non overcommitable resources",
                    )
                )
        elif request.value != limit.value and not _is_overcommit_allowed(name):
            detail = f"must be equal to {name} limit of {limit}"
            causes.append(FieldCause.invalid(f"{path}.resources.requests", str(request), detail))
        elif request.value > limit.value:
            detail = f"must be less than or equal to {name} limit of {limit}"
            causes.append(FieldCause.invalid(f"{path}.resources.requests", str(request), detail))
    return causes


def _validate_containers(spec: PodSpec) -> Causes:
    causes: Causes = []
    if not spec.containers:
        causes.append(FieldCause.required("spec.containers"))
    seen: set[str] = set()
    for field, containers in (
        ("spec.initContainers", spec.init_containers),
        ("spec.containers", spec.containers),
    ):
        for i, container in enumerate(containers):
            path = f"{field}[{i}]"
            if not container.name:
                causes.append(FieldCause.required(f"{path}.name"))
            elif container.name in seen:
                causes.append(FieldCause.duplicate(f"{path}.name", container.name))
            else:
                causes.extend(
                    FieldCause.invalid(f"{path}.name", container.name, p)
                    for p in validate_dns1123_label(container.name)
                )
            seen.add(container.name)
            if not container.image:
                causes.append(FieldCause.required(f"{path}.image"))
            causes.extend(_validate_resources(container, path))
    return causes


def _validate_tolerations(spec: PodSpec, comparison_operators: bool = False) -> Causes:
    # Lt and Gt are accepted only with the TaintTolerationComparisonOperators gate (alpha, v1.35).
    operators = ["Equal", "Exists", *(["Lt", "Gt"] if comparison_operators else [])]
    causes: Causes = []
    for i, toleration in enumerate(spec.tolerations):
        path = f"spec.tolerations[{i}]"
        operator = toleration.operator or "Equal"
        if not toleration.key and operator != "Exists":
            causes.append(
                FieldCause.invalid(
                    f"{path}.operator",
                    toleration.operator,
                    'operator must be Exists when `key` is empty, which means "match all values '
                    'and all keys"',
                )
            )
        if operator not in operators:
            causes.append(
                FieldCause.not_supported(f"{path}.operator", toleration.operator, operators)
            )
        elif operator in ("Lt", "Gt") and not _is_int64(toleration.value):
            causes.append(
                FieldCause.invalid(
                    f"{path}.value",
                    toleration.value,
                    f"value must be an integer when `operator` is '{operator}'",
                )
            )
        elif operator == "Exists" and toleration.value:
            causes.append(
                FieldCause.invalid(
                    f"{path}.operator",
                    toleration.operator,
                    "value must be empty when `operator` is 'Exists'",
                )
            )
        if toleration.effect and toleration.effect not in TAINT_EFFECTS:
            causes.append(
                FieldCause.not_supported(f"{path}.effect", toleration.effect, list(TAINT_EFFECTS))
            )
        if toleration.toleration_seconds is not None and toleration.effect != "NoExecute":
            causes.append(
                FieldCause.invalid(
                    f"{path}.effect",
                    toleration.effect,
                    "effect must be 'NoExecute' when `tolerationSeconds` is set",
                )
            )
    return causes


def _is_int64(text: str) -> bool:
    try:
        return -(2**63) <= int(text, 10) < 2**63
    except ValueError:
        return False


def _validate_pod(pod: Pod, comparison_operators: bool = False) -> Causes:
    causes = _validate_containers(pod.spec) + _validate_tolerations(pod.spec, comparison_operators)
    causes += validate_scheduling_constraints(pod)
    if pod.spec.restart_policy not in ("Always", "OnFailure", "Never"):
        causes.append(
            FieldCause.not_supported(
                "spec.restartPolicy", pod.spec.restart_policy, ["Always", "OnFailure", "Never"]
            )
        )
    return causes


# --- other kinds ---------------------------------------------------------------------------


def _validate_node(node: Node) -> Causes:
    causes: Causes = []
    for i, taint in enumerate(node.spec.taints):
        path = f"spec.taints[{i}]"
        causes.extend(
            FieldCause.invalid(f"{path}.key", taint.key, p) for p in validate_label_key(taint.key)
        )
        if taint.effect not in TAINT_EFFECTS:
            causes.append(
                FieldCause.not_supported(f"{path}.effect", taint.effect, list(TAINT_EFFECTS))
            )
    # ValidateNode: every capacity and allocatable quantity is non-negative.
    for part, resources in (
        ("capacity", node.status.capacity),
        ("allocatable", node.status.allocatable),
    ):
        for name, quantity in resources.items():
            if quantity.value < 0:
                causes.append(
                    FieldCause.invalid(
                        f"status.{part}[{name}]", str(quantity.raw), MSG_NON_NEGATIVE
                    )
                )
    return causes


def _validate_priority_class(pc: PriorityClass) -> Causes:
    causes: Causes = []
    if pc.metadata.name.startswith("system-"):
        if SYSTEM_PRIORITY_CLASSES.get(pc.metadata.name) != pc.value:
            causes.append(
                FieldCause.forbidden(
                    "metadata.name",
                    "priority class names with 'system-' prefix are reserved for system use only. "
                    f"error: {pc.metadata.name} is not a known system priority class "
                    f"with value {pc.value}",
                )
            )
    elif pc.value > HIGHEST_USER_DEFINABLE_PRIORITY:
        causes.append(
            FieldCause.forbidden(
                "value",
                "maximum allowed value of a user defined priority is "
                f"{HIGHEST_USER_DEFINABLE_PRIORITY}",
            )
        )
    if pc.preemption_policy not in ("PreemptLowerPriority", "Never"):
        causes.append(
            FieldCause.not_supported(
                "preemptionPolicy", pc.preemption_policy, ["Never", "PreemptLowerPriority"]
            )
        )
    return causes


def _validate_priority_class_update(new: PriorityClass, old: PriorityClass) -> Causes:
    causes: Causes = []
    if new.value != old.value:
        causes.append(FieldCause.forbidden("value", "may not be changed in an update."))
    if new.preemption_policy != old.preemption_policy:
        causes.append(FieldCause.invalid("preemptionPolicy", new.preemption_policy, MSG_IMMUTABLE))
    return causes


def _validate_event(event: Event) -> Causes:
    ref_namespace = event.involved_object.namespace
    if ref_namespace and ref_namespace != event.metadata.namespace:
        return [
            FieldCause.invalid(
                "involvedObject.namespace", ref_namespace, "does not match event.namespace"
            )
        ]
    return []


# --- entry points ----------------------------------------------------------------------------

_CREATE_RULES: Mapping[type, Callable[[KubeObject], Causes]] = {
    Pod: _validate_pod,  # type: ignore[dict-item]
    Node: _validate_node,  # type: ignore[dict-item]
    PriorityClass: _validate_priority_class,  # type: ignore[dict-item]
    Event: _validate_event,  # type: ignore[dict-item]
    PodGroup: customresource.validate,
    PodDisruptionBudget: validate_pod_disruption_budget,  # type: ignore[dict-item]
    Workload: validate_workload,  # type: ignore[dict-item]
    SchedulingPodGroup: validate_pod_group,  # type: ignore[dict-item]
}
_UPDATE_RULES: Mapping[type, Callable[[KubeObject, KubeObject], Causes]] = {
    Pod: validate_pod_update,  # type: ignore[dict-item]
    PodDisruptionBudget: validate_pod_disruption_budget_status_update,  # type: ignore[dict-item]
    PriorityClass: _validate_priority_class_update,  # type: ignore[dict-item]
}


def validate_create(obj: KubeObject, *, comparison_operators: bool = False) -> list[FieldCause]:
    """Every problem with ``obj`` as a new object (``strategy.Validate``); [] when valid.

    ``comparison_operators`` plays the ``TaintTolerationComparisonOperators``
    gate: with it, tolerations may use ``Lt`` and ``Gt``.
    """
    if isinstance(obj, Pod):
        return (
            _validate_metadata(obj)
            + _validate_pod(obj, comparison_operators)
            + resource_rules.validate(obj)
            + validate_pod_scheduling_group(obj)
        )
    rule = _CREATE_RULES.get(type(obj))
    return (
        _validate_metadata(obj)
        + (rule(obj) if rule else [])
        + storage_rules.validate(obj)
        + resource_rules.validate(obj)
    )


def validate_update(
    new: KubeObject, old: KubeObject, *, comparison_operators: bool = False
) -> list[FieldCause]:
    """Every problem with replacing ``old`` by ``new`` (``strategy.ValidateUpdate``)."""
    causes = validate_create(new, comparison_operators=comparison_operators)
    causes += _validate_metadata_update(new, old)
    rule = _UPDATE_RULES.get(type(new))
    return causes + (rule(new, old) if rule else [])
