"""VolumeRestrictions, after ``TestGCEDiskConflicts``, ``TestAWSDiskConflicts``,
``TestRBDDiskConflicts``, ``TestISCSIDiskConflicts`` and ``TestAccessModeConflicts`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go``
(v1.33)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.storage import PersistentVolumeClaim
from framework.plugins.volumerestrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
    VolumeRestrictions,
)
from framework.status import Code
from framework.types import PodInfo
from tests.plugins.volumes.helpers import handle


def pod(name: str, *volumes: dict[str, Any], node_name: str = "") -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": name},
            "spec": {"nodeName": node_name, "volumes": list(volumes)},
        }
    )


def on_node(*pods: Pod) -> NodeInfo:
    info = NodeInfo(*pods)
    info.set_node(Node.from_dict({"metadata": {"name": "node-1"}}))
    return info


def gce(pd: str, read_only: bool = False) -> dict[str, Any]:
    return {"name": "v", "gcePersistentDisk": {"pdName": pd, "readOnly": read_only}}


def ebs(volume_id: str) -> dict[str, Any]:
    return {"name": "v", "awsElasticBlockStore": {"volumeID": volume_id}}


def rbd(monitors: list[str], image: str, read_only: bool = False) -> dict[str, Any]:
    return {
        "name": "v",
        "rbd": {"monitors": monitors, "pool": "foo", "image": image, "readOnly": read_only},
    }


def iscsi(iqn: str, read_only: bool = False) -> dict[str, Any]:
    return {
        "name": "v",
        "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": iqn, "lun": 0, "readOnly": read_only},
    }


def filter_status(
    incoming: Pod, existing: list[Pod], plugin: VolumeRestrictions | None = None
) -> Any:
    plugin = plugin or VolumeRestrictions(handle())
    state = CycleState()
    _, pre = plugin.pre_filter(state, incoming, [])
    if pre is not None:
        return pre
    return plugin.filter(state, incoming, on_node(*existing))


@pytest.mark.parametrize(
    ("incoming", "existing", "conflict"),
    [
        pytest.param(pod("p", gce("foo")), [], False, id="gce: nothing"),
        pytest.param(pod("p", gce("foo")), [pod("e", gce("foo"))], True, id="gce: same disk"),
        pytest.param(pod("p", gce("foo")), [pod("e", gce("bar"))], False, id="gce: other disk"),
        pytest.param(
            pod("p", gce("foo", True)),
            [pod("e", gce("foo", True))],
            False,
            id="gce: both read-only",
        ),
        pytest.param(
            pod("p", gce("foo", True)), [pod("e", gce("foo"))], True, id="gce: one writes"
        ),
        pytest.param(pod("p", ebs("foo")), [pod("e", ebs("foo"))], True, id="aws: same volume"),
        pytest.param(pod("p", ebs("foo")), [pod("e", ebs("bar"))], False, id="aws: other volume"),
        pytest.param(
            pod("p", rbd(["a", "b"], "foo")),
            [pod("e", rbd(["b", "c"], "foo"))],
            True,
            id="rbd: shared monitor",
        ),
        pytest.param(
            pod("p", rbd(["a"], "foo")),
            [pod("e", rbd(["c"], "foo"))],
            False,
            id="rbd: no shared monitor",
        ),
        pytest.param(
            pod("p", rbd(["a"], "foo", True)),
            [pod("e", rbd(["a"], "foo", True))],
            False,
            id="rbd: read-only",
        ),
        pytest.param(
            pod("p", iscsi("iqn.a")), [pod("e", iscsi("iqn.a"))], True, id="iscsi: same iqn"
        ),
        pytest.param(
            pod("p", iscsi("iqn.a")), [pod("e", iscsi("iqn.b"))], False, id="iscsi: other iqn"
        ),
    ],
)
def test_disk_conflicts(incoming: Pod, existing: list[Pod], conflict: bool) -> None:
    got = filter_status(incoming, existing)
    if conflict:
        assert got is not None and got.code is Code.UNSCHEDULABLE
        assert got.reasons == (ERR_REASON_DISK_CONFLICT,)
    else:
        assert got is None or got.code is Code.SKIP


def claim(name: str, *modes: str) -> PersistentVolumeClaim:
    return PersistentVolumeClaim.from_dict(
        {"metadata": {"name": name, "namespace": "default"}, "spec": {"accessModes": list(modes)}}
    )


def uses(name: str) -> dict[str, Any]:
    return {"name": name, "persistentVolumeClaim": {"claimName": name}}


def test_access_mode_conflicts() -> None:
    rwop, rwx = (
        claim("claim-with-rwop-1", "ReadWriteOncePod"),
        claim("claim-with-rwx", "ReadWriteMany"),
    )
    holder = pod("holder", uses("claim-with-rwop-1"), node_name="node-1")
    incoming = pod("incoming", uses("claim-with-rwop-1"))
    plugin = VolumeRestrictions(
        handle(rwop, rwx, pods=[holder], nodes=[Node.from_dict({"metadata": {"name": "node-1"}})])
    )
    state = CycleState()
    assert plugin.pre_filter(state, incoming, []) == (None, None)
    got = plugin.filter(state, incoming, on_node(holder))
    assert got is not None and got.code is Code.UNSCHEDULABLE
    assert got.reasons == (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,)
    # Preemption's dry run removes the holder: no conflict left.
    assert plugin.remove_pod(state, incoming, PodInfo(holder), on_node()) is None
    assert plugin.filter(state, incoming, on_node()) is None
    # A ReadWriteMany claim in use conflicts with nothing: PreFilter skips.
    _, skipped = VolumeRestrictions(handle(rwx, pods=[holder])).pre_filter(
        CycleState(), pod("p", uses("claim-with-rwx")), []
    )
    assert skipped is not None and skipped.code is Code.SKIP


def test_a_missing_claim_is_unresolvable_in_the_api_servers_words() -> None:
    _, got = VolumeRestrictions(handle()).pre_filter(CycleState(), pod("p", uses("nope")), [])
    assert got is not None and got.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert got.reasons == ('persistentvolumeclaims "nope" not found',)
