"""Defaults and validation of the storage kinds, for the fields the scheduler reads.

**Defaults** (``SetDefaults_*`` of ``pkg/apis/core/v1`` and
``pkg/apis/storage/v1``): a StorageClass binds ``Immediate`` and reclaims
with ``Delete``; a PersistentVolume is ``Retain``, ``Filesystem`` and
``Pending`` until the PV controller sees it; a claim is ``Filesystem`` and
``Pending``; a CSIDriver needs attaching, and publishes no capacity, unless
it says otherwise.

**Validation** (``ValidatePersistentVolume``, ``ValidatePersistentVolumeClaim``,
``ValidateStorageClass``, ``ValidateCSINode``...), in kube's words, only for
what a scheduling decision depends on: access modes, sizes, binding modes,
counts. Everything else a real server checks (a source's own fields,
mount options, expansion) is accepted as given.

>>> from framework.objects.storage import StorageClass
>>> set_defaults(StorageClass.from_dict({"metadata": {"name": "fast"}, "provisioner": "x"})).volume_binding_mode
'Immediate'
>>> [str(c) for c in validate(StorageClass.from_dict({"metadata": {"name": "s"}, "provisioner": "x",
...     "volumeBindingMode": "Later"}))]  # doctest: +ELLIPSIS
['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']

Mirrors ``pkg/apis/core/validation/validation.go`` and
``pkg/apis/storage/validation/validation.go`` (v1.33), in part.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar, cast

from framework.apiserver.errors import FieldCause
from framework.objects import KubeObject
from framework.objects.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)

__all__ = ["ACCESS_MODES", "BINDING_MODES", "set_defaults", "validate"]

T = TypeVar("T", bound=KubeObject)

ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
_VOLUME_MODES = ("Block", "Filesystem")
_FILESYSTEM = "Filesystem"


def _default_volume(pv: PersistentVolume) -> PersistentVolume:
    spec = dataclasses.replace(
        pv.spec,
        persistent_volume_reclaim_policy=pv.spec.persistent_volume_reclaim_policy or "Retain",
        volume_mode=pv.spec.volume_mode or _FILESYSTEM,
    )
    status = dataclasses.replace(pv.status, phase=pv.status.phase or "Pending")
    return dataclasses.replace(pv, spec=spec, status=status)


def _default_claim(pvc: PersistentVolumeClaim) -> PersistentVolumeClaim:
    spec = dataclasses.replace(pvc.spec, volume_mode=pvc.spec.volume_mode or _FILESYSTEM)
    status = dataclasses.replace(pvc.status, phase=pvc.status.phase or "Pending")
    return dataclasses.replace(pvc, spec=spec, status=status)


def _default_driver(driver: CSIDriver) -> CSIDriver:
    spec = driver.spec
    spec = dataclasses.replace(
        spec,
        attach_required=True if spec.attach_required is None else spec.attach_required,
        storage_capacity=False if spec.storage_capacity is None else spec.storage_capacity,
        pod_info_on_mount=False if spec.pod_info_on_mount is None else spec.pod_info_on_mount,
    )
    return dataclasses.replace(driver, spec=spec)


def set_defaults(obj: T) -> T:
    """``obj`` with the storage kinds' defaults filled in; any other object unchanged."""
    if isinstance(obj, StorageClass):
        return cast(
            T,
            dataclasses.replace(
                obj,
                volume_binding_mode=obj.volume_binding_mode or "Immediate",
                reclaim_policy=obj.reclaim_policy or "Delete",
            ),
        )
    if isinstance(obj, PersistentVolume):
        return cast(T, _default_volume(obj))
    if isinstance(obj, PersistentVolumeClaim):
        return cast(T, _default_claim(obj))
    if isinstance(obj, CSIDriver):
        return cast(T, _default_driver(obj))
    return obj


def _access_modes(field: str, modes: tuple[str, ...], required: str) -> list[FieldCause]:
    if not modes:
        return [FieldCause.required(field, required)]
    causes = [
        FieldCause.not_supported(field, mode, list(ACCESS_MODES))
        for mode in modes
        if mode not in ACCESS_MODES
    ]
    if "ReadWriteOncePod" in modes and len(modes) > 1:
        causes.append(
            FieldCause.forbidden(field, "may not use ReadWriteOncePod with other access modes")
        )
    return causes


def _volume_mode(field: str, mode: str | None) -> list[FieldCause]:
    if mode is not None and mode not in _VOLUME_MODES:
        return [FieldCause.not_supported(field, mode, list(_VOLUME_MODES))]
    return []


def _validate_volume(pv: PersistentVolume) -> list[FieldCause]:
    causes = _access_modes(
        "spec.accessModes", pv.spec.access_modes, "must specify at least 1 access mode"
    )
    storage = pv.spec.capacity.get("storage")
    if storage is None:
        causes.append(FieldCause.required("spec.capacity", "must specify storage"))
    elif storage.is_negative():
        causes.append(
            FieldCause.invalid("spec.capacity[storage]", str(storage), "must be greater than zero")
        )
    return causes + _volume_mode("spec.volumeMode", pv.spec.volume_mode)


def _validate_claim(pvc: PersistentVolumeClaim) -> list[FieldCause]:
    causes = _access_modes(
        "spec.accessModes", pvc.spec.access_modes, "at least 1 access mode is required"
    )
    storage = pvc.spec.resources.requests.get("storage")
    if storage is None:
        causes.append(FieldCause.required("spec.resources[storage]", ""))
    elif storage.is_negative() or storage.milli == 0:
        causes.append(
            FieldCause.invalid(
                "spec.resources[storage]", str(storage), "must be greater than zero"
            )
        )
    return causes + _volume_mode("spec.volumeMode", pvc.spec.volume_mode)


def _validate_class(sc: StorageClass) -> list[FieldCause]:
    causes = []
    if not sc.provisioner:
        causes.append(FieldCause.required("provisioner", ""))
    if sc.volume_binding_mode not in BINDING_MODES:
        causes.append(
            FieldCause.not_supported(
                "volumeBindingMode", sc.volume_binding_mode, list(BINDING_MODES)
            )
        )
    for i, term in enumerate(sc.allowed_topologies):
        if not term.match_label_expressions:
            causes.append(
                FieldCause.required(
                    f"allowedTopologies[{i}].matchLabelExpressions",
                    "must contain at least one key-value pair",
                )
            )
        for j, requirement in enumerate(term.match_label_expressions):
            if not requirement.values:
                causes.append(
                    FieldCause.required(
                        f"allowedTopologies[{i}].matchLabelExpressions[{j}].values",
                        "must specify as least one value",
                    )
                )
    return causes


def _validate_csi_node(csi_node: CSINode) -> list[FieldCause]:
    causes = []
    seen: set[str] = set()
    for i, driver in enumerate(csi_node.spec.drivers):
        field = f"spec.drivers[{i}]"
        if not driver.name:
            causes.append(FieldCause.required(f"{field}.name", ""))
        elif driver.name in seen:
            causes.append(FieldCause.duplicate(f"{field}.name", driver.name))
        seen.add(driver.name)
        if not driver.node_id:
            causes.append(FieldCause.required(f"{field}.nodeID", ""))
        count = driver.allocatable.count if driver.allocatable is not None else None
        if count is not None and count < 0:
            causes.append(
                FieldCause.invalid(
                    f"{field}.allocatable.count", count, "must be greater than or equal to 0"
                )
            )
    return causes


def _validate_capacity(capacity: CSIStorageCapacity) -> list[FieldCause]:
    causes = []
    if not capacity.storage_class_name:
        causes.append(FieldCause.required("storageClassName", ""))
    for field, value in (
        ("capacity", capacity.capacity),
        ("maximumVolumeSize", capacity.maximum_volume_size),
    ):
        if value is not None and value.is_negative():
            causes.append(
                FieldCause.invalid(field, str(value), "must be greater than or equal to 0")
            )
    return causes


def validate(obj: KubeObject) -> list[FieldCause]:
    """Every problem with a storage object (the checks above); [] for valid ones and other kinds."""
    if isinstance(obj, PersistentVolume):
        return _validate_volume(obj)
    if isinstance(obj, PersistentVolumeClaim):
        return _validate_claim(obj)
    if isinstance(obj, StorageClass):
        return _validate_class(obj)
    if isinstance(obj, CSINode):
        return _validate_csi_node(obj)
    if isinstance(obj, CSIStorageCapacity):
        return _validate_capacity(obj)
    return []
