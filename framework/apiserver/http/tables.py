"""Lists as ``meta.k8s.io/v1`` Tables: the columns ``kubectl get`` prints.

``kubectl get`` does not know how to print a pod: it asks the server for a
Table (``Accept: application/json;as=Table;v=v1;g=meta.k8s.io``) and prints
the columns it gets back, the ``priority: 1`` ones only with ``-o wide``. So
that ``kubectl get pods -o wide`` shows each pod's node, this module renders
Pods, Nodes, Events, PriorityClasses and PodDisruptionBudgets with the columns kube-apiserver's printers give them,
and every other kind with the default Name and Age.

Mirrors ``pkg/printers/internalversion/printers.go`` (``printPod``,
``printNode``, ``printEvent``, ``printPriorityClass``,
``printPodDisruptionBudget``) and
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

__all__ = ["INCLUDE_OBJECT_POLICIES", "human_duration", "to_table"]

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
_DEFAULT_COLUMNS: tuple[Column, ...] = (("Name", "string", 0), ("Age", "string", 0))


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


def _default_row(obj: KubeObject, now: float) -> list[Any]:
    return [obj.metadata.name, _age(obj.metadata.creation_timestamp, now)]


_PRINTERS: dict[type[KubeObject], tuple[tuple[Column, ...], Callable[[Any, float], list[Any]]]] = {
    Pod: (_POD_COLUMNS, _pod_row),
    Node: (_NODE_COLUMNS, _node_row),
    Event: (_EVENT_COLUMNS, _event_row),
    PriorityClass: (_PRIORITY_CLASS_COLUMNS, _priority_class_row),
    PodDisruptionBudget: (_PDB_COLUMNS, _pdb_row),
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
