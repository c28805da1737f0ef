"""Cache: the scheduler's own running account of every node and the pods bound or assumed on it.

The scheduler learns about the cluster only from watches, and it must not
wait for the API server to learn about its own decisions. So it keeps a
cache: one :class:`~framework.node_info.NodeInfo` per node, fed by node and
pod events, plus the pods it has *assumed*, that is, placed on a node at the
end of a scheduling cycle before the binding has gone through. An assumed
pod counts on its node at once, so the next cycle (which starts while the
binding is still in flight) sees the node as fuller.

A pod in the cache goes through these states (Kubernetes draws the same
diagram in ``interface.go``)::

    (not cached) --assume_pod--> assumed --add_pod--> added --remove_pod--> (not cached)
         ^                          |                   ^  |
         +--forget_pod (or expiry)--+                   +--+ update_pod
    (not cached) --------------------add_pod----------->  added

``add_pod`` is the bound pod arriving from the watch: for an assumed pod it
is the confirmation (the real pod replaces the assumed copy, on the node the
API server names); for a pod the scheduler never assumed (bound by someone
else, or seen after a restart) it is a plain add. ``forget_pod`` undoes an
assumption when Reserve, Permit or the binding fails.

Pods are keyed by UID, never by name: a pod deleted and re-created under the
same name is a different pod. A node removed while pods are still cached on
it keeps a "ghost" NodeInfo (``node`` is None) until its last pod goes, since
pod deletions arrive on a different watch and may come later; ghosts never
appear in a snapshot.

Expiry. kube-scheduler used to drop an assumed pod whose binding had
finished but whose bound version had not arrived from the watch within
30 s. Under load the watch can lag longer than that, and the scheduler
then forgot pods that were in fact running and overcommitted their nodes
(kubernetes/kubernetes#106361): the TTL went to 15 minutes (#106412), then
to 0 (``durationToExpireAssumedPod``), meaning never, which is what v1.33
does; the mechanism was later removed altogether (#136204). Our default,
``ttl_seconds=None``, matches v1.33. Give a TTL to study the old
behaviour, and call :meth:`Cache.cleanup_assumed_pods` periodically (kube
did every :data:`CLEAN_ASSUMED_PERIOD` second; the scheduler's ``run`` does
too, on its clock, and ``schedule_pending`` once per loop, both given
``assumed_pod_ttl_seconds``). The deadline counts from
:meth:`Cache.finish_binding`, on the injected clock; a pod whose binding is
still running never expires.

Contract: every public method is thread-safe (one lock). Methods raise
:class:`~framework.cache.errors.CacheError` with Kubernetes' message when an
event does not fit the pod's state, and
:class:`~framework.cache.errors.CacheCorrupted` where kube-scheduler would
exit. NodeInfos handed out (``add_node``, ``dump``, snapshots) are copies.

Mirrors ``cacheImpl`` in ``kubernetes/kubernetes:pkg/scheduler/backend/cache/cache.go``
and the ``Cache`` interface in ``interface.go`` (v1.33). Simplified: one
plain lock instead of a read-write mutex; no metrics; no background
goroutine (the caller drives :meth:`Cache.cleanup_assumed_pods`); no PVC
reference counts in the snapshot.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from framework.cache.errors import CacheCorrupted, CacheError
from framework.cache.images import ImageStates
from framework.cache.node_tree import NodeTree
from framework.cache.snapshot import Snapshot
from framework.cache.update_snapshot import update_snapshot
from framework.clock import Clock, RealClock
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.copying import replace
from framework.objects.resources import ResourceGates, same_request_inputs
from framework.types import PodInfo

__all__ = ["CLEAN_ASSUMED_PERIOD", "Cache", "Dump", "get_pod_key"]

#: How often kube-scheduler looks for expired assumed pods (``cleanAssumedPeriod``), in seconds.
CLEAN_ASSUMED_PERIOD = 1.0

_log = logging.getLogger(__name__)


def get_pod_key(pod: Pod) -> str:
    """The pod's key in the cache: its UID (``framework.GetPodKey``)."""
    if not pod.metadata.uid:
        raise CacheError("cannot get cache key for pod with empty UID")
    return pod.metadata.uid


@dataclass(slots=True)
class _PodState:
    pod: Pod
    # The PodInfo the pod's node holds, so that an update finds what was derived from it.
    info: PodInfo | None = None
    # Set by finish_binding when a TTL is configured; None means "never expires".
    deadline: float | None = None
    binding_finished: bool = False


@dataclass(frozen=True, slots=True)
class Dump:
    """A copy of the cache for debugging and the simulator: every NodeInfo, and the assumed pods' UIDs.

    ``nodes`` includes ghost NodeInfos (removed nodes with pods left).
    """

    nodes: Mapping[str, NodeInfo]
    assumed_pods: frozenset[str]


class Cache:
    """Nodes and their pods, assumed pods included; see the module docstring for the life cycle."""

    def __init__(
        self,
        ttl_seconds: float | None = None,
        clock: Clock | None = None,
        resource_gates: ResourceGates | None = None,
    ) -> None:
        # How pods' requests count on their nodes (PodLevelResources, InPlacePodVerticalScaling).
        self._resource_gates = resource_gates if resource_gates is not None else ResourceGates()
        self._ttl = ttl_seconds or None  # 0 means "never", as in Kubernetes
        self._clock: Clock = clock if clock is not None else RealClock()
        self._lock = threading.Lock()
        self._assumed_pods: set[str] = set()
        self._pod_states: dict[str, _PodState] = {}
        # kube keeps a name -> item map plus a doubly linked list, most recently
        # updated first. An OrderedDict is exactly that pair, and move_to_end(last=False)
        # is moveNodeInfoToHead. Since generations come from one increasing counter,
        # the order is also by generation, newest first, which update_snapshot relies on.
        self._nodes: OrderedDict[str, NodeInfo] = OrderedDict()
        self._node_tree = NodeTree()
        self._images = ImageStates()

    # --- pods -------------------------------------------------------------------------

    def assume_pod(self, pod_info: PodInfo) -> None:
        """Count a pod on ``pod_info.pod.spec.nodeName`` before its binding is confirmed.

        The caller sets the node name. Raises CacheError if the pod (by UID)
        is already cached, assumed or added.
        """
        pod = pod_info.pod
        key = get_pod_key(pod)
        with self._lock:
            if key in self._pod_states:
                raise CacheError(f"pod {key}({pod.key}) is in the cache, so can't be assumed")
            # A copy, so that a caller updating its PodInfo later cannot change our totals.
            self._add_pod(replace(pod_info), assumed=True)

    def finish_binding(self, pod: Pod) -> None:
        """Mark an assumed pod's binding as done; with a TTL, its expiry clock starts now."""
        key = get_pod_key(pod)
        with self._lock:
            state = self._pod_states.get(key)
            if state is not None and key in self._assumed_pods:
                state.deadline = None if self._ttl is None else self._clock.now() + self._ttl
                state.binding_finished = True

    def forget_pod(self, pod: Pod) -> None:
        """Undo :meth:`assume_pod` (Reserve, Permit or binding failed).

        Raises CacheError if the pod is cached on another node than ``pod``
        names, or is not assumed.
        """
        key = get_pod_key(pod)
        with self._lock:
            state = self._pod_states.get(key)
            if state is not None and state.pod.spec.node_name != pod.spec.node_name:
                # Kubernetes' wording, argument order included: the pod's node first.
                raise CacheError(
                    f"pod {key}({pod.key}) was assumed on {pod.spec.node_name} "
                    f"but assigned to {state.pod.spec.node_name}"
                )
            if state is None or key not in self._assumed_pods:
                raise CacheError(f"pod {key}({pod.key}) wasn't assumed so cannot be forgotten")
            self._remove_pod(pod)

    def add_pod(self, pod: Pod) -> None:
        """A bound pod arrived from the watch: confirm it if assumed, else add it.

        A confirmed pod replaces the assumed copy, on the node the API server
        says (which may differ from the assumed one). Raises CacheError if the
        pod was already added.
        """
        key = get_pod_key(pod)
        with self._lock:
            state = self._pod_states.get(key)
            if state is not None and key in self._assumed_pods:
                try:
                    self._update_pod(state.pod, pod)
                except CacheError:
                    _log.exception("Error occurred while updating pod %s", pod.key)
                if state.pod.spec.node_name != pod.spec.node_name:
                    _log.info(
                        "Pod was added to a different node than it was assumed: pod=%s "
                        "assumedNode=%s currentNode=%s",
                        pod.key,
                        state.pod.spec.node_name,
                        pod.spec.node_name,
                    )
            elif state is None:
                # Never assumed by us (or expired): count it now.
                self._add_pod(PodInfo(pod), assumed=False)
            else:
                raise CacheError(f"pod {key}({pod.key}) was already in added state")

    def update_pod(self, old: Pod, new: Pod) -> None:
        """Replace an added pod's old version with the new one, on the same node.

        Raises CacheError if the pod is not cached or only assumed (an
        assumed pod must be confirmed by :meth:`add_pod` first), and
        CacheCorrupted if the new version names another node.
        """
        key = get_pod_key(old)
        with self._lock:
            state = self._pod_states.get(key)
            if state is None:
                raise CacheError(
                    f"pod {key}({old.key}) is not added to scheduler cache, so cannot be updated"
                )
            if key in self._assumed_pods:
                raise CacheError(f"assumed pod {key}({old.key}) should not be updated")
            if state.pod.spec.node_name != new.spec.node_name:
                message = (
                    "Pod updated on a different node than previously added to. Scheduler cache "
                    "is corrupted and can badly affect scheduling decisions"
                )
                _log.error("%s: pod=%s", message, old.key)
                raise CacheCorrupted(message)
            self._update_pod(old, new)

    def remove_pod(self, pod: Pod) -> None:
        """Remove a cached pod (deleted, or gone from the watch); its requests leave its node.

        Raises CacheError if the pod is not cached, and CacheCorrupted if it
        is cached on another node than ``pod`` names. An empty node name is
        tolerated: that is a deletion whose last known state was unbound.
        """
        key = get_pod_key(pod)
        with self._lock:
            state = self._pod_states.get(key)
            if state is None:
                raise CacheError(
                    f"pod {key}({pod.key}) is not found in scheduler cache, "
                    "so cannot be removed from it"
                )
            if state.pod.spec.node_name != pod.spec.node_name:
                _log.error(
                    "Pod was added to a different node than it was assumed: pod=%s "
                    "assumedNode=%s currentNode=%s",
                    pod.key,
                    pod.spec.node_name,
                    state.pod.spec.node_name,
                )
                if pod.spec.node_name:
                    raise CacheCorrupted(
                        "Scheduler cache is corrupted and can badly affect scheduling decisions"
                    )
            self._remove_pod(state.pod)

    def is_assumed_pod(self, pod: Pod) -> bool:
        key = get_pod_key(pod)
        with self._lock:
            return key in self._assumed_pods

    def get_pod(self, pod: Pod) -> Pod:
        """The cached version of the pod with ``pod``'s UID (its node may be gone already)."""
        key = get_pod_key(pod)
        with self._lock:
            state = self._pod_states.get(key)
            if state is None:
                raise CacheError(f"pod {key}({pod.key}) does not exist in scheduler cache")
            return state.pod

    def cleanup_assumed_pods(self, now: float | None = None) -> list[Pod]:
        """Drop the assumed pods whose binding finished more than the TTL ago; return them.

        Does nothing without a TTL. ``now`` defaults to the injected clock.
        """
        if now is None:
            now = self._clock.now()
        expired: list[Pod] = []
        with self._lock:
            if self._ttl is None:
                return expired
            for key in list(self._assumed_pods):
                state = self._pod_states[key]
                if not state.binding_finished:
                    continue  # the binding may still succeed; expiring now would undercount
                if state.deadline is not None and now > state.deadline:
                    _log.info("Pod expired: pod=%s", state.pod.key)
                    try:
                        self._remove_pod(state.pod)
                    except CacheError:
                        _log.exception("ExpirePod failed: pod=%s", state.pod.key)
                        continue
                    expired.append(state.pod)
        return expired

    # --- nodes ------------------------------------------------------------------------

    def add_node(self, node: Node) -> NodeInfo:
        """Add a node (or refresh it); return a copy of its NodeInfo."""
        with self._lock:
            info = self._nodes.get(node.name)
            if info is None:
                info = self._nodes[node.name] = NodeInfo(resource_gates=self._resource_gates)
            else:
                self._images.remove_node(info.node)
            self._move_to_head(node.name)
            self._node_tree.add_node(node)
            info.image_states = self._images.add_node(node)
            info.set_node(node)
            return self._copy(info)

    def update_node(self, old: Node, new: Node) -> NodeInfo:
        """Replace a node's object (labels, allocatable, images...); return a copy of its NodeInfo."""
        with self._lock:
            info = self._nodes.get(new.name)
            if info is None:
                info = self._nodes[new.name] = NodeInfo(resource_gates=self._resource_gates)
                self._node_tree.add_node(new)
            else:
                self._images.remove_node(info.node)
            self._move_to_head(new.name)
            self._node_tree.update_node(old, new)
            info.image_states = self._images.add_node(new)
            info.set_node(new)
            return self._copy(info)

    def remove_node(self, node: Node) -> None:
        """Remove a node; its NodeInfo stays, without a node, while pods are still cached on it.

        Raises CacheError if the node is unknown (``node <name> is not found``)
        or, as in Kubernetes after the removal is done, if it was not in the
        node tree under its zone.
        """
        with self._lock:
            info = self._nodes.get(node.name)
            if info is None:
                raise CacheError(f"node {node.name} is not found")
            info.remove_node()
            # Pod deletions come on another watch and may arrive after the node's.
            if info.pods:
                self._move_to_head(node.name)
            else:
                del self._nodes[node.name]
            self._node_tree.remove_node(node)
            self._images.remove_node(node)

    # --- counts and copies --------------------------------------------------------------

    def node_count(self) -> int:
        """How many NodeInfos the cache holds, ghosts included (kube: tests only)."""
        with self._lock:
            return len(self._nodes)

    def pod_count(self) -> int:
        """How many pods the cache counts on nodes, assumed ones and those on ghosts included."""
        with self._lock:
            return sum(len(info.pods) for info in self._nodes.values())

    def dump(self) -> Dump:
        with self._lock:
            return Dump(
                nodes={name: self._copy(info) for name, info in self._nodes.items()},
                assumed_pods=frozenset(self._assumed_pods),
            )

    # --- the snapshot -------------------------------------------------------------------

    def update_snapshot(self, snapshot: Snapshot) -> None:
        """Bring ``snapshot`` up to date, copying only the NodeInfos changed since its generation.

        Raises SnapshotInconsistent, after repairing the snapshot, if its node
        list had drifted from the node tree; see
        :mod:`framework.cache.update_snapshot`.
        """
        with self._lock:
            update_snapshot(snapshot, self._nodes, self._node_tree, self._copy)

    # --- helpers (the lock is held) -------------------------------------------------------

    def _move_to_head(self, name: str) -> None:
        self._nodes.move_to_end(name, last=False)

    def _add_pod(self, pod_info: PodInfo, assumed: bool) -> None:
        pod = pod_info.pod
        name = pod.spec.node_name
        info = self._nodes.get(name)
        if info is None:
            # A pod may arrive before its node: it waits on a NodeInfo without a node.
            info = self._nodes[name] = NodeInfo(resource_gates=self._resource_gates)
        info.add_pod(pod_info)
        self._move_to_head(name)
        key = get_pod_key(pod)
        self._pod_states[key] = _PodState(pod, pod_info)
        if assumed:
            self._assumed_pods.add(key)

    def _update_pod(self, old: Pod, new: Pod) -> None:
        state = self._pod_states.get(get_pod_key(old))
        previous = state.info if state is not None else None
        self._remove_pod(old)
        info = PodInfo(new)
        if previous is not None and same_request_inputs(previous.pod, new):
            # The bound pod confirming an assumed one asks for what the assumed one did: its
            # requests, computed at assume time, are not computed again.
            info.cached_resource, info.cached_for = previous.cached_resource, previous.cached_for
        self._add_pod(info, assumed=False)

    def _remove_pod(self, pod: Pod) -> None:
        key = get_pod_key(pod)
        name = pod.spec.node_name
        info = self._nodes.get(name)
        if info is None:
            _log.error("Node not found when trying to remove pod: node=%s pod=%s", name, pod.key)
        else:
            if not info.remove_pod(pod):
                raise CacheError(f"no corresponding pod {pod.name} in pods of node {name}")
            if not info.pods and info.node is None:
                del self._nodes[name]  # the last pod of a removed node: the ghost goes
            else:
                self._move_to_head(name)
        del self._pod_states[key]
        self._assumed_pods.discard(key)

    def _copy(self, info: NodeInfo) -> NodeInfo:
        """A clone, with its image summaries recounted (``NodeInfo.Snapshot`` in Kubernetes)."""
        copy = info.clone()
        copy.image_states = self._images.recount(info.image_states)
        return copy
