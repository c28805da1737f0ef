"""Topology-aware workload scheduling (KEP-5732, gate TopologyAwareWorkloadScheduling, alpha v1.36).

Kube's behaviour from ``podGroupSchedulingPlacementAlgorithm`` and
``findBestPlacement`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one_podgroup.go``
(a v1.37-era copy, index id 52400790438), the in-tree PlacementGenerate plugin
``TopologyPlacement`` (``pkg/scheduler/framework/plugins/topologyplacement/``,
index id 4465972365: one placement per value of the first constraint's key) and
PlacementScore plugin ``PodGroupPodsCount`` (index id 52191878764).

A gang ``hi`` of 4 pods of 1 CPU asks for one zone. Zone a is node-0 with 3 CPUs
free; zone b is node-1 (3 free) and node-2 (2 free).
"""

from __future__ import annotations

from typing import Any

from framework.simulator.run import simulate

GATES = {"GenericWorkload": True, "GangScheduling": True}
ZONE = "topology.kubernetes.io/zone"


def _node(name: str, zone: str | None) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, **({ZONE: zone} if zone else {})}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
    }


def _pod(name: str, cpu: str, node: str = "", group: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]
    }
    if node:
        spec["nodeName"] = node
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _cluster(zones: bool = True) -> list[dict[str, Any]]:
    group = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "hi", "namespace": "default"},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "schedulingConstraints": {"topologyConstraints": [{"topologyKey": ZONE}]},
        },
    }
    nodes = [
        _node("node-0", "a" if zones else None),
        _node("node-1", "b" if zones else None),
        _node("node-2", "b" if zones else None),
    ]
    used = [_pod("used-0", "1", "node-0"), _pod("used-1", "1", "node-1")]
    used.append(_pod("used-2", "2", "node-2"))
    return [*nodes, *used, group, *[_pod(f"hi-{i}", "1", group="hi") for i in range(4)]]


HI = [f"default/hi-{i}" for i in range(4)]


def test_with_the_gate_off_the_constraint_is_not_enforced():
    result = simulate(*_cluster(), emulated_version="1.36", feature_gates=GATES)
    nodes = {result.placements[p] for p in HI}
    assert None not in nodes and "node-0" in nodes  # both zones


def test_with_the_gate_the_gang_is_placed_in_the_one_zone_that_holds_it():
    gates = {**GATES, "TopologyAwareWorkloadScheduling": True}
    result = simulate(*_cluster(), emulated_version="1.36", feature_gates=gates)
    assert {result.placements[p] for p in HI} <= {"node-1", "node-2"}
    assert all(result.placements[p] for p in HI)


def test_no_node_with_the_key_is_unschedulable_with_topologyplacements_words():
    gates = {**GATES, "TopologyAwareWorkloadScheduling": True}
    result = simulate(*_cluster(zones=False), emulated_version="1.36", feature_gates=gates)
    assert not any(result.placements[p] for p in HI)
    messages = {e.message for e in result.events if e.object in HI}
    assert f"no nodes found with topology label '{ZONE}'" in messages


def test_pod_group_pods_count_normalizes_by_the_largest():
    from framework.scheduler.podgroup_placement import PodGroupPodsCount

    assert PodGroupPodsCount().normalize([2, 4, 0]) == [50, 100, 0]
