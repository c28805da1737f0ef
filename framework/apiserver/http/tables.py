"""Lists as ``meta.k8s.io/v1`` Tables: the columns ``kubectl get`` prints.

``kubectl get`` does not know how to print a pod: it asks the server for a
Table (``Accept: application/json;as=Table;v=v1;g=meta.k8s.io``) and prints
the columns it gets back, the ``priority: 1`` ones only with ``-o wide``. So
that ``kubectl get pods -o wide`` shows each pod's node, this module renders
Pods, Nodes, Events, PriorityClasses, PodDisruptionBudgets, Deployments,
ReplicaSets, StatefulSets, DaemonSets, Jobs, PersistentVolumes, claims and
StorageClasses with the columns
kube-apiserver's printers give them,
and every other kind with the default Name and Age.

Mirrors ``pkg/printers/internalversion/printers.go`` (``printPod``,
``printNode``, ``printEvent``, ``printPriorityClass``,
``printPodDisruptionBudget``, ``printDeployment``, ``printReplicaSet``,
``printStatefulSet``, ``printDaemonSet``, ``printJob``,
``printPersistentVolume``, ``printPersistentVolumeClaim``, ``printStorageClass``) and
``k8s.io/apiserver/pkg/registry/rest/table.go`` (the default convertor).
Simplified: a pod's Ready and Restarts count its container statuses only
(no init containers, no last restart's age); a node's version, IPs and OS are
read from its status if a manifest gave them; ages are rounded as
``duration.HumanDuration`` rounds them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from framework.clock import parse_rfc3339
from framework.objects import Event, KubeObject, Node, Pod, PodDisruptionBudget, PriorityClass
from framework.objects.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    claim_class,
    volume_class,
)
from framework.objects.workloads import DaemonSet, Deployment, Job, ReplicaSet, StatefulSet

__all__ = ["INCLUDE_OBJECT_POLICIES", "format_label_selector", "human_duration", "to_table"]

INCLUDE_OBJECT_POLICIES = ("None", "Metadata", "Object")

Column = tuple[str, str, int]  # name, type, priority (1 = only with -o wide)

_POD_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Ready", "string", 0),
    ("Status", "string", 0),
    ("Restarts", "string", 0),
    ("Age", "string", 0),
    ("IP", "string", 1),
    ("Node", "string", 1),
    ("Nominated Node", "string", 1),
    ("Readiness Gates", "string", 1),
)
_NODE_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Status", "string", 0),
    ("Roles", "string", 0),
    ("Age", "string", 0),
    ("Version", "string", 0),
    ("Internal-IP", "string", 1),
    ("External-IP", "string", 1),
    ("OS-Image", "string", 1),
    ("Kernel-Version", "string", 1),
    ("Container-Runtime", "string", 1),
)
_EVENT_COLUMNS: tuple[Column, ...] = (
    ("Last Seen", "string", 0),
    ("Type", "string", 0),
    ("Reason", "string", 0),
    ("Object", "string", 0),
    ("Subobject", "string", 1),
    ("Source", "string", 1),
    ("Message", "string", 0),
    ("First Seen", "string", 1),
    ("Count", "integer", 1),
    ("Name", "string", 1),
)
_PRIORITY_CLASS_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Value", "integer", 0),
    ("Global-Default", "boolean", 0),
    ("Age", "string", 0),
    ("PreemptionPolicy", "string", 0),
)
_PDB_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Min Available", "string", 0),
    ("Max Unavailable", "string", 0),
    ("Allowed Disruptions", "integer", 0),
    ("Age", "string", 0),
)
_PV_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Capacity", "string", 0),
    ("Access Modes", "string", 0),
    ("Reclaim Policy", "string", 0),
    ("Status", "string", 0),
    ("Claim", "string", 0),
    ("StorageClass", "string", 0),
    ("VolumeAttributesClass", "string", 0),
    ("Reason", "string", 0),
    ("Age", "string", 0),
    ("VolumeMode", "string", 1),
)
_PVC_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Status", "string", 0),
    ("Volume", "string", 0),
    ("Capacity", "string", 0),
    ("Access Modes", "string", 0),
    ("StorageClass", "string", 0),
    ("VolumeAttributesClass", "string", 0),
    ("Age", "string", 0),
    ("VolumeMode", "string", 1),
)
_STORAGE_CLASS_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Provisioner", "string", 0),
    ("ReclaimPolicy", "string", 0),
    ("VolumeBindingMode", "string", 0),
    ("AllowVolumeExpansion", "boolean", 0),
    ("Age", "string", 0),
)
_DEFAULT_COLUMNS: tuple[Column, ...] = (("Name", "string", 0), ("Age", "string", 0))
_WIDE: tuple[Column, ...] = (
    ("Containers", "string", 1),
    ("Images", "string", 1),
    ("Selector", "string", 1),
)
_DEPLOYMENT_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Ready", "string", 0),
    ("Up-to-date", "integer", 0),
    ("Available", "integer", 0),
    ("Age", "string", 0),
    *_WIDE,
)
_REPLICA_SET_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Desired", "integer", 0),
    ("Current", "integer", 0),
    ("Ready", "integer", 0),
    ("Age", "string", 0),
    *_WIDE,
)
_STATEFUL_SET_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Ready", "string", 0),
    ("Age", "string", 0),
    *_WIDE[:2],
)
_DAEMON_SET_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Desired", "integer", 0),
    ("Current", "integer", 0),
    ("Ready", "integer", 0),
    ("Up-to-date", "integer", 0),
    ("Available", "integer", 0),
    ("Node Selector", "string", 0),
    ("Age", "string", 0),
    *_WIDE,
)
_JOB_COLUMNS: tuple[Column, ...] = (
    ("Name", "string", 0),
    ("Status", "string", 0),
    ("Completions", "string", 0),
    ("Duration", "string", 0),
    ("Age", "string", 0),
    *_WIDE,
)


def human_duration(seconds: float) -> str:
    """``2m30s``, ``5h``, ``3d``: an age as ``k8s.io/apimachinery/pkg/util/duration`` prints it."""
    s = max(int(seconds), 0)
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        return f"{minutes}m{s % 60}s" if s % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    return f"{hours // 24}d"


def _age(timestamp: str | None, now: float) -> str:
    if not timestamp:
        return "<unknown>"
    return human_duration(now - parse_rfc3339(timestamp))


def _pod_row(pod: Pod, now: float) -> list[Any]:
    status = pod.status.phase or "Pending"
    if pod.status.extra.get("reason"):
        status = str(pod.status.extra["reason"])
    terminated = [
        ((s.get("state") or {}).get("terminated") or {}).get("reason")
        for s in pod.status.extra.get("containerStatuses") or ()
        if isinstance(s, dict)
    ]
    if any(terminated):  # printPod: a terminated container's reason, Completed say
        status = str(next(r for r in terminated if r))
    if pod.metadata.deletion_timestamp:
        status = "Terminating"
    elif pod.spec.scheduling_gates:
        status = "SchedulingGated"
    gates = len(pod.spec.extra.get("readinessGates") or ())
    statuses = [s for s in pod.status.extra.get("containerStatuses") or () if isinstance(s, dict)]
    ready = sum(1 for s in statuses if s.get("ready") is True)
    restarts = sum(
        s.get("restartCount") or 0 for s in statuses if isinstance(s.get("restartCount"), int)
    )
    return [
        pod.metadata.name,
        f"{ready}/{len(pod.spec.containers)}",
        status,
        str(restarts),
        _age(pod.metadata.creation_timestamp, now),
        pod.status.extra.get("podIP") or "<none>",
        pod.spec.node_name or "<none>",
        pod.status.nominated_node_name or "<none>",
        f"0/{gates}" if gates else "<none>",
    ]


def _node_row(node: Node, now: float) -> list[Any]:
    ready = next((c.status for c in node.status.conditions if c.type == "Ready"), "")
    status = {"True": "Ready", "False": "NotReady"}.get(ready, "Unknown")
    if node.spec.unschedulable:
        status += ",SchedulingDisabled"
    prefix = "node-role.kubernetes.io/"
    roles = sorted(k[len(prefix) :] for k in node.metadata.labels if k.startswith(prefix))
    info = node.status.extra.get("nodeInfo") or {}
    addresses = node.status.extra.get("addresses") or []

    def address(kind: str) -> str:
        return next((a.get("address", "") for a in addresses if a.get("type") == kind), "<none>")

    return [
        node.metadata.name,
        status,
        ",".join(roles) or "<none>",
        _age(node.metadata.creation_timestamp, now),
        info.get("kubeletVersion", ""),
        address("InternalIP"),
        address("ExternalIP"),
        info.get("osImage", "<unknown>"),
        info.get("kernelVersion", "<unknown>"),
        info.get("containerRuntimeVersion", "<unknown>"),
    ]


def _event_row(event: Event, now: float) -> list[Any]:
    ref = event.involved_object
    first = event.first_timestamp or event.event_time or event.metadata.creation_timestamp
    last = event.last_timestamp or first
    source = event.source.component or event.reporting_component
    return [
        _age(last, now),
        event.type,
        event.reason,
        f"{ref.kind.lower()}/{ref.name}",
        ref.field_path,
        f"{source}, {event.source.host}" if event.source.host else source,
        event.message.strip(),
        _age(first, now),
        event.count or 1,
        event.metadata.name,
    ]


def _priority_class_row(pc: PriorityClass, now: float) -> list[Any]:
    return [
        pc.metadata.name,
        pc.value,
        pc.global_default,
        _age(pc.metadata.creation_timestamp, now),
        pc.preemption_policy or "PreemptLowerPriority",
    ]


def _pdb_row(pdb: PodDisruptionBudget, now: float) -> list[Any]:
    def shown(value: int | str | None) -> str:
        return "N/A" if value is None else str(value)

    return [
        pdb.metadata.name,
        shown(pdb.spec.min_available),
        shown(pdb.spec.max_unavailable),
        pdb.status.disruptions_allowed,
        _age(pdb.metadata.creation_timestamp, now),
    ]


def _template_cells(obj: Any, selector: bool = True) -> list[Any]:
    """``layoutContainerCells`` and ``FormatLabelSelector``: the -o wide cells of a workload."""
    template = obj.spec.template if isinstance(obj.spec.template, dict) else {}
    containers = [
        c for c in (template.get("spec") or {}).get("containers") or () if isinstance(c, dict)
    ]
    cells: list[Any] = [
        ",".join(str(c.get("name", "")) for c in containers),
        ",".join(str(c.get("image", "")) for c in containers),
    ]
    if selector:
        cells.append(format_label_selector(obj.spec.selector) or "<none>")
    return cells


def format_label_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector`` of a typed or plain selector, ``""`` if there is none.

    >>> format_label_selector({"matchLabels": {"app": "web"},
    ...     "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]})
    'app=web,tier in (a,b)'
    """
    if selector is None:
        return ""
    data = selector.to_dict() if hasattr(selector, "to_dict") else selector
    parts = [f"{k}={v}" for k, v in sorted((data.get("matchLabels") or {}).items())]
    for expr in data.get("matchExpressions") or ():
        values = ",".join(expr.get("values") or ())
        op, key = expr.get("operator"), expr.get("key", "")
        shown = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})"}
        parts.append(shown.get(op, f"!{key}" if op == "DoesNotExist" else key))
    return ",".join(parts)


def _status(obj: Any) -> dict[str, Any]:
    return obj.status if isinstance(obj.status, dict) else {}


def _deployment_row(deployment: Deployment, now: float) -> list[Any]:
    status, desired = _status(deployment), deployment.spec.replicas or 0
    return [
        deployment.metadata.name,
        f"{status.get('readyReplicas', 0)}/{desired}",
        status.get("updatedReplicas", 0),
        status.get("availableReplicas", 0),
        _age(deployment.metadata.creation_timestamp, now),
        *_template_cells(deployment),
    ]


def _replica_set_row(rs: ReplicaSet, now: float) -> list[Any]:
    status = _status(rs)
    return [
        rs.metadata.name,
        rs.spec.replicas or 0,
        status.get("replicas", 0),
        status.get("readyReplicas", 0),
        _age(rs.metadata.creation_timestamp, now),
        *_template_cells(rs),
    ]


def _stateful_set_row(sts: StatefulSet, now: float) -> list[Any]:
    return [
        sts.metadata.name,
        f"{_status(sts).get('readyReplicas', 0)}/{sts.spec.replicas or 0}",
        _age(sts.metadata.creation_timestamp, now),
        *_template_cells(sts, selector=False),
    ]


def _daemon_set_row(ds: DaemonSet, now: float) -> list[Any]:
    status = _status(ds)
    template = ds.spec.template if isinstance(ds.spec.template, dict) else {}
    selector = (template.get("spec") or {}).get("nodeSelector") or {}
    return [
        ds.metadata.name,
        status.get("desiredNumberScheduled", 0),
        status.get("currentNumberScheduled", 0),
        status.get("numberReady", 0),
        status.get("updatedNumberScheduled", 0),
        status.get("numberAvailable", 0),
        ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>",
        _age(ds.metadata.creation_timestamp, now),
        *_template_cells(ds),
    ]


def _job_row(job: Job, now: float) -> list[Any]:
    status = _status(job)
    succeeded = status.get("succeeded", 0)
    if job.spec.completions is not None:
        completions = f"{succeeded}/{job.spec.completions}"
    elif (job.spec.parallelism or 0) > 1:
        completions = f"{succeeded}/1 of {job.spec.parallelism}"
    else:
        completions = f"{succeeded}/1"
    start, end = status.get("startTime"), status.get("completionTime")
    duration = ""
    if start:
        duration = human_duration((parse_rfc3339(end) if end else now) - parse_rfc3339(start))
    true = {c.get("type") for c in status.get("conditions") or () if c.get("status") == "True"}
    if "Complete" in true:
        state = "Complete"
    elif "Failed" in true:
        state = "Failed"
    elif job.metadata.deletion_timestamp:
        state = "Terminating"
    elif "Suspended" in true:
        state = "Suspended"
    elif "FailureTarget" in true:
        state = "FailureTarget"
    else:
        state = "Running"
    return [
        job.metadata.name,
        state,
        completions,
        duration,
        _age(job.metadata.creation_timestamp, now),
        *_template_cells(job),
    ]


_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)
_DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)


def _access_modes(modes: Sequence[str]) -> str:
    """``GetAccessModesAsString``: each mode once, short, in this fixed order."""
    return ",".join(short for mode, short in _ACCESS_MODES if mode in modes)


def _storage(resources: Any) -> str:
    quantity = resources.get("storage")
    return "" if quantity is None else quantity.canonical


def _attributes_class(spec: Any) -> str:
    return str(spec.extra.get("volumeAttributesClassName") or "<unset>")


def _pv_row(pv: PersistentVolume, now: float) -> list[Any]:
    ref = pv.spec.claim_ref
    return [
        pv.metadata.name,
        _storage(pv.spec.capacity),
        _access_modes(pv.spec.access_modes),
        pv.spec.persistent_volume_reclaim_policy or "",
        "Terminating" if pv.metadata.deletion_timestamp else pv.status.phase,
        f"{ref.namespace}/{ref.name}" if ref is not None else "",
        volume_class(pv),
        _attributes_class(pv.spec),
        pv.status.reason,
        _age(pv.metadata.creation_timestamp, now),
        pv.spec.volume_mode or "<unset>",
    ]


def _pvc_row(pvc: PersistentVolumeClaim, now: float) -> list[Any]:
    bound = bool(pvc.spec.volume_name)
    return [
        pvc.metadata.name,
        "Terminating" if pvc.metadata.deletion_timestamp else pvc.status.phase,
        pvc.spec.volume_name,
        _storage(pvc.status.capacity) if bound else "",
        _access_modes(pvc.status.access_modes) if bound else "",
        claim_class(pvc),
        _attributes_class(pvc.spec),
        _age(pvc.metadata.creation_timestamp, now),
        pvc.spec.volume_mode or "<unset>",
    ]


def _storage_class_row(sc: StorageClass, now: float) -> list[Any]:
    annotations = sc.metadata.annotations
    default = any(annotations.get(a) == "true" for a in _DEFAULT_CLASS_ANNOTATIONS)
    return [
        sc.metadata.name + (" (default)" if default else ""),
        sc.provisioner,
        sc.reclaim_policy or "Delete",
        sc.volume_binding_mode or "Immediate",
        bool(sc.allow_volume_expansion),
        _age(sc.metadata.creation_timestamp, now),
    ]


def _default_row(obj: KubeObject, now: float) -> list[Any]:
    return [obj.metadata.name, _age(obj.metadata.creation_timestamp, now)]


_PRINTERS: dict[type[KubeObject], tuple[tuple[Column, ...], Callable[[Any, float], list[Any]]]] = {
    Pod: (_POD_COLUMNS, _pod_row),
    Node: (_NODE_COLUMNS, _node_row),
    Event: (_EVENT_COLUMNS, _event_row),
    PriorityClass: (_PRIORITY_CLASS_COLUMNS, _priority_class_row),
    PodDisruptionBudget: (_PDB_COLUMNS, _pdb_row),
    Deployment: (_DEPLOYMENT_COLUMNS, _deployment_row),
    ReplicaSet: (_REPLICA_SET_COLUMNS, _replica_set_row),
    StatefulSet: (_STATEFUL_SET_COLUMNS, _stateful_set_row),
    DaemonSet: (_DAEMON_SET_COLUMNS, _daemon_set_row),
    Job: (_JOB_COLUMNS, _job_row),
    PersistentVolume: (_PV_COLUMNS, _pv_row),
    PersistentVolumeClaim: (_PVC_COLUMNS, _pvc_row),
    StorageClass: (_STORAGE_CLASS_COLUMNS, _storage_class_row),
}


def _row_object(obj: KubeObject, include: str) -> dict[str, Any] | None:
    if include == "None":
        return None
    if include == "Object":
        data = obj.to_dict()
        data["apiVersion"], data["kind"] = obj.API_VERSION, obj.KIND
        return data
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": obj.metadata.to_dict(),
    }


def to_table(
    kind: type[KubeObject],
    objects: Sequence[KubeObject],
    resource_version: str,
    now: float,
    include_object: str = "Metadata",
) -> dict[str, Any]:
    """The objects of ``kind`` as a ``metav1.Table``, each row with its object as ``include_object`` says.

    ``includeObject`` (``metav1.IncludeObjectPolicy``): ``Metadata`` (the
    default) puts a ``PartialObjectMetadata`` in each row, ``Object`` the
    whole object (``kubectl get --sort-by`` asks for it, to sort on any
    field), ``None`` nothing.
    """
    columns, row = _PRINTERS.get(kind, (_DEFAULT_COLUMNS, _default_row))
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version},
        "columnDefinitions": [
            {
                "name": name,
                "type": type_,
                "format": "name" if name == "Name" else "",
                "description": "",
                "priority": priority,
            }
            for name, type_, priority in columns
        ],
        "rows": [
            {"cells": row(obj, now), "object": _row_object(obj, include_object)} for obj in objects
        ],
    }
