"""The storage kinds in the fake API server: defaults, validation, and the PV controller's binding.

Defaults and validation follow ``SetDefaults_StorageClass``,
``SetDefaults_PersistentVolume(Claim)``, ``ValidatePersistentVolumeClaim``
and ``ValidateStorageClass`` (v1.33); the binding follows
``pkg/controller/volume/persistentvolume/pv_controller.go`` (see
:mod:`framework.apiserver.pv_controller`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.apiserver import APIServer, Invalid
from framework.clock import FakeClock
from framework.objects import Node
from framework.objects.storage import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    CSIDriver,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)


def sc(name: str = "fast", mode: str | None = None, **extra: Any) -> StorageClass:
    doc: dict[str, Any] = {"metadata": {"name": name}, "provisioner": "pd.csi.storage.gke.io"}
    if mode:
        doc["volumeBindingMode"] = mode
    return StorageClass.from_dict(doc | extra)


def pvc(
    name: str = "data", cls: str | None = "fast", size: str = "10Gi", **spec: Any
) -> PersistentVolumeClaim:
    body: dict[str, Any] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": size}},
        **spec,
    }
    if cls is not None:
        body["storageClassName"] = cls
    return PersistentVolumeClaim.from_dict({"metadata": {"name": name}, "spec": body})


def pv(name: str, size: str = "10Gi", cls: str = "fast", **spec: Any) -> PersistentVolume:
    return PersistentVolume.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "capacity": {"storage": size},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": cls,
                "csi": {"driver": "pd.csi.storage.gke.io", "volumeHandle": name},
                **spec,
            },
        }
    )


@pytest.fixture
def api() -> APIServer:
    return APIServer(FakeClock())


def test_defaults(api: APIServer) -> None:
    created = api.create(sc())
    assert (created.volume_binding_mode, created.reclaim_policy) == ("Immediate", "Delete")
    volume = api.create(pv("pv1", cls="other"))
    assert volume.spec.persistent_volume_reclaim_policy == "Retain"
    assert volume.spec.volume_mode == "Filesystem"
    assert volume.status.phase == "Pending"  # as created; then the controller sees it
    assert api.get(PersistentVolume, "pv1").status.phase == "Available"
    driver = api.create(CSIDriver.from_dict({"metadata": {"name": "d"}}))
    assert (driver.spec.attach_required, driver.spec.storage_capacity) == (True, False)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            PersistentVolumeClaim.from_dict({"metadata": {"name": "c"}, "spec": {}}),
            "spec.accessModes: Required value: at least 1 access mode is required, "
            "spec.resources[storage]: Required value",
        ),
        (
            sc(mode="Later"),
            'volumeBindingMode: Unsupported value: "Later": supported values: '
            '"Immediate", "WaitForFirstConsumer"',
        ),
        (
            PersistentVolume.from_dict(
                {"metadata": {"name": "v"}, "spec": {"accessModes": ["RWO"]}}
            ),
            'spec.accessModes: Unsupported value: "RWO": supported values: "ReadWriteOnce", '
            '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod", spec.capacity: Required value: '
            "must specify storage",
        ),
    ],
)
def test_validation_in_kubes_words(api: APIServer, obj: Any, message: str) -> None:
    with pytest.raises(Invalid) as raised:
        api.create(obj)
    assert message in str(raised.value)


def test_an_immediate_claim_binds_the_smallest_matching_volume(api: APIServer) -> None:
    api.create(sc(provisioner="kubernetes.io/no-provisioner"))
    for name, size in (("big", "100Gi"), ("small", "10Gi"), ("tiny", "1Gi")):
        api.create(pv(name, size))
    api.create(pvc(size="5Gi"))
    claim = api.get(PersistentVolumeClaim, "data")
    assert claim.spec.volume_name == "small" and claim.status.phase == "Bound"
    assert claim.metadata.annotations[ANN_BIND_COMPLETED] == "yes"
    volume = api.get(PersistentVolume, "small")
    assert volume.status.phase == "Bound"
    assert volume.spec.claim_ref is not None and volume.spec.claim_ref.uid == claim.metadata.uid


def test_an_immediate_claim_without_a_volume_is_provisioned(api: APIServer) -> None:
    api.create(sc())
    claim = api.create(pvc())
    bound = api.get(PersistentVolumeClaim, "data")
    assert bound.spec.volume_name == f"pvc-{claim.metadata.uid}"
    assert bound.status.phase == "Bound"


def test_a_wait_for_first_consumer_claim_waits_for_the_scheduler(api: APIServer) -> None:
    api.create(sc(mode="WaitForFirstConsumer"))
    api.create(
        Node.from_dict(
            {"metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "b"}}}
        )
    )
    claim = api.create(pvc())
    assert api.get(PersistentVolumeClaim, "data").status.phase == "Pending"
    assert api.list(PersistentVolume).items == ()
    # VolumeBinding's PreBind for a provisioning: the selected node.
    current = api.get(PersistentVolumeClaim, "data")
    annotations = {**current.metadata.annotations, ANN_SELECTED_NODE: "n1"}
    api.update(current.with_metadata(annotations=annotations))
    bound = api.get(PersistentVolumeClaim, "data")
    assert bound.status.phase == "Bound"
    volume = api.get(PersistentVolume, f"pvc-{claim.metadata.uid}")
    assert volume.spec.node_affinity is not None and volume.spec.node_affinity.required is not None
    (term,) = volume.spec.node_affinity.required.node_selector_terms
    assert [(r.key, r.values) for r in term.match_expressions] == [
        ("topology.kubernetes.io/zone", ("b",))
    ]


def test_the_schedulers_static_binding_is_completed(api: APIServer) -> None:
    api.create(sc(mode="WaitForFirstConsumer", provisioner="kubernetes.io/no-provisioner"))
    api.create(pv("pv1"))
    claim = api.create(pvc())
    assert api.get(PersistentVolumeClaim, "data").status.phase == "Pending"
    volume = api.get(PersistentVolume, "pv1")
    assert volume.status.phase == "Available"
    # VolumeBinding's PreBind for a static binding: the volume's claimRef.
    ref = dataclasses.replace(
        volume.spec.claim_ref or _ref(claim), name="data", namespace="default"
    )
    api.update(dataclasses.replace(volume, spec=dataclasses.replace(volume.spec, claim_ref=ref)))
    assert api.get(PersistentVolumeClaim, "data").spec.volume_name == "pv1"
    assert api.get(PersistentVolumeClaim, "data").status.phase == "Bound"
    assert api.get(PersistentVolume, "pv1").status.phase == "Bound"


def _ref(claim: PersistentVolumeClaim) -> Any:
    from framework.objects import ObjectReference

    return ObjectReference(kind="PersistentVolumeClaim", name=claim.metadata.name)


def test_a_create_clears_the_status_and_the_status_subresource_writes_it(
    api: APIServer,
) -> None:
    """kube-apiserver's strategies (``pkg/registry/core/persistentvolumeclaim/strategy.go`` and
    ``.../persistentvolume/strategy.go``, v1.33): ``PrepareForCreate`` clears the status ("not
    allowed to be set by end users on creation"; a volume starts ``Pending``), an update of the
    main resource keeps the stored status, and ``/status`` writes it, keeping the spec."""
    lost = dataclasses.replace(
        pvc("gone", cls=None, volumeName="pv-deleted"),
        status=dataclasses.replace(PersistentVolumeClaim().status, phase="Lost"),
    )
    created = api.create(lost)
    assert created.status.phase == "Pending"
    claimed = dataclasses.replace(pv("disk", cls="slow"), status=dataclasses.replace(
        PersistentVolume().status, phase="Bound"))  # fmt: skip
    assert api.create(claimed).status.phase == "Pending"
    assert api.get(PersistentVolume, "disk").status.phase == "Available"  # the PV controller's
    current = api.get(PersistentVolumeClaim, "gone")
    written = api.update_status(dataclasses.replace(current, status=lost.status))
    assert written.status.phase == "Lost"
    relabelled = dataclasses.replace(
        written.with_metadata(labels={"tier": "db"}),
        status=dataclasses.replace(written.status, phase="Bound"),
    )
    relabelled = api.update(relabelled)
    assert relabelled.status.phase == "Lost"
    resized = dataclasses.replace(
        relabelled, spec=dataclasses.replace(relabelled.spec, volume_name="other")
    )
    assert api.update_status(resized).spec.volume_name == "pv-deleted"
