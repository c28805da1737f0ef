"""UpdateSnapshot: bring last cycle's snapshot up to date by copying only what changed.

Copying every NodeInfo at the start of every cycle would cost time in
proportion to the cluster, for a cycle that typically follows one or two
changes. So the cache keeps its NodeInfos most-recently-changed first, every
change stamps a NodeInfo with a new generation from one increasing counter,
and the snapshot remembers the newest generation it has copied. An update
walks the cache's NodeInfos from the newest and stops at the first one no
newer than the snapshot: only those before it are copied.

A changed NodeInfo is copied *over* the snapshot's existing object, which
keeps its identity, because the snapshot's lists hold that object and need
not be rebuilt. They are rebuilt only when they must be:

* the node list (in node-tree order) when a node joined or left the
  snapshot;
* the two affinity lists when a node started or stopped running pods with
  affinity, or with required anti-affinity.

NodeInfos without a node (ghosts of removed nodes whose pods are still
cached) are never copied; the snapshot's entries for removed nodes are
dropped once the snapshot holds more nodes than the node tree.

Last, a safety net: if the node list and the node tree disagree on the number
of nodes, every list is rebuilt from scratch and
:class:`~framework.cache.errors.SnapshotInconsistent` is raised (after the
repair), so the current cycle fails rather than trust what it had.

Contract: the caller holds the cache's lock; ``nodes`` iterates newest
first. A node removed and re-added between two updates keeps its old place
in the node list, as in Kubernetes, until the next rebuild.

Mirrors ``UpdateSnapshot``, ``updateNodeInfoSnapshotList`` and
``removeDeletedNodesFromSnapshot`` in
``kubernetes/kubernetes:pkg/scheduler/backend/cache/cache.go`` (v1.33).
Simplified: no used-PVC set to refresh.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from framework.cache.errors import SnapshotInconsistent
from framework.cache.node_tree import NodeTree
from framework.cache.snapshot import Snapshot
from framework.node_info import NodeInfo

__all__ = ["update_snapshot"]

_log = logging.getLogger(__name__)


def update_snapshot(
    snapshot: Snapshot,
    nodes: Mapping[str, NodeInfo],
    tree: NodeTree,
    copy: Callable[[NodeInfo], NodeInfo],
) -> None:
    """Update ``snapshot`` from the cache's ``nodes`` (newest first) and node ``tree``.

    ``copy`` makes the snapshot's copy of a cache NodeInfo.
    """
    update_all_lists = False
    update_affinity = False
    update_anti_affinity = False
    for info in nodes.values():
        if info.generation <= snapshot.generation:
            break  # this one and all after it are already in the snapshot
        if info.node is None:
            continue
        fresh = copy(info)
        existing = snapshot.node_info_map.get(info.node.name)
        if existing is None:
            update_all_lists = True
            snapshot.node_info_map[info.node.name] = fresh
            continue
        if bool(existing.pods_with_affinity) != bool(fresh.pods_with_affinity):
            update_affinity = True
        if bool(existing.pods_with_required_anti_affinity) != bool(
            fresh.pods_with_required_anti_affinity
        ):
            update_anti_affinity = True
        _overwrite(existing, fresh)
        snapshot.note_change(existing)
    if nodes:
        snapshot.generation = next(iter(nodes.values())).generation

    if len(snapshot.node_info_map) > tree.num_nodes:
        _remove_deleted_nodes(snapshot, nodes, tree)
        update_all_lists = True

    if update_all_lists or update_affinity or update_anti_affinity:
        _update_lists(snapshot, tree, update_all_lists)

    if len(snapshot.node_info_list) != tree.num_nodes:
        message = (
            f"snapshot state is not consistent, length of NodeInfoList="
            f"{len(snapshot.node_info_list)} not equal to length of nodes in tree="
            f"{tree.num_nodes} , length of NodeInfoMap={len(snapshot.node_info_map)}, "
            f"length of nodes in cache={len(nodes)}, trying to recover"
        )
        _log.error(message)
        _update_lists(snapshot, tree, update_all=True)
        raise SnapshotInconsistent(message)


def _update_lists(snapshot: Snapshot, tree: NodeTree, update_all: bool) -> None:
    if update_all:
        infos: list[NodeInfo] = []
        for name in tree.list():
            info = snapshot.node_info_map.get(name)
            if info is None:
                _log.error("Node exists in nodeTree but not in NodeInfoMap: node=%s", name)
                continue
            infos.append(info)
        snapshot.node_info_list = infos
    infos = snapshot.node_info_list
    snapshot.have_pods_with_affinity_node_info_list = [i for i in infos if i.pods_with_affinity]
    snapshot.have_pods_with_required_anti_affinity_node_info_list = [
        i for i in infos if i.pods_with_required_anti_affinity
    ]


def _remove_deleted_nodes(
    snapshot: Snapshot, nodes: Mapping[str, NodeInfo], tree: NodeTree
) -> None:
    to_delete = len(snapshot.node_info_map) - tree.num_nodes
    for name in list(snapshot.node_info_map):
        if to_delete <= 0:
            break
        info = nodes.get(name)
        if info is None or info.node is None:
            del snapshot.node_info_map[name]
            to_delete -= 1


def _overwrite(existing: NodeInfo, fresh: NodeInfo) -> None:
    """Make ``existing`` hold ``fresh``'s contents, keeping its identity (Go's ``*existing = *clone``).

    The snapshot's lists hold ``existing``; putting ``fresh`` in the map
    alone would leave them pointing at the stale object.
    """
    for attribute in NodeInfo.__slots__:
        setattr(existing, attribute, getattr(fresh, attribute))
