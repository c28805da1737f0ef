"""The Eviction API: ``POST pods/<name>/eviction``, a delete that asks the pod's budget first.

``kubectl drain`` evicts each pod of the node through this subresource
instead of deleting it, so that a PodDisruptionBudget can say no. The
request carries a ``policy/v1`` ``Eviction`` naming the pod; the answer is:

* the pod deleted and ``201`` with a ``Success`` Status, when no budget
  selects the pod, or the pod does not count (it has finished, is being
  deleted already, or has not started), or the budget allows one more
  disruption: then its ``disruptionsAllowed`` is decremented and the pod
  written into its ``disruptedPods`` before the delete, so that a second
  eviction racing this one cannot spend the same disruption;
* ``429 TooManyRequests``, ``Cannot evict pod as it would violate the pod's
  disruption budget.``, with a ``DisruptionBudget`` cause saying how many
  healthy pods the budget needs and has, when it allows none (kubectl drain
  retries every five seconds);
* ``500`` when more than one budget selects the pod.

An unhealthy (not ready) pod may be evicted without spending a disruption
when its budget says ``unhealthyPodEvictionPolicy: AlwaysAllow``, or, by
default (``IfHealthyBudget``), when the budget is satisfied anyway.

Mirrors ``pkg/registry/core/pod/storage/eviction.go`` (v1.33:
``EvictionREST.Create``, ``checkAndDecrement``, ``canIgnorePDB``,
``createTooManyRequestsError``). Simplified: with no kubelet, a pod counts
as started once it is bound (as :func:`framework.apiserver.disruption.is_pod_ready`
counts it ready); a delete without a grace period in the Eviction's
``deleteOptions`` deletes at once, as this server's DELETE does; ``dryRun``
is not served.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from framework.apiserver.disruption import is_pod_ready
from framework.apiserver.errors import (
    APIError,
    BadRequest,
    Conflict,
    Forbidden,
    GroupResource,
    InternalError,
)
from framework.apiserver.store import APIServer
from framework.clock import rfc3339
from framework.objects import Pod, PodDisruptionBudget
from framework.objects.labels import label_selector_as_selector

__all__ = ["MAX_DISRUPTED_POD_SIZE", "EvictionForbidden", "evict"]

MAX_DISRUPTED_POD_SIZE = 2000
"""How many not-yet-confirmed evictions a budget may hold (``MaxDisruptedPodSize``)."""

MSG_VIOLATES_BUDGET = "Cannot evict pod as it would violate the pod's disruption budget."

SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}

_PDB = GroupResource("policy", "poddisruptionbudget")


class EvictionForbidden(APIError):
    """429: the budget allows no disruption now (``errors.NewTooManyRequests``, retry after 0)."""

    code = 429
    reason = "TooManyRequests"

    def __init__(self, cause: str) -> None:
        super().__init__(
            MSG_VIOLATES_BUDGET, {"causes": [{"reason": "DisruptionBudget", "message": cause}]}
        )


def _decode(body: Any, name: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BadRequest("the body of an eviction must be a policy/v1 Eviction object")
    kind, version = body.get("kind", "Eviction"), body.get("apiVersion", "policy/v1")
    if kind != "Eviction" or version not in ("policy/v1", "policy/v1beta1"):
        raise BadRequest(f"expected a policy/v1 Eviction, got {kind} in {version}")
    metadata = body.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise BadRequest("Eviction.metadata must be an object")
    if metadata.get("name", name) != name:
        raise BadRequest("name in URL does not match name in Eviction object")
    options = body.get("deleteOptions") or {}
    if not isinstance(options, dict):
        raise BadRequest("Eviction.deleteOptions must be an object")
    return options


def _can_ignore_pdb(pod: Pod) -> bool:
    """A finished pod, one being deleted, or one not started yet disrupts nothing."""
    if pod.status.phase in ("Succeeded", "Failed") or pod.metadata.deletion_timestamp:
        return True
    return pod.status.phase in ("", "Pending") and not pod.spec.node_name


def _selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """``getPodDisruptionBudgets``: an empty selector selects nothing here, unlike elsewhere."""
    selector = pdb.spec.selector
    if selector is None or not (selector.match_labels or selector.match_expressions):
        return False
    return label_selector_as_selector(selector).matches(pod.metadata.labels)


def _grace(options: dict[str, Any]) -> int:
    grace = options.get("gracePeriodSeconds")
    if grace is None:
        return 0
    if isinstance(grace, bool) or not isinstance(grace, int):
        raise BadRequest(f'invalid value for gracePeriodSeconds: "{grace}"')
    return grace


def evict(api: APIServer, namespace: str, name: str, body: Any, now: float) -> dict[str, Any]:
    """Evict pod ``namespace/name`` as ``body`` (an Eviction) asks; the Status, or an APIError."""
    options = _decode(body, name)
    grace = _grace(options)
    preconditions = options.get("preconditions") or {}
    for attempt in range(5):  # a lost race on the budget's status is retried, as RetryOnConflict
        pod = api.get(Pod, name, namespace)
        if _can_ignore_pdb(pod):
            break
        budgets = [
            pdb for pdb in api.list(PodDisruptionBudget, namespace).items if _selects(pdb, pod)
        ]
        if not budgets:
            break
        if len(budgets) > 1:
            raise InternalError(
                "This pod has more than one PodDisruptionBudget, which the eviction "
                "subresource does not support."
            )
        pdb = budgets[0]
        status = pdb.status
        if not is_pod_ready(pod):
            policy = pdb.spec.unhealthy_pod_eviction_policy or "IfHealthyBudget"
            if policy == "AlwaysAllow" or (
                status.current_healthy >= status.desired_healthy and status.desired_healthy > 0
            ):
                break
        try:
            _check_and_decrement(api, pdb, pod.name, now)
        except Conflict:
            if attempt == 4:
                raise
            continue
        break
    api.delete(
        Pod,
        name,
        namespace,
        uid=preconditions.get("uid"),
        resource_version=preconditions.get("resourceVersion"),
        grace_period_seconds=grace,
    )
    return dict(SUCCESS)


def _check_and_decrement(api: APIServer, pdb: PodDisruptionBudget, pod: str, now: float) -> None:
    status = pdb.status
    if status.observed_generation < pdb.metadata.generation:
        raise EvictionForbidden(
            f"The disruption budget {pdb.name} is still being processed by the server."
        )
    if status.disruptions_allowed < 0:
        raise Forbidden(_PDB, pdb.name, "pdb disruptions allowed is negative")
    if len(status.disrupted_pods) > MAX_DISRUPTED_POD_SIZE:
        raise Forbidden(
            _PDB,
            pdb.name,
            "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
        )
    if status.disruptions_allowed == 0:
        raise EvictionForbidden(
            f"The disruption budget {pdb.name} needs {status.desired_healthy} healthy pods "
            f"and has {status.current_healthy} currently"
        )
    spent = dataclasses.replace(
        status,
        disruptions_allowed=status.disruptions_allowed - 1,
        disrupted_pods={**status.disrupted_pods, pod: rfc3339(now)},
    )
    api.update_status(dataclasses.replace(pdb, status=spent))
