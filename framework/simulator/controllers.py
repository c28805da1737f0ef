"""The workload controllers: Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs become pods.

A user's manifests rarely hold bare Pods; they hold a Deployment with
``replicas: 3``. In a cluster its controller creates the pods, and the
scheduler only ever sees those. This module is those controllers, once, for
both programs that need them:

* ``simulate`` (:func:`expand_controller`) plays each controller's first
  step when it reads the manifests: the pods it would create, put in the
  controller's place in the file;
* ``serve`` runs them for good (:class:`WorkloadControllers`): a Deployment
  created with ``kubectl apply`` gets its ReplicaSet and the ReplicaSet its
  pods, ``kubectl scale`` adds or removes pods, a node added gets its
  DaemonSet pods, a Job creates pods until enough have succeeded, and the
  status ``kubectl get`` and ``kubectl rollout status`` read is written back.

Both call the same functions to make a pod (:func:`replica_set_pods`,
:func:`stateful_set_pod`, :func:`daemon_set_pods`, :func:`job_pods`).

How many pods, and their names, as each controller creates them:

* **Deployment**: a ReplicaSet named ``<deployment>-<template-hash>``
  (:func:`deployment_replica_set`), labelled and selecting
  ``pod-template-hash``, with the Deployment's ``spec.replicas`` (default 1);
* **ReplicaSet** (and **ReplicationController**, in ``simulate``):
  ``spec.replicas`` pods named ``<replicaset>-<5 characters>``;
* **StatefulSet**: ``<statefulset>-0``, ``<statefulset>-1``, …, and for each
  of them a PersistentVolumeClaim per ``volumeClaimTemplates`` entry, named
  ``<template>-<statefulset>-<ordinal>``, created before its pod, which the
  pod's volume of the template's name uses; with the default
  ``podManagementPolicy: OrderedReady`` ``serve`` creates ordinal *n* only
  once every lower one is Running and Ready;
* **DaemonSet**: one pod per node the template's ``nodeSelector``, required
  node affinity and tolerations admit (``NodeShouldRunDaemonPod``; the
  pod gets the DaemonSet tolerations of ``AddOrUpdateDaemonPodTolerations``),
  named ``<daemonset>-<5 characters>``, pinned to its node by a required
  node affinity ``matchFields: metadata.name In [<node>]``
  (``ReplaceDaemonSetPodNodeNameNodeAffinity``), which the scheduler then
  honours like any other;
* **Job**: ``spec.parallelism`` (default 1) pods at once, no more than the
  ``spec.completions`` still to succeed, none when ``spec.suspend``, named
  ``<job>-<5 characters>``, or ``<job>-<index>-<5 characters>`` when
  ``completionMode`` is Indexed; complete (condition ``Complete``) once
  ``completions`` pods have succeeded, failed (``BackoffLimitExceeded``)
  once more than ``backoffLimit`` (6) have failed.

The five characters come from Kubernetes' name alphabet
(``bcdfghjklmnpqrstvwxz2456789``), drawn from a random generator seeded
with the controller's kind, namespace and name: they look like the real
thing, and the same manifests give the same names on every run, whatever
``--seed`` says. The pods carry the template's labels and annotations, the
labels the controller adds (``pod-template-hash``;
``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index``
and ``controller-revision-hash``; ``controller-revision-hash`` and
``pod-template-generation`` for a DaemonSet; ``batch.kubernetes.io/job-name``
and ``job-name``, the controller's uid under
``batch.kubernetes.io/controller-uid`` and ``controller-uid`` once it has
one, and ``batch.kubernetes.io/job-completion-index`` when Indexed) and an
owner reference to their controller (a Deployment's pods are owned by its
ReplicaSet, as in a cluster). Deleting a controller in ``serve`` deletes
what it owns, as the garbage collector's background propagation does.

The controllers themselves are kept too in ``simulate``
(:func:`controller_objects`: a Deployment as the ReplicaSet it creates),
because kube-scheduler reads them: PodTopologySpread's default constraints
take their selector (``helper.DefaultSelector``).

Mirrors, in ``kubernetes/kubernetes:pkg/controller/`` (v1.33),
``replicaset/replica_set.go`` (``manageReplicas``,
``calculateStatus``), ``controller_utils.go`` (``GetPodFromTemplate``,
``getPodsToDelete``), ``deployment/sync.go`` (``getNewReplicaSet``,
``syncRolloutStatus``), ``statefulset/stateful_set_utils.go``
(``newStatefulSetPod``, ``getPersistentVolumeClaims``) and
``stateful_set_control.go``, ``daemon/daemon_controller.go``
(``NodeShouldRunDaemonPod``, ``podsShouldBeOnNode``) with
``daemon/util/daemonset_util.go``, and ``job/job_controller.go``
(``manageJob``, ``enactJobFinished``). Simplified: a Deployment's rollout
(``RollingUpdate``, paced by ``maxSurge`` and ``maxUnavailable``, or
``Recreate``) reads the availability its ReplicaSets last wrote; a
DaemonSet's rollout replaces its outdated pods at once; a
StatefulSet scales down all surplus ordinals at once; no ``minReadySeconds``
(ready is available); orphans are not adopted by selector; a template is
checked when its first pod is created (a bad one is a ``FailedCreate``
event on the controller), not when the controller is; pods are deleted
without a grace period (this kubelet has no containers to stop); Job
``podFailurePolicy``, ``successPolicy``, ``activeDeadlineSeconds`` and the
``SuccessCriteriaMet`` interim condition are not modelled; ``simulate``
creates every StatefulSet ordinal at once. The template hash is FNV-32a over
the template as JSON, where Kubernetes hashes Go's printed struct, so the
value differs from a real cluster's while keeping its form.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import logging
import math
import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from framework.apiserver import (
    AlreadyExists,
    APIError,
    APIServer,
    Conflict,
    EventRecorder,
    NotFound,
    Watch,
)
from framework.clock import Clock, RealClock, parse_rfc3339, rfc3339
from framework.objects import KubeObject, Node, Pod, Unstructured
from framework.objects.nodeaffinity import get_required_node_affinity
from framework.objects.schema import FieldError, ObjectInvalid
from framework.objects.storage import PersistentVolumeClaim
from framework.objects.workloads import (
    DaemonSet,
    Deployment,
    Job,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
)
from framework.plugins.helper import find_matching_untolerated_taint

__all__ = [
    "CONTROLLER_KINDS",
    "ControllerError",
    "WorkloadControllers",
    "controller_objects",
    "daemon_set_pods",
    "deletion_order",
    "deployment_replica_set",
    "expand_controller",
    "job_pods",
    "replica_set_pods",
    "should_run_daemon_pod",
    "stateful_set_pod",
    "statefulset_claims",
    "template_hash",
]

logger = logging.getLogger(__name__)

CONTROLLER_KINDS: dict[str, str] = {
    "Deployment": "apps/v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "ReplicationController": "v1",
    "Job": "batch/v1",
}
"""The workload kinds expanded into pods, with the apiVersion each is read from."""

POD_TEMPLATE_HASH = "pod-template-hash"
CONTROLLER_REVISION_HASH = "controller-revision-hash"
JOB_NAME_LABELS = ("batch.kubernetes.io/job-name", "job-name")
JOB_UID_LABELS = ("batch.kubernetes.io/controller-uid", "controller-uid")
JOB_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
DEFAULT_BACKOFF_LIMIT = 6

# utilrand.String's alphabet (k8s.io/apimachinery/pkg/util/rand): no vowels, no 0/1/3.
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193

# AddOrUpdateDaemonPodTolerations (daemon/util/daemonset_util.go, v1.33): a DaemonSet pod
# stays on a node that is not ready, unreachable, under pressure or cordoned.
_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")


class ControllerError(ValueError):
    """A controller that cannot be expanded; ``errors`` name each bad field."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


def _safe_encode(text: str) -> str:
    """``rand.SafeEncodeString``: each byte mapped onto the name alphabet."""
    return "".join(_ALPHANUMS[ord(c) % len(_ALPHANUMS)] for c in text)


def template_hash(template: Mapping[str, Any]) -> str:
    """The ``pod-template-hash`` of a Deployment's template (our FNV-32a; see the module docstring).

    >>> template_hash({"spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    '697c5c7895'
    """
    value = _FNV32_OFFSET
    for byte in json.dumps(template, sort_keys=True, separators=(",", ":")).encode():
        value = ((value ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return _safe_encode(str(value))


def _count(spec: Mapping[str, Any], field: str, errors: list[FieldError]) -> int:
    value = spec.get(field, 1)
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        errors.append(
            FieldError(f"spec.{field}", f"must be a non-negative integer, got {value!r}")
        )
        return 0
    return value


def _replicas(kind: str, spec: Mapping[str, Any], errors: list[FieldError]) -> int:
    if kind != "Job":
        return _count(spec, "replicas", errors)
    if spec.get("suspend") is True:
        return 0
    count = _count(spec, "parallelism", errors)
    if spec.get("completions") is not None:
        count = min(count, _count(spec, "completions", errors))
    return count


def _unique_name(stem: str, rng: random.Random, taken: set[str]) -> str:
    while True:
        name = stem[: 63 - 5] + "".join(rng.choice(_ALPHANUMS) for _ in range(5))
        if name not in taken:
            taken.add(name)
            return name


def _name_rng(kind: str, data: Mapping[str, Any]) -> random.Random:
    meta = data.get("metadata") or {}
    return random.Random(f"{kind}/{meta.get('namespace') or 'default'}/{meta.get('name', '')}")


def _owner(data: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The controller owner reference to ``data`` (with its uid once it has one)."""
    meta = data.get("metadata") or {}
    ref: dict[str, Any] = {
        "apiVersion": CONTROLLER_KINDS[kind],
        "kind": kind,
        "name": meta.get("name", ""),
    }
    if meta.get("uid"):
        ref["uid"] = meta["uid"]
    return ref | {"controller": True, "blockOwnerDeletion": True}


def _template(data: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The controller's ``spec`` and ``spec.template``; :class:`ControllerError` if missing."""
    spec = data.get("spec")
    if not isinstance(spec, Mapping):
        raise ControllerError([FieldError("spec", "is required")])
    template = spec.get("template")
    if not isinstance(template, Mapping):
        raise ControllerError([FieldError("spec.template", "is required")])
    meta = template.get("metadata") or {}
    if not isinstance(meta, Mapping):
        raise ControllerError([FieldError("spec.template.metadata", "must be an object")])
    return spec, template


def _pod_from_template(
    data: Mapping[str, Any],
    kind: str,
    name: str,
    labels: Mapping[str, str],
    pod_spec: Mapping[str, Any] | None = None,
) -> Pod:
    """``GetPodFromTemplate``: the template's metadata and spec, named, labelled and owned."""
    _, template = _template(data)
    template_meta = template.get("metadata") or {}
    meta = data.get("metadata") or {}
    document = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            **{k: v for k, v in template_meta.items() if k not in ("name", "generateName")},
            "name": name,
            "namespace": meta.get("namespace") or "default",
            "labels": {**(template_meta.get("labels") or {}), **labels},
            "ownerReferences": [_owner(data, kind)],
        },
        "spec": (template.get("spec") or {}) if pod_spec is None else pod_spec,
    }
    try:
        return Pod.from_dict(document)
    except ObjectInvalid as invalid:
        raise ControllerError(
            [FieldError(f"spec.template.{e.path}", e.message) for e in invalid.errors]
        ) from None


# --- the pods of each kind ---------------------------------------------------------------------


def replica_set_pods(
    data: Mapping[str, Any],
    count: int,
    rng: random.Random,
    taken: set[str],
    kind: str = "ReplicaSet",
) -> list[Pod]:
    """``count`` new pods of a ReplicaSet (or ReplicationController) ``data``: ``<name>-xxxxx``."""
    name = (data.get("metadata") or {}).get("name", "")
    if count <= 0:
        return []
    first = _pod_from_template(data, kind, _unique_name(f"{name}-", rng, taken), {})
    # The replicas differ only in their names: the template is decoded once, and the pods
    # (immutable objects) share everything else.
    return [first] + [
        first.with_metadata(name=_unique_name(f"{name}-", rng, taken)) for _ in range(count - 1)
    ]


def deployment_replica_set(data: Mapping[str, Any], revision: int | None = None) -> dict[str, Any]:
    """The ReplicaSet a Deployment ``data`` creates for its template (``getNewReplicaSet``).

    Named ``<deployment>-<hash>``, its template labelled and its selector
    narrowed with ``pod-template-hash``, with the Deployment's replicas.
    """
    spec, template = _template(data)
    meta = data.get("metadata") or {}
    name = str(meta.get("name", ""))
    pod_hash = template_hash(template)
    template_meta = dict(template.get("metadata") or {})
    labels = {**(template_meta.get("labels") or {}), POD_TEMPLATE_HASH: pod_hash}
    selector = dict(spec.get("selector") or {})
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), POD_TEMPLATE_HASH: pod_hash}
    rs_meta: dict[str, Any] = {
        "name": f"{name}-{pod_hash}",
        "namespace": meta.get("namespace") or "default",
        "labels": labels,
        "ownerReferences": [_owner(data, "Deployment")],
    }
    if revision is not None:
        rs_meta["annotations"] = {REVISION_ANNOTATION: str(revision)}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": rs_meta,
        "spec": {
            "replicas": spec.get("replicas", 1),
            "selector": selector,
            "template": {**template, "metadata": {**template_meta, "labels": labels}},
        },
    }


def _claim_templates(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    templates = spec.get("volumeClaimTemplates") or []
    return [t for t in templates if isinstance(t, Mapping)]


def _claim_name(template: Mapping[str, Any], pod_name: str) -> str:
    return f"{(template.get('metadata') or {}).get('name', '')}-{pod_name}"


def stateful_set_pod(data: Mapping[str, Any], ordinal: int) -> Pod:
    """``newStatefulSetPod``: ``<set>-<ordinal>``, with one claim volume per claim template."""
    spec, template = _template(data)
    name = f"{(data.get('metadata') or {}).get('name', '')}-{ordinal}"
    labels = {
        "statefulset.kubernetes.io/pod-name": name,
        "apps.kubernetes.io/pod-index": str(ordinal),
        CONTROLLER_REVISION_HASH: f"{name.rsplit('-', 1)[0]}-{template_hash(template)}",
    }
    pod_spec: Mapping[str, Any] = template.get("spec") or {}
    claims = {
        str((t.get("metadata") or {}).get("name", "")): _claim_name(t, name)
        for t in _claim_templates(spec)
    }
    if claims:  # updateStorage: the template's volume of that name is replaced by the claim
        volumes = [
            v
            for v in pod_spec.get("volumes") or []
            if not (isinstance(v, Mapping) and v.get("name") in claims)
        ]
        volumes += [
            {"name": vol, "persistentVolumeClaim": {"claimName": claim}}
            for vol, claim in claims.items()
        ]
        pod_spec = {**pod_spec, "volumes": volumes}
    return _pod_from_template(data, "StatefulSet", name, labels, pod_spec)


def _ordinal_claims(data: Mapping[str, Any], ordinal: int) -> list[PersistentVolumeClaim]:
    """``getPersistentVolumeClaims``: each template, named for the pod, with the selector's labels."""
    spec = data.get("spec") or {}
    meta = data.get("metadata") or {}
    pod_name = f"{meta.get('name', '')}-{ordinal}"
    selector_labels = dict(((spec.get("selector") or {}).get("matchLabels")) or {})
    claims: list[PersistentVolumeClaim] = []
    for i, template in enumerate(_claim_templates(spec)):
        claim_meta = dict(template.get("metadata") or {})
        document = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                **claim_meta,
                "name": _claim_name(template, pod_name),
                "namespace": meta.get("namespace") or "default",
                "labels": {**(claim_meta.get("labels") or {}), **selector_labels},
            },
            "spec": template.get("spec") or {},
        }
        try:
            claims.append(PersistentVolumeClaim.from_dict(document))
        except ObjectInvalid as invalid:
            raise ControllerError(
                [
                    FieldError(f"spec.volumeClaimTemplates[{i}].{e.path}", e.message)
                    for e in invalid.errors
                ]
            ) from None
    return claims


def statefulset_claims(controller: Unstructured) -> list[KubeObject]:
    """The claims a StatefulSet creates for its replicas (``<template>-<set>-<ordinal>``)."""
    data = controller.to_dict()
    spec = data.get("spec") or {}
    if not _claim_templates(spec):
        return []
    errors: list[FieldError] = []
    count = _replicas("StatefulSet", spec, errors)
    if errors:
        raise ControllerError(errors)
    return [claim for ordinal in range(count) for claim in _ordinal_claims(data, ordinal)]


def _daemon_pod_spec(template_spec: Mapping[str, Any], node_name: str | None) -> dict[str, Any]:
    """The template's spec with the DaemonSet tolerations and, for ``node_name``, its affinity."""
    spec = dict(template_spec)
    wanted = list(_DAEMON_TOLERATIONS)
    if spec.get("hostNetwork") is True:
        wanted.append(_HOST_NETWORK_TOLERATION)
    tolerations = [
        t
        for t in spec.get("tolerations") or []
        if not (isinstance(t, Mapping) and (t.get("key"), t.get("effect")) in wanted)
    ]
    tolerations += [{"key": k, "operator": "Exists", "effect": e} for k, e in wanted]
    spec["tolerations"] = tolerations
    if node_name is not None:
        # ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become this one.
        affinity = dict(spec.get("affinity") or {})
        node_affinity = dict(affinity.get("nodeAffinity") or {})
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [
                {
                    "matchFields": [
                        {"key": "metadata.name", "operator": "In", "values": [node_name]}
                    ]
                }
            ]
        }
        affinity["nodeAffinity"] = node_affinity
        spec["affinity"] = affinity
    return spec


def should_run_daemon_pod(data: Mapping[str, Any], node: Node) -> bool:
    """``NodeShouldRunDaemonPod``: the node's name, required affinity and taints admit the pod."""
    _, template = _template(data)
    template_spec = template.get("spec") or {}
    wanted_node = template_spec.get("nodeName") or ""
    if wanted_node and wanted_node != node.name:
        return False
    spec = {**_daemon_pod_spec(template_spec, None), "nodeName": node.name}
    pod = Pod.from_dict({"metadata": {"name": "probe"}, "spec": spec})
    if not get_required_node_affinity(pod).matches(node):
        return False
    return (
        find_matching_untolerated_taint(
            node.spec.taints,
            pod.spec.tolerations,
            lambda taint: taint.effect in ("NoSchedule", "NoExecute"),
        )
        is None
    )


def daemon_set_pods(
    data: Mapping[str, Any], nodes: Iterable[Node], rng: random.Random, taken: set[str]
) -> list[Pod]:
    """A DaemonSet ``data``'s pod for each of ``nodes`` it should run on (``syncNodes``)."""
    _, template = _template(data)
    meta = data.get("metadata") or {}
    labels = {
        CONTROLLER_REVISION_HASH: template_hash(template),
        "pod-template-generation": str(meta.get("generation") or 1),
    }
    pods = []
    for node in nodes:
        if not should_run_daemon_pod(data, node):
            continue
        spec = _daemon_pod_spec(template.get("spec") or {}, node.name)
        name = _unique_name(f"{meta.get('name', '')}-", rng, taken)
        pods.append(_pod_from_template(data, "DaemonSet", name, labels, spec))
    return pods


def job_pods(
    data: Mapping[str, Any], indexes: Sequence[int | None], rng: random.Random, taken: set[str]
) -> list[Pod]:
    """A Job ``data``'s new pods, one per entry of ``indexes`` (None: not Indexed)."""
    meta = data.get("metadata") or {}
    name = str(meta.get("name", ""))
    labels = dict.fromkeys(JOB_NAME_LABELS, name)
    if meta.get("uid"):
        labels |= dict.fromkeys(JOB_UID_LABELS, str(meta["uid"]))
    pods = []
    for index in indexes:
        stem = f"{name}-" if index is None else f"{name}-{index}-"
        extra = labels if index is None else {**labels, JOB_INDEX_LABEL: str(index)}
        pods.append(_pod_from_template(data, "Job", _unique_name(stem, rng, taken), extra))
    return pods


# --- simulate: the first wave ---------------------------------------------------------------


def expand_controller(controller: Unstructured, nodes: Sequence[Node] = ()) -> list[Pod]:
    """The pods ``controller`` (a kind of :data:`CONTROLLER_KINDS`) creates first.

    A DaemonSet's are one per node of ``nodes`` it should run on. Raises
    :class:`ControllerError` naming the controller's fields
    (``spec.replicas``, ``spec.template.spec.containers[0]...``) when the
    count or the template is bad.
    """
    kind = controller.kind
    data = controller.to_dict()
    spec, _ = _template(data)
    rng, taken = _name_rng(kind, data), set[str]()
    if kind == "DaemonSet":
        return daemon_set_pods(data, nodes, rng, taken)
    errors: list[FieldError] = []
    count = _replicas(kind, spec, errors)
    if errors:
        raise ControllerError(errors)
    if kind == "Deployment":
        return replica_set_pods(deployment_replica_set(data), count, rng, taken)
    if kind == "StatefulSet":
        return [stateful_set_pod(data, ordinal) for ordinal in range(count)]
    if kind == "Job":
        indexed = spec.get("completionMode") == "Indexed"
        return job_pods(data, [i if indexed else None for i in range(count)], rng, taken)
    return replica_set_pods(data, count, rng, taken, kind)


_KEPT: dict[str, type[KubeObject]] = {
    "ReplicaSet": ReplicaSet,
    "StatefulSet": StatefulSet,
    "ReplicationController": ReplicationController,
}


def controller_objects(controller: Unstructured) -> list[KubeObject]:
    """The controller objects kept beside the pods: what ``helper.DefaultSelector`` reads.

    A ReplicaSet, StatefulSet or ReplicationController is kept as it is; a
    Deployment is kept as the ReplicaSet it creates (named and labelled with
    the template hash, its selector narrowed by it, as ``getNewReplicaSet``
    does), since its pods' controller is that ReplicaSet. A Job or a
    DaemonSet is not kept: no scheduler code reads one. Raises
    :class:`ControllerError` as :func:`expand_controller` does.
    """
    kind = controller.kind
    data = controller.to_dict()
    try:
        if kind in _KEPT:
            kept = [_KEPT[kind].from_dict(data)]
            return kept + (statefulset_claims(controller) if kind == "StatefulSet" else [])
        if kind == "Deployment":
            return [ReplicaSet.from_dict(deployment_replica_set(data))]
    except ObjectInvalid as invalid:
        raise ControllerError(invalid.errors) from None
    return []


_PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}


def _ready(pod: Pod) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions)


def deletion_order(pods: Sequence[Pod], kind: str, now: float) -> list[Pod]:
    """The pods a controller deletes first when it has too many.

    A StatefulSet removes its highest ordinal first. The others rank as
    ``getPodsToDelete`` and ``ActivePodsWithRanks.Less``
    (``pkg/controller/controller_utils.go``, v1.33, ``LogarithmicScaleDown``
    on by default): unassigned first, then Pending before Unknown before
    Running, then not ready before ready, then more of the set's pods on
    the same node, then the newer: creation times are compared in
    powers-of-two buckets of their age at ``now``, and within a bucket by
    uid. Not modelled: the ``pod-deletion-cost`` annotation and restart
    counts. Pods created in the same second, which Go leaves in no
    particular order, are ranked by uid too.
    """
    if kind == "StatefulSet":
        return sorted(pods, key=lambda p: -int(p.name.rsplit("-", 1)[1]))
    on_node: dict[str, int] = {}
    for pod in pods:
        on_node[pod.spec.node_name] = on_node.get(pod.spec.node_name, 0) + 1

    def rank(pod: Pod) -> tuple[bool, int, bool, int, int, str]:
        age = now - parse_rfc3339(pod.metadata.creation_timestamp or rfc3339(now))
        bucket = int(math.log2(age * 1e9)) if age > 0 else -1  # logarithmicRankDiff, in ns
        return (
            bool(pod.spec.node_name),
            _PHASE_ORDER.get(pod.status.phase or "Pending", 0),
            _ready(pod),
            -on_node[pod.spec.node_name],
            bucket,
            pod.metadata.uid,
        )

    return sorted(pods, key=rank)


# --- serve: the controllers, for good -----------------------------------------------------

_TERMINAL = ("Succeeded", "Failed")
_WORKLOADS: tuple[type[KubeObject], ...] = (
    Deployment,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
    DaemonSet,
    Job,
)


def _controller_uid(obj: KubeObject) -> str:
    for ref in obj.metadata.owner_references:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return str(ref.get("uid") or "")
    return ""


def _active(pod: Pod) -> bool:
    return pod.status.phase not in _TERMINAL and pod.metadata.deletion_timestamp is None


def _condition(
    old: Sequence[Mapping[str, Any]], kind: str, status: str, reason: str, message: str, now: str
) -> dict[str, Any]:
    """A status condition, keeping its old times while nothing about it changed."""
    before = next((c for c in old if c.get("type") == kind), None)
    same = before is not None and (before.get("status"), before.get("reason")) == (status, reason)
    return {
        "type": kind,
        "status": status,
        "lastUpdateTime": before.get("lastUpdateTime", now) if same and before else now,
        "lastTransitionTime": before.get("lastTransitionTime", now) if same and before else now,
        "reason": reason,
        "message": message,
    }


class WorkloadControllers:
    """The workload controllers of ``serve``, on one API server: kube-controller-manager's part.

    :meth:`sync` reconciles every Deployment, ReplicaSet, StatefulSet,
    DaemonSet and Job once, until nothing changes (deterministic: the tests
    drive it so); :meth:`start` does so on a thread whenever one of them, a
    pod or a node changed, until :meth:`stop`. A pod it cannot create (its
    template is refused) is a ``Warning`` ``FailedCreate`` event on the
    controller, as in a cluster.
    """

    def __init__(self, api: APIServer, clock: Clock | None = None) -> None:
        self.api = api
        self.clock: Clock = clock or RealClock()
        self._recorder = EventRecorder(api, "controller-manager", self.clock)
        self._rngs: dict[str, random.Random] = {}
        self._watches: list[Watch] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # --- the loop ---------------------------------------------------------------------------

    def sync(self) -> int:
        """Reconcile everything until it settles (at most 10 passes); return the writes made."""
        with self._lock:
            total = 0
            for _ in range(10):
                writes = self._pass()
                total += writes
                if not writes:
                    break
            return total

    def start(self) -> None:
        """Reconcile on a thread of its own whenever a watched kind changes (``serve``)."""
        self._watches = [self.api.watch(kind) for kind in (*_WORKLOADS, Pod, Node)]
        self._thread = threading.Thread(target=self._loop, name="controllers", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            changed = False
            for watch in self._watches:
                changed = bool(watch.drain()) or changed
            if not changed:
                continue
            try:
                self.sync()
            except APIError:  # one refused write must not stop every controller
                logger.exception("workload controllers: a write failed; going on")

    def stop(self) -> None:
        """Stop the thread, if any, and its watches."""
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join()
        for watch in self._watches:
            watch.stop()

    # --- one pass -----------------------------------------------------------------------------

    def _pass(self) -> int:
        api = self.api
        pods = api.list(Pod).items
        owned: dict[str, list[Pod]] = {}
        for pod in pods:
            uid = _controller_uid(pod)
            if uid:
                owned.setdefault(uid, []).append(pod)
        replica_sets = api.list(ReplicaSet).items
        writes = 0
        for deployment in api.list(Deployment).items:
            writes += self._deployment(deployment, replica_sets)
        for rs in replica_sets:
            writes += self._replica_set(rs, owned.get(rs.metadata.uid, []))
        for rc in api.list(ReplicationController).items:  # the ReplicaSet's elder, run alike
            writes += self._replica_set(rc, owned.get(rc.metadata.uid, []), rc.KIND)
        for sts in api.list(StatefulSet).items:
            writes += self._stateful_set(sts, owned.get(sts.metadata.uid, []))
        nodes = api.list(Node).items
        for ds in api.list(DaemonSet).items:
            writes += self._daemon_set(ds, owned.get(ds.metadata.uid, []), nodes)
        for job in api.list(Job).items:
            writes += self._job(job, owned.get(job.metadata.uid, []))
        return writes + self._collect_garbage(pods, replica_sets)

    def _collect_garbage(self, pods: Sequence[Pod], replica_sets: Sequence[ReplicaSet]) -> int:
        """The garbage collector's background propagation: what a deleted controller owned goes."""
        live = {o.metadata.uid for kind in _WORKLOADS for o in self.api.list(kind).items}
        writes = 0
        for obj in (*replica_sets, *pods):
            uid = _controller_uid(obj)
            if uid and uid not in live:
                writes += self._delete(obj)
        return writes

    # --- writes ---------------------------------------------------------------------------

    def _rng(self, obj: KubeObject) -> random.Random:
        rng = self._rngs.get(obj.metadata.uid)
        if rng is None:
            rng = self._rngs[obj.metadata.uid] = _name_rng(obj.KIND, obj.to_dict())
        return rng

    def _taken(self, namespace: str) -> set[str]:
        return {p.name for p in self.api.list(Pod, namespace).items}

    def _create(self, controller: KubeObject, make: Callable[[], Sequence[KubeObject]]) -> int:
        """Create what ``make`` gives, with the events ``RealPodControl`` records."""
        try:
            made = make()
        except ControllerError as error:
            self._recorder.event(
                controller, "Warning", "FailedCreate", "", f"Error creating: {error}"
            )
            return 0
        writes = 0
        for obj in made:
            try:
                self.api.create(obj)
                writes += 1
            except AlreadyExists:
                continue
            except APIError as error:
                self._recorder.event(
                    controller, "Warning", "FailedCreate", "", f"Error creating: {error}"
                )
                return writes
            if isinstance(controller, StatefulSet):  # StatefulPodControl's own words
                what = "Pod" if isinstance(obj, Pod) else "Claim"
                message = f"create {what} {obj.name} in StatefulSet {controller.name} successful"
                self._recorder.event(controller, "Normal", "SuccessfulCreate", "", message)
            elif isinstance(obj, Pod):
                message = f"Created pod: {obj.name}"
                self._recorder.event(controller, "Normal", "SuccessfulCreate", "", message)
        return writes

    def _delete(self, obj: KubeObject, controller: KubeObject | None = None) -> int:
        """Delete ``obj`` (if it is still the one read); a controller's pod with its event."""
        with contextlib.suppress(NotFound, Conflict):
            self.api.delete(type(obj), obj.name, obj.namespace, uid=obj.metadata.uid)
            if controller is not None:
                message = f"Deleted pod: {obj.name}"
                self._recorder.event(controller, "Normal", "SuccessfulDelete", "", message)
            return 1
        return 0

    def _write_status(
        self, obj: KubeObject, status: dict[str, Any], annotations: Mapping[str, str] | None = None
    ) -> int:
        """Write ``status`` (and ``annotations``, which ``/status`` takes too) if they changed."""
        same = annotations is None or dict(annotations) == dict(obj.metadata.annotations)
        if same and status == (getattr(obj, "status", None) or {}):
            return 0
        if annotations is not None:
            obj = obj.with_metadata(annotations=dict(annotations))
        with contextlib.suppress(NotFound, Conflict):  # the next pass reads it again
            self.api.update_status(dataclasses.replace(obj, status=status))  # type: ignore[type-var]
            return 1
        return 0

    def _set_replicas(
        self, obj: KubeObject, replicas: int, deployment: Deployment | None = None
    ) -> int:
        """Set ``spec.replicas``; for a Deployment's set, its ``ScalingReplicaSet`` event."""
        spec = getattr(obj, "spec", None)
        before = getattr(spec, "replicas", None)
        if spec is None or before == replicas:
            return 0
        with contextlib.suppress(NotFound, Conflict):
            new_spec = dataclasses.replace(spec, replicas=replicas)
            self.api.update(dataclasses.replace(obj, spec=new_spec))  # type: ignore[type-var]
            if deployment is not None:
                way = "up" if replicas > (before or 0) else "down"
                message = f"Scaled {way} replica set {obj.name} from {before or 0} to {replicas}"
                self._recorder.event(deployment, "Normal", "ScalingReplicaSet", "", message)
            return 1
        return 0

    # --- the controllers ---------------------------------------------------------------------

    def _deployment(self, deployment: Deployment, replica_sets: Sequence[ReplicaSet]) -> int:
        data = deployment.to_dict()
        try:
            wanted = deployment_replica_set(data)
        except ControllerError:
            return 0
        replicas = deployment.spec.replicas if deployment.spec.replicas is not None else 1
        mine = [rs for rs in replica_sets if _controller_uid(rs) == deployment.metadata.uid]
        new_name = wanted["metadata"]["name"]
        # FindNewReplicaSet: the set whose template equals ours, the hash label aside.
        new = next((rs for rs in mine if rs.name == new_name), None) or next(
            (
                rs
                for rs in mine
                if _equal_ignore_hash(rs.spec.template, wanted["spec"]["template"])
            ),
            None,
        )
        new_name = new.name if new is not None else new_name
        olds = [rs for rs in mine if rs.name != new_name]
        strategy = deployment.spec.extra.get("strategy") or {}
        if strategy.get("type") == "Recreate":
            writes = sum(self._set_replicas(old, 0, deployment) for old in olds)
            if writes or any(int((old.status or {}).get("replicas", 0)) for old in olds):
                return writes  # rolloutRecreate: the new pods wait until the old are gone
            target = replicas
        else:
            surge, unavailable = _fenceposts(strategy.get("rollingUpdate") or {}, replicas)
            target = _new_replicas(replicas, surge, mine, new)
        writes = 0
        if new is None:
            revisions = [
                int(rs.metadata.annotations.get(REVISION_ANNOTATION, "0") or 0) for rs in mine
            ]
            revision = max(revisions, default=0) + 1
            made = ReplicaSet.from_dict(deployment_replica_set(data, revision))
            made = dataclasses.replace(made, spec=dataclasses.replace(made.spec, replicas=target))
            writes += self._create(deployment, lambda: [made])
            if writes:
                message = f"Scaled up replica set {made.name} from 0 to {target}"
                self._recorder.event(deployment, "Normal", "ScalingReplicaSet", "", message)
        else:
            writes += self._set_replicas(new, target, deployment)
            writes += self._bump_revision(new, mine)
        if strategy.get("type") != "Recreate" and not writes:
            writes += self._scale_down_old(deployment, replicas, unavailable, olds, new)
        if writes:
            return writes  # the status is written once the ReplicaSets have settled
        statuses = [rs.status or {} for rs in mine]
        new_status = (new.status or {}) if new is not None else {}
        total = sum(int(s.get("replicas", 0)) for s in statuses)
        available = sum(int(s.get("availableReplicas", 0)) for s in statuses)
        updated = int(new_status.get("replicas", 0))
        now = rfc3339(self.clock.now())
        old_conditions = (deployment.status or {}).get("conditions") or []
        complete = updated == replicas == total == available
        status: dict[str, Any] = {
            "observedGeneration": deployment.metadata.generation,
            "replicas": total,
            "updatedReplicas": updated,
            "readyReplicas": sum(int(s.get("readyReplicas", 0)) for s in statuses),
            "availableReplicas": available,
            "unavailableReplicas": max(replicas - available, 0),
            "conditions": [
                _condition(
                    old_conditions, "Available",
                    *(("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
                      if available >= replicas else
                      ("False", "MinimumReplicasUnavailable",
                       "Deployment does not have minimum availability.")),
                    now,
                ),
                _condition(
                    old_conditions, "Progressing", "True",
                    "NewReplicaSetAvailable" if complete else "ReplicaSetUpdated",
                    f'ReplicaSet "{new_name}" '
                    + ("has successfully progressed." if complete else "is progressing."),
                    now,
                ),
            ],
        }  # fmt: skip
        status = {k: v for k, v in status.items() if v != 0 or k == "observedGeneration"}
        annotations = dict(deployment.metadata.annotations)
        if new is not None and _revision(new):  # SetDeploymentRevision
            annotations[REVISION_ANNOTATION] = str(_revision(new))
        return self._write_status(deployment, status, annotations)

    def _bump_revision(self, new: ReplicaSet, mine: Sequence[ReplicaSet]) -> int:
        """A set rolled back to becomes the newest revision (``getNewReplicaSet``)."""
        revisions = [_revision(rs) for rs in mine]
        if _revision(new) == max(revisions, default=0) and revisions.count(_revision(new)) == 1:
            return 0
        annotations = {**new.metadata.annotations, REVISION_ANNOTATION: str(max(revisions) + 1)}
        with contextlib.suppress(NotFound, Conflict):
            self.api.update(new.with_metadata(annotations=annotations))
            return 1
        return 0

    def _scale_down_old(
        self,
        deployment: Deployment,
        replicas: int,
        unavailable: int,
        olds: Sequence[ReplicaSet],
        new: ReplicaSet | None,
    ) -> int:
        """``reconcileOldReplicaSets``: scale the old sets down as far as availability allows.

        Their unavailable pods go first (``cleanupUnhealthyReplicas``), then
        available ones while more than ``replicas - maxUnavailable`` stay
        available (``scaleDownOldReplicaSetsForRollingUpdate``), oldest set first.
        """
        counted = [*olds, *([new] if new is not None else [])]
        min_available = replicas - unavailable
        new_unavailable = (new.spec.replicas or 0) - _available(new) if new is not None else 0
        most = sum(rs.spec.replicas or 0 for rs in counted) - min_available - new_unavailable
        if most <= 0:
            return 0
        counts = {rs.name: rs.spec.replicas or 0 for rs in olds}
        ordered = sorted(olds, key=lambda rs: rs.metadata.creation_timestamp or "")
        cleaned = 0
        for rs in ordered:
            step = min(most - cleaned, counts[rs.name] - _available(rs))
            if step > 0:
                counts[rs.name] -= step
                cleaned += step
        excess = sum(_available(rs) for rs in counted) - min_available
        for rs in ordered:
            step = min(counts[rs.name], excess)
            if step > 0:
                counts[rs.name] -= step
                excess -= step
        return sum(self._set_replicas(rs, counts[rs.name], deployment) for rs in olds)

    def _replica_set(
        self,
        rs: ReplicaSet | ReplicationController,
        pods: Sequence[Pod],
        kind: str = "ReplicaSet",
    ) -> int:
        active = [p for p in pods if _active(p)]
        replicas = rs.spec.replicas if rs.spec.replicas is not None else 1
        data = rs.to_dict()
        if len(active) < replicas:
            missing = replicas - len(active)
            return self._create(
                rs,
                lambda: replica_set_pods(
                    data, missing, self._rng(rs), self._taken(rs.namespace), kind
                ),
            )
        if len(active) > replicas:
            doomed = deletion_order(active, "ReplicaSet", self.clock.now())
            return sum(self._delete(p, rs) for p in doomed[: len(active) - replicas])
        ready = sum(1 for p in active if _ready(p))
        status = {
            "replicas": len(active),
            "fullyLabeledReplicas": len(active),
            "readyReplicas": ready,
            "availableReplicas": ready,
            "observedGeneration": rs.metadata.generation,
        }
        return self._write_status(rs, {k: v for k, v in status.items() if v})

    def _stateful_set(self, sts: StatefulSet, pods: Sequence[Pod]) -> int:
        data = sts.to_dict()
        replicas = sts.spec.replicas if sts.spec.replicas is not None else 1
        ordered = (sts.spec.extra.get("podManagementPolicy") or "OrderedReady") == "OrderedReady"
        by_ordinal: dict[int, Pod] = {}
        for pod in pods:
            suffix = pod.name.rsplit("-", 1)[-1]
            if suffix.isdigit() and _active(pod):
                by_ordinal[int(suffix)] = pod
        writes = 0
        surplus = [p for i, p in by_ordinal.items() if i >= replicas]
        for pod in deletion_order(surplus, "StatefulSet", self.clock.now()):
            writes += self._delete(pod, sts)
        for ordinal in range(replicas):
            existing = by_ordinal.get(ordinal)
            if existing is None:
                writes += self._create(sts, functools.partial(_claims_then_pod, data, ordinal))
                if ordered:
                    break  # OrderedReady: the next ordinal waits for this one
            elif ordered and not (existing.status.phase == "Running" and _ready(existing)):
                break
        if writes:
            return writes
        current = [p for i, p in by_ordinal.items() if i < replicas]
        ready = sum(1 for p in current if _ready(p))
        _, template = _template(data)
        revision = f"{sts.name}-{template_hash(template)}"
        status = {
            "observedGeneration": sts.metadata.generation,
            "replicas": len(current),
            "readyReplicas": ready,
            "currentReplicas": len(current),
            "updatedReplicas": len(current),
            "availableReplicas": ready,
            "currentRevision": revision,
            "updateRevision": revision,
            "collisionCount": 0,
        }
        return self._write_status(sts, {k: v for k, v in status.items() if v or k == "replicas"})

    def _daemon_set(self, ds: DaemonSet, pods: Sequence[Pod], nodes: Sequence[Node]) -> int:
        data = ds.to_dict()
        try:
            _, template = _template(data)
        except ControllerError:
            return 0
        revision = template_hash(template)
        on_node: dict[str, list[Pod]] = {}
        for pod in pods:
            if _active(pod):
                on_node.setdefault(_target_node(pod), []).append(pod)
        names = {n.name for n in nodes}
        writes = 0
        wanted: list[Node] = []
        desired = current = misscheduled = 0
        for node in nodes:
            here = on_node.get(node.name, [])
            if should_run_daemon_pod(data, node):
                desired += 1
                keep = [
                    p for p in here if p.metadata.labels.get(CONTROLLER_REVISION_HASH) == revision
                ]
                for pod in [p for p in here if p not in keep[:1]]:  # outdated or duplicates
                    writes += self._delete(pod, ds)
                if keep:
                    current += 1
                else:
                    wanted.append(node)
            elif here:
                misscheduled += 1
                writes += sum(self._delete(p, ds) for p in here)
        for node_name, here in on_node.items():
            if node_name not in names:  # its node is gone
                writes += sum(self._delete(p, ds) for p in here)
        if wanted:
            writes += self._create(
                ds, lambda: daemon_set_pods(data, wanted, self._rng(ds), self._taken(ds.namespace))
            )
        if writes:
            return writes
        ready = sum(
            1 for here in on_node.values() for p in here if _ready(p) and p.spec.node_name in names
        )
        status = {
            "currentNumberScheduled": current,
            "numberMisscheduled": misscheduled,
            "desiredNumberScheduled": desired,
            "numberReady": ready,
            "observedGeneration": ds.metadata.generation,
            "updatedNumberScheduled": current,
            "numberAvailable": ready,
            "numberUnavailable": max(desired - ready, 0),
        }
        keep_zero = ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled",
                     "numberReady")  # fmt: skip
        return self._write_status(ds, {k: v for k, v in status.items() if v or k in keep_zero})

    def _job(self, job: Job, pods: Sequence[Pod]) -> int:
        data = job.to_dict()
        spec = data.get("spec") or {}
        old = job.status or {}
        conditions = list(old.get("conditions") or [])
        finished = any(
            c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
            for c in conditions
        )
        active = [p for p in pods if _active(p)]
        succeeded = [p for p in pods if p.status.phase == "Succeeded"]
        failed = [p for p in pods if p.status.phase == "Failed"]
        completions = job.spec.completions
        parallelism = job.spec.parallelism if job.spec.parallelism is not None else 1
        indexed = job.spec.completion_mode == "Indexed"
        now = rfc3339(self.clock.now())
        backoff = spec.get("backoffLimit", DEFAULT_BACKOFF_LIMIT)
        writes = 0
        status: dict[str, Any] = {k: v for k, v in old.items() if k in ("startTime",)}
        if not finished and not job.spec.suspend:
            status.setdefault("startTime", now)
        if finished:
            for pod in active:  # a finished Job's remaining pods go (enactJobFinished)
                writes += self._delete(pod, job)
        elif len(failed) > int(backoff):
            conditions.append(
                _condition([], "Failed", "True", "BackoffLimitExceeded",
                           "Job has reached the specified backoff limit", now)
            )  # fmt: skip
            for pod in active:
                writes += self._delete(pod, job)
        elif (completions is None and succeeded and not active) or (
            completions is not None and len(succeeded) >= completions
        ):
            conditions.append(
                _condition([], "Complete", "True", "CompletionsReached",
                           "Reached expected number of succeeded pods", now)
            )  # fmt: skip
            status["completionTime"] = now
        else:
            if job.spec.suspend:
                want = 0
            elif completions is None:
                want = len(active) if succeeded else parallelism
            else:
                want = min(parallelism, completions - len(succeeded))
            if len(active) > want:
                doomed = deletion_order(active, "Job", self.clock.now())
                writes += sum(self._delete(p, job) for p in doomed[: len(active) - want])
            elif len(active) < want:
                indexes: list[int | None] = [None] * (want - len(active))
                if indexed:
                    done = {p.metadata.labels.get(JOB_INDEX_LABEL) for p in (*active, *succeeded)}
                    free = [i for i in range(completions or 1) if str(i) not in done]
                    indexes = list(free[: want - len(active)])
                writes += self._create(
                    job,
                    lambda: job_pods(data, indexes, self._rng(job), self._taken(job.namespace)),
                )
        if "completionTime" in old:
            status["completionTime"] = old["completionTime"]
        status |= {
            "active": len(active) if not finished else 0,
            "succeeded": len(succeeded),
            "failed": len(failed),
            "ready": sum(1 for p in active if _ready(p)),
            "conditions": conditions,
        }
        if indexed:
            labels = (p.metadata.labels.get(JOB_INDEX_LABEL, "") for p in succeeded)
            indexes_done = sorted(int(i) for i in labels if i.isdigit())
            status["completedIndexes"] = ",".join(str(i) for i in indexes_done)
        status = {k: v for k, v in status.items() if v not in (0, [], "")}
        return writes + self._write_status(job, status)


def _pruned(value: Any) -> Any:
    """``value`` without nulls and empty maps or lists: what Go's ``omitempty`` leaves out."""
    if isinstance(value, Mapping):
        kept = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _equal_ignore_hash(template: Any, other: Any) -> bool:
    """``EqualIgnoreHash``: two pod templates alike but for ``pod-template-hash``."""

    def unhashed(t: Any) -> Any:
        if not isinstance(t, Mapping):
            return t
        meta = dict(t.get("metadata") or {})
        labels = {k: v for k, v in (meta.get("labels") or {}).items() if k != POD_TEMPLATE_HASH}
        return _pruned({**t, "metadata": {**meta, "labels": labels}})

    return bool(unhashed(template) == unhashed(other))


def _revision(rs: ReplicaSet) -> int:
    text = rs.metadata.annotations.get(REVISION_ANNOTATION, "")
    return int(text) if text.isdigit() else 0


def _available(rs: ReplicaSet | None) -> int:
    return int(((rs.status if rs is not None else None) or {}).get("availableReplicas", 0))


def _scaled(value: Any, total: int, round_up: bool) -> int:
    """``GetScaledValueFromIntOrPercent``: an int, or a percentage of ``total``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value)
    if not text.endswith("%") or not text[:-1].isdigit():
        return 0
    exact = int(text[:-1]) * total / 100
    return math.ceil(exact) if round_up else math.floor(exact)


def _fenceposts(rolling: Mapping[str, Any], replicas: int) -> tuple[int, int]:
    """``ResolveFenceposts``: maxSurge rounded up, maxUnavailable down, never both 0."""
    surge = _scaled(rolling.get("maxSurge", "25%"), replicas, True)
    unavailable = _scaled(rolling.get("maxUnavailable", "25%"), replicas, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def _new_replicas(
    replicas: int, surge: int, mine: Sequence[ReplicaSet], new: ReplicaSet | None
) -> int:
    """``NewRSNewReplicas`` (RollingUpdate): grow the new set within ``replicas + maxSurge``."""
    current = (new.spec.replicas or 0) if new is not None else 0
    if current >= replicas:
        return replicas
    total = sum(rs.spec.replicas or 0 for rs in mine)
    grow = min(max(replicas + surge - total, 0), replicas - current)
    return current + grow


def _claims_then_pod(data: Mapping[str, Any], ordinal: int) -> list[KubeObject]:
    """An ordinal's claims, then its pod: the order ``createPersistentVolumeClaims`` keeps."""
    return [*_ordinal_claims(data, ordinal), stateful_set_pod(data, ordinal)]


def _target_node(pod: Pod) -> str:
    """``GetTargetNodeName``: the node a DaemonSet pod is for (bound, or by its affinity)."""
    if pod.spec.node_name:
        return pod.spec.node_name
    data = pod.spec.to_dict()
    terms = (
        ((data.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        or {}
    ).get("nodeSelectorTerms") or []
    for term in terms:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("values"):
                return str(field["values"][0])
    return ""
