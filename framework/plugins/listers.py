"""The cluster objects a plugin reads besides the snapshot: Services, controllers, volumes.

kube-scheduler's plugins read such objects from the informer caches of the
``SharedInformerFactory`` their handle gives them (``fh.SharedInformerFactory().
Core().V1().Services().Lister()``...). This project's handle has no informer
factory. :class:`ClientListers` serves the storage kinds the volume plugins
only read — StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities
(:data:`INFORMED_KINDS`) — from an :class:`ObjectTracker` per kind, an
informer without a thread of its own (list once, then watch, drained at each
read), kept on the plugin's handle; every other kind through the handle's
client, so a plugin sees what the API server holds now. With no client (a
unit test without an API server) it sees none at all. NodeVolumeLimits
reads a node's CSINode in Filter, for every node: through the informer that
is a dictionary look-up, not a request per node.

Mirrors the ``Lister`` interfaces of ``k8s.io/client-go/listers`` (``List``,
``Get`` that fails when absent). Simplified: the other kinds are read with a
request each (PersistentVolumes and claims too, which VolumeBinding's PreBind
reads afresh until the PV controller has bound them), so against a live
cluster (``framework.adapter``) each such read is a request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from framework.apiserver.errors import APIError, NotFound
from framework.apiserver.watch import DELETED
from framework.objects import KubeObject
from framework.objects.storage import CSIDriver, CSINode, CSIStorageCapacity, StorageClass

__all__ = ["INFORMED_KINDS", "ClientListers", "ObjectTracker", "listers_of"]

T = TypeVar("T", bound=KubeObject)

INFORMED_KINDS: tuple[type[KubeObject], ...] = (
    StorageClass,
    CSINode,
    CSIDriver,
    CSIStorageCapacity,
)
"""The kinds plugins read from an informer (list, watch) rather than with a request each."""


def _version(obj: KubeObject) -> int:
    try:
        return int(obj.metadata.resource_version or 0)
    except ValueError:
        return 0


class ObjectTracker(Generic[T]):
    """Objects of one kind by key, kept up to date from a watch (an informer's store).

    Each of ``listeners`` is called with (old, new) at every change: old is
    None for an object added, new None for one gone.
    """

    def __init__(
        self, kind: type[T], listeners: Iterable[Callable[[Any, Any], None]] = ()
    ) -> None:
        self.kind = kind
        self._listeners = list(listeners)
        self._lock = threading.RLock()
        self._objects: dict[str, T] = {}
        self._client: Any = None
        self._watch: Any = None
        self.generation = 0
        """Bumped at every change, so what is built from the objects is good while it stands."""

    def refresh(self, client: Any) -> None:
        """Apply what changed since the last read (list first, or again if need be)."""
        if client is None:
            self._replace(None, ())
            return
        with self._lock:
            watch = self._watch if client is self._client else None
            if watch is not None and not watch.stopped:
                for event in watch.drain():
                    self._apply(event.type, event.object)
                if not watch.stopped:
                    return
            self._relist(client)

    def stop(self) -> None:
        """Stop the watch (the scheduler is stopping); a later read lists again."""
        with self._lock:
            if self._watch is not None:
                self._watch.stop()
            self._watch = None
            self._client = None

    def _relist(self, client: Any) -> None:
        listed = client.list(self.kind)
        if self._watch is not None:
            self._watch.stop()
        self._watch = None
        if hasattr(client, "watch"):
            try:
                self._watch = client.watch(self.kind, listed.resource_version)
            except APIError:
                self._watch = None  # listed again at the next read
        self._replace(client, listed.items)

    def _replace(self, client: Any, items: Iterable[T]) -> None:
        with self._lock:
            self._client = client
            fresh = {obj.key: obj for obj in items}
            for key, old in list(self._objects.items()):
                new = fresh.get(key)
                if new is not old:
                    self._set(key, old, new)
            for key, new in fresh.items():
                if key not in self._objects:
                    self._set(key, None, new)

    def _apply(self, change: str, obj: T) -> None:
        key = obj.key
        old = self._objects.get(key)
        if change == DELETED:
            if old is not None:
                self._set(key, old, None)
            return
        if old is not None and _version(old) > _version(obj):
            return  # we wrote a newer one ourselves (assume) than the watch has reached
        self._set(key, old, obj)

    def _set(self, key: str, old: T | None, new: T | None) -> None:
        if new is None:
            self._objects.pop(key, None)
        else:
            self._objects[key] = new
        self.generation += 1
        for listener in self._listeners:
            listener(old, new)

    def assume(self, obj: T) -> None:
        """Take ``obj``, just written by us, before the watch brings it."""
        with self._lock:
            old = self._objects.get(obj.key)
            if old is None or _version(old) <= _version(obj):
                self._set(obj.key, old, obj)

    def get(self, key: str) -> T | None:
        with self._lock:
            return self._objects.get(key)

    def values(self) -> list[T]:
        """The objects, in key order (the order a list returns them)."""
        with self._lock:
            return [self._objects[key] for key in sorted(self._objects)]


class ClientListers:
    """``list`` and ``get`` of any served kind (None client: an empty cluster).

    ``informers`` hold the :data:`INFORMED_KINDS` read from watches; other
    kinds, and all kinds without ``informers``, are read through ``client``.
    """

    __slots__ = ("_client", "_informers")

    def __init__(
        self, client: Any, informers: Mapping[type[Any], ObjectTracker[Any]] | None = None
    ) -> None:
        self._client = client
        self._informers = informers or {}

    def _informer(self, kind: type[T]) -> ObjectTracker[T] | None:
        tracker = self._informers.get(kind)
        if tracker is not None:
            tracker.refresh(self._client)
        return tracker

    def list(self, kind: type[T], namespace: str | None = None) -> tuple[T, ...]:
        """Every object of ``kind`` (in ``namespace``, or all when None), in key order."""
        if self._client is None:
            return ()
        tracker = self._informer(kind)
        if tracker is not None:
            return tuple(
                o
                for o in tracker.values()
                if namespace is None or o.metadata.namespace == namespace
            )
        items: tuple[T, ...] = self._client.list(kind, namespace).items
        return items

    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T | None:
        """The object, or None when it does not exist (the lister's ``NotFound``)."""
        if self._client is None:
            return None
        tracker = self._informer(kind)
        if tracker is not None:
            return tracker.get(f"{namespace}/{name}" if kind.NAMESPACED else name)
        try:
            found: T = self._client.get(kind, name, namespace)
        except NotFound:
            return None
        return found


_INFORMERS_ATTRIBUTE = "_lister_informers"
_INFORMERS_LOCK = threading.Lock()


def listers_of(handle: Any) -> ClientListers:
    """The listers of a plugin's ``handle``: its client's, with the informers kept on the handle.

    Empty ones without a handle. A handle that cannot keep them (no
    attribute may be set on it) reads every kind through its client.
    """
    client = handle.client() if handle is not None and hasattr(handle, "client") else None
    if client is None:
        return ClientListers(None)
    informers = getattr(handle, _INFORMERS_ATTRIBUTE, None)
    if informers is None:
        with _INFORMERS_LOCK:
            informers = getattr(handle, _INFORMERS_ATTRIBUTE, None)
            if informers is None:
                informers = {kind: ObjectTracker(kind) for kind in INFORMED_KINDS}
                try:
                    setattr(handle, _INFORMERS_ATTRIBUTE, informers)
                except (AttributeError, TypeError):  # slots, or frozen
                    informers = {}
    return ClientListers(client, informers)
