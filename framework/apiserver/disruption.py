"""The disruption controller's arithmetic: a PodDisruptionBudget's status from its pods.

In a cluster, kube-controller-manager's disruption controller watches pods
and PDBs and rewrites each PDB's ``status``. The fake API server does that
job itself, at once, the way it already does the namespace controller's:
whenever a pod or a PDB of a namespace is written, every PDB of that
namespace gets its status recomputed by :func:`compute_status`, and
written (its own resourceVersion, a ``MODIFIED`` event) only if it changed
(:meth:`framework.apiserver.store.APIServer`).

The computation, for one PDB:

1. **Its pods**: the pods of its namespace its selector matches (an empty
   selector matches every pod of the namespace, a missing one none).
2. **expectedPods and desiredHealthy**: with an integer ``minAvailable``,
   ``expectedPods`` is the number of its pods and ``desiredHealthy`` is
   ``minAvailable``. With a percentage, or with ``maxUnavailable``,
   Kubernetes asks the pods' controllers (Deployment, StatefulSet...) for
   their scale and uses the sum as ``expectedPods``; percentages are
   rounded **up** (``intstr.GetScaledValueFromIntOrPercent(…, true)``), and
   ``desiredHealthy`` is ``expectedPods - maxUnavailable``, at least 0.
3. **disruptedPods** keeps the entries (written by the Eviction API) of
   pods that still exist, are not being deleted, and were let go less than
   two minutes ago (``DeletionTimeout``).
4. **currentHealthy** counts its pods that are not being deleted, not in
   ``disruptedPods`` and ready.
5. **disruptionsAllowed** is ``currentHealthy - desiredHealthy``, but 0 if
   that is negative or if ``expectedPods`` is 0 (a PDB whose pods have not
   been seen yet must not allow anything).
6. The ``DisruptionAllowed`` condition says ``True``/``SufficientPods`` when
   something is allowed, ``False``/``InsufficientPods`` otherwise, and
   ``observedGeneration`` records the PDB's generation.

>>> from framework.objects import Pod, PodDisruptionBudget
>>> pdb = PodDisruptionBudget.from_dict({"metadata": {"name": "web", "namespace": "default",
...     "generation": 1}, "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}})
>>> def web(name, node):
...     return Pod.from_dict({"metadata": {"name": name, "namespace": "default",
...         "labels": {"app": "web"}}, "spec": {"nodeName": node}})
>>> status = compute_status(pdb, [web("a", "n1"), web("b", "n2"), web("c", "")], now=0.0)
>>> status.expected_pods, status.current_healthy, status.desired_healthy, status.disruptions_allowed
(3, 2, 2, 0)

Mirrors ``trySync``, ``getExpectedPodCount``, ``buildDisruptedPodMap``,
``countHealthyPods`` and ``updatePdbStatus`` in
``kubernetes/kubernetes:pkg/controller/disruption/disruption.go``,
``GetScaledValueFromIntOrPercent`` in
``k8s.io/apimachinery/pkg/util/intstr/intstr.go`` and
``UpdateDisruptionAllowedCondition`` in
``k8s.io/component-helpers/apps/poddisruptionbudget/helpers.go`` (v1.33).
Simplified, because there is no kubelet and there are no controllers here:

* **readiness**: a pod counts as ready if a ``Ready`` condition says so;
  with no ``Ready`` condition at all (nobody has reported on it), a pod
  bound to a node and not ``Succeeded`` or ``Failed`` counts as running and
  ready, since that is what a kubelet would report;
* **scale**: for a percentage or ``maxUnavailable`` the number of matching
  pods stands in for the controllers' scale (Kubernetes would find no
  controller for a bare pod and use 0, allowing nothing);
* no ``NoPods``/``UnmanagedPods`` Events and no ``SyncFailed`` condition.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence

from framework.clock import parse_rfc3339, rfc3339
from framework.objects import Condition, Pod, PodDisruptionBudget, PodDisruptionBudgetStatus
from framework.objects.labels import SelectorError, label_selector_as_selector

__all__ = [
    "DELETION_TIMEOUT_SECONDS",
    "DISRUPTION_ALLOWED_CONDITION",
    "INSUFFICIENT_PODS_REASON",
    "SUFFICIENT_PODS_REASON",
    "IntOrStringError",
    "build_disrupted_pod_map",
    "compute_status",
    "count_healthy_pods",
    "expected_pod_count",
    "get_scaled_value_from_int_or_percent",
    "is_pod_ready",
    "pods_for_pdb",
]

DELETION_TIMEOUT_SECONDS = 2 * 60
"""How long after an eviction a pod may still exist before the budget counts it again."""
DISRUPTION_ALLOWED_CONDITION = "DisruptionAllowed"
SUFFICIENT_PODS_REASON = "SufficientPods"
INSUFFICIENT_PODS_REASON = "InsufficientPods"

_PERCENT = re.compile(r"[0-9]+%")


class IntOrStringError(ValueError):
    """An ``IntOrString`` that is neither an integer nor a percentage (``"5"``, ``"five%"``)."""


def get_scaled_value_from_int_or_percent(value: int | str, total: int, round_up: bool) -> int:
    """``value`` itself, or that percentage of ``total`` rounded up or down.

    >>> [get_scaled_value_from_int_or_percent(v, 5, True) for v in (2, "50%", "0%", "100%")]
    [2, 3, 0, 5]
    >>> get_scaled_value_from_int_or_percent("50%", 5, False)
    2
    """
    if isinstance(value, int):
        return value
    if not value.endswith("%"):
        raise IntOrStringError("invalid type: string is not a percentage")
    digits = value[:-1]
    if not re.fullmatch(r"[+-]?[0-9]+", digits):
        raise IntOrStringError(f'invalid value "{value}": not a number')
    percent = int(digits)
    # Integer arithmetic: math.Ceil(float64(v) * float64(total) / 100) without float error.
    return -(-percent * total // 100) if round_up else percent * total // 100


def pods_for_pdb(pdb: PodDisruptionBudget, pods: Iterable[Pod]) -> list[Pod]:
    """The pods of the PDB's namespace its selector matches (``getPodsForPdb``).

    In ``policy/v1`` an empty selector matches every pod of the namespace; a
    missing one, or one that cannot be compiled, matches none.
    """
    try:
        selector = label_selector_as_selector(pdb.spec.selector)
    except SelectorError:
        return []
    return [
        p for p in pods if p.namespace == pdb.namespace and selector.matches(p.metadata.labels)
    ]


def expected_pod_count(pdb: PodDisruptionBudget, pods: Sequence[Pod]) -> tuple[int, int]:
    """``(expectedPods, desiredHealthy)`` (``getExpectedPodCount``); see the module docstring.

    Raises :class:`IntOrStringError` for a value the API server would have refused.
    """
    spec = pdb.spec
    if spec.max_unavailable is not None:
        expected = len(pods)  # stands in for the controllers' scale
        max_unavailable = get_scaled_value_from_int_or_percent(
            spec.max_unavailable, expected, True
        )
        return expected, max(expected - max_unavailable, 0)
    if spec.min_available is not None:
        if isinstance(spec.min_available, int):
            return len(pods), spec.min_available
        expected = len(pods)  # stands in for the controllers' scale
        return expected, get_scaled_value_from_int_or_percent(spec.min_available, expected, True)
    return 0, 0


def build_disrupted_pod_map(
    pdb: PodDisruptionBudget, pods: Sequence[Pod], now: float
) -> dict[str, str]:
    """The ``disruptedPods`` entries still worth keeping (``buildDisruptedPodMap``).

    An entry goes when its pod is gone, is being deleted, or was evicted more
    than :data:`DELETION_TIMEOUT_SECONDS` ago and is still there (Kubernetes
    then also records a ``NotDeleted`` Event, which is left out here).
    """
    disrupted = pdb.status.disrupted_pods
    result: dict[str, str] = {}
    if not disrupted:
        return result
    for pod in pods:
        if pod.metadata.deletion_timestamp is not None:
            continue
        when = disrupted.get(pod.name)
        if when is None:
            continue
        if parse_rfc3339(when) + DELETION_TIMEOUT_SECONDS >= now:
            result[pod.name] = when
    return result


def is_pod_ready(pod: Pod) -> bool:
    """Ready per its ``Ready`` condition; with none, bound and not finished (no kubelet here)."""
    for condition in pod.status.conditions:
        if condition.type == "Ready":
            return condition.status == "True"
    return bool(pod.spec.node_name) and pod.status.phase not in ("Succeeded", "Failed")


def count_healthy_pods(pods: Sequence[Pod], disrupted: Mapping[str, str], now: float) -> int:
    """Ready pods not being deleted and not recently evicted (``countHealthyPods``)."""
    healthy = 0
    for pod in pods:
        if pod.metadata.deletion_timestamp is not None:
            continue
        when = disrupted.get(pod.name)
        if when is not None and parse_rfc3339(when) + DELETION_TIMEOUT_SECONDS > now:
            continue
        if is_pod_ready(pod):
            healthy += 1
    return healthy


def _disruption_allowed_condition(
    old: Sequence[Condition], allowed: bool, generation: int, now: float
) -> tuple[Condition, ...]:
    """``UpdateDisruptionAllowedCondition`` via ``meta.SetStatusCondition``.

    The transition time moves only when the condition's status changes;
    reason, message and observedGeneration are always the new ones.
    """
    status, reason = (
        ("True", SUFFICIENT_PODS_REASON) if allowed else ("False", INSUFFICIENT_PODS_REASON)
    )
    wanted = Condition(
        type=DISRUPTION_ALLOWED_CONDITION,
        status=status,
        observed_generation=generation,
        reason=reason,
    )
    conditions = list(old)
    for i, existing in enumerate(conditions):
        if existing.type == DISRUPTION_ALLOWED_CONDITION:
            since = existing.last_transition_time if existing.status == status else rfc3339(now)
            conditions[i] = dataclasses.replace(wanted, last_transition_time=since)
            return tuple(conditions)
    conditions.append(dataclasses.replace(wanted, last_transition_time=rfc3339(now)))
    return tuple(conditions)


def compute_status(
    pdb: PodDisruptionBudget, pods: Iterable[Pod], now: float
) -> PodDisruptionBudgetStatus:
    """The status the disruption controller would write for ``pdb`` (``trySync``).

    ``pods`` may hold pods of any namespace; only the PDB's own are looked
    at. A PDB whose counts cannot be computed keeps its status.
    """
    mine = pods_for_pdb(pdb, pods)
    try:
        expected, desired = expected_pod_count(pdb, mine)
    except IntOrStringError:
        return pdb.status
    disrupted = build_disrupted_pod_map(pdb, mine, now)
    healthy = count_healthy_pods(mine, disrupted, now)
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    generation = pdb.metadata.generation
    return PodDisruptionBudgetStatus(
        observed_generation=generation,
        disrupted_pods=disrupted,
        disruptions_allowed=allowed,
        current_healthy=healthy,
        desired_healthy=desired,
        expected_pods=expected,
        conditions=_disruption_allowed_condition(
            pdb.status.conditions, allowed > 0, generation, now
        ),
    )
