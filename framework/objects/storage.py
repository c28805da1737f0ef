"""Storage objects: volumes, claims, classes and the CSI drivers' view of nodes.

A pod asks for storage through a **PersistentVolumeClaim** (PVC) named in
its ``spec.volumes``. The claim is bound to a **PersistentVolume** (PV):
one that exists (static provisioning), or one a provisioner creates for
it (dynamic provisioning, following the claim's **StorageClass**). The
class's ``volumeBindingMode`` says when: ``Immediate`` (the PV controller
binds or provisions at once, wherever the volume happens to be) or
``WaitForFirstConsumer`` (it waits until the scheduler has picked a node for
the first pod using the claim, so the volume can be made where the pod
runs). A class's ``allowedTopologies`` limit where it may provision.

The CSI drivers publish what the scheduler needs to know: a **CSINode** per
node lists the drivers installed there and how many volumes each can attach
(``allocatable.count``); a **CSIDriver** says whether its driver reports
capacity (``storageCapacity``); a **CSIStorageCapacity** says how much a
class can still provision on the nodes a label selector picks.

Only the fields kube-scheduler's volume plugins read are typed; the rest
travels in ``extra`` (a PV's ``nfs`` or ``hostPath`` source, a claim's
``dataSource``...). A pod's own ``spec.volumes`` are read by
:func:`pod_volumes` from the pod's ``extra``.

>>> pvc = PersistentVolumeClaim.from_dict({"metadata": {"name": "data"},
...     "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
...              "resources": {"requests": {"storage": "10Gi"}}}})
>>> pvc.spec.resources.requests["storage"].units, claim_class(pvc)
(10737418240, 'fast')

Mirrors ``k8s.io/api/core/v1`` (``PersistentVolume``,
``PersistentVolumeClaim``, ``Volume``) and ``k8s.io/api/storage/v1``
(``StorageClass``, ``CSINode``, ``CSIDriver``, ``CSIStorageCapacity``),
v1.33, and ``GetPersistentVolumeClaimClass`` / ``GetPersistentVolumeClass``
of ``k8s.io/component-helpers/storage/volume``. Simplified: the deprecated
``volume.beta.kubernetes.io/storage-class`` annotation is read as kube
reads it, but no other beta annotation is.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from framework.objects.meta import (
    Extra,
    KubeObject,
    LabelSelector,
    ObjectMeta,
    ObjectReference,
    extra_field,
)
from framework.objects.pod import NodeSelector, Pod, ResourceList
from framework.objects.quantity import Quantity
from framework.objects.schema import Model, json_field

__all__ = [
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_SELECTED_NODE",
    "ANN_STORAGE_PROVISIONER",
    "BETA_STORAGE_CLASS_ANNOTATION",
    "EVENT_RESOURCE_KINDS",
    "STORAGE_KINDS",
    "CSIDriver",
    "CSIDriverSpec",
    "CSINode",
    "CSINodeDriver",
    "CSINodeSpec",
    "CSIPersistentVolumeSource",
    "CSIStorageCapacity",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "PersistentVolumeClaimSpec",
    "PersistentVolumeClaimStatus",
    "PersistentVolumeSpec",
    "PersistentVolumeStatus",
    "StorageClass",
    "TopologySelectorLabelRequirement",
    "TopologySelectorTerm",
    "Volume",
    "VolumeNodeAffinity",
    "VolumeNodeResources",
    "VolumeResourceRequirements",
    "claim_class",
    "pod_volumes",
    "volume_class",
]

ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
"""Annotation the scheduler sets on a claim to provision it for that node (``AnnSelectedNode``)."""
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
"""Annotation the PV controller sets on a claim once the binding is whole (``AnnBindCompleted``)."""
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
"""Annotation the PV controller sets on what it bound itself (``AnnBoundByController``)."""
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
"""Annotation naming the provisioner that is to provision a claim."""
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


# --- PersistentVolume -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CSIPersistentVolumeSource(Model):
    """``spec.csi``: the driver and the driver's own id of the volume."""

    driver: str = ""
    volume_handle: str = ""
    read_only: bool = False
    fs_type: str = ""
    volume_attributes: Mapping[str, str] = field(default_factory=dict)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class VolumeNodeAffinity(Model):
    """``spec.nodeAffinity``: the nodes the volume can be used from (``required``)."""

    required: NodeSelector | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PersistentVolumeSpec(Model):
    """``spec``: size, access modes, class, node affinity, the claim it is bound to, its source.

    Of the in-tree sources, ``gcePersistentDisk``, ``awsElasticBlockStore``,
    ``azureDisk``, ``cinder``, ``rbd`` and ``iscsi`` are kept as plain data
    (the volume plugins read a key or two of each); the others stay in ``extra``.
    """

    capacity: ResourceList = field(default_factory=dict)
    access_modes: tuple[str, ...] = ()
    claim_ref: ObjectReference | None = None
    persistent_volume_reclaim_policy: str = ""
    storage_class_name: str = ""
    volume_mode: str | None = None
    node_affinity: VolumeNodeAffinity | None = None
    csi: CSIPersistentVolumeSource | None = None
    gce_persistent_disk: Mapping[str, Any] | None = None
    aws_elastic_block_store: Mapping[str, Any] | None = None
    azure_disk: Mapping[str, Any] | None = None
    cinder: Mapping[str, Any] | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PersistentVolumeStatus(Model):
    """``status.phase``: Pending, Available, Bound, Released or Failed."""

    phase: str = ""
    message: str = ""
    reason: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PersistentVolume(KubeObject):
    """``v1.PersistentVolume`` (cluster-scoped)."""

    KIND: ClassVar[str] = "PersistentVolume"
    NAMESPACED: ClassVar[bool] = False

    api_version: str = "v1"
    kind: str = "PersistentVolume"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: PersistentVolumeSpec = field(default_factory=PersistentVolumeSpec)
    status: PersistentVolumeStatus = field(default_factory=PersistentVolumeStatus)
    extra: Extra = extra_field()


# --- PersistentVolumeClaim ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VolumeResourceRequirements(Model):
    """A claim's ``resources``: ``requests.storage`` is the size asked for."""

    requests: ResourceList = field(default_factory=dict)
    limits: ResourceList = field(default_factory=dict)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaimSpec(Model):
    """``spec``: access modes, size, class (None: the default class), selector, the PV bound."""

    access_modes: tuple[str, ...] = ()
    selector: LabelSelector | None = None
    resources: VolumeResourceRequirements = field(default_factory=VolumeResourceRequirements)
    volume_name: str = ""
    storage_class_name: str | None = None
    volume_mode: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaimStatus(Model):
    """``status``: Pending, Bound or Lost, and what the bound volume gives."""

    phase: str = ""
    access_modes: tuple[str, ...] = ()
    capacity: ResourceList = field(default_factory=dict)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim(KubeObject):
    """``v1.PersistentVolumeClaim``."""

    KIND: ClassVar[str] = "PersistentVolumeClaim"

    api_version: str = "v1"
    kind: str = "PersistentVolumeClaim"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: PersistentVolumeClaimSpec = field(default_factory=PersistentVolumeClaimSpec)
    status: PersistentVolumeClaimStatus = field(default_factory=PersistentVolumeClaimStatus)
    extra: Extra = extra_field()


def claim_class(claim: PersistentVolumeClaim) -> str:
    """The claim's class name, "" for none (``GetPersistentVolumeClaimClass``): the beta annotation wins."""
    annotation = claim.metadata.annotations.get(BETA_STORAGE_CLASS_ANNOTATION)
    if annotation is not None:
        return annotation
    return claim.spec.storage_class_name or ""


def volume_class(volume: PersistentVolume) -> str:
    """The volume's class name (``GetPersistentVolumeClass``): the beta annotation wins."""
    annotation = volume.metadata.annotations.get(BETA_STORAGE_CLASS_ANNOTATION)
    if annotation is not None:
        return annotation
    return volume.spec.storage_class_name


# --- StorageClass ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopologySelectorLabelRequirement(Model):
    """``key`` whose value must be one of ``values``."""

    key: str = ""
    values: tuple[str, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class TopologySelectorTerm(Model):
    """Requirements that must all hold (``matchLabelExpressions``); the terms are ORed."""

    match_label_expressions: tuple[TopologySelectorLabelRequirement, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class StorageClass(KubeObject):
    """``storage.k8s.io/v1`` StorageClass (cluster-scoped; its fields are top-level, no ``spec``).

    ``volume_binding_mode`` is None only before the API server defaults it
    to ``Immediate``.
    """

    KIND: ClassVar[str] = "StorageClass"
    API_VERSION: ClassVar[str] = "storage.k8s.io/v1"
    NAMESPACED: ClassVar[bool] = False

    api_version: str = "storage.k8s.io/v1"
    kind: str = "StorageClass"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    provisioner: str = ""
    parameters: Mapping[str, str] = field(default_factory=dict)
    reclaim_policy: str | None = None
    volume_binding_mode: str | None = None
    allowed_topologies: tuple[TopologySelectorTerm, ...] = ()
    allow_volume_expansion: bool | None = None
    mount_options: tuple[str, ...] = ()
    extra: Extra = extra_field()


# --- CSI ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VolumeNodeResources(Model):
    """``allocatable``: how many of the driver's volumes the node can attach (None: no limit)."""

    count: int | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class CSINodeDriver(Model):
    """One driver installed on the node."""

    name: str = ""
    node_id: str = json_field("nodeID", "")
    topology_keys: tuple[str, ...] = ()
    allocatable: VolumeNodeResources | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class CSINodeSpec(Model):
    """``spec.drivers``."""

    drivers: tuple[CSINodeDriver, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class CSINode(KubeObject):
    """``storage.k8s.io/v1`` CSINode (cluster-scoped, named after its node)."""

    KIND: ClassVar[str] = "CSINode"
    API_VERSION: ClassVar[str] = "storage.k8s.io/v1"
    NAMESPACED: ClassVar[bool] = False

    api_version: str = "storage.k8s.io/v1"
    kind: str = "CSINode"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: CSINodeSpec = field(default_factory=CSINodeSpec)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class CSIDriverSpec(Model):
    """``spec``: ``storageCapacity`` (the driver publishes CSIStorageCapacity), ``attachRequired``."""

    attach_required: bool | None = None
    storage_capacity: bool | None = None
    pod_info_on_mount: bool | None = None
    volume_lifecycle_modes: tuple[str, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class CSIDriver(KubeObject):
    """``storage.k8s.io/v1`` CSIDriver (cluster-scoped, named after the driver)."""

    KIND: ClassVar[str] = "CSIDriver"
    API_VERSION: ClassVar[str] = "storage.k8s.io/v1"
    NAMESPACED: ClassVar[bool] = False

    api_version: str = "storage.k8s.io/v1"
    kind: str = "CSIDriver"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: CSIDriverSpec = field(default_factory=CSIDriverSpec)
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class CSIStorageCapacity(KubeObject):
    """``storage.k8s.io/v1`` CSIStorageCapacity: what ``storageClassName`` can still provision where.

    ``node_topology`` selects the nodes by label (None: none);
    ``maximum_volume_size``, when given, is the largest single volume.
    """

    KIND: ClassVar[str] = "CSIStorageCapacity"
    API_VERSION: ClassVar[str] = "storage.k8s.io/v1"

    api_version: str = "storage.k8s.io/v1"
    kind: str = "CSIStorageCapacity"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    node_topology: LabelSelector | None = None
    storage_class_name: str = ""
    capacity: Quantity | None = None
    maximum_volume_size: Quantity | None = None
    extra: Extra = extra_field()


# --- a pod's volumes ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Volume(Model):
    """One entry of a pod's ``spec.volumes``: its name and its source, as plain data.

    ``persistent_volume_claim`` is ``{"claimName": ..., "readOnly": ...}``;
    ``ephemeral`` is a claim template (its PVC is named ``<pod>-<volume>``).
    """

    name: str = ""
    persistent_volume_claim: Mapping[str, Any] | None = None
    ephemeral: Mapping[str, Any] | None = None
    gce_persistent_disk: Mapping[str, Any] | None = None
    aws_elastic_block_store: Mapping[str, Any] | None = None
    azure_disk: Mapping[str, Any] | None = None
    cinder: Mapping[str, Any] | None = None
    rbd: Mapping[str, Any] | None = None
    iscsi: Mapping[str, Any] | None = None
    extra: Extra = extra_field()

    def claim_name(self, pod: Pod) -> str | None:
        """The PVC this volume uses (``ephemeral.VolumeClaimName`` for an ephemeral one), or None."""
        if self.persistent_volume_claim is not None:
            return str(self.persistent_volume_claim.get("claimName") or "")
        if self.ephemeral is not None:
            return f"{pod.metadata.name}-{self.name}"
        return None


STORAGE_KINDS: tuple[type[KubeObject], ...] = (
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    CSINode,
    CSIDriver,
    CSIStorageCapacity,
)
"""The storage kinds, in the order their objects refer to one another (a class before its claims)."""

EVENT_RESOURCE_KINDS: Mapping[str, type[KubeObject]] = {
    "PersistentVolume": PersistentVolume,
    "PersistentVolumeClaim": PersistentVolumeClaim,
    "storage.k8s.io/StorageClass": StorageClass,
    "storage.k8s.io/CSINode": CSINode,
}
"""The kinds behind kube-scheduler's storage event resources (``framework.StorageClass``...)."""

_NO_VOLUMES: tuple[Volume, ...] = ()


_PARSED: OrderedDict[int, tuple[Any, tuple[Volume, ...]]] = OrderedDict()
_PARSED_MAX = 8192


def pod_volumes(pod: Pod) -> tuple[Volume, ...]:
    """The pod's ``spec.volumes``, typed (the pod model keeps them in ``spec.extra``).

    The volume plugins ask for the volumes of every pod on every node they
    filter; each pod's list is parsed once and kept (the most recent few
    thousand), keyed by the list itself, which a stored pod never changes.
    """
    raw = pod.spec.extra.get("volumes")
    if not raw:
        return _NO_VOLUMES
    key = id(raw)
    hit = _PARSED.get(key)
    if hit is not None and hit[0] is raw:
        return hit[1]
    parsed = tuple(Volume.from_dict(v) for v in raw if isinstance(v, Mapping))
    _PARSED[key] = (raw, parsed)  # the list is kept alive with it, so its id is not reused
    if len(_PARSED) > _PARSED_MAX:
        _PARSED.popitem(last=False)
    return parsed
