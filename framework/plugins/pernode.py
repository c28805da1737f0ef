"""What a plugin computes from one node's pods, remembered across cycles until the node changes.

PodTopologySpread's PreFilter counts the pods a selector matches on *every*
node of the cluster, every cycle; InterPodAffinity's PreFilter and PreScore
walk every existing pod the same way. kube-scheduler spreads those loops
over 16 goroutines. In CPython they were most of those plugins' time, and
mostly wasted: between two cycles only the nodes that gained or lost a pod
(or were relabelled) give a different answer.

A :class:`~framework.node_info.NodeInfo` says when it changed: its
``generation`` takes a new value from one global counter whenever its node
or its pods change, and a clone keeps the generation of what it copies.
The cache relies on exactly that to copy only the changed NodeInfos into
the snapshot (``UpdateSnapshot``). So :class:`PerNodeCache` keeps, per
*condition* (whatever the value depends on besides the node: a selector
and a namespace, say) and per node, the value together with the generation
it was computed at, and computes a node's value again only when its
generation has moved. A value is reused only for the very same NodeInfo
state, so the results are those of computing afresh, provided the value
depends on nothing but the NodeInfo and the condition.

>>> from framework.objects import Node, Pod
>>> from framework.types import PodInfo
>>> node_info = NodeInfo(Pod.from_dict({"metadata": {"name": "a", "labels": {"app": "web"}}}))
>>> node_info.set_node(Node.from_dict({"metadata": {"name": "n1"}}))
>>> calls = []
>>> def count(info):
...     calls.append(info.name)
...     return len(info.pods)
>>> counted = PerNodeCache[int]().per_node(("app=web", "default"), count)
>>> counted(node_info), counted(node_info), calls
(1, 1, ['n1'])
>>> node_info.add_pod(PodInfo(Pod.from_dict({"metadata": {"name": "b"}})))
>>> counted(node_info), calls
(2, ['n1', 'n1'])

Not in Kubernetes, which recomputes every node each cycle. Only the
conditions used most recently are kept (:data:`MAX_CONDITIONS`), so
memory stays bounded by the nodes times that number.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from framework.node_info import NodeInfo

__all__ = ["MAX_CONDITIONS", "PerNodeCache"]

MAX_CONDITIONS = 8
"""How many conditions a :class:`PerNodeCache` remembers values for."""

T = TypeVar("T")


# [start-per-node-cache]
class PerNodeCache(Generic[T]):
    """Per condition and per node name: ``(generation, value)``, for the recent conditions."""

    __slots__ = ("_lock", "_max_conditions", "_tables")

    def __init__(self, max_conditions: int = MAX_CONDITIONS) -> None:
        self._tables: OrderedDict[Hashable, dict[str, tuple[int, T]]] = OrderedDict()
        self._max_conditions = max_conditions
        self._lock = threading.Lock()

    def per_node(
        self, condition: Hashable, compute: Callable[[NodeInfo], T]
    ) -> Callable[[NodeInfo], T]:
        """``compute``, reusing a node's last value for ``condition`` while its generation is the same."""
        table = self._table(condition)

        def cached(node_info: NodeInfo) -> T:
            name = node_info.name
            generation = node_info.generation
            seen = table.get(name)
            if seen is not None and seen[0] == generation:
                return seen[1]
            value = compute(node_info)
            table[name] = (generation, value)
            return value

        return cached

    def _table(self, condition: Hashable) -> dict[str, tuple[int, T]]:
        with self._lock:
            table = self._tables.get(condition)
            if table is None:
                table = self._tables[condition] = {}
                if len(self._tables) > self._max_conditions:
                    self._tables.popitem(last=False)  # the least recently used
            else:
                self._tables.move_to_end(condition)
            return table


# [end-per-node-cache]
