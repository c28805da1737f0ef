"""Workload controllers, played once: a Deployment, ReplicaSet, StatefulSet, RC or Job becomes its pods.

A user's manifests rarely hold bare Pods; they hold a Deployment with
``replicas: 3``. In a cluster its controller creates the pods, and the
scheduler only ever sees those. The simulator does the controller's first
step itself: it stamps out the pods from ``spec.template`` and schedules
them like any other pending pod, in the controller's place in the file.

How many pods, and their names, as each controller would create them:

* **Deployment**: ``spec.replicas`` (default 1) pods named
  ``<deployment>-<template-hash>-<5 characters>``;
* **ReplicaSet**: ``spec.replicas`` (default 1) pods named
  ``<replicaset>-<5 characters>``;
* **ReplicationController**: as a ReplicaSet;
* **StatefulSet**: ``spec.replicas`` (default 1) pods named
  ``<statefulset>-0``, ``<statefulset>-1``, …, and for each of them a
  PersistentVolumeClaim per ``volumeClaimTemplates`` entry, named
  ``<template>-<statefulset>-<ordinal>``, which the pod's volume of the
  template's name uses;
* **Job**: ``spec.parallelism`` (default 1) pods, no more than
  ``spec.completions``, none when ``spec.suspend``, named
  ``<job>-<5 characters>``, or ``<job>-<index>-<5 characters>`` when
  ``completionMode`` is Indexed.

The five characters come from Kubernetes' name alphabet
(``bcdfghjklmnpqrstvwxz2456789``), drawn from a random generator seeded
with the controller's kind, namespace and name: they look like the real
thing, and the same manifests give the same names on every run, whatever
``--seed`` says. The pods carry the template's labels and annotations, the
labels the controller adds (``pod-template-hash``;
``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index``;
``batch.kubernetes.io/job-name`` and ``job-name``, plus
``batch.kubernetes.io/job-completion-index`` when Indexed) and an owner
reference to their controller (a Deployment's pods are owned by its
ReplicaSet, as in a cluster).

The controllers themselves are kept too (:func:`controller_objects`: a
Deployment as the ReplicaSet it creates), because kube-scheduler reads them:
PodTopologySpread's default constraints take their selector
(``helper.DefaultSelector``).

Mirrors the pod creation of ``ReplicaSetController`` (``manageReplicas``,
``controller.GetPodFromTemplate``), ``DeploymentController``
(``getNewReplicaSet``: the ReplicaSet named after the template hash),
``StatefulSetController`` (``newStatefulSetPod``, ordinal names) and the Job
controller (``manageJob``) in ``kubernetes/kubernetes:pkg/controller/``
(v1.33). Simplified: only the first wave of pods (no pod ever finishes
here); the template hash is FNV-32a over the template as JSON, where
Kubernetes hashes Go's printed struct, so the value differs from a real
cluster's while keeping its form.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from framework.objects import KubeObject, Pod, Unstructured
from framework.objects.schema import FieldError, ObjectInvalid
from framework.objects.workloads import ReplicaSet, ReplicationController, StatefulSet

__all__ = [
    "CONTROLLER_KINDS",
    "ControllerError",
    "controller_objects",
    "expand_controller",
    "statefulset_claims",
    "template_hash",
]

CONTROLLER_KINDS: dict[str, str] = {
    "Deployment": "apps/v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "ReplicationController": "v1",
    "Job": "batch/v1",
}
"""The workload kinds expanded into pods, with the apiVersion each is read from."""

# utilrand.String's alphabet (k8s.io/apimachinery/pkg/util/rand): no vowels, no 0/1/3.
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


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


def expand_controller(controller: Unstructured) -> list[Pod]:
    """The pods ``controller`` (a kind of :data:`CONTROLLER_KINDS`) creates first.

    Raises :class:`ControllerError` naming the controller's fields
    (``spec.replicas``, ``spec.template.spec.containers[0]...``) when the
    count or the template is bad.
    """
    kind = controller.kind
    data = controller.to_dict()
    spec = data.get("spec")
    errors: list[FieldError] = []
    if not isinstance(spec, Mapping):
        raise ControllerError([FieldError("spec", "is required")])
    template = spec.get("template")
    if not isinstance(template, Mapping):
        raise ControllerError([FieldError("spec.template", "is required")])
    count = _replicas(kind, spec, errors)
    if errors:
        raise ControllerError(errors)

    name = controller.metadata.name
    namespace = controller.metadata.namespace or "default"
    template_meta = template.get("metadata") or {}
    if not isinstance(template_meta, Mapping):
        raise ControllerError([FieldError("spec.template.metadata", "must be an object")])
    labels = dict(template_meta.get("labels") or {})
    owner: dict[str, Any] = {"apiVersion": CONTROLLER_KINDS[kind], "kind": kind, "name": name}
    prefix = f"{name}-"
    if kind == "Deployment":
        replica_set = f"{name}-{template_hash(template)}"
        labels["pod-template-hash"] = replica_set.rsplit("-", 1)[1]
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": replica_set}
        prefix = f"{replica_set}-"
    owner |= {"controller": True, "blockOwnerDeletion": True}
    indexed = kind == "Job" and spec.get("completionMode") == "Indexed"

    rng = random.Random(f"{kind}/{namespace}/{name}")
    taken: set[str] = set()
    pods = []
    for index in range(count):
        pod_labels = dict(labels)
        if kind == "StatefulSet":
            pod_name = f"{name}-{index}"
            pod_labels["statefulset.kubernetes.io/pod-name"] = pod_name
            pod_labels["apps.kubernetes.io/pod-index"] = str(index)
        else:
            stem = f"{prefix}{index}-" if indexed else prefix
            pod_name = _unique_name(stem, rng, taken)
        if kind == "Job":
            pod_labels["batch.kubernetes.io/job-name"] = name
            pod_labels["job-name"] = name
            if indexed:
                pod_labels["batch.kubernetes.io/job-completion-index"] = str(index)
        pod_spec = template.get("spec") or {}
        if kind == "StatefulSet" and spec.get("volumeClaimTemplates"):
            pod_spec = _with_claims(pod_spec, spec["volumeClaimTemplates"], pod_name)
        document = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                **{k: v for k, v in template_meta.items() if k not in ("name", "generateName")},
                "name": pod_name,
                "namespace": namespace,
                "labels": pod_labels,
                "ownerReferences": [owner],
            },
            "spec": pod_spec,
        }
        try:
            pods.append(Pod.from_dict(document))
        except ObjectInvalid as invalid:
            raise ControllerError(
                [FieldError(f"spec.template.{e.path}", e.message) for e in invalid.errors]
            ) from None
    return pods


def _claim_templates(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    templates = spec.get("volumeClaimTemplates") or []
    return [t for t in templates if isinstance(t, Mapping)]


def _with_claims(pod_spec: Mapping[str, Any], templates: Any, pod_name: str) -> dict[str, Any]:
    """The pod's volumes with one per claim template, naming its claim (``updateStorage``)."""
    claims = {
        str(
            (t.get("metadata") or {}).get("name", "")
        ): f"{(t.get('metadata') or {}).get('name', '')}-{pod_name}"
        for t in templates
        if isinstance(t, Mapping)
    }
    volumes = [
        v
        for v in pod_spec.get("volumes") or []
        if not (isinstance(v, Mapping) and v.get("name") in claims)
    ]
    volumes += [
        {"name": name, "persistentVolumeClaim": {"claimName": claim}}
        for name, claim in claims.items()
    ]
    return {**pod_spec, "volumes": volumes}


def statefulset_claims(controller: Unstructured) -> list[KubeObject]:
    """The claims a StatefulSet creates for its replicas (``<template>-<set>-<ordinal>``).

    Each is its template with the set's namespace, and the set's selector
    labels added, as ``getPersistentVolumeClaims`` makes them.
    """
    from framework.objects.storage import PersistentVolumeClaim

    spec = controller.to_dict().get("spec") or {}
    templates = _claim_templates(spec)
    if not templates:
        return []
    errors: list[FieldError] = []
    count = _replicas("StatefulSet", spec, errors)
    if errors:
        raise ControllerError(errors)
    name = controller.metadata.name
    namespace = controller.metadata.namespace or "default"
    selector_labels = dict(((spec.get("selector") or {}).get("matchLabels")) or {})
    claims: list[KubeObject] = []
    for index in range(count):
        for i, template in enumerate(templates):
            meta = dict(template.get("metadata") or {})
            document = {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {
                    **meta,
                    "name": f"{meta.get('name', '')}-{name}-{index}",
                    "namespace": namespace,
                    "labels": {**(meta.get("labels") or {}), **selector_labels},
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


def _unique_name(stem: str, rng: random.Random, taken: set[str]) -> str:
    while True:
        name = stem[: 63 - 5] + "".join(rng.choice(_ALPHANUMS) for _ in range(5))
        if name not in taken:
            taken.add(name)
            return name


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
    does), since its pods' controller is that ReplicaSet. A Job is not kept:
    no scheduler code reads one. Raises :class:`ControllerError` as
    :func:`expand_controller` does.
    """
    kind = controller.kind
    data = controller.to_dict()
    if kind in _KEPT:
        try:
            kept = [_KEPT[kind].from_dict(data)]
        except ObjectInvalid as invalid:
            raise ControllerError(invalid.errors) from None
        return kept + (statefulset_claims(controller) if kind == "StatefulSet" else [])
    if kind != "Deployment":
        return []
    spec = data.get("spec") or {}
    template = spec.get("template") if isinstance(spec, Mapping) else None
    if not isinstance(template, Mapping):
        raise ControllerError([FieldError("spec.template", "is required")])
    name = controller.metadata.name
    replica_set = f"{name}-{template_hash(template)}"
    pod_hash = replica_set.rsplit("-", 1)[1]
    template_meta = dict(template.get("metadata") or {})
    labels = {**(template_meta.get("labels") or {}), "pod-template-hash": pod_hash}
    selector = dict(spec.get("selector") or {})
    selector["matchLabels"] = {
        **(selector.get("matchLabels") or {}),
        "pod-template-hash": pod_hash,
    }
    document = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": replica_set,
            "namespace": controller.metadata.namespace or "default",
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": name,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "replicas": spec.get("replicas", 1),
            "selector": selector,
            "template": {**template, "metadata": {**template_meta, "labels": labels}},
        },
    }
    try:
        return [ReplicaSet.from_dict(document)]
    except ObjectInvalid as invalid:
        raise ControllerError(invalid.errors) from None
