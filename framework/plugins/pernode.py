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

:class:`PerNodeTotals` goes one step further, for values that are added
up over the nodes (InterPodAffinity's counts and scores): it keeps the
total too, and each cycle takes out the old shares of the nodes that
changed and puts their new ones in, so the cost per unchanged node is one
comparison of generations.

Who uses which: InterPodAffinity keeps its sums in :class:`PerNodeTotals`;
NodeResourcesFit and NodeResourcesBalancedAllocation keep each node's score
in a :class:`PerNodeCache`; PodTopologySpread, which needs each node's part
as well as the sums (in node order), keeps both in its own
:class:`~framework.plugins.podtopologyspread.counts.NodeCountsCache`, which
finds the changed nodes with :func:`changed_positions`.

Not in Kubernetes, which recomputes every node each cycle. Only the
conditions used most recently are kept (:data:`MAX_CONDITIONS`), and a
:class:`PerNodeCache` table that has seen more node names than
:data:`MAX_NODES_PER_CONDITION` (nodes come and go in a long-lived
cluster, and a deleted node's entry would otherwise stay) starts again
empty, so memory stays bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from framework.node_info import NodeInfo

__all__ = [
    "MAX_CONDITIONS",
    "MAX_NODES_PER_CONDITION",
    "PerNodeCache",
    "PerNodeTotals",
    "changed_positions",
]

MAX_CONDITIONS = 8
"""How many conditions a per-node cache remembers values for (each of the three kinds above)."""

MAX_NODES_PER_CONDITION = 50_000
"""How many node names a :class:`PerNodeCache` table holds before it starts again (ten times
the 5,000 nodes Kubernetes supports in one cluster)."""

T = TypeVar("T")
S = TypeVar("S")


# [start-per-node-cache]
class PerNodeCache(Generic[T]):
    """Per condition and per node name: ``(generation, value)``, for the recent conditions."""

    __slots__ = ("_lock", "_max_conditions", "_max_nodes", "_tables")

    def __init__(
        self, max_conditions: int = MAX_CONDITIONS, max_nodes: int = MAX_NODES_PER_CONDITION
    ) -> None:
        self._tables: OrderedDict[Hashable, dict[str, tuple[int, T]]] = OrderedDict()
        self._max_conditions = max_conditions
        self._max_nodes = max_nodes
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
                if len(table) > self._max_nodes:
                    table.clear()  # names of nodes long deleted, most likely: start again
            return table


# [end-per-node-cache]


BLOCK = 64
"""How many positions :func:`changed_positions` compares at once."""


def changed_positions(seen: list[int], now: list[int]) -> list[int]:
    """The positions at which two lists of the same length differ, in order.

    Between two cycles only a few of thousands of nodes change. So the lists
    are compared a block at a time, each block by one list comparison (a
    loop in C that stops at the first difference), and only a block that
    differs is looked at position by position.

    >>> changed_positions([1, 2, 3], [1, 5, 3])
    [1]
    """
    changed: list[int] = []
    for start in range(0, len(now), BLOCK):
        end = start + BLOCK
        if seen[start:end] != now[start:end]:
            for index in range(start, min(end, len(now))):
                if seen[index] != now[index]:
                    changed.append(index)
    return changed


@dataclass(slots=True)
class _Totals(Generic[S, T]):
    """One condition's state: per position in the node list, the generation and share seen; their total."""

    total: T
    generations: list[int]
    shares: list[S | None]


# [start-per-node-totals]
class PerNodeTotals(Generic[S, T]):
    """Per condition: each node's share of a total, by its position in the node list, and the total.

    kube-scheduler computes every node's share (``processNode``) and adds
    the shares up, every cycle. When only a few nodes changed since the last
    cycle, the sum of the unchanged shares is the same as last time, so
    :meth:`total` keeps the sum and, for each node whose generation moved,
    takes its old share out (``remove``) and puts its new one in (``add``).
    That equals adding every share afresh provided ``remove`` exactly undoes
    ``add``: the callers' totals hold counts that are plain sums, and drop
    an entry only when no share holds it any more, as a fresh sum would not
    have it.

    Shares are kept by position, not by node name: a generation comes from
    one global counter, so a different generation at a position means a
    different NodeInfo state there, whichever node it is; the same
    generation means the same state (a snapshot's copy keeps the
    generation of what it copies). A list of another length starts afresh.
    """

    __slots__ = ("_add", "_empty", "_lock", "_max_conditions", "_remove", "_tables")

    def __init__(
        self,
        empty: Callable[[], T],
        add: Callable[[T, S], None],
        remove: Callable[[T, S], None],
        max_conditions: int = MAX_CONDITIONS,
    ) -> None:
        self._empty = empty
        self._add = add
        self._remove = remove
        self._max_conditions = max_conditions
        self._tables: OrderedDict[Hashable, _Totals[S, T]] = OrderedDict()
        self._lock = threading.Lock()

    def total(
        self,
        condition: Hashable,
        node_infos: Sequence[NodeInfo],
        share_of: Callable[[NodeInfo], S | None],
    ) -> T:
        """The total of ``share_of`` over the nodes (None: the node adds nothing); do not change it.

        NodeInfos without a node add nothing, as kube's loops skip them. The
        total returned is the one kept for the next call: copy it before
        changing it.
        """
        generations = [node_info.generation for node_info in node_infos]
        with self._lock:
            table = self._tables.get(condition)
            if table is None or len(table.generations) != len(generations):
                # Generations start at 1, so every position of a fresh table counts as changed.
                table = _Totals(self._empty(), [0] * len(generations), [None] * len(generations))
                self._tables[condition] = table
                if len(self._tables) > self._max_conditions:
                    self._tables.popitem(last=False)  # the least recently used
            else:
                self._tables.move_to_end(condition)
            shares = table.shares
            for index in changed_positions(table.generations, generations):
                node_info = node_infos[index]
                # The new share first: if computing it raises, this position is left as it was.
                share = share_of(node_info) if node_info.node is not None else None
                old = shares[index]
                if old is not None:
                    self._remove(table.total, old)
                if share is not None:
                    self._add(table.total, share)
                shares[index] = share
            table.generations = generations
            return table.total


# [end-per-node-totals]
