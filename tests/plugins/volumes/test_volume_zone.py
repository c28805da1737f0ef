"""VolumeZone, transcribed from ``TestSingleZone``, ``TestMultiZone`` and ``TestWithBinding``
in ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go``
(the version read carries v1.33's rules)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.storage import PersistentVolume, PersistentVolumeClaim, StorageClass
from framework.plugins.volumezone import ERR_REASON_CONFLICT, VolumeZone
from framework.status import Code, Status
from tests.plugins.volumes.helpers import handle

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"


def pv(name: str, **labels: str) -> PersistentVolume:
    return PersistentVolume.from_dict({"metadata": {"name": name, "labels": labels}})


def pvc(name: str, volume: str = "", cls: str | None = None) -> PersistentVolumeClaim:
    spec: dict[str, Any] = {"volumeName": volume}
    if cls is not None:
        spec["storageClassName"] = cls
    return PersistentVolumeClaim.from_dict(
        {"metadata": {"name": name, "namespace": "default"}, "spec": spec}
    )


def pod_with(claim: str | None) -> Pod:
    volumes = [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}] if claim else []
    return Pod.from_dict(
        {"metadata": {"name": "pod_1", "namespace": "default"}, "spec": {"volumes": volumes}}
    )


def node(**labels: str) -> NodeInfo:
    info = NodeInfo()
    info.set_node(Node.from_dict({"metadata": {"name": "host1", "labels": labels}}))
    return info


SINGLE = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Stable_3", **{ZONE: "us-west1-a", REGION: "us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_2", "Vol_2"),
    pvc("PVC_3", "Vol_3"),
    pvc("PVC_4", "Vol_not_exist"),
    pvc("PVC_Stable_1", "Vol_Stable_1"),
    pvc("PVC_Stable_2", "Vol_Stable_2"),
    pvc("PVC_Stable_3", "Vol_Stable_3"),
]
CONFLICT = Status.unresolvable(ERR_REASON_CONFLICT)
SKIP = Status.skip()


def run(objects: list[Any], claim: str | None, labels: dict[str, str]) -> tuple[Any, Any]:
    plugin = VolumeZone(handle(*objects))
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod_with(claim), [])
    return pre, plugin.filter(state, pod_with(claim), node(**labels))


def same(got: Status | None, want: Status | None) -> bool:
    if want is None:
        return got is None
    return got is not None and (got.code, got.reasons) == (want.code, want.reasons)


@pytest.mark.parametrize(
    ("claim", "labels", "pre", "filtered"),
    [
        pytest.param(None, {BETA_ZONE: "us-west1-a"}, SKIP, None, id="pod without volume"),
        pytest.param("PVC_1", {}, None, None, id="node without labels"),
        pytest.param(
            "PVC_1",
            {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
            None,
            None,
            id="beta zone label matched",
        ),
        pytest.param(
            "PVC_2",
            {BETA_REGION: "us-west1", "uselessLabel": "none"},
            None,
            None,
            id="beta region label matched",
        ),
        pytest.param(
            "PVC_2",
            {BETA_REGION: "no_us-west1", "uselessLabel": "none"},
            None,
            CONFLICT,
            id="beta region label doesn't match",
        ),
        pytest.param(
            "PVC_1",
            {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"},
            None,
            CONFLICT,
            id="beta zone label doesn't match",
        ),
        pytest.param(
            "PVC_Stable_1",
            {ZONE: "us-west1-a", "uselessLabel": "none"},
            None,
            None,
            id="zone label matched",
        ),
        pytest.param(
            "PVC_Stable_2",
            {REGION: "us-west1", "uselessLabel": "none"},
            None,
            None,
            id="region label matched",
        ),
        pytest.param(
            "PVC_Stable_2",
            {REGION: "no_us-west1", "uselessLabel": "none"},
            None,
            CONFLICT,
            id="region label doesn't match",
        ),
        pytest.param(
            "PVC_Stable_1",
            {ZONE: "no_us-west1-a", "uselessLabel": "none"},
            None,
            CONFLICT,
            id="zone label doesn't match",
        ),
        pytest.param(
            "PVC_Stable_3",
            {ZONE: "us-west1-a"},
            None,
            CONFLICT,
            id="pv with zone and region, node with only zone",
        ),
        pytest.param(
            "PVC_Stable_1",
            {BETA_ZONE: "us-west1-a"},
            None,
            CONFLICT,
            id="pv with zone,node with beta zone",
        ),
        pytest.param(
            "PVC_1",
            {ZONE: "us-west1-a"},
            None,
            None,
            id="pv with beta label,node with ga label, matched",
        ),
        pytest.param(
            "PVC_1",
            {ZONE: "us-west1-b"},
            None,
            CONFLICT,
            id="pv with beta label,node with ga label, don't match",
        ),
    ],
)
def test_single_zone(claim: str | None, labels: dict[str, str], pre: Any, filtered: Any) -> None:
    got_pre, got_filter = run(SINGLE, claim, labels)
    assert same(got_pre, pre), got_pre
    assert same(got_filter, filtered), got_filter


MULTI = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_ZONE: "us-west1-c__us-west1-a"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{ZONE: "us-west1-c__us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_2", "Vol_2"),
    pvc("PVC_3", "Vol_3"),
    pvc("PVC_4", "Vol_not_exist"),
    pvc("PVC_Stable_1", "Vol_Stable_1"),
    pvc("PVC_Stable_2", "Vol_Stable_2"),
]


@pytest.mark.parametrize(
    ("claim", "labels", "filtered"),
    [
        pytest.param("PVC_3", {}, None, id="node without labels"),
        pytest.param(
            "PVC_3",
            {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
            None,
            id="beta zone label matched",
        ),
        pytest.param(
            "PVC_1",
            {BETA_ZONE: "us-west1-b", "uselessLabel": "none"},
            CONFLICT,
            id="beta zone label doesn't match",
        ),
        pytest.param(
            "PVC_Stable_2",
            {ZONE: "us-west1-a", "uselessLabel": "none"},
            None,
            id="zone label matched",
        ),
        pytest.param(
            "PVC_Stable_1",
            {ZONE: "us-west1-b", "uselessLabel": "none"},
            CONFLICT,
            id="zone label doesn't match",
        ),
    ],
)
def test_multi_zone(claim: str, labels: dict[str, str], filtered: Any) -> None:
    got_pre, got_filter = run(MULTI, claim, labels)
    assert got_pre is None
    assert same(got_filter, filtered), got_filter


WITH_BINDING = [
    StorageClass.from_dict(
        {"metadata": {"name": "Class_Immediate"}, "volumeBindingMode": "Immediate"}
    ),
    StorageClass.from_dict(
        {"metadata": {"name": "Class_Wait"}, "volumeBindingMode": "WaitForFirstConsumer"}
    ),
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_NoSC", cls="Class_0"),
    pvc("PVC_EmptySC"),
    pvc("PVC_WaitSC", cls="Class_Wait"),
    pvc("PVC_ImmediateSC", cls="Class_Immediate"),
]


@pytest.mark.parametrize(
    ("claim", "want"),
    [
        pytest.param("PVC_1", None, id="label zone failure domain matched"),
        pytest.param(
            "PVC_EmptySC",
            Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
            id="unbound volume empty storage class",
        ),
        pytest.param(
            "PVC_NoSC",
            Status.unresolvable('storageclasses.storage.k8s.io "Class_0" not found'),
            id="unbound volume no storage class",
        ),
        pytest.param(
            "PVC_ImmediateSC",
            Status.unresolvable("PersistentVolume had no name"),
            id="unbound volume immediate binding mode",
        ),
        pytest.param("PVC_WaitSC", SKIP, id="unbound volume wait binding mode"),
    ],
)
def test_with_binding(claim: str, want: Status | None) -> None:
    labels = {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}
    got_pre, got_filter = run(WITH_BINDING, claim, labels)
    assert same(got_pre, want), got_pre
    if want is None or want.code is not Code.SKIP:
        assert same(got_filter, want), got_filter
