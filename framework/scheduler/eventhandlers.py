"""How the scheduler keeps up with the cluster: watches turned into queue and cache updates.

kube-scheduler runs informers: a list, then a watch, of pods and nodes. Each
change goes to one of two places:

* a pod **without a node** that one of our profiles is responsible for goes
  to the **scheduling queue** (add, update, delete);
* a pod **with a node** (bound by us or anyone) and every **node** go to the
  **cache**, and then, because such a change may make a waiting pod
  schedulable, to the queue as a *cluster event* (``NodeAdd``,
  ``AssignedPodDelete``, a node's label update...).

A pod that is bound changes sides: it leaves the queue's view and enters the
cache's, which confirms the pod the scheduler had assumed there.

:class:`Informer` keeps the last version of each object it saw (the
informer's store), so that an update can be delivered with its old object
and the scheduler can re-read a pod without asking the API server.

Mirrors ``addAllEventHandlers`` and the handlers in
``kubernetes/kubernetes:pkg/scheduler/eventhandlers.go`` (v1.33).
Simplified: only pods and nodes are watched (no volumes, no DRA objects).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from framework.apiserver import ADDED, DELETED, MODIFIED, APIError, WatchEvent
from framework.apiserver.client import Client, WatchInterface
from framework.cache.cache import Cache
from framework.cache.workload_manager import WorkloadManager
from framework.cluster_event import ASSIGNED_POD_DELETE, NODE_ADD, UNSCHEDULED_POD_ADD
from framework.objects import KubeObject, Node, Pod
from framework.queue.events import (
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from framework.queue.interface import SchedulingQueue

__all__ = ["EventHandlers", "Informer"]

T = TypeVar("T", bound=KubeObject)


class Informer(Generic[T]):
    """List once, then watch: keeps a store of the latest objects and calls a handler per change.

    :meth:`sync` applies whatever changes are ready without blocking (the
    simulator and tests drive the scheduler this way, deterministically);
    :meth:`run` follows the watch on a thread until stopped.

    It recovers as a reflector does. A watch the server ends is opened
    again from the last resourceVersion delivered, so nothing is missed or
    repeated; if that version has expired (``410``), or the watch cannot be
    opened, it lists afresh and turns the difference into changes: an
    object listed and not stored is added, one stored at another version
    is modified, one stored and not listed is deleted (Go's
    ``DeletedFinalStateUnknown``). ``rewatches`` and ``relists`` count both.
    (Go's informer also calls its update handler for listed objects that did
    not change; the scheduler's handlers ignore those, so they are left out.)

    Mirrors ``Reflector.ListAndWatch`` and ``watchHandler`` in
    ``k8s.io/client-go/tools/cache/reflector.go`` and the ``Replace`` of
    ``delta_fifo.go``. Simplified: a failed list is retried at the next
    :meth:`sync` (or after a tenth of a second in :meth:`run`), without
    exponential backoff.
    """

    def __init__(
        self,
        api: Client,
        kind: type[T],
        handler: Callable[[str, T | None, T | None], None],
        *,
        field_selector: str | None = None,
    ) -> None:
        self.api = api
        self.kind = kind
        self.handler = handler
        #: Sent with every list and watch. Objects outside it are never seen, and
        #: one that leaves it arrives as a deletion (the API server's watch does that).
        self.field_selector = field_selector
        self.store: dict[str, T] = {}
        self._lock = threading.Lock()
        self._watch: WatchInterface | None = None
        self._stopped = threading.Event()
        #: The resourceVersion of the last change applied (``LastSyncResourceVersion``).
        self.resource_version = ""
        #: How many times the watch was opened again from ``resource_version``.
        self.rewatches = 0
        #: How many times the informer listed afresh after the first list.
        self.relists = 0

    def get(self, key: str) -> T | None:
        with self._lock:
            return self.store.get(key)

    def list(self) -> list[T]:
        """Every object in the store (the lister's ``List``, before any selector)."""
        with self._lock:
            return list(self.store.values())

    def start(self) -> None:
        """List the current objects (each delivered as an add) and open the watch after them."""
        self._list_and_watch()

    def sync(self) -> int:
        """Apply every change that is ready now; return how many there were."""
        changes = self._reconnect_if_needed()
        if self._watch is None:
            return changes
        events = self._watch.drain()
        for event in events:
            self._deliver(event)
        if self._watch.stopped and not self._stopped.is_set():
            changes += self._reconnect_if_needed()  # ended meanwhile: catch up at once
        return changes + len(events)

    def run(self) -> None:
        """Follow the watch until :meth:`stop` (meant for a thread)."""
        while not self._stopped.is_set():
            self._reconnect_if_needed()
            if self._watch is None:
                self._stopped.wait(0.1)  # the server refused; try again shortly
                continue
            event = self._watch.next(timeout=0.1)
            if event is not None:
                self._deliver(event)

    def _reconnect_if_needed(self) -> int:
        """Open the watch again if it is not open; return how many changes a relist applied."""
        if self._stopped.is_set():
            return 0
        if self._watch is None:
            return self._list_and_watch()
        if not self._watch.stopped:
            return 0
        try:
            self._watch = self.api.watch(
                self.kind,
                resource_version=self.resource_version,
                field_selector=self.field_selector,
            )
            self.rewatches += 1
            return 0
        except APIError:  # 410 Expired, or any other refusal: start again from a list
            self._watch = None
            self.relists += 1
            return self._list_and_watch()

    def _list_and_watch(self) -> int:
        """List, apply the difference from the store, and watch from the list's version."""
        try:
            listed = self.api.list(self.kind, field_selector=self.field_selector)
        except APIError:
            if not self.store and not self.resource_version:
                raise  # the very first list: the caller must know the informer has nothing
            self._watch = None
            return 0
        changes = self._replace(listed.items)
        self.resource_version = listed.resource_version
        try:
            self._watch = self.api.watch(
                self.kind,
                resource_version=listed.resource_version,
                field_selector=self.field_selector,
            )
        except APIError:
            self._watch = None
        return changes

    def _replace(self, items: tuple[T, ...]) -> int:
        """Make the store what was listed, calling the handler for each difference."""
        with self._lock:
            before = dict(self.store)
        listed = {obj.key for obj in items}
        changes = 0
        for obj in items:
            old = before.get(obj.key)
            if old is None or old.metadata.resource_version != obj.metadata.resource_version:
                self._apply(ADDED if old is None else MODIFIED, obj)
                changes += 1
        for key, old in before.items():
            if key not in listed:
                self._apply(DELETED, old)
                changes += 1
        return changes

    def stop(self) -> None:
        self._stopped.set()
        if self._watch is not None:
            self._watch.stop()

    def _deliver(self, event: WatchEvent) -> None:
        if event.type in (ADDED, MODIFIED, DELETED):
            self._apply(event.type, event.object)  # type: ignore[arg-type]
        self.resource_version = event.resource_version

    def _apply(self, change: str, obj: T) -> None:
        key = obj.key
        with self._lock:
            old = self.store.get(key)
            if change == DELETED:
                self.store.pop(key, None)
            else:
                self.store[key] = obj
        if change == DELETED:
            self.handler(DELETED, old or obj, None)
        elif old is None:
            self.handler(ADDED, None, obj)
        else:
            self.handler(MODIFIED, old, obj)


class EventHandlers:
    """Routes pod and node changes to the queue and the cache, as kube-scheduler's handlers do."""

    def __init__(
        self,
        *,
        queue: SchedulingQueue,
        cache: Cache,
        responsible: Callable[[Pod], bool],
        on_pod_deleted: Callable[[Pod], None],
        gang_scheduling: bool = False,
        sync_with_dispatcher: Callable[[Pod], object] | None = None,
        workload_manager: WorkloadManager | None = None,
    ) -> None:
        self.queue = queue
        #: With SchedulerAsyncAPICalls, a pod update is first synced with the call pending for
        #: the pod (which drops a call the update made pointless); Go discards the synced pod.
        self.sync_with_dispatcher = sync_with_dispatcher
        #: Told of every pod change before the cache and the queue are, as Go's handlers do.
        self.workload_manager = workload_manager
        #: v1.35+ ``addPodToSchedulingQueue``: with GangScheduling on, a new unscheduled pod is
        #: an event too, so that the siblings PreEnqueue held back look again.
        self.gang_scheduling = gang_scheduling
        self.cache = cache
        self.responsible = responsible
        self.on_pod_deleted = on_pod_deleted

    # --- nodes ----------------------------------------------------------------------------------

    def on_node(self, change: str, old: Node | None, new: Node | None) -> None:
        if change == ADDED and new is not None:
            self.cache.add_node(new)
            self.queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, new, None)
        elif change == MODIFIED and old is not None and new is not None:
            self.cache.update_node(old, new)
            for event in node_scheduling_properties_change(new, old):
                self.queue.move_all_to_active_or_backoff_queue(event, old, new, None)
        elif change == DELETED and old is not None:
            self.cache.remove_node(old)

    # --- pods -------------------------------------------------------------------------------------

    def on_pod(self, change: str, old: Pod | None, new: Pod | None) -> None:
        if self.workload_manager is not None:
            # First, so that PreEnqueue, run as the pod is queued below, counts it.
            if old is None and new is not None:
                self.workload_manager.add_pod(new)
            elif old is not None and new is not None:
                self.workload_manager.update_pod(old, new)
            elif old is not None:
                self.workload_manager.delete_pod(old)
        was_assigned = old is not None and bool(old.spec.node_name)
        is_assigned = new is not None and bool(new.spec.node_name)
        if old is not None and not was_assigned and (new is None or is_assigned):
            self._unscheduled_pod_deleted(old, bound=is_assigned)
        if new is not None and is_assigned and not was_assigned:
            self._assigned_pod_added(new)
        elif new is not None and is_assigned and old is not None:
            self._assigned_pod_updated(old, new)
        elif old is not None and was_assigned and new is None:
            self._assigned_pod_deleted(old)
        elif new is not None and not is_assigned:
            if old is None:
                self._unscheduled_pod_added(new)
            else:
                self._unscheduled_pod_updated(old, new)

    def _unscheduled_pod_added(self, pod: Pod) -> None:
        if self.responsible(pod):
            self.queue.add(pod)
            if self.gang_scheduling:
                self.queue.move_all_to_active_or_backoff_queue(
                    UNSCHEDULED_POD_ADD, None, pod, None
                )

    def _unscheduled_pod_updated(self, old: Pod, new: Pod) -> None:
        if not self.responsible(new):
            return
        if old.metadata.resource_version == new.metadata.resource_version:
            return
        if self.sync_with_dispatcher is not None:
            self.sync_with_dispatcher(new)
        if self.cache.is_assumed_pod(new):
            return  # already on its way to a node; an update must not requeue it
        self.queue.update(old, new)

    def _unscheduled_pod_deleted(self, pod: Pod, *, bound: bool) -> None:
        if not self.responsible(pod):
            return
        self.queue.delete(pod)
        if not bound:
            self.on_pod_deleted(pod)

    def _assigned_pod_added(self, pod: Pod) -> None:
        self.cache.add_pod(pod)
        self.queue.assigned_pod_added(pod)

    def _assigned_pod_updated(self, old: Pod, new: Pod) -> None:
        if self.sync_with_dispatcher is not None:
            self.sync_with_dispatcher(new)
        self.cache.update_pod(old, new)
        for event in pod_scheduling_properties_change(new, old):
            self.queue.assigned_pod_updated(old, new, event)

    def _assigned_pod_deleted(self, pod: Pod) -> None:
        self.cache.remove_pod(pod)
        self.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, pod, None, None)
