"""The volume plugins' batch Filter forms: the reference's decisions, without the reference's loop.

A pod with a claim bound to a CSI volume meets all four volume plugins
(VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone; their Go
sources at v1.33 under ``pkg/scheduler/framework/plugins/``). Before
:mod:`framework.batch.volumes`, every such cycle went to the reference
engine ("Filter plugin NodeVolumeLimits has no batch form"). Here the
engines run side by side (``engine="both"``) and must agree on every node's
status, including a node at its CSI attach limit (kube's
``node(s) exceed max volume count``) and a node outside the volume's zone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import framework
from framework.batch.arrays import NodeArrays
from framework.batch.engine import DifferentialSchedulingAlgorithm
from framework.cache.snapshot import new_snapshot
from framework.node_info import NodeInfo
from framework.objects import Node, Pod

EBS = "ebs.csi.aws.com"


def node(name: str, zone: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone},
        },
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "20"}},
    }


def csi_node(name: str, count: int) -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": name},
        "spec": {"drivers": [{"name": EBS, "nodeID": name, "allocatable": {"count": count}}]},
    }


def bound_claim(name: str, zone: str | None = None) -> list[dict[str, Any]]:
    """A CSI volume and the claim bound to it (scheduler_perf's pv-csi.yaml and pvc.yaml)."""
    metadata: dict[str, Any] = {"name": f"pv-{name}"}
    if zone is not None:
        metadata["labels"] = {"topology.kubernetes.io/zone": zone}
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": metadata,
            "spec": {
                "accessModes": ["ReadOnlyMany"],
                "capacity": {"storage": "1Gi"},
                "csi": {"driver": EBS, "volumeHandle": f"pv-{name}"},
                "claimRef": {"namespace": "default", "name": name},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": name,
                "namespace": "default",
                "annotations": {"pv.kubernetes.io/bind-completed": "true"},
            },
            "spec": {
                "accessModes": ["ReadOnlyMany"],
                "resources": {"requests": {"storage": "1Gi"}},
                "volumeName": f"pv-{name}",
            },
        },
    ]


def pod(name: str, claim: str, node_name: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "app", "image": "nginx"}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
    }
    if node_name is not None:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def test_a_node_at_its_attach_limit_and_a_node_in_another_zone_are_ruled_out_alike(
    algorithms: list[DifferentialSchedulingAlgorithm],
) -> None:
    manifests = [
        node("full", "zone-a"),
        node("other-zone", "zone-b"),
        node("free", "zone-a"),
        csi_node("full", 1),
        csi_node("other-zone", 5),
        csi_node("free", 5),
        *bound_claim("old"),
        pod("running", "old", node_name="full"),
        *bound_claim("data", zone="zone-a"),
        pod("web", "data"),
    ]
    result = framework.simulate(*manifests, engine="both", seed=1)
    assert result.placements["default/web"] == "free"
    (algorithm,) = algorithms
    assert algorithm.mismatches == []
    # Every search was the batch engine's own: no volume plugin sent a cycle to the reference.
    assert algorithm.stats.batch_filters >= 1
    assert not [why for why in algorithm.stats.reference if "Volume" in why]


def test_a_pod_that_fits_nowhere_gets_the_reference_statuses(
    algorithms: list[DifferentialSchedulingAlgorithm],
) -> None:
    manifests = [
        node("full", "zone-a"),
        node("other-zone", "zone-b"),
        csi_node("full", 1),
        csi_node("other-zone", 5),
        *bound_claim("old"),
        pod("running", "old", node_name="full"),
        *bound_claim("data", zone="zone-a"),
        pod("web", "data"),
    ]
    result = framework.simulate(*manifests, engine="both", seed=1)
    assert result.placements["default/web"] is None
    message = result.attempts_of("default/web")[0].message
    assert "1 node(s) exceed max volume count" in message
    assert "1 node(s) had no available volume zone" in message
    assert algorithms[0].mismatches == []


def _info(name: str, *pods: Pod) -> NodeInfo:
    info = NodeInfo(*pods)
    info.set_node(Node.from_dict({"metadata": {"name": name}}))
    return info


def test_a_derived_column_follows_the_nodes_that_change() -> None:
    with_volume = Pod.from_dict(
        {
            "metadata": {"name": "p", "namespace": "default", "uid": "p"},
            "spec": {"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}]},
        }
    )
    snapshot = new_snapshot([], [Node.from_dict({"metadata": {"name": n}}) for n in "ab"])
    arrays = NodeArrays()
    arrays.refresh(snapshot)

    def volumes(info: NodeInfo) -> int:
        return sum(1 for p in info.pods if p.pod.spec.extra.get("volumes"))

    assert arrays.derived("volumes", volumes).tolist() == [0, 0]
    changed = snapshot.node_info_list[1]
    changed.add_pod(framework.types.PodInfo(with_volume))
    snapshot.changes.append(changed)
    arrays.refresh(snapshot)
    column = arrays.derived("volumes", volumes)
    assert column.tolist() == [0, 1]
    assert not column.flags.writeable
    assert np.array_equal(arrays.derived("volumes", volumes), column)
