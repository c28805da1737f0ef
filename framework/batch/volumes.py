"""Batch Filter forms of the four volume plugins: the same answers, without a call per node.

Most pods have no volumes, and the volume plugins' PreFilter returns
``Skip`` for them; these forms are for the pods that have some (each pod of
scheduler_perf's ``SchedulingCSIPVs`` and ``SchedulingInTreePVs`` has a
claim bound to a volume of its own). Each form says "passes" only where the
reference's ``filter`` is sure to return success, and leaves a node
*undecided* (filtered one by one with the reference runner) wherever it
could be anything else, an error included:

* **VolumeZone** reads the node's zone and region labels only: by class of
  those labels, one call per class.
* **VolumeBinding**, for a pod whose claims are all bound, reads only the
  labels its volumes' node affinity names: by class of those labels. (The
  reference records an empty decision per node it filters; Reserve treats a
  node without one the same way, "every claim bound".) A pod with an
  unbound claim leaves every node undecided, so each node's decision is
  recorded by the plugin itself, for Reserve.
* **VolumeRestrictions**: a node whose pods use no in-line disk (GCE PD,
  AWS EBS, RBD, iSCSI) cannot conflict on one, so the ReadWriteOncePod
  count alone decides, the same for all of them; nodes with such pods are
  left undecided when the pod has in-line disks itself.
* **NodeVolumeLimits** (``CSILimits``): a node passes for sure when, for
  each driver the pod's new volumes count against, the volumes the node's
  pods use (every claim and migratable in-line volume, an upper bound of
  those attached) plus the new ones stay within that driver's limit (its
  CSINode's ``allocatable.count``, else the node's
  ``attachable-volumes-csi-*`` allocatable, else none). Other nodes, and
  nodes with a pod whose claims the reference might fail to read (an
  ephemeral volume, a claim without a name), are undecided: a node at its
  attach limit gets its status from the plugin itself. The CSINodes are
  read from an informer's store (list, then watch), synced at every cycle:
  on the in-process API server a watch delivers each write as it commits,
  so the store is what the reference's ``get`` reads. Against any other
  client the form declines (the cycle runs the reference).

Not in Kubernetes; see :mod:`framework.batch.forms` for the contract.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from framework.apiserver import APIServer
from framework.batch.arrays import BoolArray, IntArray, NodeArrays, NodeWindow
from framework.batch.forms import FilterForm, FilterVerdict, _filter_answer, _filter_by_class
from framework.cycle_state import CycleState, NotFound
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.storage import CSINode, pod_volumes
from framework.plugins import nodevolumelimits, volumebinding, volumerestrictions, volumezone
from framework.plugins.listers import listers_of
from framework.scheduler.eventhandlers import Informer

__all__ = ["FILTER_FORMS"]

# The in-line sources NodeVolumeLimits counts (migrated to CSI), and those VolumeRestrictions checks.
_MIGRATABLE = ("gce_persistent_disk", "aws_elastic_block_store", "azure_disk", "cinder")
_NO_LIMIT = -(2**62)
"""A node without a limit for a driver, in a limit column (real limits are not negative)."""


def _base_and_rows(arrays: NodeArrays | NodeWindow) -> tuple[NodeArrays, IntArray]:
    if isinstance(arrays, NodeWindow):
        return arrays.base, arrays.rows
    return arrays, np.arange(len(arrays), dtype=np.int64)


# --- per node, from its pods ------------------------------------------------------------------


def _attachable_uses(info: NodeInfo) -> int:
    """The node's pods' claims and migratable in-line volumes: at least as many as it has attached."""
    count = 0
    for pod_info in info.pods:
        for volume in pod_volumes(pod_info.pod):
            if (
                volume.persistent_volume_claim is not None
                or volume.ephemeral is not None
                or any(getattr(volume, name) is not None for name in _MIGRATABLE)
            ):
                count += 1
    return count


def _unreadable_claims(info: NodeInfo) -> int:
    """Volumes of the node's pods on which counting them may fail (an ephemeral one, a nameless claim)."""
    count = 0
    for pod_info in info.pods:
        for volume in pod_volumes(pod_info.pod):
            if volume.ephemeral is not None or volume.claim_name(pod_info.pod) == "":
                count += 1
    return count


def _in_line_disks(info: NodeInfo) -> int:
    """In-line volumes of the node's pods of the kinds VolumeRestrictions compares."""
    return sum(
        1
        for pod_info in info.pods
        for volume in pod_volumes(pod_info.pod)
        if volumerestrictions.needs_restrictions_check(volume)
    )


def _allocatable_limit(key: str) -> Any:
    def compute(info: NodeInfo) -> int:
        node = info.node
        quantity = node.status.allocatable.get(key) if node is not None else None
        return _NO_LIMIT if quantity is None else quantity.units

    return compute


# --- VolumeZone and VolumeBinding: by class of labels ------------------------------------------


def _zone_label_keys(plugin: Any, state: CycleState, pod: Pod) -> tuple[str, ...]:
    return volumezone.TOPOLOGY_LABELS


def _bound_volume_label_keys(plugin: Any, state: CycleState, pod: Pod) -> tuple[str, ...] | None:
    """The node labels the node affinity of the pod's bound volumes reads (all its claims bound)."""
    try:
        data = state.read_as(volumebinding.STATE_KEY, volumebinding._StateData)
    except (NotFound, TypeError):
        return None
    claims = data.pod_volume_claims
    if claims is None:
        return ()
    keys: set[str] = set()
    for claim in claims.bound_claims:
        volume = plugin.binder.cache.get_pv(claim.spec.volume_name)
        affinity = volume.spec.node_affinity if volume is not None else None
        if affinity is None or affinity.required is None:
            continue
        for term in affinity.required.node_selector_terms:
            keys.update(expression.key for expression in term.match_expressions)
    return tuple(sorted(keys))


_bound_volumes_by_class = _filter_by_class(_bound_volume_label_keys)


def _volume_binding_filter(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays
) -> FilterVerdict | None:
    try:
        data = state.read_as(volumebinding.STATE_KEY, volumebinding._StateData)
    except (NotFound, TypeError):
        return None  # the reference gives every node its Error
    claims = data.pod_volume_claims
    if claims is not None and (
        claims.unbound_claims_delay_binding or claims.unbound_claims_immediate
    ):
        # A decision per node, recorded for Reserve: the plugin's own, node by node.
        return FilterVerdict(None, np.ones(len(arrays), dtype=bool))
    return _bound_volumes_by_class(plugin, state, pod, arrays)


# --- VolumeRestrictions ------------------------------------------------------------------------


def _volume_restrictions_filter(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays
) -> FilterVerdict | None:
    base, rows = _base_and_rows(arrays)
    size = len(rows)
    if any(volumerestrictions.needs_restrictions_check(v) for v in pod_volumes(pod)):
        busy: BoolArray = base.derived("in-line disks", _in_line_disks)[rows] > 0
    else:
        busy = np.zeros(size, dtype=bool)
    # Elsewhere no disk can conflict: the ReadWriteOncePod count decides, alike for all.
    calm = np.flatnonzero(~busy & base.has_node[rows])
    if not len(calm):
        return FilterVerdict(None, busy)
    answer = _filter_answer(plugin, state, pod, base.infos[int(rows[calm[0]])])
    undecided = busy if busy.any() else None
    if answer == 0:
        return FilterVerdict(None, undecided)
    if answer == 1:
        return FilterVerdict(~busy, undecided, np.zeros(size, dtype=np.int64))
    return FilterVerdict(None, np.ones(size, dtype=bool))


# --- NodeVolumeLimits --------------------------------------------------------------------------


class _CSINodes:
    """The CSINodes as an informer holds them, and per-driver limit columns in the arrays' rows."""

    def __init__(self, client: APIServer) -> None:
        self.version = 0
        self.informer: Informer[CSINode] = Informer(client, CSINode, self._changed)
        self.informer.start()
        self._names: list[str] | None = None
        self._built = -1
        self._present: BoolArray = np.zeros(0, dtype=bool)
        self._limits: dict[str, IntArray] = {}

    def _changed(self, change: str, old: CSINode | None, new: CSINode | None) -> None:
        self.version += 1

    def columns(self, base: NodeArrays, key: str) -> tuple[BoolArray, IntArray]:
        """Per row: has a CSINode; the limit its drivers give ``key`` (``_NO_LIMIT``: none)."""
        if base.names is not self._names or self._built != self.version:
            found = [self.informer.get(name) for name in base.names]
            self._present = np.array([c is not None for c in found], dtype=bool)
            self._names, self._built, self._limits = base.names, self.version, {}
        column = self._limits.get(key)
        if column is None:
            values = []
            for name in base.names:
                limit = _NO_LIMIT
                csi_node = self.informer.get(name)
                for driver in csi_node.spec.drivers if csi_node is not None else ():
                    count = driver.allocatable.count if driver.allocatable is not None else None
                    if (
                        count is not None
                        and nodevolumelimits.csi_attach_limit_key(driver.name) == key
                    ):
                        limit = count
                values.append(limit)
            column = self._limits[key] = np.array(values, dtype=np.int64)
        return self._present, column


_CSI_NODES: weakref.WeakKeyDictionary[Any, _CSINodes] = weakref.WeakKeyDictionary()
_SOME_CSI_NODE = CSINode()


def _csi_nodes(plugin: Any) -> _CSINodes | None:
    found = _CSI_NODES.get(plugin)
    if found is None:
        handle = getattr(plugin, "_handle", None)
        client = handle.client() if handle is not None and hasattr(handle, "client") else None
        if not isinstance(client, APIServer):
            return None  # a watch that may lag behind the reference's reads
        found = _CSI_NODES[plugin] = _CSINodes(client)
        weakref.finalize(plugin, found.informer.stop)
    return found


def _new_volume_counts(plugin: Any, pod: Pod, csi_node: CSINode | None) -> dict[str, int] | None:
    """How many new volumes of the pod count against each limit key; None if reading them fails."""
    new_volumes: dict[str, str] = {}
    try:
        plugin.filter_attachable_volumes(
            listers_of(plugin._handle), pod, csi_node, True, new_volumes
        )
    except Exception:
        return None
    counts: dict[str, int] = {}
    for key in new_volumes.values():
        counts[key] = counts.get(key, 0) + 1
    return counts


def _node_volume_limits_filter(
    plugin: Any, state: CycleState, pod: Pod, arrays: NodeArrays
) -> FilterVerdict | None:
    if not pod_volumes(pod):
        return FilterVerdict(None)
    csi_nodes = _csi_nodes(plugin)
    if csi_nodes is None:
        return None
    csi_nodes.informer.sync()
    # Which volumes are new depends on the node only through whether it has a CSINode
    # (an in-tree volume counts as its CSI driver's only where one is there).
    with_csi_node = _new_volume_counts(plugin, pod, _SOME_CSI_NODE)
    without = _new_volume_counts(plugin, pod, None)
    if with_csi_node is None or without is None:
        return None  # the reference words the claim's error
    if not with_csi_node and not without:
        return FilterVerdict(None)
    base, rows = _base_and_rows(arrays)
    uses = base.derived("attachable volume uses", _attachable_uses)[rows]
    within = np.ones(len(rows), dtype=bool)
    present: BoolArray | None = None
    for has_csi_node, counts in ((True, with_csi_node), (False, without)):
        for key, count in counts.items():
            present, from_csi_node = csi_nodes.columns(base, key)
            present = present[rows]
            from_node = base.derived(("attach limit", key), _allocatable_limit(key))[rows]
            limit = np.where(from_csi_node[rows] != _NO_LIMIT, from_csi_node[rows], from_node)
            fits = (limit == _NO_LIMIT) | (uses + count <= limit)
            within &= fits | (present != has_csi_node)
    unreadable = base.derived("unreadable claims", _unreadable_claims)[rows] > 0
    undecided = ~within | unreadable
    return FilterVerdict(None, undecided if undecided.any() else None)


FILTER_FORMS: dict[type, FilterForm] = {
    volumezone.VolumeZone: _filter_by_class(_zone_label_keys),
    volumebinding.VolumeBinding: _volume_binding_filter,
    volumerestrictions.VolumeRestrictions: _volume_restrictions_filter,
    nodevolumelimits.CSILimits: _node_volume_limits_filter,
}
"""The volume plugins' batch Filter forms, by exact class (added to :mod:`framework.batch.forms`' table)."""
