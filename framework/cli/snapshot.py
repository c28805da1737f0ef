"""``python -m framework snapshot``: a live cluster, written down as manifests the simulator takes.

::

    $ python -m framework snapshot --kubeconfig ~/.kube/config > cluster.yaml
    $ python -m framework explain default/web cluster.yaml

It reads, through the official client (a :class:`~framework.adapter.client.KubeClient`),
the cluster's Namespaces, PriorityClasses, Nodes, PodDisruptionBudgets,
Services, ReplicationControllers, ReplicaSets, StatefulSets, storage and
device objects, Workloads and PodGroups, and Pods, and
writes them as one multi-document YAML file that ``simulate``,
``explain`` and ``compare`` read as they are: the bound pods stay on their
nodes, the pending ones are scheduled again, offline, with every verdict
and score on record. A pending pod's ``explain`` then says why the cluster
left it pending, as far as this project models the scheduler.

**What is kept, and why.** An object the server returns carries fields only
a server may set; a manifest that keeps them would be refused when created
again, or would mean something else. Field by field:

* ``metadata``: ``name``, ``namespace``, ``labels``, ``annotations`` (less
  ``kubectl.kubernetes.io/last-applied-configuration``, a copy of the
  object that only ``kubectl apply`` reads) and ``ownerReferences`` (which
  controller a pod belongs to). Dropped: ``uid``, ``resourceVersion`` (the
  API server refuses an object to be created that has one),
  ``generation``, ``creationTimestamp``, ``managedFields``, ``selfLink``,
  ``generateName`` (the name is already chosen), ``finalizers`` (no
  controller here would remove them). Kept for a pod being deleted:
  ``deletionTimestamp`` and ``deletionGracePeriodSeconds`` (see terminating
  pods below).
* **Nodes**: the whole ``spec`` (taints, ``unschedulable``); of the status,
  ``capacity``, ``allocatable`` and ``images`` (ImageLocality scores them).
  Dropped: the kubelet's conditions, addresses, ``nodeInfo``,
  ``daemonEndpoints`` and volume lists, which no scheduler plugin reads
  (a node's conditions reach the scheduler as taints, which are kept).
* **Pods**: the whole ``spec`` with ``nodeName``, so a bound pod stays bound,
  except ``priority`` and ``preemptionPolicy``: the Priority admission
  plugin computes both again from ``priorityClassName`` and the
  PriorityClasses written alongside, and refuses a pod whose given value
  differs from its own. Of the status, what the scheduler reads:
  ``phase``, ``startTime`` (DefaultPreemption prefers the victims that
  started last), ``conditions`` and ``nominatedNodeName``; not IPs and
  container states. The simulator writes them back with a status update
  after the create, as the kubelet did (:mod:`framework.simulator.state`).
  Pods that have ``Succeeded`` or ``Failed`` are
  left out: they hold nothing on their node, and kube-scheduler's informer
  does not list them either. A pod being deleted (``deletionTimestamp``) is
  kept as the running pod it still is, marked: it holds its node's
  resources until the kubelet removes it, kube-scheduler counts it until
  then, and PodTopologySpread does not; the simulator deletes it again
  with the same grace period at the moment it was asked for. Mirror
  pods (a static pod's copy, annotated ``kubernetes.io/config.mirror``) are
  kept as the bound pods they are, annotations and all: they hold their
  node's resources like any other.
* **PriorityClasses**: ``value``, ``globalDefault``, ``preemptionPolicy``,
  ``description``; not ``system-node-critical`` and
  ``system-cluster-critical``, which every API server (the simulator's
  included) creates itself.
* **PodDisruptionBudgets**: the ``spec`` and the ``status``; the simulator
  writes back its ``disruptedPods`` (pods the Eviction API let go, which
  preemption must not count twice) and its API server recomputes the
  counts from them, as the disruption controller does.
* **Services**: the ``selector`` only, and **ReplicationControllers,
  ReplicaSets and StatefulSets**: the ``spec``. PodTopologySpread's default
  constraints take their selector from them (``helper.DefaultSelector``).
  The simulator creates no pods for a controller whose pods the file holds.
* **Storage**: StorageClasses, CSIDrivers, CSINodes and CSIStorageCapacities
  as they are; PersistentVolumes and claims with their ``spec`` (a
  volume's ``claimRef`` by namespace and name only: the claim gets a new uid)
  and their phase. The volume plugins read them, and a bound claim stays
  bound in the replay.
* **Devices** (resource.k8s.io/v1): DeviceClasses, ResourceSlices and
  ResourceClaimTemplates with their ``spec``; ResourceClaims with their
  ``spec`` and ``status.allocation`` (not ``reservedFor``: its pods get new
  uids), so the devices allocated in the cluster stay taken in the replay.
  A cluster without the resource.k8s.io/v1 API (before v1.34) has none.
* **Gangs** (scheduling.k8s.io/v1alpha2, v1.36 and v1.37): Workloads and
  PodGroups with their ``spec`` (a PodGroup's ``priority`` left out, as a
  pod's: the replay resolves it from ``priorityClassName``); not a
  PodGroup's ``PodGroupScheduled`` condition, which the replay's scheduler
  writes again. A cluster that does
  not serve v1alpha2 (v1.35's v1alpha1, or no ``GenericWorkload``) has none.
* **Namespaces**: name and labels (InterPodAffinity's ``namespaceSelector``
  reads them); not the status.

Pending pods come last, oldest first (by ``creationTimestamp``): the
simulator queues them in file order, and among pods of equal priority
kube-scheduler's queue takes the one that has waited longest. Pods whose
``schedulerName`` is not a profile of the configuration you simulate with
stay pending in the replay, as they would in the cluster; give ``simulate``
a ``--config`` naming your scheduler's profile to replay its pods.

No Kubernetes counterpart: it plays the part of kube-scheduler-simulator's
one-shot import of a real cluster's resources
(``kubernetes-sigs/kube-scheduler-simulator:simulator/docs/import-cluster-resources.md``),
as a file you can read, edit and keep.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["SNAPSHOT_KINDS", "add_command", "clean", "snapshot", "snapshot_text"]

SNAPSHOT_KINDS = (
    "Namespace",
    "PriorityClass",
    "Node",
    "PodDisruptionBudget",
    "Service",
    "ReplicationController",
    "ReplicaSet",
    "StatefulSet",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "CSIStorageCapacity",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "DeviceClass",
    "ResourceSlice",
    "ResourceClaimTemplate",
    "ResourceClaim",
    "Workload",
    "PodGroup",
    "Pod",
)
"""The kinds written, in this order, so that what others refer to comes first."""

_METADATA_KEPT = (
    "name",
    "namespace",
    "labels",
    "annotations",
    "ownerReferences",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)
_POD_STATUS_KEPT = ("phase", "conditions", "nominatedNodeName", "startTime")
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_NODE_STATUS_KEPT = ("capacity", "allocatable", "images")
_POD_SPEC_DROPPED = ("priority", "preemptionPolicy")
_PRIORITY_CLASS_KEPT = ("value", "globalDefault", "preemptionPolicy", "description")
_SYSTEM_PRIORITY_CLASSES = ("system-node-critical", "system-cluster-critical")
_TERMINATED_PHASES = ("Succeeded", "Failed")
_STORAGE_TOP_LEVEL = {
    "StorageClass": (
        "provisioner",
        "parameters",
        "reclaimPolicy",
        "volumeBindingMode",
        "allowedTopologies",
        "allowVolumeExpansion",
        "mountOptions",
    ),
    "CSIStorageCapacity": ("storageClassName", "capacity", "maximumVolumeSize", "nodeTopology"),
}


def _metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    kept = {
        key: metadata[key] for key in _METADATA_KEPT if metadata.get(key) not in (None, "", {}, [])
    }
    annotations = {k: v for k, v in (kept.get("annotations") or {}).items() if k != _LAST_APPLIED}
    if annotations:
        kept["annotations"] = annotations
    else:
        kept.pop("annotations", None)
    return kept


def clean(document: Mapping[str, Any]) -> dict[str, Any] | None:
    """``document`` (an object as the server returned it) as a manifest to create; None to leave it out.

    The module docstring says what is kept, kind by kind, and why.
    """
    kind = document.get("kind", "")
    metadata = _metadata(document.get("metadata") or {})
    out: dict[str, Any] = {"apiVersion": document.get("apiVersion", ""), "kind": kind}
    out["metadata"] = metadata
    spec = dict(document.get("spec") or {})
    status = document.get("status") or {}
    if kind == "Namespace":
        return out
    if kind == "PriorityClass":
        if metadata.get("name") in _SYSTEM_PRIORITY_CLASSES:
            return None
        out.update({key: document[key] for key in _PRIORITY_CLASS_KEPT if key in document})
        return out
    if kind == "Node":
        kept_status = {key: status[key] for key in _NODE_STATUS_KEPT if status.get(key)}
        return {**out, **({"spec": spec} if spec else {}), "status": kept_status}
    if kind == "PodDisruptionBudget":
        return {**out, "spec": spec, **({"status": dict(status)} if status else {})}
    if kind == "Service":
        # Only the selector matters (PodTopologySpread's default selector); a clusterIP
        # would be refused or clash when created again.
        selector = spec.get("selector")
        return {**out, "spec": {"selector": selector} if selector else {}}
    if kind in ("ReplicationController", "ReplicaSet", "StatefulSet"):
        return {**out, "spec": spec}
    if kind in _STORAGE_TOP_LEVEL:
        # StorageClass and CSIStorageCapacity keep their fields at the top, not in a spec.
        kept = {key: document[key] for key in _STORAGE_TOP_LEVEL[kind] if key in document}
        return {**out, **kept}
    if kind in ("CSINode", "CSIDriver"):
        return {**out, "spec": spec}
    if kind in ("PersistentVolume", "PersistentVolumeClaim"):
        ref = spec.get("claimRef")
        if isinstance(ref, dict):  # the claim gets a new uid when created again
            spec["claimRef"] = {k: v for k, v in ref.items() if k in ("namespace", "name")}
        phase = status.get("phase")
        return {**out, "spec": spec, **({"status": {"phase": phase}} if phase else {})}
    if kind in ("DeviceClass", "ResourceSlice", "ResourceClaimTemplate"):
        return {**out, "spec": spec}
    if kind == "ResourceClaim":
        allocation = status.get("allocation")
        return {
            **out,
            "spec": spec,
            **({"status": {"allocation": allocation}} if allocation else {}),
        }
    if kind in ("Workload", "PodGroup"):
        # The scheduler's PodGroupScheduled condition is not kept: the replay writes its own.
        # A PodGroup's priority, as a pod's, is the replay's admission to resolve from its class.
        spec.pop("priority", None)
        return {**out, "spec": spec}
    if kind == "Pod":
        phase = status.get("phase", "")
        if phase in _TERMINATED_PHASES:
            return None
        for key in _POD_SPEC_DROPPED:
            spec.pop(key, None)
        kept_status = {key: status[key] for key in _POD_STATUS_KEPT if status.get(key)}
        return {**out, "spec": spec, **({"status": kept_status} if kept_status else {})}
    raise ValueError(f"kind {kind!r} is not one a snapshot writes ({', '.join(SNAPSHOT_KINDS)})")


def snapshot(client: Any, namespace: str | None = None) -> list[dict[str, Any]]:
    """The cluster ``client`` (a :class:`~framework.adapter.client.KubeClient`) reads, as manifests.

    With ``namespace``, only that namespace's objects (and the Namespace
    itself); cluster-scoped ones (Nodes, PriorityClasses, PersistentVolumes,
    StorageClasses, the CSI and device objects) are always written. Raises the client's
    :class:`~framework.apiserver.errors.APIError` when a list fails.
    """
    from framework.apiserver.errors import NotFound
    from framework.objects import Namespace, Node, Pod, PodDisruptionBudget, PriorityClass
    from framework.objects.resource import (
        DeviceClass,
        ResourceClaim,
        ResourceClaimTemplate,
        ResourceSlice,
    )
    from framework.objects.storage import (
        CSIDriver,
        CSINode,
        CSIStorageCapacity,
        PersistentVolume,
        PersistentVolumeClaim,
        StorageClass,
    )
    from framework.objects.workload import SchedulingPodGroup, Workload
    from framework.objects.workloads import (
        ReplicaSet,
        ReplicationController,
        Service,
        StatefulSet,
    )

    def listed(kind: Any, namespaced: bool) -> list[dict[str, Any]]:
        items = client.list(kind, namespace if namespaced else None).items
        return [item.to_dict() for item in items]

    def listed_if_served(kind: Any, namespaced: bool) -> list[dict[str, Any]]:
        try:
            return listed(kind, namespaced)
        except NotFound:  # an API group the cluster does not serve (resource.k8s.io/v1 < 1.34)
            return []

    namespaces = [
        ns
        for ns in listed(Namespace, False)
        if namespace is None or ns["metadata"]["name"] == namespace
    ]
    pods = listed(Pod, True)
    bound = [p for p in pods if (p.get("spec") or {}).get("nodeName")]
    pending = sorted(
        (p for p in pods if not (p.get("spec") or {}).get("nodeName")),
        key=lambda p: (
            p["metadata"].get("creationTimestamp", ""),
            p["metadata"].get("namespace", ""),
            p["metadata"]["name"],
        ),
    )
    documents = [
        *namespaces,
        *listed(PriorityClass, False),
        *listed(Node, False),
        *listed(PodDisruptionBudget, True),
        *listed(Service, True),
        *listed(ReplicationController, True),
        *listed(ReplicaSet, True),
        *listed(StatefulSet, True),
        *listed(StorageClass, False),
        *listed(CSIDriver, False),
        *listed(CSINode, False),
        *listed(CSIStorageCapacity, True),
        *listed(PersistentVolume, False),
        *listed(PersistentVolumeClaim, True),
        *listed_if_served(DeviceClass, False),
        *listed_if_served(ResourceSlice, False),
        *listed_if_served(ResourceClaimTemplate, True),
        *listed_if_served(ResourceClaim, True),
        *listed_if_served(Workload, True),
        *listed_if_served(SchedulingPodGroup, True),
        *bound,
        *pending,
    ]
    cleaned = (clean(document) for document in documents)
    return [document for document in cleaned if document is not None]


def snapshot_text(documents: Sequence[Mapping[str, Any]], source: str = "") -> str:
    """The manifests as one multi-document YAML text, with a comment saying what it holds."""
    import yaml

    counts: dict[str, int] = {}
    for document in documents:
        counts[document["kind"]] = counts.get(document["kind"], 0) + 1
    pending = sum(
        1 for d in documents if d["kind"] == "Pod" and not (d.get("spec") or {}).get("nodeName")
    )
    summary = ", ".join(f"{counts.get(kind, 0)} {kind}" for kind in SNAPSHOT_KINDS)
    header = (
        f"# python -m framework snapshot{' of ' + source if source else ''}\n"
        f"# {summary} ({pending} pending)\n"
    )
    body = yaml.safe_dump_all(
        [dict(d) for d in documents], sort_keys=False, default_flow_style=False
    )
    return header + (body if documents else "")


def _api_client(kubeconfig: str | None, context: str | None) -> Any:
    from kubernetes import config as k8s_config

    from framework.cli.run import api_client_for

    if context is None:
        return api_client_for(kubeconfig)
    return k8s_config.new_client_from_config(config_file=kubeconfig, context=context)  # type: ignore[no-untyped-call]


def _run(args: argparse.Namespace) -> int:
    from kubernetes.config import ConfigException

    from framework.adapter import KubeClient
    from framework.apiserver import APIError
    from framework.objects.schema import FieldError, ObjectInvalid

    try:
        client = KubeClient(_api_client(args.kubeconfig, args.context))
    except (ConfigException, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    host = client.api_client.configuration.host
    try:
        documents = snapshot(client, args.namespace)
    except APIError as error:
        print(f"error: cannot read the cluster at {host}: {error}", file=sys.stderr)
        return 1
    except (ObjectInvalid, FieldError) as error:
        print(f"error: the cluster at {host} returned an object this project cannot read: {error}",
              file=sys.stderr)  # fmt: skip
        return 1
    text = snapshot_text(documents, host)
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as error:
            print(f"error: cannot write {args.output}: {error}", file=sys.stderr)
            return 2
    return 0


def add_command(commands: Any) -> None:
    """Add ``snapshot`` to the ``python -m framework`` subparsers."""
    parser = commands.add_parser(
        "snapshot",
        help="write a live cluster's objects and the state the scheduler reads "
        "as manifests for simulate/explain/compare",
        description="Read a cluster through the official client and write what its "
        "scheduler reads (Namespaces, PriorityClasses, Nodes, PodDisruptionBudgets, Services "
        "and controllers, storage and device objects, Workloads and PodGroups, and Pods, with "
        "their start times, phases, conditions, nominations and deletions) as plain "
        "multi-document YAML that simulate, explain and compare take as they are.",
    )
    parser.add_argument(
        "--kubeconfig",
        metavar="PATH",
        help="the cluster to read (default: in-cluster, else $KUBECONFIG or ~/.kube/config)",
    )
    parser.add_argument(
        "--context", help="the kubeconfig context to use (default: its current one)"
    )
    parser.add_argument(
        "--namespace",
        "-n",
        metavar="NS",
        help="only this namespace's objects (cluster-scoped ones, such as Nodes, "
        "PriorityClasses and PersistentVolumes, are always written)",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE instead of standard output"
    )
    parser.set_defaults(run=_run)
