"""The verbs on a resource: GET, LIST, POST, PUT, PATCH and DELETE, translated to the store's calls.

Each request names a :class:`~framework.apiserver.http.routing.Route`; :func:`handle` turns the verb,
the route, the query parameters and the decoded body into one call of
:class:`~framework.apiserver.APIServer` and its answer into JSON: an object,
a ``<Kind>List`` with ``metadata.resourceVersion``, a ``metav1.Table`` when
``kubectl get`` asks for one, or a ``metav1.Status``. The store raises the
errors; they travel up to the transport (:mod:`framework.apiserver.http.server`), which renders them.

Watches stream, so the transport handles them; :func:`watch_params` reads
their parameters here with the rest.

Mirrors ``k8s.io/apiserver/pkg/endpoints/handlers`` (``get.go``,
``create.go``, ``update.go``, ``patch.go``, ``delete.go``) and
``pkg/registry/core/pod/storage/storage.go`` (``BindingREST.Create``, which
answers a binding with a ``Success`` Status). A body's fields are checked
against Kubernetes' schema of its kind (:mod:`framework.objects.openapi`)
as the ``fieldValidation`` parameter says: ``Strict`` (what ``kubectl``
sends) refuses an unknown field with ``400`` and ``strict decoding error:
unknown field "spec.nodeSelecter"``; ``Warn`` (the default) drops it and
answers with a ``Warning`` header; ``Ignore`` drops it silently.
Simplified: ``limit`` and
``continue`` are accepted and ignored (every list is one page), as are
``dryRun`` and ``fieldManager``; a DELETE without a grace
period deletes at once, as the in-memory store does, since no kubelet would
ever finish a graceful one; ``deletecollection`` is not served.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from framework.apiserver import strategy
from framework.apiserver.errors import BadRequest, Conflict, FieldCause, Invalid
from framework.apiserver.http import eventsv1, eviction, scale
from framework.apiserver.http.patch import PATCH_TYPES, apply_patch
from framework.apiserver.http.routing import Route
from framework.apiserver.http.statuses import MethodNotSupported, UnsupportedMediaType
from framework.apiserver.http.tables import INCLUDE_OBJECT_POLICIES, to_table
from framework.apiserver.store import APIServer
from framework.objects import Binding, KubeObject, PodDisruptionBudget
from framework.objects.openapi import (
    FIELD_VALIDATION_DIRECTIVES,
    check_fields,
    kind_schema,
    strict_decoding_error,
)
from framework.objects.schema import ObjectInvalid

__all__ = [
    "BODY_TYPES",
    "DEFAULT_WATCH_TIMEOUT_SECONDS",
    "SUCCESS_STATUS",
    "Response",
    "WatchParams",
    "encode",
    "encode_for",
    "field_validation",
    "handle",
    "include_object",
    "parse_bool",
    "wants_table",
    "watch_params",
]

BODY_TYPES = ("application/json", "application/yaml")
"""What POST and PUT bodies may be (protobuf, which the real server also reads, is not)."""

#: A watch with no ``timeoutSeconds`` ends after this long: the real server's
#: ``--min-request-timeout`` (1800 s), before its random stretch.
DEFAULT_WATCH_TIMEOUT_SECONDS = 1800

SUCCESS_STATUS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}


@dataclass(frozen=True, slots=True)
class Response:
    """An answer: the HTTP code, the JSON body and the ``Warning`` headers' texts."""

    code: int
    body: Mapping[str, Any]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WatchParams:
    """What a ``?watch=true`` request asks for."""

    resource_version: str
    timeout_seconds: float
    allow_bookmarks: bool
    label_selector: str | None
    field_selector: str | None


def parse_bool(value: str | None) -> bool:
    """A query flag as Go's ``strconv.ParseBool`` reads it (the Python client sends ``True``)."""
    if value is None or value == "":
        return False
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise BadRequest(f'invalid boolean value "{value}"')


def watch_params(query: Mapping[str, str]) -> WatchParams:
    """The watch parameters; :class:`BadRequest` for a ``timeoutSeconds`` that is no int64.

    As ``ListResource`` (``handlers/get.go``) reads them: ``timeoutSeconds``
    is decoded as Go's ``strconv.ParseInt`` would (so ``1.5`` is refused);
    ``0`` or none means the default; a negative value is not refused, it
    just ends the watch at once (the request's context has already expired).
    Parameters the server does not know are ignored.
    """
    raw = query.get("timeoutSeconds", "")
    timeout = _parse_int64(raw) if raw else 0
    return WatchParams(
        query.get("resourceVersion", ""),
        timeout or DEFAULT_WATCH_TIMEOUT_SECONDS,
        parse_bool(query.get("allowWatchBookmarks")),
        query.get("labelSelector"),
        query.get("fieldSelector"),
    )


def _parse_int64(raw: str) -> int:
    """``raw`` as ``strconv.ParseInt(raw, 10, 64)``; its error text as a :class:`BadRequest`."""
    digits = raw[1:] if raw[:1] in "+-" else raw
    if not digits or not digits.isascii() or not digits.isdigit():
        raise BadRequest(f'strconv.ParseInt: parsing "{raw}": invalid syntax')
    value = int(raw)
    if not -(2**63) <= value < 2**63:
        raise BadRequest(f'strconv.ParseInt: parsing "{raw}": value out of range')
    return value


def encode(obj: KubeObject) -> dict[str, Any]:
    """An object as JSON, with its ``apiVersion`` and ``kind``.

    The store's encoding leaves out empty fields; Go writes a field without
    ``omitempty`` even when empty, and typed clients require some of them:
    a ``metav1.Condition`` (a PodDisruptionBudget's) always has a ``reason``
    and a ``message``.
    """
    data = obj.to_dict()
    data["apiVersion"], data["kind"] = obj.API_VERSION, obj.KIND
    if isinstance(obj, PodDisruptionBudget):
        for condition in (data.get("status") or {}).get("conditions") or ():
            condition.setdefault("reason", "")
            condition.setdefault("message", "")
    return data


def field_validation(query: Mapping[str, str], verb: str = "create") -> str:
    """The ``fieldValidation`` directive, ``Warn`` when absent; ``422`` for one not known.

    As ``ValidateFieldValidation`` in ``k8s.io/apimachinery/pkg/apis/meta/v1/validation``
    refuses it, on the verb's options kind (``CreateOptions``, ``UpdateOptions``, ``PatchOptions``).
    """
    directive = query.get("fieldValidation", "")
    if directive and directive not in FIELD_VALIDATION_DIRECTIVES:
        supported = ["", *sorted(FIELD_VALIDATION_DIRECTIVES)]
        cause = FieldCause.not_supported("fieldValidation", directive, supported)
        raise Invalid(f"{verb.capitalize()}Options", "", [cause], group="meta.k8s.io")
    return directive or "Warn"


def encode_for(route: Route, obj: KubeObject) -> dict[str, Any]:
    """An object as the route's group and version write it (an Event in either group)."""
    data = encode(obj)
    if route.resource.group_version == eventsv1.GROUP_VERSION:
        return eventsv1.from_core(data)
    return data


def _decode(
    route: Route,
    body: Any,
    kind: type[KubeObject] | None = None,
    directive: str = "Warn",
    warnings: list[str] | None = None,
) -> KubeObject:
    cls = kind or route.resource.kind
    api_version = cls.API_VERSION if kind else route.resource.group_version
    if not isinstance(body, dict):
        raise BadRequest(f"the body of a {cls.KIND} request must be a JSON object")
    data = dict(body)
    data.setdefault("kind", cls.KIND)
    data.setdefault("apiVersion", api_version)
    if data["kind"] != cls.KIND or data["apiVersion"] != api_version:
        raise BadRequest(
            f"the object's kind and apiVersion ({data['kind']}, {data['apiVersion']}) do not "
            f"match the URL's ({cls.KIND}, {api_version})"
        )
    schema = kind_schema(cls.KIND, api_version, cls)
    if schema is not None:
        unknown = check_fields(data, schema)  # a fresh decode of the body: ours to change
        if unknown and directive == "Strict":
            version = api_version.rpartition("/")[2]
            raise BadRequest(
                f'{cls.KIND} in version "{version}" cannot be handled as a {cls.KIND}: '
                + strict_decoding_error(unknown)
            )
        if unknown and directive == "Warn" and warnings is not None:
            warnings.extend(f'unknown field "{path}"' for path in unknown)
    if api_version == eventsv1.GROUP_VERSION:
        data = eventsv1.to_core(data)
    try:
        return cls.from_dict(data)
    except ObjectInvalid as exc:
        raise BadRequest(f"{cls.KIND} in the request body cannot be decoded: {exc}") from None


def _check_name(route: Route, obj: KubeObject) -> KubeObject:
    """``obj`` named as the URL names it; :class:`BadRequest` if its own name or namespace differ."""
    if obj.metadata.name and obj.metadata.name != route.name:
        raise BadRequest(
            f"the name of the object ({obj.metadata.name}) does not match the name on the URL "
            f"({route.name})"
        )
    return strategy.with_request_namespace(obj.with_metadata(name=route.name), route.namespace)


def wants_table(accept: str) -> bool:
    """Whether the client asked for a ``metav1.Table`` (``kubectl get`` does)."""
    return "as=Table" in accept


def include_object(query: Mapping[str, str]) -> str:
    """``includeObject``: ``Metadata`` by default; :class:`BadRequest` for an unknown policy."""
    policy = query.get("includeObject") or "Metadata"
    if policy not in INCLUDE_OBJECT_POLICIES:
        raise BadRequest(f'unable to parse includeObject "{policy}"')
    return policy


def handle(
    api: APIServer,
    method: str,
    route: Route,
    query: Mapping[str, str],
    body: Any,
    *,
    content_type: str = "application/json",
    accept: str = "application/json",
    now: float | None = None,
) -> Response:
    """Serve one non-watch request on a resource; raise an APIError to refuse it."""
    resource, kind = route.resource, route.resource.kind
    if method == "GET":
        moment = time.time() if now is None else now
        if not route.name:
            result = api.list(
                kind, route.namespace, query.get("labelSelector"), query.get("fieldSelector")
            )
            if wants_table(accept):
                table = to_table(
                    kind, result.items, result.resource_version, moment, include_object(query)
                )
                return Response(200, table)
            return Response(
                200,
                {
                    "kind": f"{kind.KIND}List",
                    "apiVersion": resource.group_version,
                    "metadata": {"resourceVersion": result.resource_version},
                    "items": [encode_for(route, o) for o in result.items],
                },
            )
        if route.subresource in ("binding", "eviction"):
            raise MethodNotSupported(f"{resource.plural}/{route.subresource}", "get")
        if route.subresource == "scale":
            return Response(200, scale.get_scale(api, kind, route.name, route.namespace))
        obj = api.get(kind, route.name, route.namespace)
        if wants_table(accept):
            table = to_table(
                kind, [obj], obj.metadata.resource_version, moment, include_object(query)
            )
            return Response(200, table)
        return Response(200, encode_for(route, obj))
    if method == "POST":
        if route.subresource == "binding":
            return _bind(api, route, body)
        if route.subresource == "eviction":
            moment = time.time() if now is None else now
            namespace = route.namespace or "default"
            return Response(201, eviction.evict(api, namespace, route.name, body, moment))
        if route.name:
            raise MethodNotSupported(resource.plural, "create on a named object")
        directive, warned = field_validation(query, "create"), list[str]()
        created = api.create(
            _decode(route, body, None, directive, warned), namespace=route.namespace
        )
        return Response(201, encode_for(route, created), tuple(warned))
    if not route.name:
        action = {"DELETE": "deletecollection"}.get(method, method.lower())
        raise MethodNotSupported(resource.plural, action)
    if route.subresource in ("binding", "eviction"):
        raise MethodNotSupported(f"{resource.plural}/{route.subresource}", method.lower())
    if route.subresource == "scale" and method in ("PUT", "PATCH"):
        return _scale(api, route, method, body, content_type)
    if method == "PUT":
        directive, warned = field_validation(query, "update"), list[str]()
        obj = _check_name(route, _decode(route, body, None, directive, warned))
        if route.subresource == "status":
            return Response(200, encode_for(route, api.update_status(obj)), tuple(warned))
        return Response(200, encode_for(route, api.update(obj)), tuple(warned))
    if method == "PATCH":
        return _patch(api, route, body, content_type, field_validation(query, "patch"))
    if method == "DELETE":
        return _delete(api, route, query, body)
    raise MethodNotSupported(resource.plural, method.lower())


def _scale(api: APIServer, route: Route, method: str, body: Any, content_type: str) -> Response:
    """``PUT`` or ``PATCH`` of ``<kind>/<name>/scale`` (:mod:`.scale`)."""
    kind, name, namespace = route.resource.kind, route.name, route.namespace
    if method == "PATCH":
        if content_type not in PATCH_TYPES:
            raise UnsupportedMediaType(PATCH_TYPES)
        body = apply_patch(content_type, scale.get_scale(api, kind, name, namespace), body)
    return Response(200, scale.update_scale(api, kind, name, namespace, body))


def _bind(api: APIServer, route: Route, body: Any) -> Response:
    binding = cast(Binding, _decode(route, body, Binding))
    meta = binding.metadata
    if meta.name and meta.name != route.name:
        raise BadRequest(
            f"the name of the object ({meta.name}) does not match the name on the URL ({route.name})"
        )
    namespace = route.namespace or "default"
    if meta.namespace and meta.namespace != namespace:
        raise BadRequest(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    api.bind(binding.with_metadata(name=route.name, namespace=namespace))
    return Response(201, {**SUCCESS_STATUS, "code": 201})


def _patch(
    api: APIServer, route: Route, patch: Any, content_type: str, directive: str = "Warn"
) -> Response:
    if content_type not in PATCH_TYPES:
        raise UnsupportedMediaType(PATCH_TYPES)
    kind = route.resource.kind
    meta = patch.get("metadata") if isinstance(patch, dict) else None
    pinned = isinstance(meta, dict) and bool(meta.get("resourceVersion"))
    # As the real patcher: retry on a lost race, unless the patch itself names a resourceVersion.
    for attempt in range(5):
        current = api.get(kind, route.name, route.namespace)
        patched = apply_patch(content_type, encode_for(route, current), patch)
        warned: list[str] = []
        obj = _check_name(route, _decode(route, patched, None, directive, warned))
        if not obj.metadata.resource_version:
            obj = obj.with_metadata(resource_version=current.metadata.resource_version)
        try:
            if route.subresource == "status":
                return Response(200, encode_for(route, api.update_status(obj)), tuple(warned))
            return Response(200, encode_for(route, api.update(obj)), tuple(warned))
        except Conflict:
            if pinned or attempt == 4:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _delete(api: APIServer, route: Route, query: Mapping[str, str], body: Any) -> Response:
    options = body if isinstance(body, dict) else {}
    if body is not None and not isinstance(body, dict):
        raise BadRequest("the body of a DELETE request must be a DeleteOptions object")
    grace: Any = options.get("gracePeriodSeconds", query.get("gracePeriodSeconds"))
    # DeleteOptions.gracePeriodSeconds is an *int64, in the query string or the body.
    if grace in (None, ""):
        grace_seconds = 0
    elif isinstance(grace, str):
        grace_seconds = _parse_int64(grace)
    elif isinstance(grace, int) and not isinstance(grace, bool) and -(2**63) <= grace < 2**63:
        grace_seconds = grace
    else:
        raise BadRequest(f'invalid value for gracePeriodSeconds: "{grace}"')
    preconditions = options.get("preconditions") or {}
    if not isinstance(preconditions, dict):
        raise BadRequest("DeleteOptions.preconditions must be an object")
    deleted = api.delete(
        route.resource.kind,
        route.name,
        route.namespace,
        resource_version=preconditions.get("resourceVersion"),
        uid=preconditions.get("uid"),
        grace_period_seconds=grace_seconds,
    )
    return Response(200, encode_for(route, deleted))
