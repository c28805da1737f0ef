"""Chapter 7c: the pools a node sees, as the structured allocator gathers them.

The rules are those of ``GatherPools`` in
``staging/src/k8s.io/dynamic-resource-allocation/structured/pools.go``; the
``obsolete-slice`` and ``duplicate-slice`` cases are kube's
``TestAllocator`` cases of the same names. The last test puts your function
inside the real allocator and schedules GPU pods with it. Run against your
code with ``python -m pytest chapters/07c_devices --exercise``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from framework.objects import Node
from framework.objects.resource import ResourceSlice

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.dynamicresources.structured",
    skeleton="exercise.py",
    asks=["gather_pools"],
)

NODE = Node.from_dict({"metadata": {"name": "n1", "labels": {"rack": "r1"}}})


def a_slice(
    name: str,
    driver: str = "gpu.example.com",
    pool: str = "p1",
    generation: int = 0,
    count: int = 1,
    devices: tuple[str, ...] = ("d0",),
    **where: Any,
) -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "driver": driver,
                "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
                "devices": [{"name": d} for d in devices],
                **(where or {"nodeName": "n1"}),
            },
        }
    )


def summary(pools: list[Any]) -> list[tuple[str, str, int, list[str], bool]]:
    return [
        (p.driver, p.name, p.generation, [s.metadata.name for s in p.slices], p.incomplete)
        for p in pools
    ]


def test_only_slices_that_reach_the_node(impl: ModuleType) -> None:
    rack = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}
        ]
    }
    other_rack = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r2"]}]}
        ]
    }
    slices = [
        a_slice("mine", pool="local"),
        a_slice("theirs", pool="other", nodeName="n2"),
        a_slice("everyone", pool="fabric", allNodes=True),
        a_slice("my-rack", pool="rack-1", nodeSelector=rack),
        a_slice("their-rack", pool="rack-2", nodeSelector=other_rack),
    ]
    assert [name for _, name, *_ in summary(impl.gather_pools(slices, NODE))] == [
        "fabric",
        "local",
        "rack-1",
    ]


def test_pools_come_sorted_by_driver_then_name(impl: ModuleType) -> None:
    slices = [
        a_slice("s1", driver="nic.example.com", pool="a"),
        a_slice("s2", driver="gpu.example.com", pool="b"),
        a_slice("s3", driver="gpu.example.com", pool="a"),
    ]
    assert [(d, n) for d, n, *_ in summary(impl.gather_pools(slices, NODE))] == [
        ("gpu.example.com", "a"),
        ("gpu.example.com", "b"),
        ("nic.example.com", "a"),
    ]


def test_only_the_newest_generation_counts(impl: ModuleType) -> None:
    slices = [
        a_slice("old", generation=1, count=2, devices=("d0",)),
        a_slice("new-a", generation=2, count=2, devices=("d0",)),
        a_slice("older", generation=0, devices=("d9",)),
        a_slice("new-b", generation=2, count=2, devices=("d1",)),
    ]
    assert summary(impl.gather_pools(slices, NODE)) == [
        ("gpu.example.com", "p1", 2, ["new-a", "new-b"], False)
    ]


def test_obsolete_slice_leaves_the_newest_generation_incomplete(impl: ModuleType) -> None:
    # kube's "obsolete-slice": generation 1 has one of its two slices.
    slices = [
        a_slice("slice-1-obsolete", count=2, devices=("device-1",)),
        a_slice("slice-1-obsolete", count=2, generation=1, devices=("device-2",)),
    ]
    (pool,) = impl.gather_pools(slices, NODE)
    assert (pool.generation, pool.incomplete) == (1, True)


def test_duplicate_slice_makes_the_pool_invalid(impl: ModuleType) -> None:
    # kube's "duplicate-slice": two slices of one pool list the same device.
    slices = [a_slice("slice-1", count=2), a_slice("slice-1-2", count=2)]
    with pytest.raises(impl.AllocationError, match="invalid resource pools were encountered"):
        impl.gather_pools(slices, NODE)


def test_gpu_pods_are_placed_with_your_pools(
    impl: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real allocator, with your gather_pools: a pool whose newest generation is incomplete
    # (gpu-1's, being updated) offers no device; gpu-2's offers two.
    import framework
    from framework.plugins.dynamicresources import structured

    monkeypatch.setattr(structured, "gather_pools", impl.gather_pools)
    monkeypatch.setattr(structured, "AllocationError", impl.AllocationError)
    nodes = "".join(
        f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\n"
        'status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}\n'
        for n in ("gpu-1", "gpu-2")
    )
    slices = """
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-1-old}
spec: {driver: gpu.example.com, nodeName: gpu-1, pool: {name: gpu-1, generation: 1, resourceSliceCount: 1},
       devices: [{name: gpu-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-1-new}
spec: {driver: gpu.example.com, nodeName: gpu-1, pool: {name: gpu-1, generation: 2, resourceSliceCount: 2},
       devices: [{name: gpu-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-2}
spec: {driver: gpu.example.com, nodeName: gpu-2, pool: {name: gpu-2, generation: 1, resourceSliceCount: 1},
       devices: [{name: gpu-0}, {name: gpu-1}]}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}
"""
    pods = "".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: train-{i}}}\n"
        "spec: {resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}],"
        " containers: [{name: c, image: x}]}\n"
        for i in range(3)
    )
    result = framework.simulate(nodes, slices, pods, emulated_version="1.34")
    placed = sorted(n for n in result.placements.values() if n is not None)
    assert placed == ["gpu-2", "gpu-2"]
