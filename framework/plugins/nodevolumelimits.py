"""NodeVolumeLimits: a node can attach only so many volumes of each CSI driver.

Cloud disks are attached to the node's virtual machine, and each machine
type takes a limited number (39 EBS volumes on many AWS instances, 127 PDs
on GCE...). Each CSI driver publishes its node's limit in that node's
CSINode object (``spec.drivers[].allocatable.count``; an older form is a
node allocatable named ``attachable-volumes-csi-<driver>``). A pod whose new
volumes would take a driver past the limit, counting the volumes the pods
already on the node use (one volume used by two pods counts once), does
not fit: ``Unschedulable`` with :data:`ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED`
(evicting a pod may free an attachment, so preemption may help).

Which volumes count, per driver, keyed by ``<driver>/<volume handle>``:

* a claim bound to a CSI volume: its driver and handle;
* a claim bound to an in-tree volume (GCE PD, AWS EBS, Azure Disk,
  Cinder) migrated to CSI: the CSI driver it is migrated to, and the
  handle the translation gives;
* a claim not bound yet: its StorageClass's provisioner (or the CSI driver
  an in-tree provisioner is migrated to), with a handle made up for the
  claim (so it counts as a new volume);
* an in-line in-tree volume of those four kinds, translated likewise.

In-tree migration counts only on nodes that have a CSINode (as in kube,
where ``isCSIMigrationOn`` needs one); in v1.33 the four plugins above are
migrated everywhere (their gates are GA and locked on).

**PreFilter** returns ``Skip`` for a pod without a claim, an ephemeral
volume or a migratable in-line volume: most pods.

>>> from framework.cycle_state import CycleState
>>> from framework.objects import Pod
>>> _, status = CSILimits(None).pre_filter(CycleState(), Pod.from_dict({"metadata": {"name": "p"}}), [])
>>> status.code.name
'SKIP'

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodevolumelimits/csi.go``
and ``utils.go`` (v1.33), ``GetCSIAttachLimitKey`` in ``pkg/volume/util``, and
the in-tree translations of ``k8s.io/csi-translation-lib`` for the volume
handle only. Simplified: a GCE PD's handle names its zone from the volume's
zone label (``UNSPECIFIED`` without one), not from its node affinity.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
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
from framework.interface import PreFilterResult, SignFragment
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.storage import (
    CSINode,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    Volume,
    claim_class,
    pod_volumes,
)
from framework.plugins import names
from framework.plugins.listers import ClientListers, listers_of
from framework.runtime import signature as sig
from framework.status import Status

__all__ = [
    "CSI_ATTACH_LIMIT_PREFIX",
    "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED",
    "NAME",
    "CSILimits",
    "csi_attach_limit_key",
    "new",
]

NAME = names.NODE_VOLUME_LIMITS
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
"""Filter's reason when the new volumes would take a driver past the node's limit."""
CSI_ATTACH_LIMIT_PREFIX = "attachable-volumes-csi-"
_ATTACHABLE_PREFIX = "attachable-volumes-"
_RESOURCE_NAME_LENGTH_LIMIT = 63

# In-tree plugin name -> (the CSI driver it migrated to, the in-line/PV source field).
_MIGRATED = {
    "kubernetes.io/gce-pd": ("pd.csi.storage.gke.io", "gce_persistent_disk"),
    "kubernetes.io/aws-ebs": ("ebs.csi.aws.com", "aws_elastic_block_store"),
    "kubernetes.io/azure-disk": ("disk.csi.azure.com", "azure_disk"),
    "kubernetes.io/cinder": ("cinder.csi.openstack.org", "cinder"),
}


def csi_attach_limit_key(driver: str) -> str:
    """``attachable-volumes-csi-<driver>``, shortened with a hash past 63 characters."""
    if len(CSI_ATTACH_LIMIT_PREFIX) + len(driver) >= _RESOURCE_NAME_LENGTH_LIMIT:
        hashed = hashlib.sha1(driver.encode()).hexdigest()[:16]
        return CSI_ATTACH_LIMIT_PREFIX + driver[:23] + hashed
    return CSI_ATTACH_LIMIT_PREFIX + driver


def _in_tree_source(source: Any) -> tuple[str, Mapping[str, Any]] | None:
    """The in-tree plugin name and source of a volume or PV spec that has a migratable one."""
    for plugin, (_, field) in _MIGRATED.items():
        value = getattr(source, field, None)
        if value is not None:
            return plugin, value
    return None


def _handle(plugin: str, source: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """The volume handle csi-translation-lib gives an in-tree source."""
    if plugin == "kubernetes.io/gce-pd":
        zone = labels.get("topology.kubernetes.io/zone") or labels.get(
            "failure-domain.beta.kubernetes.io/zone", "UNSPECIFIED"
        )
        return f"projects/UNSPECIFIED/zones/{zone}/disks/{source.get('pdName', '')}"
    if plugin == "kubernetes.io/aws-ebs":
        volume_id = str(source.get("volumeID", ""))
        return volume_id.rsplit("/", 1)[-1] if volume_id.startswith("aws://") else volume_id
    if plugin == "kubernetes.io/azure-disk":
        return str(source.get("diskURI", ""))
    return str(source.get("volumeID", ""))


def _migration_on(csi_node: CSINode | None, plugin: str) -> bool:
    """``isCSIMigrationOn``: needs a CSINode; GCE PD, AWS EBS, Azure Disk and Cinder are migrated."""
    return csi_node is not None and plugin in _MIGRATED


def volume_limits(node_info: NodeInfo, csi_node: CSINode | None) -> dict[str, int]:
    """Each driver's limit on the node: its allocatable ``attachable-volumes-*``, then its CSINode."""
    limits: dict[str, int] = {}
    node = node_info.node
    if node is not None:
        for name, quantity in node.status.allocatable.items():
            if name.startswith(_ATTACHABLE_PREFIX):
                limits[name] = quantity.units
    if csi_node is not None:
        for driver in csi_node.spec.drivers:
            if driver.allocatable is not None and driver.allocatable.count is not None:
                limits[csi_attach_limit_key(driver.name)] = driver.allocatable.count
    return limits


class _ClaimError(Exception):
    """A claim the new pod needs that cannot be read (its message is the status's reason)."""

    def __init__(self, message: str, not_found: bool) -> None:
        super().__init__(message)
        self.not_found = not_found


class CSILimits:
    """PreFilter and Filter; see the module docstring."""

    def __init__(self, handle: Any = None) -> None:
        self._handle = handle
        # Made-up handles for unbound claims; never a real driver's (kube: rand.String(32)).
        self.random_volume_id_prefix = "ksf-unbound-claim"

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Feasibility depends on the pod's volumes but ConfigMaps and Secrets (Go, v1.35)."""
        return [SignFragment(sig.VOLUMES_SIGNER_NAME, sig.volumes_signer(pod))], None

    def _listers(self) -> ClientListers:
        return listers_of(self._handle)

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        for volume in pod_volumes(pod):
            if (
                volume.persistent_volume_claim is not None
                or volume.ephemeral is not None
                or _in_tree_source(volume) is not None
            ):
                return None, None
        return None, Status.skip()

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod_volumes(pod) or node_info.node is None:
            return None
        listers = self._listers()
        csi_node = listers.get(CSINode, node_info.node.metadata.name)
        new_volumes: dict[str, str] = {}
        try:
            self.filter_attachable_volumes(listers, pod, csi_node, True, new_volumes)
        except _ClaimError as error:
            if error.not_found:
                return Status.unresolvable(str(error))
            return Status.as_error(error)
        if not new_volumes:
            return None
        limits = volume_limits(node_info, csi_node)
        if not limits:
            return None
        attached: dict[str, str] = {}
        for existing in node_info.pods:
            try:
                self.filter_attachable_volumes(listers, existing.pod, csi_node, False, attached)
            except _ClaimError as error:
                return Status.as_error(error)
        attached_count: dict[str, int] = {}
        for unique_name, key in attached.items():
            new_volumes.pop(unique_name, None)  # one volume in two pods counts once
            attached_count[key] = attached_count.get(key, 0) + 1
        new_count: dict[str, int] = {}
        for key in new_volumes.values():
            new_count[key] = new_count.get(key, 0) + 1
        for key, count in new_count.items():
            limit = limits.get(key)
            if limit is not None and attached_count.get(key, 0) + count > limit:
                return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def filter_attachable_volumes(
        self,
        listers: ClientListers,
        pod: Pod,
        csi_node: CSINode | None,
        new_pod: bool,
        result: dict[str, str],
    ) -> None:
        """Add ``<driver>/<handle>`` -> limit key for each of the pod's attachable volumes."""
        namespace = pod.metadata.namespace
        for volume in pod_volumes(pod):
            claim_name = volume.claim_name(pod)
            if claim_name is None:
                self._check_inline(volume, csi_node, result)
                continue
            if not claim_name:
                raise _ClaimError("PersistentVolumeClaim had no name", False)
            claim = listers.get(PersistentVolumeClaim, claim_name, namespace)
            if claim is None:
                if new_pod:
                    missing = NotFound(resource_for(PersistentVolumeClaim), claim_name)
                    raise _ClaimError(f"looking up PVC {namespace}/{claim_name}: {missing}", True)
                continue
            if volume.ephemeral is not None and not _owned_by(claim, pod):
                raise _ClaimError(
                    f"PVC {namespace}/{claim_name} was not created for pod "
                    f"{namespace}/{pod.metadata.name} (pod is not owner)",
                    False,
                )
            driver, handle = self._driver_info(listers, csi_node, claim)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    def _check_inline(
        self, volume: Volume, csi_node: CSINode | None, result: dict[str, str]
    ) -> None:
        found = _in_tree_source(volume)
        if found is None:
            return
        plugin, source = found
        if not _migration_on(csi_node, plugin):
            return
        driver = _MIGRATED[plugin][0]
        result[f"{driver}/{_handle(plugin, source, {})}"] = csi_attach_limit_key(driver)

    def _driver_info(
        self, listers: ClientListers, csi_node: CSINode | None, claim: PersistentVolumeClaim
    ) -> tuple[str, str]:
        """The claim's driver and volume handle (``getCSIDriverInfo``); ("", "") to not count it."""
        pv_name = claim.spec.volume_name
        volume = listers.get(PersistentVolume, pv_name) if pv_name else None
        if volume is None:
            return self._driver_info_from_class(listers, csi_node, claim)
        if volume.spec.csi is not None:
            return volume.spec.csi.driver, volume.spec.csi.volume_handle
        found = _in_tree_source(volume.spec)
        if found is None:
            return "", ""
        plugin, source = found
        if not _migration_on(csi_node, plugin):
            return "", ""
        return _MIGRATED[plugin][0], _handle(plugin, source, volume.metadata.labels)

    def _driver_info_from_class(
        self, listers: ClientListers, csi_node: CSINode | None, claim: PersistentVolumeClaim
    ) -> tuple[str, str]:
        class_name = claim_class(claim)
        if not class_name:
            return "", ""  # an Immediate claim, bound before scheduling: not counted
        cls = listers.get(StorageClass, class_name)
        if cls is None:
            return "", ""
        handle = f"{self.random_volume_id_prefix}-{claim.metadata.namespace}/{claim.metadata.name}"
        if cls.provisioner in _MIGRATED:
            if not _migration_on(csi_node, cls.provisioner):
                return "", ""
            return _MIGRATED[cls.provisioner][0], handle
        return cls.provisioner, handle

    # --- queueing hints --------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A CSINode added, a pod with volumes deleted from a node, a claim the pod uses added."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                self.is_schedulable_after_claim_added,
            ),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if not isinstance(old, Pod):
            return QueueingHint.QUEUE
        if not old.spec.node_name:
            return QueueingHint.QUEUE_SKIP
        for volume in pod_volumes(old):
            if (
                volume.persistent_volume_claim is not None
                or volume.ephemeral is not None
                or _in_tree_source(volume) is not None
            ):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_claim_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if (
            not isinstance(new, PersistentVolumeClaim)
            or new.metadata.namespace != pod.metadata.namespace
        ):
            return QueueingHint.QUEUE_SKIP
        wanted = {volume.claim_name(pod) for volume in pod_volumes(pod)}
        return QueueingHint.QUEUE if new.metadata.name in wanted else QueueingHint.QUEUE_SKIP


def _owned_by(claim: PersistentVolumeClaim, pod: Pod) -> bool:
    """``ephemeral.VolumeIsForPod``: the claim's controller is the pod."""
    for ref in claim.metadata.owner_references:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return ref.get("uid") == pod.metadata.uid
    return False


def new(args: Any, handle: Any) -> CSILimits:
    """The factory the registry calls; NodeVolumeLimits takes no args."""
    return CSILimits(handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = CSILimits
    _filter: type[interface.FilterPlugin] = CSILimits
    _enqueue_extensions: type[interface.EnqueueExtensions] = CSILimits
