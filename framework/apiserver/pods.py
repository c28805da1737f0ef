"""What the pod storage adds to the generic store: binding a pod, and deleting it gracefully.

**Binding** is how a scheduler's decision becomes fact. The scheduler does
not update the pod; it posts a ``Binding`` (pod name, target node) to the
pod's ``binding`` subresource, and the server sets ``spec.nodeName`` if and
only if the pod is still unassigned. That "only if" is what makes two
schedulers racing for one pod safe: the loser gets ``409 Conflict``. The
server also merges the Binding's annotations into the pod and sets the
``PodScheduled`` condition to True.

**Graceful deletion** of a running pod first only marks it
(``deletionTimestamp``); the kubelet stops the containers and then deletes
it for good. Preemption cares: a victim being deleted still holds its node's
resources until it is gone.

Mirrors ``pkg/registry/core/pod/storage/storage.go`` (``BindingREST``,
``setPodHostAndAnnotations``), ``ValidatePodBinding`` in
``pkg/apis/core/validation/validation.go``, ``pkg/api/pod/util.go`` (``UpdatePodCondition``)
and ``pkg/registry/core/pod/strategy.go`` (``CheckGracefulDelete``).
Simplified: the ``PodTopologyLabelsAdmission`` copying of node labels
(alpha in v1.33, off) is left out.
"""

from __future__ import annotations

from collections.abc import Mapping

from framework.apiserver.errors import (
    MSG_POD_ALREADY_ASSIGNED,
    MSG_POD_BEING_DELETED,
    MSG_POD_SCHEDULING_GATED,
    FieldCause,
)
from framework.clock import rfc3339
from framework.objects import Binding, KubeObject, Pod, PodCondition, PodStatus
from framework.objects.copying import replace

__all__ = [
    "assign",
    "binding_refusal",
    "grace_period",
    "mark_for_deletion",
    "update_pod_condition",
    "validate_binding",
]


def validate_binding(binding: Binding) -> list[FieldCause]:
    """``ValidatePodBinding``: the target must be a Node (or say no kind) and have a name."""
    causes: list[FieldCause] = []
    if binding.target.kind and binding.target.kind != "Node":
        causes.append(
            FieldCause.not_supported("target.kind", binding.target.kind, ["Node", "<empty>"])
        )
    if not binding.target.name:
        causes.append(FieldCause.required("target.name"))
    return causes


def binding_refusal(pod: Pod) -> str:
    """Why ``pod`` cannot be bound now, in the server's words; "" if it can."""
    name = pod.metadata.name
    if pod.metadata.deletion_timestamp is not None:
        return MSG_POD_BEING_DELETED.format(pod=name)
    if pod.spec.node_name:
        return MSG_POD_ALREADY_ASSIGNED.format(pod=name, node=pod.spec.node_name)
    if pod.spec.scheduling_gates:
        return MSG_POD_SCHEDULING_GATED.format(pod=name)
    return ""


def update_pod_condition(status: PodStatus, condition: PodCondition, now: str) -> PodStatus:
    """``status`` with ``condition`` put in place of the one of its type (``UpdatePodCondition``).

    The new condition replaces the old one whole (reason and message
    included); ``lastTransitionTime`` moves to ``now`` only if the condition's
    status changes.
    """
    conditions = list(status.conditions)
    for i, old in enumerate(conditions):
        if old.type == condition.type:
            since = old.last_transition_time if old.status == condition.status else now
            conditions[i] = replace(condition, last_transition_time=since)
            break
    else:
        conditions.append(replace(condition, last_transition_time=now))
    return replace(status, conditions=tuple(conditions))


def assign(
    pod: Pod,
    node_name: str,
    annotations: Mapping[str, str],
    now: str,
    *,
    clear_nominated_node_name: bool = False,
    resource_version: str = "",
) -> Pod:
    """``pod`` bound to ``node_name``: what a successful binding writes.

    ``resource_version``, if given, is the version the write will get: the
    store stamps it here, in the same copy of the metadata, rather than copy
    the pod again when it commits.

    ``clear_nominated_node_name`` (gate ``ClearingNominatedNodeNameAfterBinding``,
    beta and on from v1.35) also empties ``status.nominatedNodeName``: once bound,
    the nomination is stale (``assignPod`` in
    ``kubernetes/kubernetes:pkg/registry/core/pod/storage/storage.go``, v1.35-era).
    """
    scheduled = PodCondition(type="PodScheduled", status="True")
    status = pod.status
    if clear_nominated_node_name and status.nominated_node_name:
        status = replace(status, nominated_node_name="")
    metadata = pod.metadata
    if annotations:  # a scheduler's binding carries none
        metadata = replace(metadata, annotations={**metadata.annotations, **annotations})
    if resource_version:
        metadata = replace(metadata, resource_version=resource_version)
    return replace(
        pod,
        metadata=metadata,
        spec=replace(pod.spec, node_name=node_name),
        status=update_pod_condition(status, scheduled, now),
    )


def grace_period(obj: KubeObject, requested: int | None) -> int:
    """How long deletion may take (``CheckGracefulDelete``); 0 means remove at once.

    Only pods are deleted gracefully. ``None`` asks for the pod's own
    ``terminationGracePeriodSeconds``. A pod never scheduled, or already
    finished, has nothing to stop and goes at once.
    """
    if not isinstance(obj, Pod):
        return 0
    period = requested if requested is not None else obj.spec.termination_grace_period_seconds or 0
    if not obj.spec.node_name or obj.status.phase in ("Succeeded", "Failed"):
        return 0
    return 1 if period < 0 else period


def mark_for_deletion(pod: Pod, grace: int, now: float) -> Pod:
    """``pod`` marked as terminating ``grace`` seconds from ``now`` (unchanged if already sooner).

    A second graceful delete may shorten the deadline, never extend it. The
    mark bumps ``metadata.generation``, as ``rest.BeforeDelete`` does.
    """
    deadline = rfc3339(now + grace)
    current = pod.metadata.deletion_timestamp
    if current is not None and current <= deadline:
        return pod
    return pod.with_metadata(
        deletion_timestamp=deadline,
        deletion_grace_period_seconds=grace,
        generation=pod.metadata.generation + 1,
    )
