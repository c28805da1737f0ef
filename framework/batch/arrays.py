"""The snapshot's nodes as columns: one numpy array per quantity, one row per node.

The reference engine asks each NodeInfo, one at a time, what it has. The
batch engine asks the whole cluster at once, so it keeps the numbers the
default plugins read as arrays in the snapshot's node order (the order
Filter walks): allocatable and requested CPU, memory, ephemeral storage and
pod slots, the "non-zero" requests Score uses, whether a node is there at
all, and a few counts (host ports in use, images known). Each extended
resource a pod asks for (``nvidia.com/gpu``, say) gets a pair of columns of
its own, allocatable and requested, 0 on a node that has none of it
(:meth:`NodeArrays.scalar`).

One column is a **class id** rather than a number: nodes with equal
``unschedulable`` and taints get the same ``spec_class``; and
:meth:`NodeArrays.label_classes` groups nodes by the values of the label
keys a pod's node selector reads. A plugin whose answer
for a node depends only on one of those (TaintToleration, NodeUnschedulable,
NodeAffinity without ``matchFields``) is asked once per class, on one
representative node, and the answer is spread to every node of the class:
in a cluster of 5,000 identical nodes, one call instead of 5,000. (The old
kube-scheduler *equivalence cache* rested on the same idea; kube-scheduler
v1.35's pod signatures, KEP-5598, rest on its mirror image: equal pods.)

The arrays follow the snapshot between cycles. A new snapshot or a new node
list (nodes added or removed) rebuilds them; otherwise only the rows of the
NodeInfos that :func:`~framework.cache.update_snapshot.update_snapshot`
overwrote (:attr:`~framework.cache.snapshot.Snapshot.changes`) are read
again, which is usually one node per cycle, the one the last pod went to.
So are the columns the forms derive and keep (:meth:`NodeArrays.per_node`,
:meth:`NodeArrays.per_info`: a score per node, the pods a selector matches
per node) and the index of the pods' labels (:meth:`NodeArrays.pod_label_rows`).

Not in Kubernetes, whose plugins read each NodeInfo on 16 goroutines.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from framework.node_info import NodeInfo

__all__ = [
    "LIMIT",
    "MAX_CLASSES",
    "MAX_PER_INFO",
    "MAX_PER_NODE",
    "MAX_PROJECTIONS",
    "NodeArrays",
    "NodeClasses",
    "NodeWindow",
    "has_label",
]

LIMIT = 2**53
"""Values at or past this make the arrays unusable (:attr:`NodeArrays.usable` False) and the
cycle goes to the reference engine: products such as ``(capacity - requested) * 100`` must stay
exact in int64 and in float64, as Python's integers always are."""

MAX_PROJECTIONS = 8
"""How many sets of label keys :meth:`NodeArrays.label_classes` keeps classes for."""

MAX_PER_NODE = 16
"""How many per-node columns (:meth:`NodeArrays.per_node`) are kept, the most recently used."""

MAX_PER_INFO = 32
"""How many columns read from the NodeInfos (:meth:`NodeArrays.per_info`) are kept, likewise."""

MAX_CHANGED_ROWS = 100_000
"""How many changed rows are remembered for the per-node columns before they are dropped."""

MAX_CLASSES = 100_000
"""How many distinct specs or label sets are interned before the arrays are rebuilt afresh
(relabelling churn would otherwise grow the tables without bound)."""

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# The int64 columns, each read from a NodeInfo by _row.
_INT_COLUMNS = (
    "alloc_cpu",
    "alloc_mem",
    "alloc_eph",
    "alloc_pods",
    "req_cpu",
    "req_mem",
    "req_eph",
    "num_pods",
    "nz_cpu",
    "nz_mem",
    "used_ports",
    "images",
    "scalar_alloc",
    "spec_class",
    # Derived, so that Filter compares once per resource: what is left, and whether some
    # resource has no capacity at all (the scores then skip it, and take a slower path).
    "free_cpu",
    "free_mem",
    "free_eph",
    "free_pods",
    "zero_capacity",  # bits: 1 no cpu, 2 no memory, 4 no ephemeral-storage
)


class NodeClasses:
    """The distinct values of one class column: the ids, a representative row of each, each row's index."""

    __slots__ = ("ids", "inverse", "representatives")

    def __init__(self, column: IntArray) -> None:
        ids, first, inverse = np.unique(column, return_index=True, return_inverse=True)
        self.ids: IntArray = ids
        self.representatives: IntArray = first
        self.inverse: IntArray = inverse.reshape(-1)


class _Projection:
    """Class ids of nodes by the values of a few label keys, kept row by row."""

    __slots__ = ("_by_pair", "_classes", "column", "ids")

    def __init__(self, size: int) -> None:
        self.column: IntArray = np.zeros(size, dtype=np.int64)
        self.ids: dict[Hashable, int] = {}
        self._classes: NodeClasses | None = None
        self._by_pair: dict[tuple[str, str | None], int] = {}

    def ids_by_pair(self, key: str) -> Mapping[tuple[str, str | None], int]:
        """A one-key projection's ids by ``(key, value)``, not by ``(value,)`` (ids only grow)."""
        if len(self._by_pair) != len(self.ids):
            self._by_pair = {
                (key, values[0]): i for values, i in self.ids.items() if isinstance(values, tuple)
            }
        return self._by_pair

    def set(self, index: int, values: Hashable) -> None:
        class_id = -1 if values is None else _intern(self.ids, values)
        if self.column[index] != class_id:
            self.column[index] = class_id
            self._classes = None

    def classes(self) -> NodeClasses:
        if self._classes is None:
            self._classes = NodeClasses(self.column)
        return self._classes


def _label_values(labels: Mapping[str, str], keys: tuple[str, ...]) -> tuple[str | None, ...]:
    return tuple(labels.get(key) for key in keys)


class NodeArrays:
    """Columns of one snapshot's nodes, kept up to date from its change log; see the module docstring."""

    def __init__(self) -> None:
        self._snapshot: Any = None
        self._list: Sequence[NodeInfo] | None = None
        self._seen = 0
        self.infos: Sequence[NodeInfo] = ()
        self.names: list[str] = []
        self.info_array: npt.NDArray[np.object_] = np.empty(0, dtype=object)
        self.name_array: npt.NDArray[np.object_] = np.empty(0, dtype=object)
        self.position: dict[str, int] = {}
        self.has_node: BoolArray = np.zeros(0, dtype=bool)
        self.columns: dict[str, IntArray] = {}
        self._spec_ids: dict[Hashable, int] = {}
        self._classes: dict[str, NodeClasses | None] = {"spec_class": None}
        self._projections: OrderedDict[tuple[str, ...], _Projection] = OrderedDict()
        self._taken: dict[str, IntArray] = {}
        self._taken_rows: IntArray | None = None
        self._memo: dict[Hashable, Any] = {}
        self._derived: dict[Hashable, tuple[Callable[[NodeInfo], int], IntArray]] = {}
        self._table: IntArray = np.zeros((len(_INT_COLUMNS), 0), dtype=np.int64)
        # Row r of the arrays at index i and at i + len: a window's rows are a slice of it.
        self._round_robin: IntArray = np.zeros(0, dtype=np.int64)
        # The rows read again since the last rebuild, in order, for the per-node columns.
        self._changed_rows: list[int] = []
        self._per_node: OrderedDict[Hashable, tuple[IntArray, int]] = OrderedDict()
        self._per_info: OrderedDict[Hashable, tuple[IntArray, int]] = OrderedDict()
        # (namespace, label key, value) of the pods -> {row: how many pods}, built when first
        # asked for; each row's own pairs, to take them out when the row is read again.
        self._pod_labels: dict[tuple[str, str, str], dict[int, int]] | None = None
        self._row_pod_labels: list[dict[tuple[str, str, str], int]] = []
        self._pod_labels_seen = 0
        #: False while some node holds a value the arrays cannot hold exactly (see LIMIT).
        self.usable = True
        #: How many times the arrays were rebuilt whole, and rows re-read (for tests and figures).
        self.rebuilds = 0
        self.rows_updated = 0

    def __len__(self) -> int:
        return len(self.infos)

    def __getitem__(self, column: str) -> IntArray:
        return self.columns[column]

    def refresh(self, snapshot: Any) -> None:
        """Bring the arrays up to date with ``snapshot`` (its node list and its change log)."""
        infos: Sequence[NodeInfo] = snapshot.node_info_list
        if snapshot is not self._snapshot or infos is not self._list or len(infos) != len(self):
            self._rebuild(snapshot)
            return
        start = self._seen - snapshot.changes_offset
        if start < 0:
            self._rebuild(snapshot)  # the log dropped entries this reader had not seen
            return
        changes = snapshot.changes
        self._seen = snapshot.changes_offset + len(changes)
        for info in changes[start:]:
            index = self.position.get(info.name)
            if index is None or self.infos[index] is not info:
                self._rebuild(snapshot)
                return
            self._set_row(index, info)

    def take(self, column: str, rows: IntArray) -> IntArray:
        """``self[column][rows]``, read-only, gathered once per ``rows`` (one cycle's feasible nodes).

        Several Score forms read the same columns of the same nodes; the
        rows array is the one object the engine hands every form in a cycle.
        """
        if rows is not self._taken_rows:
            self._taken, self._taken_rows, self._memo = {}, rows, {}
        found = self._taken.get(column)
        if found is None:
            found = self._taken[column] = self.columns[column][rows]
            found.flags.writeable = False
        return found

    def memo(self, rows: IntArray) -> dict[Hashable, Any]:
        """A dict for what the forms derive from ``rows`` (emptied when ``rows`` or a node changes)."""
        if rows is not self._taken_rows:
            self._taken, self._taken_rows, self._memo = {}, rows, {}
        return self._memo

    def per_node(self, key: Hashable, compute: Callable[[IntArray], IntArray]) -> IntArray:
        """A column of every node's ``compute(rows)``, kept from cycle to cycle under ``key``.

        ``compute`` must answer for each row from that row's columns alone
        (an elementwise expression of them), so that computing it again
        for just the rows read since is the same as computing it afresh:
        a score that depends only on the node and on what ``key`` names
        (the pod's requests, the plugin's arguments). The last
        :data:`MAX_PER_NODE` keys are kept; a rebuild drops them all.
        """
        return self._kept(self._per_node, MAX_PER_NODE, key, compute)

    def per_info(
        self,
        key: Hashable,
        compute: Callable[[NodeInfo], int],
        nonzero: Callable[[], BoolArray] | None = None,
    ) -> IntArray:
        """A column of every node's ``compute(info)``, kept as :meth:`per_node` keeps its columns.

        For what a form reads from a node's pods under a condition that
        comes and goes with the pods being scheduled (PodTopologySpread's
        matching pods per selector, :mod:`framework.batch.podtopologyspread`):
        ``compute`` must read nothing but the NodeInfo and what ``key``
        names, and return an int64. Computed for every row on first use,
        then again only for the rows re-read since; the last
        :data:`MAX_PER_INFO` keys are kept, apart from :meth:`per_node`'s
        so that neither pushes the other's out. Read it, do not keep it.

        ``nonzero``, if given, marks every row where ``compute`` may answer
        anything but 0 (the rows holding a pod with some label,
        :meth:`pod_label_rows`); the others are 0 without a call.
        """
        infos = self.infos

        def by_row(rows: IntArray) -> IntArray:
            if nonzero is not None:
                column = np.zeros(len(rows), dtype=np.int64)
                some = np.flatnonzero(nonzero()[rows])
                column[some] = by_row_of(rows[some])
                return column
            return by_row_of(rows)

        def by_row_of(rows: IntArray) -> IntArray:
            return np.fromiter(
                (compute(infos[row]) for row in rows.tolist()), dtype=np.int64, count=len(rows)
            )

        return self._kept(self._per_info, MAX_PER_INFO, key, by_row)

    def pod_label_rows(self, namespace: str, key: str, values: Iterable[str]) -> BoolArray:
        """Per row, whether the node holds a pod of ``namespace`` whose label ``key`` is one of ``values``.

        Every pod counts, terminating or not. Kept as an index from each
        ``(namespace, key, value)`` to the rows and their number of such
        pods, built when first asked for and brought up to date from the
        rows re-read since, one row's pods at a time.
        """
        index = self._pod_label_index()
        found = np.zeros(len(self.infos), dtype=bool)
        for value in values:
            rows = index.get((namespace, key, value))
            if rows:
                found[list(rows)] = True
        return found

    def _pod_label_index(self) -> dict[tuple[str, str, str], dict[int, int]]:
        index = self._pod_labels
        seen = len(self._changed_rows)
        if index is None:
            index = self._pod_labels = {}
            self._row_pod_labels = [{} for _ in self.infos]
            changed: Iterable[int] = range(len(self.infos))
        elif self._pod_labels_seen < seen:
            changed = sorted(set(self._changed_rows[self._pod_labels_seen :]))
        else:
            return index
        for row in changed:
            for pair, count in self._row_pod_labels[row].items():
                rows = index[pair]
                rows[row] -= count
                if not rows[row]:
                    del rows[row]
            pairs: dict[tuple[str, str, str], int] = {}
            for pod_info in self.infos[row].pods:
                metadata = pod_info.pod.metadata
                for label, value in metadata.labels.items():
                    pair = (metadata.namespace, label, value)
                    pairs[pair] = pairs.get(pair, 0) + 1
            for pair, count in pairs.items():
                rows = index.setdefault(pair, {})
                rows[row] = rows.get(row, 0) + count
            self._row_pod_labels[row] = pairs
        self._pod_labels_seen = seen
        return index

    def _kept(
        self,
        store: OrderedDict[Hashable, tuple[IntArray, int]],
        limit: int,
        key: Hashable,
        compute: Callable[[IntArray], IntArray],
    ) -> IntArray:
        """The column under ``key`` in ``store``, brought up to the rows changed since it was read."""
        found = store.get(key)
        seen = len(self._changed_rows)
        if found is None:
            every = np.arange(len(self.infos), dtype=np.int64)
            column = np.broadcast_to(compute(every), every.shape).astype(np.int64)
            if len(store) >= limit:
                store.popitem(last=False)
        else:
            column, since = found
            store.move_to_end(key)
            if since < seen:
                rows = np.array(sorted(set(self._changed_rows[since:])), dtype=np.int64)
                column[rows] = compute(rows)
        store[key] = (column, seen)
        return column

    def label_classes(self, keys: tuple[str, ...]) -> NodeClasses:
        """Classes of nodes by the values (or absence) of just these label keys.

        Every node has a label of its own (``kubernetes.io/hostname``), so
        classes by *all* labels would be as many as nodes; a pod's node
        selector reads a few keys, and nodes that agree on those answer
        alike.
        """
        return self._projection(keys).classes()

    def label_values(self, key: str) -> tuple[IntArray, Mapping[tuple[str, str | None], int]]:
        """Per row, an id of the node's value of label ``key``; and the ids, by ``(key, value)``.

        A node without the label has the id of ``(key, None)``; a row
        without a node, -1. A count kept per topology pair (InterPodAffinity's,
        by ``(key, value)``) becomes a vector by id, and a node's count one
        lookup of its id. The column is the projection's own, updated in
        place as rows change: read it, do not keep it.
        """
        projection = self._projection((key,))
        return projection.column, projection.ids_by_pair(key)

    def _projection(self, keys: tuple[str, ...]) -> _Projection:
        projection = self._projections.get(keys)
        if projection is None:
            projection = _Projection(len(self.infos))
            for i, info in enumerate(self.infos):
                node = info.node
                projection.set(
                    i, None if node is None else _label_values(node.metadata.labels, keys)
                )
            self._projections[keys] = projection
            if len(self._projections) > MAX_PROJECTIONS:
                self._projections.popitem(last=False)
        else:
            self._projections.move_to_end(keys)
        return projection

    def derived(self, key: Hashable, compute: Callable[[NodeInfo], int]) -> IntArray:
        """A column of ``compute(info)`` per row, kept up to date as rows change (read-only).

        For what a form needs of each node beyond the standard columns (the
        volume forms count the volumes the node's pods use): computed for
        every row on first use after a rebuild, then again only for the rows
        that change. ``compute`` must read nothing but the NodeInfo, and
        return a small integer; one ``key`` stands for one ``compute``.
        """
        found = self._derived.get(key)
        if found is None:
            column = np.array([compute(info) for info in self.infos], dtype=np.int64)
            column.flags.writeable = False
            found = self._derived[key] = (compute, column)
        return found[1]

    def scalar(self, name: str) -> tuple[IntArray, IntArray] | None:
        """Allocatable and requested of one extended (scalar) resource per row, 0 where absent.

        Kept as :meth:`derived` columns, one pair per resource name a pod has
        asked for: read afresh on a rebuild, then only for the rows that
        change. None while some node holds a value at or past :data:`LIMIT`
        (the form then leaves the pod to the reference).
        """
        allocatable = self.derived(("scalar allocatable", name), _scalar_allocatable(name))
        requested = self.derived(("scalar requested", name), _scalar_requested(name))
        if len(self.infos) and (int(allocatable.max()) >= LIMIT or int(requested.max()) >= LIMIT):
            return None
        return allocatable, requested

    def classes(self, column: str) -> NodeClasses:
        """The distinct values of ``spec_class``, with a representative row each."""
        found = self._classes[column]
        if found is None:
            found = self._classes[column] = NodeClasses(self.columns[column])
        return found

    # --- reading NodeInfos ----------------------------------------------------------------------

    def _rebuild(self, snapshot: Any) -> None:
        if len(self._spec_ids) > MAX_CLASSES:
            self._spec_ids.clear()
        infos = snapshot.node_info_list
        self._snapshot, self._list, self.infos = snapshot, infos, infos
        self._seen = snapshot.changes_offset + len(snapshot.changes)
        self.names = [info.name for info in infos]
        # Object arrays, so that the rows a search found become NodeInfos and names in one call.
        self.info_array = np.empty(len(infos), dtype=object)
        self.info_array[:] = infos
        self.name_array = np.array(self.names, dtype=object)
        self.position = {info.name: i for i, info in enumerate(infos) if info.node is not None}
        self._projections.clear()
        rows = [self._row(info, i) for i, info in enumerate(infos)]
        self.usable = all(max(row) < LIMIT and min(row) > -LIMIT for row in rows)
        if not self.usable:
            rows = [[0] * (len(_INT_COLUMNS) + 1) for _ in infos]
        table = np.array(rows, dtype=np.int64).reshape(len(infos), len(_INT_COLUMNS) + 1)
        self.has_node = table[:, 0].astype(bool)
        # Column-major: each column one contiguous row of the table, and a node one strided
        # column, written in one assignment when the node changes.
        self._table = np.ascontiguousarray(table[:, 1:].T)
        self.columns = {name: self._table[i] for i, name in enumerate(_INT_COLUMNS)}
        self._classes = {"spec_class": None}
        self._taken, self._taken_rows = {}, None
        self._derived = {}
        self._round_robin = np.arange(2 * len(infos), dtype=np.int64) % max(len(infos), 1)
        self._changed_rows = []
        self._per_node.clear()
        self._per_info.clear()
        self._pod_labels = None
        self.rebuilds += 1

    def _set_row(self, index: int, info: NodeInfo) -> None:
        self._taken_rows = None
        row = self._row(info, index)
        if max(row) >= LIMIT or min(row) <= -LIMIT:
            self.usable = False
            self._snapshot = None  # rebuilt, and judged again, at the next refresh
            return
        self.has_node[index] = bool(row[0])
        for name in self._classes:
            if self.columns[name][index] != row[_INT_COLUMNS.index(name) + 1]:
                self._classes[name] = None  # a node changed class: find the classes again
        self._table[:, index] = row[1:]
        for compute, column in self._derived.values():
            column.flags.writeable = True
            column[index] = compute(info)
            column.flags.writeable = False
        if len(self._changed_rows) >= MAX_CHANGED_ROWS:
            # Too many to replay: the per-node columns are computed afresh when next read.
            self._changed_rows, self._per_node, self._per_info = [], OrderedDict(), OrderedDict()
            self._pod_labels = None
        self._changed_rows.append(index)
        self.rows_updated += 1

    def _row(self, info: NodeInfo, index: int) -> list[int]:
        node = info.node
        alloc, req, nz = info.allocatable, info.requested, info.non_zero_requested
        if node is None:
            spec_class = -1
        else:
            spec = node.spec
            spec_class = _intern(self._spec_ids, (spec.unschedulable, spec.taints))
            for keys, projection in self._projections.items():
                projection.set(index, _label_values(node.metadata.labels, keys))
        return [
            node is not None,
            alloc.milli_cpu,
            alloc.memory,
            alloc.ephemeral_storage,
            alloc.allowed_pod_number,
            req.milli_cpu,
            req.memory,
            req.ephemeral_storage,
            len(info.pods),
            nz.milli_cpu,
            nz.memory,
            len(info.used_ports),
            len(info.image_states),
            len(alloc.scalar_resources),
            spec_class,
            alloc.milli_cpu - req.milli_cpu,
            alloc.memory - req.memory,
            alloc.ephemeral_storage - req.ephemeral_storage,
            alloc.allowed_pod_number - len(info.pods),
            (alloc.milli_cpu == 0)
            | (alloc.memory == 0) << 1
            | (alloc.ephemeral_storage == 0) << 2,
        ]


def has_label(key: str, column: IntArray, ids: Mapping[tuple[str, str | None], int]) -> BoolArray:
    """Per row of a :meth:`NodeArrays.label_values` column, whether the node has label ``key``.

    A row without a node (-1) and a node without the label (the id of
    ``(key, None)``) have not.
    """
    absent = ids.get((key, None))
    has: BoolArray = column >= 0
    if absent is not None:
        has &= column != absent
    return has


def _clipped(value: int) -> int:
    """The value, or :data:`LIMIT` for one the int64 arithmetic could not hold exactly."""
    return value if -LIMIT < value < LIMIT else LIMIT


def _scalar_allocatable(name: str) -> Callable[[NodeInfo], int]:
    def compute(info: NodeInfo) -> int:
        return _clipped(info.allocatable.scalar_resources.get(name, 0))

    return compute


def _scalar_requested(name: str) -> Callable[[NodeInfo], int]:
    def compute(info: NodeInfo) -> int:
        return _clipped(info.requested.scalar_resources.get(name, 0))

    return compute


def _intern(table: dict[Hashable, int], key: Hashable) -> int:
    try:
        found = table.get(key)
    except TypeError:  # a spec with an unhashable extra field: a class of its own, by its text
        key = repr(key)
        found = table.get(key)
    if found is None:
        found = table[key] = len(table)
    return found


class _WindowClasses:
    """A :class:`NodeClasses` seen through a window: every class, the window's rows' indices.

    The indices are gathered when first read: a form whose every class
    passes never reads them.
    """

    __slots__ = ("_classes", "_inverse", "_rows", "ids", "representatives")

    def __init__(self, classes: NodeClasses, rows: IntArray) -> None:
        self.ids = classes.ids
        self.representatives = classes.representatives  # rows of the whole arrays
        self._classes, self._rows = classes, rows
        self._inverse: IntArray | None = None

    @property
    def inverse(self) -> IntArray:
        if self._inverse is None:
            self._inverse = self._classes.inverse[self._rows]
        return self._inverse


class _WindowPositions:
    """``position`` of a window: a node's name to its index in the window, if it is in it.

    It holds what it needs, not the window, so that no reference cycle keeps a
    window's columns alive until the cyclic garbage collector runs (which the
    scheduler's GC policy makes rare).
    """

    __slots__ = ("_base", "_size", "_start")

    def __init__(self, base: NodeArrays, start: int, size: int) -> None:
        self._base, self._start, self._size = base, start, size

    def get(self, name: str, default: int | None = None) -> int | None:
        row = self._base.position.get(name)
        if row is None:
            return default
        index = (row - self._start) % len(self._base)
        return index if index < self._size else default


class NodeWindow:
    """The rows a search may reach, in the order it walks them: what the batch Filter forms see.

    The search takes the first ``numFeasibleNodesToFind`` feasible nodes
    from ``next_start_node_index`` on, so when that is a small share of the
    cluster (500 of 5,000 by default), the forms need only answer for the
    nodes from there on, not for every node: row ``i`` of the window is row
    ``(start + i) % len(base)`` of the arrays. It answers what a form asks of
    a :class:`NodeArrays` (columns, classes, ``position``, ``infos``), with
    indices into the window; the classes' representatives stay rows of the
    whole arrays, as ``infos`` does.
    """

    def __init__(self, base: NodeArrays, start: int, size: int) -> None:
        self.base = base
        self.start = start
        self.infos = base.infos
        total = len(base)
        start = start % total if total else 0
        # A slice of the round robin; while the window does not wrap, its columns are slices too.
        self.rows: IntArray = base._round_robin[start : start + size]
        self._whole = start == 0 and size == total
        self._slice = slice(start, start + size) if start + size <= total else None
        self.has_node: BoolArray = (
            base.has_node[self._slice] if self._slice is not None else base.has_node[self.rows]
        )
        self.position = _WindowPositions(base, start, size)
        self._columns: dict[str, IntArray] = {}

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, column: str) -> IntArray:
        if self._slice is not None:
            return self.base[column][self._slice]
        found = self._columns.get(column)
        if found is None:
            found = self._columns[column] = self.base[column][self.rows]
        return found

    def classes(self, column: str) -> Any:
        found = self.base.classes(column)
        return found if self._whole else _WindowClasses(found, self.rows)

    def label_classes(self, keys: tuple[str, ...]) -> Any:
        found = self.base.label_classes(keys)
        return found if self._whole else _WindowClasses(found, self.rows)

    def label_values(self, key: str) -> tuple[IntArray, Mapping[tuple[str, str | None], int]]:
        """:meth:`NodeArrays.label_values` of the window's rows."""
        column, ids = self.base.label_values(key)
        return (column[self._slice] if self._slice is not None else column[self.rows]), ids
