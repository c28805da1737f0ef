"""NodeVolumeLimits (CSI), after ``TestCSILimits`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go`` (v1.33):
limits from CSINode, volumes counted once per driver and handle, unbound claims counted by
their class's provisioner, in-tree volumes counted as their migrated driver's."""

from __future__ import annotations

from typing import Any

import pytest

from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import KubeObject, Node, Pod
from framework.objects.storage import (
    CSINode,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from framework.plugins.nodevolumelimits import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    CSILimits,
    csi_attach_limit_key,
)
from framework.status import Code
from tests.plugins.volumes.helpers import handle

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"


def csi_node(limits: dict[str, int]) -> CSINode:
    drivers = [{"name": d, "nodeID": "n", "allocatable": {"count": c}} for d, c in limits.items()]
    return CSINode.from_dict({"metadata": {"name": "node-1"}, "spec": {"drivers": drivers}})


def csi_pv(name: str, driver: str = EBS) -> PersistentVolume:
    return PersistentVolume.from_dict(
        {"metadata": {"name": name}, "spec": {"csi": {"driver": driver, "volumeHandle": name}}}
    )


def bound(name: str, volume: str = "") -> PersistentVolumeClaim:
    spec: dict[str, Any] = {"volumeName": volume} if volume else {"storageClassName": "csi-sc"}
    return PersistentVolumeClaim.from_dict(
        {"metadata": {"name": name, "namespace": "default"}, "spec": spec}
    )


def pod(name: str, *claims: str, inline: list[dict[str, Any]] | None = None) -> Pod:
    volumes = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": name},
            "spec": {"volumes": volumes + (inline or [])},
        }
    )


def run(incoming: Pod, existing: list[Pod], objects: list[KubeObject]) -> Any:
    plugin = CSILimits(handle(*objects))
    state = CycleState()
    _, pre = plugin.pre_filter(state, incoming, [])
    if pre is not None:
        return pre
    info = NodeInfo(*existing)
    info.set_node(Node.from_dict({"metadata": {"name": "node-1"}}))
    return plugin.filter(state, incoming, info)


EBS_CLAIMS: list[KubeObject] = [
    *(csi_pv(f"vol-{i}") for i in range(4)),
    *(bound(f"claim-{i}", f"vol-{i}") for i in range(4)),
    StorageClass.from_dict({"metadata": {"name": "csi-sc"}, "provisioner": EBS}),
    bound("unbound-claim"),
]


@pytest.mark.parametrize(
    ("incoming", "existing", "limit", "exceeded"),
    [
        pytest.param(
            pod("p", "claim-0", "claim-1"),
            [pod("e", "claim-2")],
            4,
            False,
            id="fits under the limit",
        ),
        pytest.param(
            pod("p", "claim-0", "claim-1"),
            [pod("e", "claim-2", "claim-3")],
            2,
            True,
            id="exceeds the limit",
        ),
        pytest.param(
            pod("p", "claim-0"),
            [pod("e", "claim-0", "claim-1")],
            2,
            False,
            id="the same volume counts once",
        ),
        pytest.param(
            pod("p", "unbound-claim"),
            [pod("e", "claim-0", "claim-1")],
            2,
            True,
            id="an unbound claim counts by its class",
        ),
        pytest.param(
            pod("p", "claim-0"), [pod("e", "claim-1")], None, False, id="no limit on the node"
        ),
    ],
)
def test_csi_limits(incoming: Pod, existing: list[Pod], limit: int | None, exceeded: bool) -> None:
    objects = EBS_CLAIMS + ([csi_node({EBS: limit})] if limit is not None else [])
    got = run(incoming, existing, objects)
    if exceeded:
        assert got is not None and got.code is Code.UNSCHEDULABLE
        assert got.reasons == (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,)
    else:
        assert got is None


def test_in_tree_inline_volumes_count_as_their_csi_driver_once_migrated() -> None:
    disk = [{"name": "d", "awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-9"}}]
    objects = [*EBS_CLAIMS, csi_node({EBS: 1})]
    got = run(pod("p", inline=disk), [pod("e", "claim-0")], objects)
    assert got is not None and got.reasons == (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,)
    # Without a CSINode there is no migration, and no limit to count against.
    assert run(pod("p", inline=disk), [pod("e", "claim-0")], EBS_CLAIMS) is None


def test_prefilter_skips_pods_without_claims_or_migratable_volumes() -> None:
    _, got = CSILimits(handle()).pre_filter(
        CycleState(), pod("p", inline=[{"name": "c", "configMap": {"name": "x"}}]), []
    )
    assert got is not None and got.code is Code.SKIP


def test_a_missing_claim_of_the_new_pod_is_unresolvable() -> None:
    got = run(pod("p", "nope"), [], [csi_node({EBS: 1})])
    assert got is not None and got.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert got.reasons == ('looking up PVC default/nope: persistentvolumeclaims "nope" not found',)


def test_attach_limit_keys() -> None:
    # GetCSIAttachLimitKey: a long driver name is cut and hashed to stay within 63 characters.
    assert csi_attach_limit_key(EBS) == "attachable-volumes-csi-ebs.csi.aws.com"
    long = csi_attach_limit_key("a-very-long-driver-name.storage.example.com")
    assert len(long) < 63 and long.startswith("attachable-volumes-csi-a-very-long-driver-na")
    assert csi_attach_limit_key(GCE).endswith(GCE)
