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
from typing import Any, Generic, TypeVar

from framework.apiserver import ADDED, DELETED, MODIFIED, APIServer, Watch, WatchEvent
from framework.cluster_event import ASSIGNED_POD_DELETE, NODE_ADD
from framework.objects import KubeObject, Node, Pod
from framework.queue.events import (
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)

__all__ = ["EventHandlers", "Informer"]

T = TypeVar("T", bound=KubeObject)


class Informer(Generic[T]):
    """List once, then watch: keeps a store of the latest objects and calls a handler per change.

    :meth:`sync` applies whatever changes are ready without blocking (the
    simulator and tests drive the scheduler this way, deterministically);
    :meth:`run` follows the watch on a thread until stopped. A watch cannot
    expire here: the in-memory watch queues every change for its watcher (a
    real reflector relists after 410 Gone).
    """

    def __init__(
        self,
        api: APIServer,
        kind: type[T],
        handler: Callable[[str, T | None, T | None], None],
    ) -> None:
        self.api = api
        self.kind = kind
        self.handler = handler
        self.store: dict[str, T] = {}
        self._lock = threading.Lock()
        self._watch: Watch | None = None
        self._stopped = threading.Event()

    def get(self, key: str) -> T | None:
        with self._lock:
            return self.store.get(key)

    def start(self) -> None:
        """List the current objects (each delivered as an add) and open the watch after them."""
        listed = self.api.list(self.kind)
        for obj in listed.items:
            self._apply(ADDED, obj)
        self._watch = self.api.watch(self.kind, resource_version=listed.resource_version)

    def sync(self) -> int:
        """Apply every change that is ready now; return how many there were."""
        if self._watch is None:
            self.start()
        assert self._watch is not None
        events = self._watch.drain()
        for event in events:
            self._deliver(event)
        return len(events)

    def run(self) -> None:
        """Follow the watch until :meth:`stop` (meant for a thread)."""
        if self._watch is None:
            self.start()
        while not self._stopped.is_set():
            assert self._watch is not None
            event = self._watch.next(timeout=0.1)
            if event is not None:
                self._deliver(event)

    def stop(self) -> None:
        self._stopped.set()
        if self._watch is not None:
            self._watch.stop()

    def _deliver(self, event: WatchEvent) -> None:
        if event.type not in (ADDED, MODIFIED, DELETED):
            return
        self._apply(event.type, event.object)  # type: ignore[arg-type]

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
        queue: Any,
        cache: Any,
        responsible: Callable[[Pod], bool],
        on_pod_deleted: Callable[[Pod], None],
    ) -> None:
        self.queue = queue
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

    def _unscheduled_pod_updated(self, old: Pod, new: Pod) -> None:
        if not self.responsible(new):
            return
        if old.metadata.resource_version == new.metadata.resource_version:
            return
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
        self.cache.update_pod(old, new)
        for event in pod_scheduling_properties_change(new, old):
            self.queue.assigned_pod_updated(old, new, event)

    def _assigned_pod_deleted(self, pod: Pod) -> None:
        self.cache.remove_pod(pod)
        self.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, pod, None, None)
