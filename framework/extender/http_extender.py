"""An extender over HTTP: kube-scheduler's only kind, configured by ``extenders`` in its configuration.

Each configured extender is a URL prefix and a *verb* per question it
answers (``filterVerb: filter`` → ``POST <urlPrefix>/filter``). A verb left
empty means the extender does not take part there: ``filter`` then passes
every node, ``prioritize`` scores every node 0, and the scheduler never
asks it to bind or preempt.

The request and answer documents are those of :mod:`framework.extender.types`.
An extender with ``nodeCacheCapable: true`` keeps its own copy of the
nodes (it watches the API server), so it is sent node *names* only, which
is far less to encode, send and decode than every candidate Node object.

Every call has a deadline, ``httpTimeout`` (default 5 s). A call that fails
— no connection, the deadline passed, a status other than 200, an ``Error``
in the answer, a node in the answer that was not in the question — raises
:class:`~framework.extender.interface.ExtenderError`, with kube-scheduler's
message where it has one.

Contract: thread-safe (binding cycles and the concurrent ``prioritize``
calls share one extender); each thread keeps its own keep-alive connection,
as Go's transport pools them.

Mirrors ``HTTPExtender``, ``NewHTTPExtender``, ``makeTransport`` and
``DefaultExtenderTimeout`` in ``kubernetes/kubernetes:pkg/scheduler/extender.go``
(v1.33). Simplified:

* ``httpTimeout`` bounds each wait on the socket (connect, send, each read)
  rather than the whole exchange, as Go's ``Client.Timeout`` does; against
  an extender that goes quiet the two are the same.
* TLS: ``tlsConfig``'s ``insecure``, ``serverName``, ``caFile``,
  ``certFile`` and ``keyFile`` are honoured; the inline ``caData``,
  ``certData`` and ``keyData`` are refused with a clear error (write them
  to files).
* The nodes an extender returns (``Nodes`` or ``NodeNames``) are matched
  by name to the scheduler's own NodeInfos, so the Score plugins that run
  next still see each node's pods; a name that was not sent is an error
  either way. Returned Node objects are therefore not decoded (only their
  names are read), and a Node's JSON is reused while the object lives: in
  Python both cost far more than in Go, and would blur what the
  comparison with a plugin is about.
"""

from __future__ import annotations

import http.client
import json
import ssl
import threading
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from framework.config.strict import parse_duration
from framework.config.types import Extender as ExtenderConfig
from framework.extender.interface import ExtenderError, FilterOutcome
from framework.extender.types import (
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    ExtenderPreemptionArgs,
    ExtenderPreemptionResult,
    HostPriority,
    MetaPod,
    MetaVictims,
    Victims,
    WireFormatError,
    WireVictims,
    decode_host_priority_list,
    lookup,
    node_list_names,
)
from framework.node_info import NodeInfo
from framework.objects import Pod

__all__ = ["DEFAULT_EXTENDER_TIMEOUT", "HTTPExtender"]

DEFAULT_EXTENDER_TIMEOUT = 5.0
"""Seconds an extender call may take when ``httpTimeout`` is not set (``DefaultExtenderTimeout``)."""


def _timeout_seconds(config: ExtenderConfig) -> float:
    if not config.http_timeout:
        return DEFAULT_EXTENDER_TIMEOUT
    seconds = parse_duration(config.http_timeout)
    return seconds if seconds > 0 else DEFAULT_EXTENDER_TIMEOUT


def _ssl_context(config: ExtenderConfig) -> ssl.SSLContext:
    tls = config.tls_config or {}
    if not isinstance(tls, Mapping):
        raise ExtenderError(f"extender {config.url_prefix}: tlsConfig must be an object")
    for inline in ("caData", "certData", "keyData"):
        if tls.get(inline):
            raise ExtenderError(
                f"extender {config.url_prefix}: tlsConfig.{inline} is not supported here; "
                f"write it to a file and use tlsConfig.{inline.replace('Data', 'File')}"
            )
    context = ssl.create_default_context(cafile=tls.get("caFile") or None)
    # As makeTransport: HTTPS without a CA to check the server against is insecure.
    if tls.get("insecure") or (config.enable_https and not tls.get("caFile")):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if tls.get("certFile"):
        context.load_cert_chain(tls["certFile"], tls.get("keyFile") or None)
    return context


class _HTTPSConnection(http.client.HTTPSConnection):
    """HTTPS that checks the certificate against ``tlsConfig.serverName`` when it is set."""

    def __init__(
        self, netloc: str, timeout: float, context: ssl.SSLContext, server_name: str
    ) -> None:
        super().__init__(netloc, timeout=timeout, context=context)
        self._tls = context
        self._server_name = server_name

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._tls.wrap_socket(
            self.sock, server_hostname=self._server_name or self.host
        )


class HTTPExtender:
    """An extender reached over HTTP(S), built from one ``extenders`` entry of the configuration."""

    def __init__(self, config: ExtenderConfig) -> None:
        self.extender_url = config.url_prefix
        self.preempt_verb = config.preempt_verb
        self.filter_verb = config.filter_verb
        self.prioritize_verb = config.prioritize_verb
        self.bind_verb = config.bind_verb
        self.weight = config.weight
        self.node_cache_capable = config.node_cache_capable
        self.managed_resources = frozenset(r.name for r in config.managed_resources)
        self.ignorable = config.ignorable
        self.timeout = _timeout_seconds(config)
        parts = urlsplit(config.url_prefix)
        self._scheme = parts.scheme or "http"
        self._netloc = parts.netloc
        self._path = parts.path.rstrip("/")
        self._server_name = ""
        self._ssl: ssl.SSLContext | None = None
        if self._scheme == "https" or config.enable_https:
            self._ssl = _ssl_context(config)
            tls = config.tls_config if isinstance(config.tls_config, Mapping) else {}
            self._server_name = str(tls.get("serverName") or "")
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"HTTPExtender({self.extender_url!r})"

    # --- what kind of extender ------------------------------------------------------------------

    def name(self) -> str:
        """The URL prefix, which identifies the extender."""
        return self.extender_url

    def is_ignorable(self) -> bool:
        return self.ignorable

    def supports_preemption(self) -> bool:
        return bool(self.preempt_verb)

    def is_binder(self) -> bool:
        return bool(self.bind_verb)

    def is_prioritizer(self) -> bool:
        return bool(self.prioritize_verb)

    def is_filter(self) -> bool:
        return bool(self.filter_verb)

    def is_interested(self, pod: Pod) -> bool:
        """True without ``managedResources``; else whether a container requests or limits one."""
        if not self.managed_resources:
            return True
        for container in (*pod.spec.containers, *pod.spec.init_containers):
            resources = container.resources
            if any(name in self.managed_resources for name in resources.requests):
                return True
            if any(name in self.managed_resources for name in resources.limits):
                return True
        return False

    # --- the four questions ---------------------------------------------------------------------

    def _args(self, pod: Pod, nodes: Sequence[NodeInfo]) -> ExtenderArgs:
        if self.node_cache_capable:
            return ExtenderArgs(pod, node_names=tuple(n.name for n in nodes))
        return ExtenderArgs(pod, nodes=tuple(n.node for n in nodes if n.node is not None))

    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]) -> FilterOutcome:
        """The nodes the extender lets through, in its order, and the failed nodes' reasons."""
        if not self.filter_verb:
            return list(nodes), {}, {}
        answer = self._send(self.filter_verb, self._args(pod, nodes).to_json())
        try:
            if not isinstance(answer, Mapping):
                raise WireFormatError("ExtenderFilterResult: expected a JSON object")
            # The nodes are matched by name to our NodeInfos: decoding them would be wasted.
            listed = node_list_names(lookup(answer, "Nodes"))
            rest = {k: v for k, v in answer.items() if str(k).casefold() != "nodes"}
            result = ExtenderFilterResult.from_json(rest)
        except WireFormatError as error:
            raise ExtenderError(f"extender {self.extender_url}: {error}") from None
        if result.error:
            raise ExtenderError(result.error)
        by_name = {n.name: n for n in nodes}
        if self.node_cache_capable and result.node_names is not None:
            names: Sequence[str] = result.node_names
        elif listed is not None:
            names = listed
        else:
            names = []
        passed = []
        for name in names:
            node_info = by_name.get(name)
            if node_info is None:
                raise ExtenderError(
                    f'extender "{self.extender_url}" claims a filtered node "{name}" which is '
                    "not found in the input node list"
                )
            passed.append(node_info)
        return passed, result.failed_nodes, result.failed_and_unresolvable_nodes

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[HostPriority], int]:
        """The extender's 0-10 score per node, and its weight (0 without a prioritize verb)."""
        if not self.prioritize_verb:
            return [HostPriority(n.name, 0) for n in nodes], 0
        answer = self._send(self.prioritize_verb, self._args(pod, nodes).to_json())
        try:
            return decode_host_priority_list(answer), self.weight
        except WireFormatError as error:
            raise ExtenderError(f"extender {self.extender_url}: {error}") from None

    def bind(self, binding: ExtenderBindingArgs) -> None:
        """Ask the extender to bind; it writes the binding to the API server itself."""
        if not self.is_binder():
            # The scheduler only asks binders; kube guards the same way.
            raise ExtenderError("unexpected empty bindVerb in extender")
        answer = self._send(self.bind_verb, binding.to_json())
        try:
            result = ExtenderBindingResult.from_json(answer)
        except WireFormatError as error:
            raise ExtenderError(f"extender {self.extender_url}: {error}") from None
        if result.error:
            raise ExtenderError(result.error)

    def process_preemption(
        self, pod: Pod, victims: Mapping[str, Victims], node_infos: Any
    ) -> dict[str, Victims]:
        """The candidates the extender keeps, each with its victims, looked up by UID on the node."""
        if not self.supports_preemption():
            raise ExtenderError(
                f"preempt verb is not defined for extender {self.extender_url} but run into "
                "ProcessPreemption"
            )
        if self.node_cache_capable:
            args = ExtenderPreemptionArgs(
                pod,
                node_name_to_meta_victims={
                    name: MetaVictims(
                        tuple(MetaPod(p.metadata.uid) for p in v.pods), v.num_pdb_violations
                    )
                    for name, v in victims.items()
                },
            )
        else:
            args = ExtenderPreemptionArgs(
                pod,
                node_name_to_victims={
                    name: WireVictims(v.pods, v.num_pdb_violations) for name, v in victims.items()
                },
            )
        answer = self._send(self.preempt_verb, args.to_json())
        try:
            result = ExtenderPreemptionResult.from_json(answer)
        except WireFormatError as error:
            raise ExtenderError(f"extender {self.extender_url}: {error}") from None
        return self._convert_to_victims(result.node_name_to_meta_victims, node_infos)

    def _convert_to_victims(
        self, metas: Mapping[str, MetaVictims], node_infos: Any
    ) -> dict[str, Victims]:
        out: dict[str, Victims] = {}
        for node_name, meta in metas.items():
            try:
                node_info = node_infos.get(node_name)
            except LookupError as error:
                raise ExtenderError(str(error)) from None
            pods = []
            for meta_pod in meta.pods:
                found = next(
                    (p.pod for p in node_info.pods if p.pod.metadata.uid == meta_pod.uid), None
                )
                if found is None:
                    raise ExtenderError(
                        f"extender: {self.extender_url} claims to preempt pod (UID: "
                        f"{meta_pod.uid}) on node: {node_name}, but the pod is not found on "
                        "that node"
                    )
                pods.append(found)
            out[node_name] = Victims(tuple(pods), meta.num_pdb_violations)
        return out

    # --- the wire -------------------------------------------------------------------------------

    def _connection(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self._ssl is not None:
                conn = _HTTPSConnection(self._netloc, self.timeout, self._ssl, self._server_name)
            else:
                conn = http.client.HTTPConnection(self._netloc, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _send(self, verb: str, payload: Any) -> Any:
        """POST ``payload`` as JSON to ``<urlPrefix>/<verb>`` and decode the answer (``send``)."""
        url = self.extender_url.rstrip("/") + "/" + verb
        body = json.dumps(payload, separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json"}
        for attempt in (1, 2):
            conn = self._connection()
            reused = conn.sock is not None
            try:
                conn.request("POST", f"{self._path}/{verb}", body, headers)
                response = conn.getresponse()
                data = response.read()
            except TimeoutError:
                self._drop_connection()
                raise ExtenderError(
                    f'Post "{url}": timed out after {self.timeout:g}s (httpTimeout)'
                ) from None
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
                self._drop_connection()
                if reused and attempt == 1:
                    continue  # the server closed an idle keep-alive connection: dial again
                raise ExtenderError(f'Post "{url}": {e}') from None
            except (OSError, http.client.HTTPException) as error:
                self._drop_connection()
                raise ExtenderError(f'Post "{url}": {error}') from None
            if response.will_close:
                self._drop_connection()
            if response.status != 200:
                raise ExtenderError(
                    f"failed {verb} with extender at URL {url}, code {response.status}"
                )
            try:
                return json.loads(data)
            except ValueError as error:
                raise ExtenderError(f"extender {self.extender_url}: {verb}: {error}") from None
        raise AssertionError("unreachable")  # pragma: no cover
