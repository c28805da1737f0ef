"""VolumeZone: a pod's bound volumes must be in the node's zone and region.

A PersistentVolume in a zonal disk carries the zone (and region) it lives in
as labels, ``topology.kubernetes.io/zone`` (or the deprecated
``failure-domain.beta.kubernetes.io/zone``); a value may name several zones
joined by ``__``. A node that carries any zone or region label must carry
each of the volume's with one of its values, or the pod cannot use the
volume there: ``UnschedulableAndUnresolvable`` (no eviction brings a disk
to another zone), with :data:`ERR_REASON_CONFLICT`. A node without any such
label is fine (a single-zone cluster).

**PreFilter** reads the pod's claims: the bound ones give their volume's
labels; an unbound claim of a ``WaitForFirstConsumer`` class is skipped
(VolumeBinding picks its volume per node); any other unbound claim, a
claim or class or volume that does not exist is an unresolvable error.
With no zonal volume it returns ``Skip``, so Filter runs only for pods
that have one. A volume's node affinity is VolumeBinding's business.

>>> from framework.cycle_state import CycleState
>>> from framework.objects import Pod
>>> _, status = VolumeZone(None).pre_filter(CycleState(), Pod.from_dict({"metadata": {"name": "p"}}), [])
>>> status.code.name
'SKIP'

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/volumezone/volume_zone.go``
(v1.33; the reasons and statuses of ``volume_zone_test.go``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import NotFound, resource_for
from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.cycle_state import CycleState
from framework.cycle_state import NotFound as StateNotFound
from framework.interface import PreFilterResult, SignFragment
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    claim_class,
    pod_volumes,
)
from framework.plugins import names
from framework.plugins.listers import ClientListers, listers_of
from framework.runtime import signature as sig
from framework.status import Status

__all__ = ["ERR_REASON_CONFLICT", "NAME", "TOPOLOGY_LABELS", "PVTopology", "VolumeZone", "new"]

NAME = names.VOLUME_ZONE
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"
"""Filter's reason when the node is not in a bound volume's zone or region."""

TOPOLOGY_LABELS = (
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
)
_TO_GA = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
}
_MULTI_ZONE_DELIMITER = "__"


@dataclass(frozen=True, slots=True)
class PVTopology:
    """One zone or region label of a volume: its key and the values it allows."""

    pv_name: str
    key: str
    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class _State:
    topologies: tuple[PVTopology, ...]

    def clone(self) -> _State:
        return self


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """``a__b`` as {a, b}; None when an element is empty (``LabelZonesToSet`` errs)."""
    zones = [zone.strip() for zone in value.split(_MULTI_ZONE_DELIMITER)]
    if any(not zone for zone in zones):
        return None
    return frozenset(zones)


def pv_topologies(volume: PersistentVolume) -> list[PVTopology]:
    """The volume's zone and region labels (``getPVTopologies``); a label that does not parse is ignored."""
    found = []
    for key in TOPOLOGY_LABELS:
        value = volume.metadata.labels.get(key)
        if value is None:
            continue
        zones = label_zones_to_set(value)
        if zones is not None:
            found.append(PVTopology(volume.metadata.name, key, zones))
    return found


def _not_found(error: NotFound) -> Status:
    return Status.unresolvable(str(error))


class VolumeZone:
    """PreFilter and Filter; see the module docstring."""

    def __init__(self, handle: Any = None) -> None:
        self._handle = handle

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Feasibility depends on the pod's volumes but ConfigMaps and Secrets (Go, v1.35)."""
        return [SignFragment(sig.VOLUMES_SIGNER_NAME, sig.volumes_signer(pod))], None

    def _listers(self) -> ClientListers:
        return listers_of(self._handle)

    def get_pv_by_pod(self, pod: Pod) -> tuple[list[PVTopology], Status | None]:
        """The topologies of the pod's bound volumes, or the status that stops the pod (``getPVbyPod``)."""
        listers = self._listers()
        topologies: list[PVTopology] = []
        for volume in pod_volumes(pod):
            if volume.persistent_volume_claim is None:
                continue
            claim_name = volume.claim_name(pod) or ""
            if not claim_name:
                return [], Status.unresolvable("PersistentVolumeClaim had no name")
            namespace = pod.metadata.namespace
            claim = listers.get(PersistentVolumeClaim, claim_name, namespace)
            if claim is None:
                return [], _not_found(NotFound(resource_for(PersistentVolumeClaim), claim_name))
            pv_name = claim.spec.volume_name
            if not pv_name:
                class_name = claim_class(claim)
                if not class_name:
                    return [], Status.unresolvable(
                        "PersistentVolumeClaim had no pv name and storageClass name"
                    )
                cls = listers.get(StorageClass, class_name)
                if cls is None:
                    return [], _not_found(NotFound(resource_for(StorageClass), class_name))
                if cls.volume_binding_mode is None:
                    return [], Status.unresolvable(
                        f'VolumeBindingMode not set for StorageClass "{class_name}"'
                    )
                if cls.volume_binding_mode == "WaitForFirstConsumer":
                    continue  # VolumeBinding finds its volume per node
                return [], Status.unresolvable("PersistentVolume had no name")
            pv = listers.get(PersistentVolume, pv_name)
            if pv is None:
                return [], _not_found(NotFound(resource_for(PersistentVolume), pv_name))
            topologies += pv_topologies(pv)
        return topologies, None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        topologies, status = self.get_pv_by_pod(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _State(tuple(topologies)))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod_volumes(pod):
            return None
        try:
            topologies: tuple[PVTopology, ...] = state.read_as(
                PRE_FILTER_STATE_KEY, _State
            ).topologies
        except (StateNotFound, TypeError):
            found, status = self.get_pv_by_pod(pod)
            if status is not None:
                return status
            topologies = tuple(found)
        node = node_info.node
        labels = node.metadata.labels if node is not None else {}
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return None  # a node without zones: a single-zone cluster
        for topology in topologies:
            value = labels.get(topology.key)
            if value is None:
                value = labels.get(_TO_GA.get(topology.key, topology.key))
            if value is None or value not in topology.values:
                return Status.unresolvable(ERR_REASON_CONFLICT)
        return None

    # --- queueing hints --------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """StorageClass added, Node added or relabelled, PVC and PV added or updated (queueing hints on)."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
                self.is_schedulable_after_storage_class_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE
                ),
                self.is_schedulable_after_claim_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE),
                self.is_schedulable_after_volume_change,
            ),
        ]

    def is_schedulable_after_claim_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if (
            not isinstance(new, PersistentVolumeClaim)
            or new.metadata.namespace != pod.metadata.namespace
        ):
            return QueueingHint.QUEUE_SKIP
        wanted = {
            v.claim_name(pod) for v in pod_volumes(pod) if v.persistent_volume_claim is not None
        }
        return QueueingHint.QUEUE if new.metadata.name in wanted else QueueingHint.QUEUE_SKIP

    def is_schedulable_after_storage_class_added(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        if isinstance(new, StorageClass) and new.volume_binding_mode == "WaitForFirstConsumer":
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_volume_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if old is None or not isinstance(new, PersistentVolume):
            return QueueingHint.QUEUE
        if isinstance(old, PersistentVolume) and pv_topologies(old) == pv_topologies(new):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def new(args: Any, handle: Any) -> VolumeZone:
    """The factory the registry calls; VolumeZone takes no args."""
    return VolumeZone(handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = VolumeZone
    _filter: type[interface.FilterPlugin] = VolumeZone
    _enqueue_extensions: type[interface.EnqueueExtensions] = VolumeZone
