"""What DynamicResources keeps of the cluster between cycles: claims, slices, classes.

kube's plugin never lists ResourceClaims per pod. Its DRA manager reads them
from informers, and ``allocatedDevices`` follows the claim informer's events
to keep the set of devices some allocation holds, so PreFilter takes a copy
of that set instead of walking every claim of the cluster. Listing and
sorting five thousand claims for every pod is what made this plugin scale
with the cluster's claims, not its nodes.

:class:`ObjectTracker` is that informer, without a thread of its own: it
lists once, opens a watch from the list's resourceVersion, and on every
read applies what the watch has delivered since (``drain``), so a read sees
every change the API server committed before it (the in-memory server
delivers at commit). A stopped watch (the HTTP client's timeout) is listed
again. A client with no ``watch`` (a test's fake clientset) is listed at
every read. The plugin's own writes are applied at once (:meth:`ObjectTracker.assume`,
kube's ``AssumeClaimAfterAPICall``) and an older event from the watch does
not undo them.

:class:`AllocatedDevices` counts, per device, the claims whose allocation
holds it (admin access holds nothing), from the tracker's changes.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/dynamicresources/``
``allocateddevices.go`` (``allocatedDevices``, ``foreachAllocatedDevice``) and the
listers of ``dra_manager.go`` (read at the index's copy of v1.34-era master,
commit ``030880a``). Simplified: a device held by two claims (only possible
when something else wrote them) stays taken until both let go, where kube's
set forgets it at the first; no consumable capacity (shared devices).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from framework.apiserver.errors import APIError
from framework.apiserver.watch import DELETED
from framework.objects import KubeObject
from framework.objects.resource import ResourceClaim
from framework.plugins.dynamicresources.structured import DeviceID

__all__ = ["AllocatedDevices", "ObjectTracker", "held_devices"]

T = TypeVar("T", bound=KubeObject)


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


def held_devices(claim: ResourceClaim) -> tuple[DeviceID, ...]:
    """The devices the claim's allocation holds for itself (``foreachAllocatedDevice``)."""
    allocation = claim.status.allocation
    if allocation is None:
        return ()
    return tuple(
        DeviceID(result.driver, result.pool, result.device)
        for result in allocation.devices.results
        if not result.admin_access  # admin access shares the device; it is not taken
    )


class AllocatedDevices:
    """How many claims hold each device, from a claim tracker's changes (``allocatedDevices``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders: dict[DeviceID, int] = {}

    def on_change(self, old: ResourceClaim | None, new: ResourceClaim | None) -> None:
        gone = held_devices(old) if old is not None else ()
        came = held_devices(new) if new is not None else ()
        if gone == came:
            return
        with self._lock:
            for device in gone:
                left = self._holders[device] - 1
                if left:
                    self._holders[device] = left
                else:
                    del self._holders[device]
            for device in came:
                self._holders[device] = self._holders.get(device, 0) + 1

    def get(self) -> set[DeviceID]:
        """A copy of the devices held (the caller adds the in-flight ones to it)."""
        with self._lock:
            return set(self._holders)

    def holders(self, device: DeviceID) -> int:
        with self._lock:
            return self._holders.get(device, 0)
