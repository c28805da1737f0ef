"""Validation of what a pod says about where it may run: affinity, selectors, spread, by kube's rules.

The enumerations the scheduler reads are checked before the pod is stored,
so a misspelt operator (``in`` for ``In``) is a ``422`` naming the field,
not an affinity that silently matches nothing.

Mirrors ``pkg/apis/core/validation/validation.go`` (v1.33):
``validateAffinity``, ``ValidateNodeSelectorRequirement``,
``ValidateNodeFieldSelectorRequirement``, ``validatePodAffinityTerm``,
``validateTopologySpreadConstraints``, and
``k8s.io/apimachinery/pkg/apis/meta/v1/validation``
(``ValidateLabelSelectorRequirement``). Simplified: the keys' and values'
syntax, ``topologyKey`` and ``matchLabelKeys`` are not checked.
"""

from __future__ import annotations

from framework.apiserver.errors import FieldCause
from framework.objects import LabelSelector, NodeSelectorTerm, Pod, PodAffinityTerm

__all__ = ["validate_scheduling_constraints"]

MSG_NOT_AN_OPERATOR = "not a valid selector operator"
_IN = "must be specified when `operator` is 'In' or 'NotIn'"
_EXISTS = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
_GT = "must be specified single value when `operator` is 'Lt' or 'Gt'"
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
INCLUSION_POLICIES = ("Honor", "Ignore")


def _node_selector_term(term: NodeSelectorTerm, path: str) -> list[FieldCause]:
    causes: list[FieldCause] = []
    for part, requirements in (
        ("matchExpressions", term.match_expressions),
        ("matchFields", term.match_fields),
    ):
        for i, rq in enumerate(requirements):
            where = f"{path}.{part}[{i}]"
            if rq.operator in ("In", "NotIn"):
                if part == "matchFields" and len(rq.values) != 1:
                    causes.append(
                        FieldCause.required(
                            f"{where}.values",
                            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                        )
                    )
                elif not rq.values:
                    causes.append(FieldCause.required(f"{where}.values", _IN))
            elif rq.operator in ("Exists", "DoesNotExist") and part == "matchExpressions":
                if rq.values:
                    causes.append(FieldCause.forbidden(f"{where}.values", _EXISTS))
            elif rq.operator in ("Gt", "Lt") and part == "matchExpressions":
                if len(rq.values) != 1:
                    causes.append(FieldCause.required(f"{where}.values", _GT))
            else:
                causes.append(
                    FieldCause.invalid(f"{where}.operator", rq.operator, MSG_NOT_AN_OPERATOR)
                )
    return causes


def _label_selector(selector: LabelSelector | None, path: str) -> list[FieldCause]:
    causes: list[FieldCause] = []
    if selector is None:
        return causes
    for i, rq in enumerate(selector.match_expressions):
        where = f"{path}.matchExpressions[{i}]"
        if rq.operator in ("In", "NotIn"):
            if not rq.values:
                causes.append(FieldCause.required(f"{where}.values", _IN))
        elif rq.operator in ("Exists", "DoesNotExist"):
            if rq.values:
                causes.append(FieldCause.forbidden(f"{where}.values", _EXISTS))
        else:
            causes.append(
                FieldCause.invalid(f"{where}.operator", rq.operator, MSG_NOT_AN_OPERATOR)
            )
    return causes


def _pod_affinity_term(term: PodAffinityTerm, path: str) -> list[FieldCause]:
    return _label_selector(term.label_selector, f"{path}.labelSelector") + _label_selector(
        term.namespace_selector, f"{path}.namespaceSelector"
    )


def validate_scheduling_constraints(pod: Pod) -> list[FieldCause]:
    """Every problem in ``pod``'s affinity and topology spread constraints; [] when valid."""
    causes: list[FieldCause] = []
    affinity = pod.spec.affinity
    base = "spec.affinity"
    if affinity is not None and affinity.node_affinity is not None:
        node = affinity.node_affinity
        path = f"{base}.nodeAffinity"
        required = node.required_during_scheduling_ignored_during_execution
        if required is not None:
            for i, term in enumerate(required.node_selector_terms):
                where = (
                    f"{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]"
                )
                causes += _node_selector_term(term, where)
        for i, preferred in enumerate(node.preferred_during_scheduling_ignored_during_execution):
            where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference"
            causes += _node_selector_term(preferred.preference, where)
    for name, pod_affinity in (
        ("podAffinity", affinity.pod_affinity if affinity else None),
        ("podAntiAffinity", affinity.pod_anti_affinity if affinity else None),
    ):
        if pod_affinity is None:
            continue
        path = f"{base}.{name}"
        for i, affinity_term in enumerate(
            pod_affinity.required_during_scheduling_ignored_during_execution
        ):
            causes += _pod_affinity_term(
                affinity_term, f"{path}.requiredDuringSchedulingIgnoredDuringExecution[{i}]"
            )
        for i, weighted in enumerate(
            pod_affinity.preferred_during_scheduling_ignored_during_execution
        ):
            where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm"
            causes += _pod_affinity_term(weighted.pod_affinity_term, where)
    for i, constraint in enumerate(pod.spec.topology_spread_constraints):
        path = f"spec.topologySpreadConstraints[{i}]"
        if constraint.when_unsatisfiable not in WHEN_UNSATISFIABLE:
            causes.append(
                FieldCause.not_supported(
                    f"{path}.whenUnsatisfiable",
                    constraint.when_unsatisfiable,
                    list(WHEN_UNSATISFIABLE),
                )
            )
        for field, policy in (
            ("nodeAffinityPolicy", constraint.node_affinity_policy),
            ("nodeTaintsPolicy", constraint.node_taints_policy),
        ):
            if policy is not None and policy not in INCLUSION_POLICIES:
                causes.append(
                    FieldCause.not_supported(f"{path}.{field}", policy, list(INCLUSION_POLICIES))
                )
        causes += _label_selector(constraint.label_selector, f"{path}.labelSelector")
    return causes
