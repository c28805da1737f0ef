"""From a URL path to what it names: a discovery document, or a resource, namespace, name, subresource.

Kubernetes' REST paths have a fixed grammar::

    /api/v1/<plural>[/<name>[/<subresource>]]                       core, cluster-scoped or all namespaces
    /api/v1/namespaces/<ns>/<plural>[/<name>[/<subresource>]]       core, in one namespace
    /apis/<group>/<version>/...                                     the same, for a named group

:func:`parse_path` splits a path into a :class:`Route`; a path that fits none
of these, or names a resource not served, is :class:`~framework.apiserver.http.statuses.PathNotFound`.

Mirrors ``k8s.io/apiserver/pkg/endpoints/request/requestinfo.go``
(``RequestInfoFactory.NewRequestInfo``). Simplified: no ``/proxy`` or
``/watch/`` legacy prefixes.
"""

from __future__ import annotations

from dataclasses import dataclass

from framework.apiserver.http.resources import APIResource, resource_for_path
from framework.apiserver.http.statuses import PathNotFound

__all__ = ["Route", "parse_path"]


@dataclass(frozen=True, slots=True)
class Route:
    """A resource request: which resource, in which namespace (None: all), which object and part."""

    resource: APIResource
    namespace: str | None = None
    name: str = ""
    subresource: str = ""


def parse_path(path: str) -> Route:
    """The :class:`Route` of a resource path; :class:`PathNotFound` for anything else."""
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        group, version, rest = "", "v1", parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        raise PathNotFound()
    namespace: str | None = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        scoped = resource_for_path(group, version, rest[2])
        if scoped is not None and scoped.namespaced:
            namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        raise PathNotFound()
    resource = resource_for_path(group, version, rest[0])
    if resource is None:
        raise PathNotFound()
    name = rest[1] if len(rest) > 1 else ""
    if name and resource.namespaced and namespace is None:
        raise PathNotFound()  # a namespaced object is only ever addressed in its namespace
    subresource = rest[2] if len(rest) > 2 else ""
    if subresource and subresource not in resource.subresources:
        raise PathNotFound()
    return Route(resource, namespace, name, subresource)
