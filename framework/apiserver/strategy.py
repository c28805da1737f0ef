"""Per-kind rules for what a create or an update may set, and what the server sets itself.

Each kind's REST storage has a *strategy* that runs just before validation.
On create it clears what a client may not choose (a new pod's status is
always ``Pending``, whatever the manifest says) and fills in what the server
computes (the QoS class, ``metadata.generation``). On update it decides which
part of the object the request may change: the main resource keeps the old
status, the ``/status`` subresource keeps the old spec. That split is why
kube-scheduler writes conditions with a status update and can never move a
pod with a plain update.

Mirrors ``pkg/registry/core/pod/strategy.go`` (``podStrategy``,
``podStatusStrategy``: ``PrepareForCreate``, ``PrepareForUpdate``,
``applySchedulingGatedCondition``, ``mutatePodAffinity``,
``updatePodGeneration``), ``pkg/registry/core/node/strategy.go``,
``pkg/registry/core/namespace/strategy.go``,
``pkg/registry/policy/poddisruptionbudget/strategy.go``,
``pkg/registry/core/persistentvolume(claim)/strategy.go`` and the kind-independent parts of
``k8s.io/apiserver/pkg/registry/rest`` (``BeforeCreate``, ``BeforeUpdate``,
``names.SimpleNameGenerator``).
Simplified: feature-gated field dropping (``DropDisabledPodFields``) and
``observedGeneration`` bookkeeping are left out; every gate is as in a
default v1.33 cluster.
"""

from __future__ import annotations

import random
from typing import Any, TypeVar, cast

from framework.apiserver import customresource
from framework.apiserver.errors import BadRequest
from framework.objects import (
    KubeObject,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    Pod,
    PodAffinityTerm,
    PodCondition,
    PodDisruptionBudget,
    PodDisruptionBudgetStatus,
    PodGroup,
    PodStatus,
)
from framework.objects.copying import replace
from framework.objects.pod import Affinity, WeightedPodAffinityTerm
from framework.objects.qos import compute_pod_qos
from framework.objects.resource import ResourceClaim
from framework.objects.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    PersistentVolumeClaimStatus,
    PersistentVolumeStatus,
)
from framework.objects.workload import SchedulingPodGroup
from framework.objects.workloads import (
    DaemonSet,
    Deployment,
    Job,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
)

__all__ = [
    "HAS_STATUS",
    "MSG_NAMESPACE_MISMATCH",
    "MSG_SCHEDULING_GATED",
    "NAMESPACE_NAME_LABEL",
    "WORKLOAD_KINDS",
    "fill_system_fields",
    "generate_job_selector",
    "generate_name",
    "prepare_for_create",
    "prepare_for_status_update",
    "prepare_for_update",
    "with_request_namespace",
]

MSG_SCHEDULING_GATED = "Scheduling is blocked due to non-empty scheduling gates"
MSG_NAMESPACE_MISMATCH = (
    "the namespace of the provided object does not match the namespace sent on the request"
)
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
WORKLOAD_KINDS: tuple[type[KubeObject], ...] = (
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Job,
    ReplicationController,
)
"""Workload kinds, whose generation counts spec changes and whose status their controller writes."""
HAS_STATUS: tuple[type[KubeObject], ...] = (
    Pod,
    Node,
    Namespace,
    PodGroup,
    PodDisruptionBudget,
    *WORKLOAD_KINDS,
    ResourceClaim,
    SchedulingPodGroup,
    PersistentVolume,
    PersistentVolumeClaim,
)
"""The kinds with a ``/status`` subresource."""

T = TypeVar("T", bound=KubeObject)


# --- pods --------------------------------------------------------------------------------


def _with_label_keys(term: PodAffinityTerm, labels: dict[str, str]) -> PodAffinityTerm:
    """``matchLabelKeys``/``mismatchLabelKeys`` merged into the selector as In/NotIn (v1.31+ beta).

    A nil selector matches nothing and is left alone, as the real server does.
    """
    if term.label_selector is None or not (term.match_label_keys or term.mismatch_label_keys):
        return term
    added = [
        LabelSelectorRequirement(key=key, operator=operator, values=(labels[key],))
        for keys, operator in ((term.match_label_keys, "In"), (term.mismatch_label_keys, "NotIn"))
        for key in keys
        if key in labels
    ]
    selector = replace(
        term.label_selector,
        match_expressions=(*term.label_selector.match_expressions, *added),
    )
    return replace(term, label_selector=selector)


def _uses_label_keys(affinity: Affinity) -> bool:
    """Whether any pod (anti-)affinity term names ``matchLabelKeys`` or ``mismatchLabelKeys``."""
    for rules in (affinity.pod_affinity, affinity.pod_anti_affinity):
        if rules is None:
            continue
        terms = [
            *rules.required_during_scheduling_ignored_during_execution,
            *(
                w.pod_affinity_term
                for w in rules.preferred_during_scheduling_ignored_during_execution
            ),
        ]
        if any(t.match_label_keys or t.mismatch_label_keys for t in terms):
            return True
    return False


def _mutate_pod_affinity(pod: Pod) -> Pod:
    affinity = pod.spec.affinity
    # Most pods name no label keys: then there is nothing to merge, and no copy to make.
    if affinity is None or not _uses_label_keys(affinity):
        return pod
    labels = dict(pod.metadata.labels)

    def weighted(
        terms: tuple[WeightedPodAffinityTerm, ...],
    ) -> tuple[WeightedPodAffinityTerm, ...]:
        return tuple(
            replace(t, pod_affinity_term=_with_label_keys(t.pod_affinity_term, labels))
            for t in terms
        )

    changes: dict[str, Any] = {}
    for field in ("pod_affinity", "pod_anti_affinity"):
        rules = getattr(affinity, field)
        if rules is None:
            continue
        changes[field] = replace(
            rules,
            required_during_scheduling_ignored_during_execution=tuple(
                _with_label_keys(t, labels)
                for t in rules.required_during_scheduling_ignored_during_execution
            ),
            preferred_during_scheduling_ignored_during_execution=weighted(
                rules.preferred_during_scheduling_ignored_during_execution
            ),
        )
    new_affinity: Affinity = replace(affinity, **changes)
    return replace(pod, spec=replace(pod.spec, affinity=new_affinity))


def _prepare_pod_for_create(pod: Pod) -> Pod:
    conditions: tuple[PodCondition, ...] = ()
    if pod.spec.scheduling_gates:
        # applySchedulingGatedCondition: a gated pod says why it is not being scheduled.
        conditions = (
            PodCondition(
                type="PodScheduled",
                status="False",
                reason="SchedulingGated",
                message=MSG_SCHEDULING_GATED,
            ),
        )
    status = PodStatus(phase="Pending", qos_class=str(compute_pod_qos(pod)), conditions=conditions)
    metadata = replace(pod.metadata, generation=1)
    return _mutate_pod_affinity(replace(pod, status=status, metadata=metadata))


def _prepare_pod_for_update(new: Pod, old: Pod) -> Pod:
    generation = old.metadata.generation + (1 if new.spec != old.spec else 0)
    return replace(new, status=old.status).with_metadata(generation=generation)


def _prepare_pod_for_status_update(new: Pod, old: Pod) -> Pod:
    status = new.status
    if not status.qos_class:
        # The QoS class is fixed at creation; an old kubelet may send it back empty.
        status = replace(status, qos_class=old.status.qos_class)
    return replace(new, spec=old.spec, status=status).with_metadata(
        owner_references=old.metadata.owner_references
    )


# --- namespaces --------------------------------------------------------------------------


def _prepare_namespace(ns: Namespace, old: Namespace | None) -> Namespace:
    spec = {"finalizers": ["kubernetes"]} if old is None else old.spec
    status = {"phase": "Active"} if old is None else old.status
    labels = {**ns.metadata.labels, NAMESPACE_NAME_LABEL: ns.metadata.name}
    return replace(ns, spec=spec, status=status).with_metadata(labels=labels)


# --- rest.BeforeCreate: what every kind gets -----------------------------------------


def with_request_namespace(obj: T, namespace: str | None) -> T:
    """``obj`` in the namespace of the request: its own, else the request's, else ``default``.

    The two may not disagree (:class:`BadRequest`). Cluster-scoped objects
    lose any namespace they were given.
    """
    if not obj.NAMESPACED:
        return obj.with_metadata(namespace="") if obj.metadata.namespace else obj
    own = obj.metadata.namespace
    if own and namespace and own != namespace:
        raise BadRequest(MSG_NAMESPACE_MISMATCH)
    if own:
        return obj  # already in its namespace: no copy to make
    return obj.with_metadata(namespace=namespace or "default")


def fill_system_fields(obj: T, name: str, uid: str, now: str, resource_version: str = "") -> T:
    """``obj`` with the identity and time the server sets on create, whatever the client sent.

    A deletion cannot be under way for an object that does not exist yet.
    ``resource_version``, if given, is the version the write will get: the
    store stamps it here, in the same copy, rather than copy the object again.
    """
    return obj.with_metadata(
        name=name,
        uid=uid,
        creation_timestamp=now,
        deletion_timestamp=None,
        deletion_grace_period_seconds=None,
        resource_version=resource_version,
    )


# --- names -------------------------------------------------------------------------------

# utilrand.String's alphabet: no vowels (no accidental words), no 0/1/3 (no look-alikes).
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATED_NAME_PREFIX = 63 - 5


def generate_name(prefix: str, rng: random.Random) -> str:
    """``metadata.generateName`` plus five random characters (``names.SimpleNameGenerator``).

    The prefix is cut so the result fits in 63 characters.
    """
    suffix = "".join(rng.choice(_NAME_ALPHABET) for _ in range(5))
    return prefix[:_MAX_GENERATED_NAME_PREFIX] + suffix


#: The labels ``generateSelector`` gives a Job's pods (``pkg/registry/batch/job/strategy.go``).
_JOB_UID_LABELS = ("batch.kubernetes.io/controller-uid", "controller-uid")
_JOB_NAME_LABELS = ("batch.kubernetes.io/job-name", "job-name")


def generate_job_selector(obj: T) -> T:
    """A Job's selector and template labels from its uid, unless ``manualSelector`` (``generateSelector``).

    Runs once the uid is set, before validation, as kube-apiserver's Job
    strategy does in ``Validate``. Other kinds come back as they are.
    """
    if not isinstance(obj, Job) or obj.spec.extra.get("manualSelector") is True:
        return obj
    uid, name = obj.metadata.uid, obj.metadata.name
    template = dict(obj.spec.template) if isinstance(obj.spec.template, dict) else {}
    meta = dict(template.get("metadata") or {})
    meta["labels"] = {
        **(meta.get("labels") or {}),
        **dict.fromkeys(_JOB_UID_LABELS, uid),
        **dict.fromkeys(_JOB_NAME_LABELS, name),
    }
    selector = LabelSelector(match_labels={_JOB_UID_LABELS[0]: uid})
    spec = _replace(obj.spec, selector=selector, template={**template, "metadata": meta})
    return cast(T, _replace(obj, spec=spec))


def _replace(obj: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for the kinds handled alike whose fields mypy cannot see."""
    return replace(obj, **changes)


# --- entry points --------------------------------------------------------------------------


def prepare_for_create(obj: T) -> T:
    """``obj`` with server-owned fields reset or computed (``PrepareForCreate``).

    Pods, budgets and workloads get ``metadata.generation`` 1; other kinds have none here.
    """
    if isinstance(obj, Pod):
        return cast(T, _prepare_pod_for_create(obj))
    if isinstance(obj, Namespace):
        return cast(T, _prepare_namespace(obj, None))
    if isinstance(obj, customresource.CUSTOM_RESOURCE_KINDS):
        return customresource.prepare_for_create(obj)
    if isinstance(obj, PodDisruptionBudget):
        # A new budget's status is the disruption controller's to write.
        fresh = replace(obj, status=PodDisruptionBudgetStatus())
        return cast(T, fresh.with_metadata(generation=1))
    if isinstance(obj, WORKLOAD_KINDS):
        # deploymentStrategy.PrepareForCreate and its kin: the status is the controller's.
        return cast(T, _replace(obj, status=None).with_metadata(generation=1))
    if isinstance(obj, PersistentVolume):
        # persistentvolumeStrategy.PrepareForCreate: the PV controller writes the phase.
        return cast(T, replace(obj, status=PersistentVolumeStatus(phase="Pending")))
    if isinstance(obj, PersistentVolumeClaim):
        # persistentvolumeclaimStrategy.PrepareForCreate clears it; Pending is the default.
        cleared = PersistentVolumeClaimStatus(phase="Pending")
        return cast(T, replace(obj, status=cleared))
    if obj.metadata.generation == 0:
        return obj  # an Event, say: nothing to reset, so no copy to make
    return obj.with_metadata(generation=0)


def prepare_for_update(new: T, old: T) -> T:
    """``new`` limited to what an update of the main resource may change (``PrepareForUpdate``).

    The status stays the stored one; a pod's generation goes up by one when
    its spec changed.
    """
    new = _keep_system_metadata(new, old)
    if isinstance(new, Pod) and isinstance(old, Pod):
        return cast(T, _prepare_pod_for_update(new, old))
    if isinstance(new, Node) and isinstance(old, Node):
        return cast(T, replace(new, status=old.status))
    if isinstance(new, Namespace) and isinstance(old, Namespace):
        return cast(T, _prepare_namespace(new, old))
    if isinstance(new, customresource.CUSTOM_RESOURCE_KINDS):
        return customresource.prepare_for_update(new, old)
    if isinstance(new, ResourceClaim) and isinstance(old, ResourceClaim):
        return cast(T, replace(new, status=old.status))
    if isinstance(new, PersistentVolume) and isinstance(old, PersistentVolume):
        return cast(T, replace(new, status=old.status))
    if isinstance(new, PersistentVolumeClaim) and isinstance(old, PersistentVolumeClaim):
        return cast(T, replace(new, status=old.status))
    if isinstance(new, PodDisruptionBudget) and isinstance(old, PodDisruptionBudget):
        generation = old.metadata.generation + (1 if new.spec != old.spec else 0)
        kept = replace(new, status=old.status)
        return cast(T, kept.with_metadata(generation=generation))
    if isinstance(new, WORKLOAD_KINDS):
        spec_changed = getattr(new, "spec", None) != getattr(old, "spec", None)
        generation = old.metadata.generation + (1 if spec_changed else 0)
        kept = _replace(new, status=getattr(old, "status", None))
        return cast(T, kept.with_metadata(generation=generation))
    return new


def prepare_for_status_update(new: T, old: T) -> T:
    """``new`` limited to what ``/status`` may change (``podStatusStrategy.PrepareForUpdate``).

    The spec stays the stored one. Labels and annotations sent along *are*
    taken, as the real status subresource takes them.
    """
    new = _keep_system_metadata(new, old)
    if isinstance(new, Pod) and isinstance(old, Pod):
        return cast(T, _prepare_pod_for_status_update(new, old))
    if isinstance(new, Node) and isinstance(old, Node):
        return cast(T, replace(new, spec=old.spec))
    if isinstance(new, Namespace) and isinstance(old, Namespace):
        return cast(T, replace(new, spec=old.spec))
    if isinstance(new, customresource.CUSTOM_RESOURCE_KINDS):
        return customresource.prepare_for_status_update(new, old)
    if isinstance(new, PodDisruptionBudget) and isinstance(old, PodDisruptionBudget):
        return cast(T, replace(new, spec=old.spec))
    if isinstance(new, WORKLOAD_KINDS):
        return cast(T, _replace(new, spec=getattr(old, "spec", None)))
    if isinstance(new, ResourceClaim) and isinstance(old, ResourceClaim):
        return cast(T, replace(new, spec=old.spec))
    if isinstance(new, PersistentVolume) and isinstance(old, PersistentVolume):
        return cast(T, replace(new, spec=old.spec))
    if isinstance(new, PersistentVolumeClaim) and isinstance(old, PersistentVolumeClaim):
        return cast(T, replace(new, spec=old.spec))
    return new


def _keep_system_metadata(new: T, old: T) -> T:
    """``rest.BeforeUpdate``: what no update can change, whatever the request says.

    An empty uid is filled from the stored object (a changed one fails
    validation); the creation time, the generation and a deletion already
    under way are always the stored ones.
    """
    meta = old.metadata
    return new.with_metadata(
        uid=new.metadata.uid or meta.uid,
        creation_timestamp=meta.creation_timestamp,
        generation=meta.generation,
        deletion_timestamp=meta.deletion_timestamp,
        deletion_grace_period_seconds=meta.deletion_grace_period_seconds,
    )
