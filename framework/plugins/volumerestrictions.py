"""VolumeRestrictions: disks that one node cannot share between pods, and ReadWriteOncePod claims.

Two rules, both ``Unschedulable`` (evicting the pod that holds the disk or
the claim frees it, so preemption may help):

* **Disk conflicts** (:data:`ERR_REASON_DISK_CONFLICT`), for in-line volumes
  of four kinds, against the pods already on the node: the same GCE PD
  unless both mount it read-only; the same AWS EBS volume id, always; the
  same iSCSI IQN unless both read-only; the same Ceph RBD image (a shared
  monitor, the same pool and image) unless both read-only.
* **ReadWriteOncePod** (:data:`ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT`): a
  claim with that access mode may be used by one pod in the whole cluster;
  if any scheduled pod uses it, no node will do until that pod goes.

**PreFilter** returns ``Skip`` when the pod has none of those volumes and
no ReadWriteOncePod claim in use (most pods); a claim that does not exist
is unresolvable, in the API server's words. **AddPod/RemovePod** keep the
count of conflicting uses right while preemption tries removing pods.

>>> from framework.cycle_state import CycleState
>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> def pod(name, pd):
...     return Pod.from_dict({"metadata": {"name": name, "uid": name}, "spec": {"volumes": [
...         {"name": "v", "gcePersistentDisk": {"pdName": pd}}]}})
>>> node = NodeInfo(pod("running", "disk-1"))
>>> node.set_node(Node.from_dict({"metadata": {"name": "n1"}}))
>>> plugin, state = VolumeRestrictions(None), CycleState()
>>> plugin.pre_filter(state, pod("new", "disk-1"), [node])
(None, None)
>>> print(plugin.filter(state, pod("new", "disk-1"), node))
Unschedulable: node(s) had no available disk

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go``
(v1.33). ``IsPVCUsedByPods`` is answered from the snapshot's pods here (kube
keeps a set of used claims in the snapshot).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
from framework.objects.storage import PersistentVolumeClaim, Volume, pod_volumes
from framework.plugins import names
from framework.plugins.listers import listers_of
from framework.runtime import signature as sig
from framework.status import Status
from framework.types import PodInfo

__all__ = [
    "ERR_REASON_DISK_CONFLICT",
    "ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT",
    "NAME",
    "VolumeRestrictions",
    "is_volume_conflict",
    "new",
]

NAME = names.VOLUME_RESTRICTIONS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
"""Filter's reason for a disk the node's pods already use in a way that excludes this pod."""
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
)
"""Filter's reason for a ReadWriteOncePod claim another pod already uses."""


@dataclass(slots=True)
class PreFilterState:
    """The pod's ReadWriteOncePod claims, and how many scheduled pods use one of them."""

    read_write_once_pod_pvcs: frozenset[str]
    conflicting_pvc_ref_count: int

    def clone(self) -> PreFilterState:
        return PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)

    def conflicts_of(self, pod: Pod) -> int:
        return sum(
            1
            for volume in pod_volumes(pod)
            if volume.persistent_volume_claim is not None
            and volume.claim_name(pod) in self.read_write_once_pod_pvcs
        )

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        self.conflicting_pvc_ref_count += multiplier * self.conflicts_of(pod)


def _read_only(source: Mapping[str, Any]) -> bool:
    return source.get("readOnly") is True


def _overlap(a: Iterable[Any], b: Iterable[Any]) -> bool:
    return bool(set(a) & set(b))


def _same_unless_read_only(a: Mapping[str, Any], b: Mapping[str, Any], key: str) -> bool:
    return a.get(key) == b.get(key) and not (_read_only(a) and _read_only(b))


def is_volume_conflict(volume: Volume, pod: Pod) -> bool:
    """Whether ``volume`` conflicts with one of ``pod``'s (``isVolumeConflict``)."""
    for existing in pod_volumes(pod):
        disk, other = volume.gce_persistent_disk, existing.gce_persistent_disk
        if (
            disk is not None
            and other is not None
            and _same_unless_read_only(disk, other, "pdName")
        ):
            return True
        ebs, other = volume.aws_elastic_block_store, existing.aws_elastic_block_store
        if ebs is not None and other is not None and ebs.get("volumeID") == other.get("volumeID"):
            return True
        iscsi, other = volume.iscsi, existing.iscsi
        if iscsi is not None and other is not None and _same_unless_read_only(iscsi, other, "iqn"):
            return True
        rbd, other = volume.rbd, existing.rbd
        if rbd is not None and other is not None:
            same_image = (
                _overlap(rbd.get("monitors") or (), other.get("monitors") or ())
                and rbd.get("pool", "rbd") == other.get("pool", "rbd")
                and rbd.get("image") == other.get("image")
            )
            if same_image and not (_read_only(rbd) and _read_only(other)):
                return True
    return False


def needs_restrictions_check(volume: Volume) -> bool:
    return (
        volume.gce_persistent_disk is not None
        or volume.aws_elastic_block_store is not None
        or volume.rbd is not None
        or volume.iscsi is not None
    )


def satisfy_volume_conflicts(pod: Pod, node_info: NodeInfo) -> bool:
    for volume in pod_volumes(pod):
        if not needs_restrictions_check(volume):
            continue
        for existing in node_info.pods:
            if is_volume_conflict(volume, existing.pod):
                return False
    return True


class VolumeRestrictions:
    """PreFilter (+AddPod/RemovePod) and Filter; see the module docstring."""

    def __init__(self, handle: Any = None) -> None:
        self._handle = handle

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Feasibility depends on the pod's volumes but ConfigMaps and Secrets (Go, v1.35)."""
        return [SignFragment(sig.VOLUMES_SIGNER_NAME, sig.volumes_signer(pod))], None

    def _read_write_once_pod_pvcs(self, pod: Pod) -> frozenset[str]:
        listers = listers_of(self._handle)
        found = set()
        for volume in pod_volumes(pod):
            if volume.persistent_volume_claim is None:
                continue
            name = volume.claim_name(pod) or ""
            claim = listers.get(PersistentVolumeClaim, name, pod.metadata.namespace)
            if claim is None:
                raise NotFound(resource_for(PersistentVolumeClaim), name)
            if "ReadWriteOncePod" in claim.spec.access_modes:
                found.add(claim.metadata.name)
        return frozenset(found)

    def _used_claims(self) -> set[str]:
        """``namespace/claim`` of every claim a scheduled pod uses (the snapshot's ``usedPVCSet``)."""
        lister = self._handle.snapshot_shared_lister() if self._handle is not None else None
        used: set[str] = set()
        for info in lister.list() if lister is not None else ():
            for pod_info in info.pods:
                pod = pod_info.pod
                for volume in pod_volumes(pod):
                    if volume.persistent_volume_claim is not None:
                        used.add(f"{pod.metadata.namespace}/{volume.claim_name(pod)}")
        return used

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        volumes = pod_volumes(pod)
        if not volumes:
            return None, Status.skip()  # the common case, without a look at the cluster
        needs_check = any(needs_restrictions_check(v) for v in volumes)
        try:
            pvcs = self._read_write_once_pod_pvcs(pod)
        except NotFound as error:
            return None, Status.unresolvable(str(error))
        conflicts = 0
        if pvcs:
            used = self._used_claims()
            conflicts = sum(1 for name in pvcs if f"{pod.metadata.namespace}/{name}" in used)
        if not needs_check and conflicts == 0:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(pvcs, conflicts))
        return None, None

    def pre_filter_extensions(self) -> VolumeRestrictions:
        return self

    def _state(self, state: CycleState) -> PreFilterState | Status:
        try:
            return state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
        except (StateNotFound, TypeError):
            return Status.as_error(
                ValueError(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
            )

    def add_pod(
        self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        found = self._state(state)
        if isinstance(found, Status):
            return found
        found.update_with_pod(pod_info_to_add.pod, 1)
        return None

    def remove_pod(
        self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        found = self._state(state)
        if isinstance(found, Status):
            return found
        found.update_with_pod(pod_info_to_remove.pod, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not satisfy_volume_conflicts(pod, node_info):
            return Status.unschedulable(ERR_REASON_DISK_CONFLICT)
        found = self._state(state)
        if isinstance(found, Status):
            return found
        if found.conflicting_pvc_ref_count > 0:
            return Status.unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return None

    # --- queueing hints --------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A pod deleted (it may free a disk or a claim), a node added, a claim added."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                self.is_schedulable_after_claim_added,
            ),
        ]

    def is_schedulable_after_claim_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if (
            not isinstance(new, PersistentVolumeClaim)
            or new.metadata.namespace != pod.metadata.namespace
        ):
            return QueueingHint.QUEUE_SKIP
        for volume in pod_volumes(pod):
            if (
                volume.persistent_volume_claim is not None
                and volume.claim_name(pod) == new.metadata.name
            ):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if not isinstance(old, Pod):
            return QueueingHint.QUEUE
        if old.metadata.namespace != pod.metadata.namespace:
            return QueueingHint.QUEUE_SKIP
        if not satisfy_volume_conflicts(pod, NodeInfo(old)):
            return QueueingHint.QUEUE
        # A deleted pod that used one of the same claims may have held it ReadWriteOncePod.
        claims = {
            v.claim_name(old) for v in pod_volumes(old) if v.persistent_volume_claim is not None
        }
        for volume in pod_volumes(pod):
            if volume.persistent_volume_claim is not None and volume.claim_name(pod) in claims:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def new(args: Any, handle: Any) -> VolumeRestrictions:
    """The factory the registry calls; VolumeRestrictions takes no args."""
    return VolumeRestrictions(handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = VolumeRestrictions
    _filter: type[interface.FilterPlugin] = VolumeRestrictions
    _enqueue_extensions: type[interface.EnqueueExtensions] = VolumeRestrictions
