"""The PV controller's part a scheduler depends on: binding claims, and provisioning them.

In a cluster, kube-controller-manager's PersistentVolume controller and the
CSI external-provisioners turn what the scheduler decided into bound
volumes. The scheduler's VolumeBinding plugin writes its decision in
PreBind, in one of two ways, and then waits for the claim to be bound:

* **a static binding**: it sets the chosen PV's ``claimRef`` to the claim;
  the controller completes the binding (the claim's ``volumeName``, the
  ``pv.kubernetes.io/bind-completed`` annotation, both phases ``Bound``);
* **a dynamic provisioning**: it annotates the claim with
  ``volume.kubernetes.io/selected-node``; the provisioner creates a PV for
  that node, and the controller binds the two.

Claims of an ``Immediate`` class are bound or provisioned at once, without
the scheduler, which only ever sees them bound.

:func:`reconcile` is that controller as one pure function, which the fake API
server runs after every write of a PersistentVolume or a claim, so a claim
the scheduler bound shows ``Bound`` as soon as PreBind wrote it.

**Provisioning** makes a PV named ``pvc-<claim uid>`` of the size asked
for, with the class's reclaim policy, a ``csi`` source naming the class's
provisioner, and node affinity where it was made: for each key of the
class's ``allowedTopologies`` (or, without them,
``topology.kubernetes.io/zone``), the selected node's value; for an
``Immediate`` claim, the first value of each key of the first allowed
term. That is what a topology-aware CSI provisioner does with its
``topologyKeys``; the keys here are the class's, not the driver's.

Mirrors ``syncClaim``, ``syncVolume``, ``bind`` and ``provisionClaim`` in
``kubernetes/kubernetes:pkg/controller/volume/persistentvolume/pv_controller.go``
(v1.33) and the external-provisioner's topology, in part. Simplified: no
retries, no events, no reclaiming of released volumes, no
CSIStorageCapacity bookkeeping (the capacities stay as given).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from framework.objects import KubeObject, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from framework.objects.meta import ObjectMeta, ObjectReference
from framework.objects.node import Node
from framework.objects.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    CSIPersistentVolumeSource,
    PersistentVolume,
    PersistentVolumeClaim,
    PersistentVolumeSpec,
    PersistentVolumeStatus,
    StorageClass,
    VolumeNodeAffinity,
    claim_class,
)

__all__ = ["Changes", "reconcile"]

ZONE = "topology.kubernetes.io/zone"


@dataclass
class Changes:
    """What one pass wrote: new PVs, and updated PVs and claims (new, old)."""

    created: list[PersistentVolume] = field(default_factory=list)
    updated: list[tuple[KubeObject, KubeObject]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.created or self.updated)


def _bound_claim(
    claim: PersistentVolumeClaim, volume: PersistentVolume, by_us: bool
) -> PersistentVolumeClaim:
    annotations = {**claim.metadata.annotations, ANN_BIND_COMPLETED: "yes"}
    if by_us:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    spec = dataclasses.replace(claim.spec, volume_name=volume.metadata.name)
    status = dataclasses.replace(
        claim.status,
        phase="Bound",
        access_modes=volume.spec.access_modes,
        capacity=dict(volume.spec.capacity),
    )
    return dataclasses.replace(claim, spec=spec, status=status).with_metadata(
        annotations=annotations
    )


def _bound_volume(volume: PersistentVolume, claim: PersistentVolumeClaim) -> PersistentVolume:
    ref = ObjectReference(
        kind="PersistentVolumeClaim",
        api_version="v1",
        namespace=claim.metadata.namespace,
        name=claim.metadata.name,
        uid=claim.metadata.uid,
    )
    annotations = dict(volume.metadata.annotations)
    if volume.spec.claim_ref is None:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    spec = dataclasses.replace(volume.spec, claim_ref=ref)
    status = dataclasses.replace(volume.status, phase="Bound")
    return dataclasses.replace(volume, spec=spec, status=status).with_metadata(
        annotations=annotations
    )


def _affinity(cls: StorageClass, node: Node | None) -> VolumeNodeAffinity | None:
    """Where a provisioned volume can be used from (see the module docstring)."""
    keys: list[str] = []
    for term in cls.allowed_topologies:
        keys += [r.key for r in term.match_label_expressions if r.key not in keys]
    requirements: list[NodeSelectorRequirement] = []
    if node is not None:
        labels = node.metadata.labels
        for key in keys or [ZONE]:
            if key in labels:
                requirements.append(
                    NodeSelectorRequirement(key=key, operator="In", values=(labels[key],))
                )
    elif cls.allowed_topologies:
        requirements = [
            NodeSelectorRequirement(key=r.key, operator="In", values=r.values[:1])
            for r in cls.allowed_topologies[0].match_label_expressions
        ]
    if not requirements:
        return None
    selector_term = NodeSelectorTerm(match_expressions=tuple(requirements))
    return VolumeNodeAffinity(required=NodeSelector(node_selector_terms=(selector_term,)))


def _provision(
    claim: PersistentVolumeClaim, cls: StorageClass, node: Node | None
) -> PersistentVolume:
    storage = claim.spec.resources.requests.get("storage")
    name = f"pvc-{claim.metadata.uid}"
    return PersistentVolume(
        metadata=ObjectMeta(
            name=name, annotations={"pv.kubernetes.io/provisioned-by": cls.provisioner}
        ),
        spec=PersistentVolumeSpec(
            capacity={"storage": storage} if storage is not None else {},
            access_modes=claim.spec.access_modes,
            persistent_volume_reclaim_policy=cls.reclaim_policy or "Delete",
            storage_class_name=claim_class(claim),
            volume_mode=claim.spec.volume_mode,
            node_affinity=_affinity(cls, node),
            csi=CSIPersistentVolumeSource(driver=cls.provisioner, volume_handle=name),
            claim_ref=ObjectReference(
                kind="PersistentVolumeClaim",
                api_version="v1",
                namespace=claim.metadata.namespace,
                name=claim.metadata.name,
                uid=claim.metadata.uid,
            ),
        ),
        status=PersistentVolumeStatus(phase="Pending"),
    )


def reconcile(
    volumes: Sequence[PersistentVolume],
    claims: Sequence[PersistentVolumeClaim],
    classes: Mapping[str, StorageClass],
    nodes: Mapping[str, Node],
) -> Changes:
    """One pass of the controller over everything; the caller writes the changes and may call again."""
    from framework.objects.volume_helpers import NOT_SUPPORTED_PROVISIONER, find_matching_volume

    changes = Changes()
    by_name = {v.metadata.name: v for v in volumes}
    claims_by_key = {(c.metadata.namespace, c.metadata.name): c for c in claims}
    touched: set[str] = set()

    def bind(volume: PersistentVolume, claim: PersistentVolumeClaim, created: bool) -> None:
        new_volume = _bound_volume(volume, claim)
        if created:
            changes.created.append(new_volume)
        else:
            changes.updated.append((new_volume, volume))
        changes.updated.append((_bound_claim(claim, volume, by_us=True), claim))
        touched.add(volume.metadata.name)
        by_name[volume.metadata.name] = new_volume

    # syncVolume: a volume whose claimRef names an unbound claim (the scheduler's static
    # binding, or a volume pre-bound by its author) gets that claim bound to it.
    for volume in volumes:
        ref = volume.spec.claim_ref
        if ref is None:
            if volume.status.phase in ("", "Pending"):
                status = dataclasses.replace(volume.status, phase="Available")
                changes.updated.append((dataclasses.replace(volume, status=status), volume))
            continue
        claim = claims_by_key.get((ref.namespace, ref.name))
        if claim is None or (ref.uid and ref.uid != claim.metadata.uid):
            continue
        if not claim.spec.volume_name or (
            claim.spec.volume_name == volume.metadata.name
            and ANN_BIND_COMPLETED not in claim.metadata.annotations
        ):
            bind(volume, claim, created=False)
            claims_by_key.pop((ref.namespace, ref.name))
        elif claim.spec.volume_name == volume.metadata.name and volume.status.phase != "Bound":
            status = dataclasses.replace(volume.status, phase="Bound")
            changes.updated.append((dataclasses.replace(volume, status=status), volume))

    # syncClaim: unbound claims.
    for claim in claims_by_key.values():
        if ANN_BIND_COMPLETED in claim.metadata.annotations or claim.metadata.deletion_timestamp:
            continue
        if claim.spec.volume_name:  # pre-bound by its author: bind when the volume is free
            named = by_name.get(claim.spec.volume_name)
            if (
                named is not None
                and named.spec.claim_ref is None
                and named.metadata.name not in touched
            ):
                bind(named, claim, created=False)
            continue
        cls = classes.get(claim_class(claim))
        delayed = cls is not None and cls.volume_binding_mode == "WaitForFirstConsumer"
        selected = claim.metadata.annotations.get(ANN_SELECTED_NODE)
        if delayed and not selected:
            continue  # the scheduler chooses, for the first pod using it
        if not delayed:
            free = [v for v in by_name.values() if v.metadata.name not in touched]
            try:
                match = find_matching_volume(claim, free, None, (), delay_binding=False)
            except ValueError:
                match = None
            if match is not None:
                bind(match, claim, created=False)
                continue
        if cls is None or cls.provisioner in ("", NOT_SUPPORTED_PROVISIONER):
            continue
        node = nodes.get(selected) if selected else None
        if selected and node is None:
            continue  # the provisioner waits for its node
        provisioned = _provision(claim, cls, node)
        if provisioned.metadata.name in by_name:
            continue
        bind(provisioned, claim, created=True)
    return changes
