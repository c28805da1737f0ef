"""The REST resources the HTTP face serves, and the discovery documents that announce them.

A Kubernetes client never hard-codes URLs: it asks the server what it serves
(``/api``, ``/apis``, ``/api/v1``, ``/apis/<group>/<version>``) and builds
paths from the answer. ``kubectl get po`` finds ``pods`` through the short
name listed here; the official Python client only needs the paths to exist.

:data:`RESOURCES` lists, per kind the fake API server stores, the group,
version, plural, short names and verbs; :func:`resource_for_path` finds one
from a URL's pieces. The discovery documents are ``metav1.APIVersions``,
``metav1.APIGroupList``, ``metav1.APIGroup`` and ``metav1.APIResourceList``.

Mirrors ``k8s.io/apiserver/pkg/endpoints/discovery`` (``legacy.go``,
``group.go``, ``version.go``) and the resource lists of ``kubectl
api-resources`` on a v1.33 cluster. Simplified: only the legacy (unaggregated)
discovery format; a client asking for aggregated discovery
(``apidiscovery.k8s.io/v2``) sees the ``application/json`` content type and
falls back to it, as client-go does with an older server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.objects import (
    Event,
    KubeObject,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
)
from framework.objects.openapi import kind_schema, openapi_schemas
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
    DaemonSet,
    Deployment,
    Job,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)

__all__ = [
    "RESOURCES",
    "VERSION_INFO",
    "APIResource",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "resource_for_path",
]

_READ = ("get", "list", "watch")
_ALL = ("create", "delete", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True, slots=True)
class APIResource:
    """One REST resource: ``pods`` in the core group, ``priorityclasses`` in scheduling.k8s.io."""

    kind: type[KubeObject]
    plural: str
    group: str
    version: str
    short_names: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    verbs: tuple[str, ...] = _ALL

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def namespaced(self) -> bool:
        return self.kind.NAMESPACED


RESOURCES: tuple[APIResource, ...] = (
    APIResource(Namespace, "namespaces", "", "v1", ("ns",), ("status",)),
    APIResource(Node, "nodes", "", "v1", ("no",), ("status",)),
    APIResource(Pod, "pods", "", "v1", ("po",), ("binding", "eviction", "status")),
    APIResource(Event, "events", "", "v1", ("ev",)),
    APIResource(PriorityClass, "priorityclasses", "scheduling.k8s.io", "v1", ("pc",)),
    APIResource(
        PodDisruptionBudget, "poddisruptionbudgets", "policy", "v1", ("pdb",), ("status",)
    ),
    APIResource(PodGroup, "podgroups", "scheduling.x-k8s.io", "v1alpha1", ("pg",), ("status",)),
    APIResource(Event, "events", "events.k8s.io", "v1", ("ev",)),
    APIResource(Service, "services", "", "v1", ("svc",)),
    APIResource(ReplicationController, "replicationcontrollers", "", "v1", ("rc",)),
    APIResource(ReplicaSet, "replicasets", "apps", "v1", ("rs",), ("scale", "status")),
    APIResource(StatefulSet, "statefulsets", "apps", "v1", ("sts",), ("scale", "status")),
    APIResource(PersistentVolume, "persistentvolumes", "", "v1", ("pv",), ("status",)),
    APIResource(PersistentVolumeClaim, "persistentvolumeclaims", "", "v1", ("pvc",), ("status",)),
    APIResource(StorageClass, "storageclasses", "storage.k8s.io", "v1", ("sc",)),
    APIResource(CSINode, "csinodes", "storage.k8s.io", "v1"),
    APIResource(CSIDriver, "csidrivers", "storage.k8s.io", "v1"),
    APIResource(CSIStorageCapacity, "csistoragecapacities", "storage.k8s.io", "v1"),
    APIResource(Deployment, "deployments", "apps", "v1", ("deploy",), ("scale", "status")),
    APIResource(DaemonSet, "daemonsets", "apps", "v1", ("ds",), ("status",)),
    APIResource(Job, "jobs", "batch", "v1", (), ("status",)),
    APIResource(DeviceClass, "deviceclasses", "resource.k8s.io", "v1"),
    APIResource(ResourceSlice, "resourceslices", "resource.k8s.io", "v1"),
    APIResource(ResourceClaim, "resourceclaims", "resource.k8s.io", "v1", (), ("status",)),
    APIResource(ResourceClaimTemplate, "resourceclaimtemplates", "resource.k8s.io", "v1"),
    # KEP-4671's gangs at the version v1.36 and v1.37 serve (v1.35 served Workload in v1alpha1).
    APIResource(Workload, "workloads", "scheduling.k8s.io", "v1alpha2"),
    APIResource(SchedulingPodGroup, "podgroups", "scheduling.k8s.io", "v1alpha2", (), ("status",)),
)
"""Every resource served, in discovery order."""

#: ``/version``: what a v1.33 server reports (``version.Info``), marked as this project.
VERSION_INFO: Mapping[str, str] = {
    "major": "1",
    "minor": "33",
    "gitVersion": "v1.33.0-kube-scheduling-framework",
    "gitCommit": "",
    "gitTreeState": "clean",
    "buildDate": "",
    "goVersion": "",
    "compiler": "python",
    "platform": "python",
}


#: Subresources that take a body of their own kind, and only ``create``.
_SUBRESOURCE_KINDS = {"binding": "Binding", "eviction": "Eviction"}


def resource_for_path(group: str, version: str, plural: str) -> APIResource | None:
    """The resource a URL names (``""``, ``"v1"``, ``"pods"``), or None if not served."""
    for resource in RESOURCES:
        if (resource.group, resource.version, resource.plural) == (group, version, plural):
            return resource
    return None


def api_versions() -> dict[str, Any]:
    """``GET /api``: the core group's versions (``metav1.APIVersions``)."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}],
    }


def _groups() -> dict[str, list[str]]:
    """Each named group's versions, the preferred (first served) first."""
    groups: dict[str, list[str]] = {}
    for r in RESOURCES:
        if r.group and r.version not in groups.setdefault(r.group, []):
            groups[r.group].append(r.version)
    return groups


def api_group(group: str) -> dict[str, Any] | None:
    """``GET /apis/<group>``: one named group (``metav1.APIGroup``), or None."""
    versions = _groups().get(group)
    if versions is None:
        return None
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "versions": entries,
        "preferredVersion": entries[0],
    }


def api_group_list() -> dict[str, Any]:
    """``GET /apis``: every named group (``metav1.APIGroupList``)."""
    groups = [api_group(group) for group in _groups()]
    for group in groups:
        assert group is not None
        del group["kind"], group["apiVersion"]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_resource_list(group: str, version: str) -> dict[str, Any] | None:
    """``GET /api/v1`` or ``/apis/<group>/<version>`` (``metav1.APIResourceList``), or None."""
    served = [r for r in RESOURCES if (r.group, r.version) == (group, version)]
    if not served:
        return None
    entries: list[dict[str, Any]] = []
    for r in served:
        entries.append(
            {
                "name": r.plural,
                "singularName": r.kind.KIND.lower(),
                "namespaced": r.namespaced,
                "kind": r.kind.KIND,
                "verbs": list(r.verbs),
                "shortNames": list(r.short_names),
            }
        )
        for sub in r.subresources:
            entry: dict[str, Any] = {
                "name": f"{r.plural}/{sub}",
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": _SUBRESOURCE_KINDS.get(sub, r.kind.KIND),
                "verbs": ["create"] if sub in _SUBRESOURCE_KINDS else ["get", "patch", "update"],
            }
            if sub == "eviction":
                # kubectl drain finds the Eviction API's group and version here.
                entry["group"], entry["version"] = "policy", "v1"
            if sub == "scale":
                # kubectl scale finds the Scale kind (autoscaling/v1) here.
                entry["kind"], entry["group"], entry["version"] = "Scale", "autoscaling", "v1"
            entries.append(entry)
    group_version = f"{group}/{version}" if group else version
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": entries,
    }


def _openapi_path(group_version: str) -> str:
    return f"api/{group_version}" if "/" not in group_version else f"apis/{group_version}"


def openapi_v3_root() -> dict[str, Any]:
    """``GET /openapi/v3``: where each group-version's OpenAPI v3 document lives."""
    versions = dict.fromkeys(r.group_version for r in RESOURCES)
    return {
        "paths": {
            _openapi_path(gv): {"serverRelativeURL": f"/openapi/v3/{_openapi_path(gv)}"}
            for gv in versions
        }
    }


def openapi_v3_group_version(path: str) -> dict[str, Any] | None:
    """``GET /openapi/v3/api/v1`` and the like: the group-version's document, or None if not served.

    For each kind, the PATCH operation with its
    ``x-kubernetes-group-version-kind`` and the ``fieldValidation`` query
    parameter (so ``kubectl apply`` leaves field validation to the server
    and sends ``fieldValidation=Strict``), and under ``components.schemas``
    the kind's schema and every type it reaches, with Kubernetes'
    descriptions: what ``kubectl explain pod.spec`` reads. The schemas are
    the ones strict decoding checks against (:mod:`framework.objects.openapi`).
    """
    served = [r for r in RESOURCES if _openapi_path(r.group_version) == path.strip("/")]
    if not served:
        return None
    paths: dict[str, Any] = {}
    roots = {}
    for r in served:
        scope = "namespaces/{namespace}/" if r.namespaced else ""
        gvk = {"group": r.group, "version": r.version, "kind": r.kind.KIND}
        paths[f"/{path.strip('/')}/{scope}{r.plural}/{{name}}"] = {
            "patch": {
                "x-kubernetes-group-version-kind": gvk,
                "x-kubernetes-action": "patch",
                "parameters": [{"name": "fieldValidation", "in": "query"}],
            }
        }
        schema = kind_schema(r.kind.KIND, r.group_version, r.kind)
        if schema is not None:
            roots[(r.group, r.version, r.kind.KIND)] = schema
    schemas = openapi_schemas({node.name: node for node in roots.values()})
    for (group, version, kind), node in roots.items():
        schemas[node.name]["x-kubernetes-group-version-kind"] = [
            {"group": group, "version": version, "kind": kind}
        ]
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.33.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }
