"""The scheduler's API client for a real cluster: the in-memory server's methods, over HTTP.

The scheduler was written against :class:`~framework.apiserver.APIServer`:
informers call ``list`` and ``watch``; the binding cycle's DefaultBinder calls
``bind``; the event recorder ``get``, ``create`` and ``update`` Events; a
failed attempt writes the pod's condition with ``get`` and
``update_status``; preemption reads PodDisruptionBudgets and ``delete``\\ s
victims. :class:`KubeClient` has exactly those methods and sends each as the
REST request kube-scheduler's clientset would send, through the official
``kubernetes`` package (its ``ApiClient`` carries the kubeconfig's server,
credentials and TLS settings).

JSON is read and written here, with the objects' own ``from_dict`` and
``to_dict``: the client's generated model classes are never used for
objects, because they reject answers a real server gives (a successful
binding answers with a ``Status``, which ``V1Binding`` cannot hold: the
client raises ``ValueError`` on a bind that worked, kubernetes-client/python
issue 825). Every failure comes back as the project's
:class:`~framework.apiserver.errors.APIError` for its Status, so
``except Conflict`` means the same on both servers.

Two rules of a reflector live here too. A watch the server refused with
``410 Expired`` is remembered, so that asking again from the same
resourceVersion fails at once and the informer lists afresh instead.
A server that cannot be reached is not asked again until a backoff has
passed, doubling from 0.8 s to 30 s as client-go's
``wait.NewExponentialBackoffManager`` in the reflector does, and reset by a
request that succeeds.

Mirrors the requests of ``k8s.io/client-go/kubernetes/typed/core/v1``
(``pods.Bind``, ``pods.UpdateStatus``, ``pods.Delete``, ``events``) and the
reflector's ``ListAndWatch`` in ``k8s.io/client-go/tools/cache/reflector.go``
(v1.33). Simplified: status writes are ``PUT .../status`` of the whole status
(Go's ``PatchPodStatus`` sends a strategic merge patch); lists are read in
pages of 500 with ``continue``, without falling back to a full list on a
``410`` continue token.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import quote

import urllib3
from kubernetes import client as k8s
from kubernetes.watch.watch import iter_resp_lines

from framework.adapter.errors import error_from_body
from framework.adapter.streamwatcher import RemoteWatch
from framework.apiserver import ListResult
from framework.apiserver.client import Client
from framework.apiserver.errors import Expired, ServiceUnavailable
from framework.apiserver.http.endpoints import encode
from framework.apiserver.http.resources import RESOURCES, APIResource
from framework.apiserver.selection import LabelSelectorArg
from framework.clock import Clock, RealClock
from framework.objects import Binding, KubeObject, LabelSelector
from framework.objects.labels import Selector, label_selector_as_selector

__all__ = ["INITIAL_BACKOFF_SECONDS", "LIST_PAGE_SIZE", "MAX_BACKOFF_SECONDS", "KubeClient"]

T = TypeVar("T", bound=KubeObject)

#: A reflector's first wait after the server could not be reached (``reflector.go``: 800ms).
INITIAL_BACKOFF_SECONDS = 0.8
#: The longest wait between attempts (``reflector.go``: 30s).
MAX_BACKOFF_SECONDS = 30.0
#: Items per page of a list (``pager.go``: ``defaultPageSize``).
LIST_PAGE_SIZE = 500
#: A reflector asks the server to end each watch after 5 to 10 minutes (``minWatchTimeout``).
MIN_WATCH_TIMEOUT_SECONDS = 300

_JSON = "application/json"


def _resource(kind: type[KubeObject]) -> APIResource:
    for resource in RESOURCES:
        if resource.kind is kind:
            return resource
    raise TypeError(f"{kind.__name__} is not a kind the adapter can read or write")


class KubeClient:
    """An :class:`~framework.apiserver.APIServer` look-alike that talks to a real API server.

    ``api_client`` is a configured ``kubernetes.client.ApiClient`` (from a
    kubeconfig, or in-cluster). ``request_timeout`` bounds every request but
    watches, whose connection stays open for ``timeoutSeconds`` and a
    margin. Thread-safe: the informers, the scheduling loop and the binding
    cycles call it at once.
    """

    def __init__(
        self,
        api_client: Any,  # kubernetes.client.ApiClient (not in these docs' intersphinx)
        *,
        clock: Clock | None = None,
        request_timeout: float = 30.0,
        rng: random.Random | None = None,
    ) -> None:
        self.api_client = api_client
        self.core = k8s.CoreV1Api(api_client)
        self.clock: Clock = clock or RealClock()
        self.request_timeout = request_timeout
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._expired: dict[type[KubeObject], str] = {}
        self._backoff = 0.0
        self._retry_at = 0.0

    # --- paths ------------------------------------------------------------------------------------

    @staticmethod
    def path(kind: type[KubeObject], namespace: str | None = None, name: str | None = None) -> str:
        """The REST path of ``kind`` (a collection, or one object with ``name``)."""
        resource = _resource(kind)
        prefix = f"/apis/{resource.group_version}" if resource.group else "/api/v1"
        if resource.namespaced and namespace:
            prefix += f"/namespaces/{quote(namespace, safe='')}"
        path = f"{prefix}/{resource.plural}"
        return f"{path}/{quote(name, safe='')}" if name else path

    # --- the requests -----------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: list[tuple[str, str]] | None = None,
        body: Any = None,
        timeout: float | tuple[float, float] | None = None,
    ) -> Any:
        """Send one request; the response (unread), or the APIError its Status stands for."""
        with self._lock:
            if self._backoff and self.clock.now() < self._retry_at:
                raise ServiceUnavailable(
                    f"the API server could not be reached; backing off for {self._backoff:g}s"
                )
        params = self.api_client.param_serialize(
            method,
            path,
            query_params=query or [],
            header_params={"Accept": _JSON, **({"Content-Type": _JSON} if body else {})},
            body=body,
            auth_settings=["BearerToken"],
        )
        try:
            response: Any = self.api_client.call_api(
                *params, _request_timeout=timeout or self.request_timeout
            )
        except (k8s.ApiException, urllib3.exceptions.HTTPError) as error:  # no answer at all
            self._unreachable()
            reason = getattr(error, "reason", None) or error
            raise ServiceUnavailable(f"the API server could not be reached: {reason}") from None
        with self._lock:
            self._backoff = 0.0
        if not 200 <= response.status <= 299:
            raise error_from_body(response.read(), response.status)
        return response

    def _unreachable(self) -> None:
        with self._lock:
            base = min(MAX_BACKOFF_SECONDS, max(INITIAL_BACKOFF_SECONDS, self._backoff * 2))
            self._backoff = base
            self._retry_at = self.clock.now() + base * (1 + self._rng.random())  # jitter 1.0

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return json.loads(self._request(method, path, **kwargs).read() or b"{}")

    @staticmethod
    def _decode(kind: type[T], data: dict[str, Any]) -> T:
        data = dict(data)
        data.setdefault("apiVersion", kind.API_VERSION)
        data.setdefault("kind", kind.KIND)
        return kind.from_dict(data)

    # --- what the scheduler calls -------------------------------------------------------------

    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        """The object as the server has it; NotFound if there is none."""
        return self._decode(kind, self._json("GET", self.path(kind, namespace, name)))

    def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        label_selector: LabelSelectorArg = None,
        field_selector: Any = None,
    ) -> ListResult[T]:
        """Every matching object, read page by page, and the list's resourceVersion."""
        query = _selectors(label_selector, field_selector)
        items: list[T] = []
        token = ""
        while True:
            page = [*query, ("limit", str(LIST_PAGE_SIZE))]
            if token:
                page.append(("continue", token))
            answer = self._json("GET", self.path(kind, namespace), query=page)
            items.extend(self._decode(kind, item) for item in answer.get("items") or ())
            metadata = answer.get("metadata") or {}
            token = metadata.get("continue") or ""
            if not token:
                return ListResult(tuple(items), str(metadata.get("resourceVersion") or ""))

    def watch(
        self,
        kind: type[KubeObject],
        resource_version: str | int | None = None,
        *,
        namespace: str | None = None,
        label_selector: LabelSelectorArg = None,
        field_selector: Any = None,
    ) -> RemoteWatch:
        """Open a watch from ``resource_version``; Expired at once if it expired before."""
        version = "" if resource_version is None else str(resource_version)
        with self._lock:
            if version and self._expired.get(kind) == version:
                raise Expired(f"too old resource version: {version}")
        seconds = int(MIN_WATCH_TIMEOUT_SECONDS * (1 + self._rng.random()))
        query = [
            *_selectors(label_selector, field_selector),
            ("watch", "true"),
            ("timeoutSeconds", str(seconds)),
        ]
        if version:
            query.append(("resourceVersion", version))
        response = self._request(
            "GET", self.path(kind, namespace), query=query, timeout=(10.0, seconds + 30.0)
        )
        raw = response.response
        return RemoteWatch(
            kind,
            self._lines(raw),
            lambda: _close_stream(raw),
            version,
            on_end=lambda ended: self._remember_expired(kind, version, ended),
        )

    def _remember_expired(self, kind: type[KubeObject], version: str, watch: RemoteWatch) -> None:
        if isinstance(watch.error, Expired) or (
            watch.error is not None and watch.error.code == 410
        ):
            with self._lock:
                self._expired[kind] = version

    @staticmethod
    def _lines(raw: Any) -> Iterator[str]:
        try:
            yield from cast(Iterator[str], iter_resp_lines(raw))  # type: ignore[no-untyped-call]
        finally:
            raw.close()

    def create(self, obj: T, *, namespace: str | None = None) -> T:
        """``POST`` the object; the object as created."""
        kind = type(obj)
        ns = namespace or obj.metadata.namespace or ("default" if kind.NAMESPACED else None)
        return self._decode(kind, self._json("POST", self.path(kind, ns), body=encode(obj)))

    def update(self, obj: T) -> T:
        """``PUT`` the object (Conflict if its resourceVersion is stale)."""
        kind = type(obj)
        path = self.path(kind, obj.metadata.namespace, obj.metadata.name)
        return self._decode(kind, self._json("PUT", path, body=encode(obj)))

    def update_status(self, obj: T) -> T:
        """``PUT`` the object's ``status`` subresource."""
        kind = type(obj)
        path = self.path(kind, obj.metadata.namespace, obj.metadata.name) + "/status"
        return self._decode(kind, self._json("PUT", path, body=encode(obj)))

    def delete(
        self,
        kind: type[T],
        name: str,
        namespace: str | None = None,
        *,
        resource_version: str | None = None,
        uid: str | None = None,
        grace_period_seconds: int | None = 0,
    ) -> T | None:
        """``DELETE`` with these ``DeleteOptions``; the final object, or None if the server sent a Status."""
        options: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        preconditions = {
            k: v for k, v in (("resourceVersion", resource_version), ("uid", uid)) if v
        }
        if preconditions:
            options["preconditions"] = preconditions
        answer = self._json("DELETE", self.path(kind, namespace, name), body=options)
        return self._decode(kind, answer) if answer.get("kind") == kind.KIND else None

    def bind(self, binding: Binding) -> None:
        """``POST pods/<name>/binding``; returns on success, raises the APIError of a failure.

        Sent through the typed ``create_namespaced_pod_binding`` with
        ``_preload_content=False``: the client then hands back the raw
        response instead of failing to read the server's ``Success`` Status
        as a ``V1Binding`` — which would make a successful bind look failed.
        """
        with self._lock:
            if self._backoff and self.clock.now() < self._retry_at:
                raise ServiceUnavailable("the API server could not be reached; backing off")
        name, namespace = binding.metadata.name, binding.metadata.namespace or "default"
        body = encode(binding)
        try:
            response: Any = self.core.create_namespaced_pod_binding(
                name, namespace, cast(Any, body), _preload_content=False,
                _request_timeout=self.request_timeout,
            )  # fmt: skip
        except urllib3.exceptions.HTTPError as error:
            self._unreachable()
            raise ServiceUnavailable(f"the API server could not be reached: {error}") from None
        except k8s.ApiException as error:
            if not error.status:
                self._unreachable()
                raise ServiceUnavailable(
                    f"the API server could not be reached: {error.reason}"
                ) from None
            raise error_from_body(error.body, error.status) from None
        if not 200 <= response.status <= 299:
            raise error_from_body(response.read(), response.status)


def _close_stream(raw: Any) -> None:
    """End a streaming response from another thread: unblock its reader, drop its connection.

    The connection must not go back to the pool: it is in the middle of a
    response, and the next request on it would read the rest of the stream.
    """
    raw.shutdown()
    raw.close()


def _selectors(label_selector: Any, field_selector: Any) -> list[tuple[str, str]]:
    query: list[tuple[str, str]] = []
    for key, value in (("labelSelector", label_selector), ("fieldSelector", field_selector)):
        if value:
            query.append((key, _selector_text(value)))
    return query


def _selector_text(selector: Any) -> str:
    """A selector argument as its query-string form (``a=b,c!=d``); Kubernetes prints them so."""
    if isinstance(selector, LabelSelector):
        selector = label_selector_as_selector(selector)
    if isinstance(selector, Selector) and selector.matches_nothing:
        raise ValueError("a selector that matches nothing cannot be sent to an API server")
    return str(selector)


if TYPE_CHECKING:  # the same seam as the in-memory server's, checked as Go's `var _ I = &T{}`
    _client: type[Client] = KubeClient
