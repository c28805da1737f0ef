"""Snapshot: the nodes as one scheduling cycle sees them, frozen for the length of the cycle.

Events keep changing the cache while a pod is being scheduled; plugins must
not see a node fill up halfway through Filter. So at the start of every
cycle the scheduler brings its one :class:`Snapshot` up to date from the
cache (:meth:`framework.cache.Cache.update_snapshot`) and the plugins read
only the snapshot: the node list in node-tree order (the order Filter walks),
a map from node name to :class:`~framework.node_info.NodeInfo`, and two
shorter lists, the nodes running pods with inter-pod affinity and the nodes
running pods with required anti-affinity, which the InterPodAffinity plugin
walks instead of every node.

Plugins reach it through the framework handle as kube's do:
``handle.snapshot_shared_lister().node_infos().list()`` or ``.get(name)``.
:class:`~framework.interface.SharedLister` and :class:`~framework.interface.NodeInfoLister` name that surface.

Contract: every NodeInfo in a snapshot is the snapshot's own copy, never an
object the cache mutates; plugins must not change them (a plugin that needs a
changed node, like preemption's dry runs, clones one). The lists and map are
valid until the next ``update_snapshot``, which updates changed NodeInfos in
place. :meth:`Snapshot.get` finds only nodes whose ``node`` is set.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/backend/cache/snapshot.go`` and
the ``SharedLister``/``NodeInfoLister`` interfaces of
``pkg/scheduler/framework/listers.go`` (v1.33). Simplified: no
``StorageInfos``/used-PVC set; :func:`new_snapshot` lists nodes in the order
given (Go's map order there is random). Added: :attr:`Snapshot.changes`, a
bounded log of the NodeInfos each update overwrote, so that the batch engine
(:mod:`framework.batch`) updates its arrays row by row instead of comparing
every node's generation each cycle.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence

from framework.cache.errors import NodeInfoNotFound, go_quote
from framework.interface import NodeInfoLister
from framework.node_info import ImageStateSummary, NodeInfo
from framework.objects import Node, Pod
from framework.types import PodInfo

__all__ = ["MAX_CHANGES", "Snapshot", "new_snapshot"]

MAX_CHANGES = 65_536
"""How many overwritten NodeInfos :attr:`Snapshot.changes` keeps before dropping the older half."""


class Snapshot:
    """One cycle's view of the cluster's nodes; see the module docstring.

    ``generation`` is the newest NodeInfo generation copied in: the cache
    copies again only NodeInfos changed after it. A new snapshot is empty
    with generation 0 (``NewEmptySnapshot``).
    """

    __slots__ = (
        "_positions",
        "_positions_len",
        "_positions_of",
        "changes",
        "changes_offset",
        "generation",
        "have_pods_with_affinity_node_info_list",
        "have_pods_with_required_anti_affinity_node_info_list",
        "node_info_list",
        "node_info_map",
    )

    def __init__(self) -> None:
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_info_list: list[NodeInfo] = []
        self.have_pods_with_affinity_node_info_list: list[NodeInfo] = []
        self.have_pods_with_required_anti_affinity_node_info_list: list[NodeInfo] = []
        self.generation = 0
        self._positions: dict[str, int] = {}
        self._positions_of: list[NodeInfo] | None = None  # the list _positions indexes
        self._positions_len = 0
        #: The NodeInfos ``update_snapshot`` overwrote in place, oldest first, for
        #: readers that keep something per node between cycles (the batch engine's
        #: arrays); ``changes_offset`` counts the entries already dropped from the front.
        self.changes: list[NodeInfo] = []
        self.changes_offset = 0

    def note_change(self, info: NodeInfo) -> None:
        """Log that ``info`` (one of this snapshot's NodeInfos) was overwritten in place.

        The log is bounded: past :data:`MAX_CHANGES` entries the older half is
        dropped, and a reader that had not caught up starts again from the
        whole node list.
        """
        self.changes.append(info)
        if len(self.changes) > MAX_CHANGES:
            dropped = len(self.changes) // 2
            del self.changes[:dropped]
            self.changes_offset += dropped

    # A Snapshot is its own SharedLister and NodeInfoLister, as in Kubernetes.
    def node_infos(self) -> NodeInfoLister:
        return self

    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return self.have_pods_with_affinity_node_info_list

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return self.have_pods_with_required_anti_affinity_node_info_list

    def get(self, node_name: str) -> NodeInfo:
        info = self.node_info_map.get(node_name)
        if info is None or info.node is None:
            raise NodeInfoNotFound(f"nodeinfo not found for node name {go_quote(node_name)}")
        return info

    def in_list_order(self, node_names: Iterable[str]) -> builtins.list[NodeInfo]:
        """The named nodes that are in the snapshot, in the order of :meth:`list`.

        Costs per name, not per node in the cluster: a PreFilter that
        narrows a pod to one node of 15,000 (a DaemonSet pod) must not
        walk the 15,000. The positions are indexed once per node list
        (the list object is replaced, never changed in place, when nodes
        join or leave).
        """
        infos = self.node_info_list
        if self._positions_of is not infos or self._positions_len != len(infos):
            self._positions = {info.name: i for i, info in enumerate(infos) if info.node}
            self._positions_of, self._positions_len = infos, len(infos)
        positions = self._positions
        found = sorted(positions[name] for name in node_names if name in positions)
        return [self.node_info_list[i] for i in found]

    def __repr__(self) -> str:
        names = [info.name or "<no node>" for info in self.node_info_list]
        return f"Snapshot(generation={self.generation}, nodes={names})"


def new_snapshot(pods: Iterable[Pod], nodes: Iterable[Node]) -> Snapshot:
    """A snapshot built straight from objects, without a cache: for tests and the simulator.

    Each pod counts on the node its ``spec.nodeName`` names. Image summaries
    count how many of the given nodes hold each image. As in Kubernetes, a
    pod whose node is not among ``nodes`` still gets a NodeInfo, with no
    node: it is in the map and, after the real nodes, in the lists (plugins
    skip NodeInfos without a node), but :meth:`Snapshot.get` does not find it.

    >>> node = Node.from_dict({"metadata": {"name": "n1"}})
    >>> pod = Pod.from_dict({"metadata": {"name": "p", "uid": "u"},
    ...     "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]}})
    >>> snapshot = new_snapshot([pod], [node])
    >>> [p.pod.name for p in snapshot.node_infos().get("n1").pods]
    ['p']

    Mirrors ``NewSnapshot`` and ``createNodeInfoMap`` in ``snapshot.go``.
    """
    nodes = list(nodes)
    infos: dict[str, NodeInfo] = {node.name: NodeInfo() for node in nodes}
    for pod in pods:
        infos.setdefault(pod.spec.node_name, NodeInfo()).add_pod(PodInfo(pod))
    holders = _image_holders(nodes)
    for node in nodes:
        info = infos[node.name]
        info.set_node(node)
        info.image_states = {
            name: ImageStateSummary(image.size_bytes, len(holders[name]))
            for image in node.status.images
            for name in image.names
        }
    snapshot = Snapshot()
    snapshot.node_info_map = infos
    snapshot.node_info_list = list(infos.values())
    snapshot.have_pods_with_affinity_node_info_list = [
        info for info in infos.values() if info.pods_with_affinity
    ]
    snapshot.have_pods_with_required_anti_affinity_node_info_list = [
        info for info in infos.values() if info.pods_with_required_anti_affinity
    ]
    return snapshot


def _image_holders(nodes: Iterable[Node]) -> dict[str, set[str]]:
    """Image name -> the names of the nodes holding it (``createImageExistenceMap``)."""
    holders: dict[str, set[str]] = {}
    for node in nodes:
        for image in node.status.images:
            for name in image.names:
                holders.setdefault(name, set()).add(node.name)
    return holders
