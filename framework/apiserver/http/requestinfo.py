"""What a request asks for, in RBAC's words: a verb on a resource (and subresource) of an API group.

Authorization never sees HTTP methods. Before any authorizer runs, the API
server turns each request into a *request info*: ``POST
/api/v1/namespaces/default/pods/web/binding`` is the verb ``create`` on the
resource ``pods``, subresource ``binding``, in the core group (``""``). A
Role's rule grants exactly such tuples, so a least-privilege ClusterRole is
the set of request infos a program produces, and nothing else.

The verb follows from the method, with two refinements that depend on
whether the path names one object:

=========  ====================================  =====================
method     path names an object                  path names a collection
=========  ====================================  =====================
GET, HEAD  ``get``                               ``list``, or ``watch`` with ``?watch=true``
POST       ``create``                            ``create``
PUT        ``update``                            ``update``
PATCH      ``patch``                             ``patch``
DELETE     ``delete``                            ``deletecollection``
=========  ====================================  =====================

A ``watch`` parameter counts as true unless it is ``false`` or ``0``, as the
API server reads booleans in query strings. A list or watch narrowed by the
field selector ``metadata.name=<name>`` (what ``kubectl get pod web
--watch`` sends) is for that name, so a rule limited by ``resourceNames``
can allow it.

Mirrors ``k8s.io/apiserver/pkg/endpoints/request/requestinfo.go``
(``RequestInfoFactory.NewRequestInfo``, v1.33). Simplified: no legacy
``/api/v1/watch/...`` and ``/proxy/`` prefixes (this server does not serve
them), and the name from a field selector is taken as written, without
checking that it is a valid path segment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

__all__ = ["RequestInfo", "request_info", "request_verb"]

_METHOD_VERBS = {
    "POST": "create",
    "GET": "get",
    "HEAD": "get",
    "PUT": "update",
    "PATCH": "patch",
    "DELETE": "delete",
}


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """One request as an authorizer sees it.

    ``is_resource_request`` is False for discovery and health paths
    (``/api``, ``/apis/policy``, ``/version``, ``/healthz``): their ``verb``
    is the method in lower case, and RBAC grants them as ``nonResourceURLs``.
    """

    is_resource_request: bool
    path: str
    verb: str
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""


def request_verb(method: str, name: str, query: Mapping[str, str]) -> str:
    """The RBAC verb of a resource request.

    ``method`` is the HTTP method, ``name`` the object the path names (``""``
    for a collection), ``query`` the query string's parameters (the first
    value of each). An unknown method has no verb (``""``), and no rule can
    grant it.
    """
    verb = _METHOD_VERBS.get(method, "")  # HTTP methods are case-sensitive: "get" is not GET
    if name:
        return verb
    if verb == "get":
        watch = query.get("watch")
        return "watch" if watch is not None and watch.lower() not in ("false", "0") else "list"
    if verb == "delete":
        return "deletecollection"
    return verb


def request_info(method: str, target: str) -> RequestInfo:
    """The :class:`RequestInfo` of ``method`` on ``target`` (a path with its query string)."""
    url = urlsplit(target)
    query: dict[str, str] = {}
    for key, value in parse_qsl(url.query, keep_blank_values=True):
        query.setdefault(key, value)  # Go's url.Values: the first value of a repeated key counts
    parts = [p for p in url.path.split("/") if p]
    non_resource = RequestInfo(False, url.path, method.lower())
    if parts[:1] == ["api"] and len(parts) >= 3:
        group, version, rest = "", parts[1], parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 4:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return non_resource
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        # /namespaces/<ns>/<resource>/...: a resource in that namespace; /namespaces/<ns> and
        # /namespaces/<ns>/status: the namespace object itself.
        if len(rest) > 2 and rest[2] not in ("status", "finalize"):
            rest = rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    if not name and query.get("fieldSelector", "").startswith("metadata.name="):
        selected = query["fieldSelector"].removeprefix("metadata.name=")
        if selected and "," not in selected:
            name = selected
    verb = request_verb(method, rest[1] if len(rest) > 1 else "", query)
    return RequestInfo(
        True, url.path, verb, group, version, namespace, resource, subresource, name
    )
