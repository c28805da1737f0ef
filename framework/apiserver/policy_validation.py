"""Validation of PodDisruptionBudgets: the rules ``policy/v1`` writes must satisfy.

A budget is ``minAvailable`` *or* ``maxUnavailable``, never both; each is a
non-negative integer or a percentage of at most 100 (``"0%"`` to ``"100%"``);
the selector must be a well-formed label selector; and
``unhealthyPodEvictionPolicy``, if set, is ``IfHealthyBudget`` or
``AlwaysAllow``. A status update (what the disruption controller writes)
must keep its counters non-negative and its conditions well formed.

>>> from framework.objects import PodDisruptionBudget
>>> pdb = PodDisruptionBudget.from_dict({"metadata": {"name": "web"},
...     "spec": {"minAvailable": "120%", "selector": {"matchLabels": {"app": "web"}}}})
>>> [str(c) for c in validate_pod_disruption_budget(pdb)]
['spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%']

Mirrors ``ValidatePodDisruptionBudget``, ``ValidatePodDisruptionBudgetSpec``
and ``ValidatePodDisruptionBudgetStatusUpdate`` in
``kubernetes/kubernetes:pkg/apis/policy/validation/validation.go``,
``ValidatePositiveIntOrPercent`` and ``IsNotMoreThan100Percent`` in
``pkg/apis/apps/validation/validation.go``, and ``ValidateLabelSelector`` and
``ValidateConditions`` in ``k8s.io/apimachinery/pkg/apis/meta/v1/validation``
(v1.33). Messages are Kubernetes' word for word, and so are the values
where Go prints an ``IntOrString`` with ``%#v``; where it prints the whole
spec struct (minAvailable and maxUnavailable both set) Go shows pointer
addresses, which mean nothing here, so the value reads
``policy.PodDisruptionBudgetSpec{...}``.
"""

from __future__ import annotations

import re

from framework.apiserver.errors import FieldCause, go_quote
from framework.objects import Condition, LabelSelector, PodDisruptionBudget
from framework.objects.labels import validate_label_key, validate_label_value

__all__ = [
    "MSG_BOTH_SET",
    "MSG_INVALID_PERCENT",
    "MSG_MORE_THAN_100_PERCENT",
    "MSG_NEGATIVE",
    "UNHEALTHY_POD_EVICTION_POLICIES",
    "validate_pod_disruption_budget",
    "validate_pod_disruption_budget_status_update",
]

MSG_BOTH_SET = "minAvailable and maxUnavailable cannot be both set"
MSG_NEGATIVE = "must be greater than or equal to 0"
MSG_MORE_THAN_100_PERCENT = "must not be greater than 100%"
MSG_INVALID_PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)
UNHEALTHY_POD_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")
"""The supported ``unhealthyPodEvictionPolicy`` values, sorted as Go's ``sets.List`` sorts them."""

_PERCENT = re.compile(r"[0-9]+%")
_CONDITION_REASON = re.compile(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?")
_CONDITION_STATUSES = ("False", "True", "Unknown")

Causes = list[FieldCause]


def _go_int_or_string(value: int | str) -> str:
    """An ``intstr.IntOrString`` as Go's ``%#v`` prints it."""
    if isinstance(value, int):
        return f'intstr.IntOrString{{Type:0, IntVal:{value}, StrVal:""}}'
    return f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}"


def _invalid(field: str, go_value: str, detail: str) -> FieldCause:
    # The value is already Go-formatted, so it goes into the body unquoted.
    return FieldCause("Invalid value", field, f"{go_value}: {detail}")


def _validate_int_or_percent(value: int | str, field: str) -> Causes:
    """``ValidatePositiveIntOrPercent`` then ``IsNotMoreThan100Percent``."""
    causes: Causes = []
    if isinstance(value, str):
        if not _PERCENT.fullmatch(value):
            causes.append(_invalid(field, _go_int_or_string(value), MSG_INVALID_PERCENT))
        elif int(value[:-1]) > 100:
            causes.append(_invalid(field, _go_int_or_string(value), MSG_MORE_THAN_100_PERCENT))
    elif value < 0:
        causes.append(FieldCause.invalid(field, value, MSG_NEGATIVE))
    return causes


def _validate_label_selector(selector: LabelSelector | None, field: str) -> Causes:
    """``ValidateLabelSelector``: keys, values and operators of a selector."""
    causes: Causes = []
    if selector is None:
        return causes
    for key, value in selector.match_labels.items():
        causes.extend(
            FieldCause.invalid(f"{field}.matchLabels", key, p) for p in validate_label_key(key)
        )
        causes.extend(
            FieldCause.invalid(f"{field}.matchLabels", value, p)
            for p in validate_label_value(value)
        )
    for i, expression in enumerate(selector.match_expressions):
        path = f"{field}.matchExpressions[{i}]"
        if expression.operator in ("In", "NotIn"):
            if not expression.values:
                causes.append(
                    FieldCause.required(
                        f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"
                    )
                )
        elif expression.operator in ("Exists", "DoesNotExist"):
            if expression.values:
                causes.append(
                    FieldCause.forbidden(
                        f"{path}.values",
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    )
                )
        else:
            causes.append(
                FieldCause.invalid(
                    f"{path}.operator", expression.operator, "not a valid selector operator"
                )
            )
        causes.extend(
            FieldCause.invalid(f"{path}.key", expression.key, p)
            for p in validate_label_key(expression.key)
        )
        for j, value in enumerate(expression.values):
            causes.extend(
                FieldCause.invalid(f"{path}.values[{j}]", value, p)
                for p in validate_label_value(value)
            )
    return causes


def validate_pod_disruption_budget(pdb: PodDisruptionBudget) -> Causes:
    """Every problem of the PDB's spec (``ValidatePodDisruptionBudget``); [] when valid."""
    spec = pdb.spec
    causes: Causes = []
    if spec.min_available is not None and spec.max_unavailable is not None:
        causes.append(_invalid("spec", "policy.PodDisruptionBudgetSpec{...}", MSG_BOTH_SET))
    if spec.min_available is not None:
        causes.extend(_validate_int_or_percent(spec.min_available, "spec.minAvailable"))
    if spec.max_unavailable is not None:
        causes.extend(_validate_int_or_percent(spec.max_unavailable, "spec.maxUnavailable"))
    causes.extend(_validate_label_selector(spec.selector, "spec.selector"))
    policy = spec.unhealthy_pod_eviction_policy
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        causes.append(
            FieldCause.not_supported(
                "spec.unhealthyPodEvictionPolicy", policy, list(UNHEALTHY_POD_EVICTION_POLICIES)
            )
        )
    return causes


def _validate_condition(condition: Condition, path: str) -> Causes:
    """``ValidateCondition`` of ``metav1.Condition`` (the rules a controller can break)."""
    causes: Causes = []
    problems = validate_label_key(condition.type)
    causes.extend(FieldCause.invalid(f"{path}.type", condition.type, p) for p in problems)
    if condition.status not in _CONDITION_STATUSES:
        causes.append(
            FieldCause.not_supported(f"{path}.status", condition.status, list(_CONDITION_STATUSES))
        )
    if condition.observed_generation < 0:
        causes.append(
            FieldCause.invalid(
                f"{path}.observedGeneration",
                condition.observed_generation,
                "must be greater than or equal to zero",
            )
        )
    if not condition.last_transition_time:
        causes.append(FieldCause.required(f"{path}.lastTransitionTime", "must be set"))
    if not condition.reason:
        causes.append(FieldCause.required(f"{path}.reason", "must be set"))
    elif not _CONDITION_REASON.fullmatch(condition.reason):
        causes.append(
            FieldCause.invalid(
                f"{path}.reason",
                condition.reason,
                "a condition reason must start with alphabetic character, optionally followed "
                "by a string of alphanumeric characters or '_,:', and must end with an "
                "alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  "
                "or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is "
                f"'{_CONDITION_REASON.pattern}')",
            )
        )
    return causes


def validate_pod_disruption_budget_status_update(
    new: PodDisruptionBudget, old: PodDisruptionBudget
) -> Causes:
    """Problems of a PDB's status (``ValidatePodDisruptionBudgetStatusUpdate``, ``policy/v1``)."""
    status = new.status
    causes: Causes = []
    for i, condition in enumerate(status.conditions):
        causes.extend(_validate_condition(condition, f"status.conditions[{i}]"))
    for field, value in (
        ("disruptionsAllowed", status.disruptions_allowed),
        ("currentHealthy", status.current_healthy),
        ("desiredHealthy", status.desired_healthy),
        ("expectedPods", status.expected_pods),
    ):
        if value < 0:
            causes.append(FieldCause.invalid(f"status.{field}", value, MSG_NEGATIVE))
    return causes
