"""The ``scale`` subresource: a workload's replica count as an ``autoscaling/v1`` Scale.

``kubectl scale deployment web --replicas=5`` does not send a Deployment: it
patches ``deployments/web/scale`` with ``{"spec": {"replicas": 5}}``, the
same way for every kind that can be scaled, and the horizontal pod
autoscaler reads ``status.replicas`` and ``status.selector`` there. The
Scale is computed from the object on every read, and a write changes
only the object's ``spec.replicas``.

Mirrors ``pkg/registry/apps/deployment/storage/storage.go`` (``ScaleREST``:
``Get``, ``Update``, ``scaleFromDeployment``; the ReplicaSet and StatefulSet
storage have the same) and ``k8s.io/api/autoscaling/v1`` (``Scale``), v1.33.
Simplified: ``status.selector`` is written as ``kubectl get -o wide`` shows
a selector (:func:`~framework.apiserver.http.tables.format_label_selector`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from framework.apiserver.errors import (
    MSG_OBJECT_MODIFIED,
    BadRequest,
    Conflict,
    FieldCause,
    Invalid,
    resource_for,
)
from framework.apiserver.http.tables import format_label_selector
from framework.apiserver.store import APIServer
from framework.objects import KubeObject

__all__ = ["get_scale", "scale_of", "update_scale"]


def scale_of(obj: KubeObject) -> dict[str, Any]:
    """``obj`` as an ``autoscaling/v1`` Scale: its metadata, spec and status replicas, selector."""
    meta = obj.metadata
    spec: Any = getattr(obj, "spec", None)
    status = getattr(obj, "status", None) or {}
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": meta.name,
            "namespace": meta.namespace,
            "uid": meta.uid,
            "resourceVersion": meta.resource_version,
            "creationTimestamp": meta.creation_timestamp,
        },
        "spec": {"replicas": getattr(spec, "replicas", None) or 0},
        "status": {
            "replicas": int(status.get("replicas", 0)),
            "selector": format_label_selector(getattr(spec, "selector", None)),
        },
    }


def get_scale(
    api: APIServer, kind: type[KubeObject], name: str, namespace: str | None
) -> dict[str, Any]:
    """``GET .../<name>/scale``."""
    return scale_of(api.get(kind, name, namespace))


def update_scale(
    api: APIServer, kind: type[KubeObject], name: str, namespace: str | None, body: Any
) -> dict[str, Any]:
    """``PUT .../<name>/scale``: the object's ``spec.replicas`` set from the Scale ``body``.

    A ``metadata.resourceVersion`` in the body is a precondition (``409``
    if the object changed since); a missing or negative count is ``422``.
    """
    if not isinstance(body, Mapping):
        raise BadRequest("the body of a scale request must be an autoscaling/v1 Scale object")
    replicas = (body.get("spec") or {}).get("replicas")
    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
        cause = FieldCause.invalid("spec.replicas", replicas, "must be greater than or equal to 0")
        raise Invalid("Scale", name, [cause], group="autoscaling")
    current = api.get(kind, name, namespace)
    sent = str((body.get("metadata") or {}).get("resourceVersion") or "")
    if sent and sent != current.metadata.resource_version:
        raise Conflict(resource_for(kind), name, MSG_OBJECT_MODIFIED)
    spec: Any = current.spec  # type: ignore[attr-defined]
    updated = dataclasses.replace(current, spec=dataclasses.replace(spec, replicas=replicas))  # type: ignore[type-var]
    return scale_of(api.update(updated))
