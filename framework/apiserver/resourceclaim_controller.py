"""The resourceclaim controller's part: a claim per pod for each ResourceClaimTemplate it names.

A pod's ``spec.resourceClaims`` entry with ``resourceClaimTemplateName``
asks for a claim of its own, made from the template. The controller
creates it — ``generateName`` ``<pod>-<entry>-``, the template's labels and
annotations plus ``resource.kubernetes.io/pod-claim-name: <entry>``, the
pod as its controlling owner, the template's ``spec.spec`` — and records its
name in the pod's ``status.resourceClaimStatuses``. Until then the
scheduler's DynamicResources keeps the pod out of the queue ("ResourceClaim
not created yet"). A pod whose template does not exist yet waits for it;
the template's creation makes its claim.

The fake API server runs :func:`plan` after each creation of a pod or a
template (as it runs the PV controller after volume writes), and writes what
it returns at once.

Mirrors ``kubernetes/kubernetes:pkg/controller/resourceclaim/controller.go``
(``handleClaim``, ``findPodResourceClaim``), in part. Simplified: no
clean-up of claims whose pods are gone, no ``reservedFor`` bookkeeping,
and the name is cut as ``generateName`` cuts it, not part by part.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from framework.objects import ObjectMeta, Pod
from framework.objects.resource import (
    ANN_POD_CLAIM_NAME,
    ResourceClaim,
    ResourceClaimTemplate,
    pod_claim_statuses,
    pod_resource_claims,
)

__all__ = ["ClaimPlan", "needs_claims", "plan", "with_claim_statuses"]


@dataclass(slots=True)
class ClaimPlan:
    """Claims to create for a pod (named by ``generateName``), and the pod entries they are for."""

    pod: Pod
    claims: list[tuple[str, ResourceClaim]] = field(default_factory=list)


def needs_claims(pod: Pod) -> bool:
    """Whether the pod names a template whose claim is not in its status yet."""
    if pod.spec.node_name or pod.metadata.deletion_timestamp:
        return False
    templated = [c.name for c in pod_resource_claims(pod) if c.resource_claim_template_name]
    if not templated:
        return False
    done = {s.name for s in pod_claim_statuses(pod)}
    return any(name not in done for name in templated)


def plan(
    pod: Pod,
    templates: Mapping[str, ResourceClaimTemplate],
    existing: Mapping[str, ResourceClaim],
) -> ClaimPlan:
    """The claims ``pod`` still needs from the templates there are (``templates`` by key)."""
    result = ClaimPlan(pod)
    done = {s.name for s in pod_claim_statuses(pod)}
    namespace = pod.metadata.namespace
    for pod_claim in pod_resource_claims(pod):
        template_name = pod_claim.resource_claim_template_name
        if not template_name or pod_claim.name in done:
            continue
        if _owned_claim(pod, pod_claim.name, existing) is not None:
            continue
        template = templates.get(f"{namespace}/{template_name}")
        if template is None:
            continue  # it waits for the template
        meta = template.spec.metadata
        owner: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": pod.metadata.name,
            "uid": pod.metadata.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
        claim = ResourceClaim(
            metadata=ObjectMeta(
                generate_name=f"{pod.metadata.name}-{pod_claim.name}-",
                namespace=namespace,
                labels=dict(meta.labels),
                annotations={**meta.annotations, ANN_POD_CLAIM_NAME: pod_claim.name},
                owner_references=(owner,),
            ),
            spec=template.spec.spec,
        )
        result.claims.append((pod_claim.name, claim))
    return result


def _owned_claim(
    pod: Pod, entry: str, existing: Mapping[str, ResourceClaim]
) -> ResourceClaim | None:
    """A claim the pod already owns for ``entry`` (``findPodResourceClaim``)."""
    for claim in existing.values():
        if claim.metadata.namespace != pod.metadata.namespace:
            continue
        if claim.metadata.annotations.get(ANN_POD_CLAIM_NAME) != entry:
            continue
        for ref in claim.metadata.owner_references:
            if isinstance(ref, Mapping) and ref.get("uid") == pod.metadata.uid:
                return claim
    return None


def with_claim_statuses(pod: Pod, made: list[tuple[str, str]]) -> Pod:
    """``pod`` with ``status.resourceClaimStatuses`` listing the claims made for it."""
    statuses = [s.to_dict() for s in pod_claim_statuses(pod)]
    statuses += [{"name": entry, "resourceClaimName": name} for entry, name in made]
    extra = {**pod.status.extra, "resourceClaimStatuses": statuses}
    return dataclasses.replace(pod, status=dataclasses.replace(pod.status, extra=extra))
