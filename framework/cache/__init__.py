"""The scheduler cache, its node tree and the per-cycle snapshot.

>>> from framework.cache import Cache, Snapshot
>>> from framework.objects import Node
>>> cache = Cache()
>>> _ = cache.add_node(Node.from_dict({"metadata": {"name": "n1"}}))
>>> snapshot = Snapshot()
>>> cache.update_snapshot(snapshot)
>>> [info.name for info in snapshot.node_infos().list()]
['n1']

Mirrors ``kubernetes/kubernetes:pkg/scheduler/backend/cache`` (v1.33).
"""

from framework.cache.cache import CLEAN_ASSUMED_PERIOD, Cache, Dump, get_pod_key
from framework.cache.errors import (
    CacheCorrupted,
    CacheError,
    NodeInfoNotFound,
    SnapshotInconsistent,
)
from framework.cache.node_tree import NodeTree, get_zone_key
from framework.cache.snapshot import Snapshot, new_snapshot

__all__ = [
    "CLEAN_ASSUMED_PERIOD",
    "Cache",
    "CacheCorrupted",
    "CacheError",
    "Dump",
    "NodeInfoNotFound",
    "NodeTree",
    "Snapshot",
    "SnapshotInconsistent",
    "get_pod_key",
    "get_zone_key",
    "new_snapshot",
]
