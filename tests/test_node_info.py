"""NodeInfo bookkeeping (types.go: NodeInfo.AddPodInfo/RemovePod, HostPortInfo.CheckConflict)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.node_info import HostPortInfo, NodeInfo, Resource
from framework.objects import Node, Pod
from framework.types import PodInfo


def pod(name: str, uid: str, containers: list[dict[str, Any]], **spec: Any) -> Pod:
    return Pod.from_dict(
        {"metadata": {"name": name, "uid": uid}, "spec": {"containers": containers, **spec}}
    )


def test_pods_add_up_and_remove_by_uid() -> None:
    info = NodeInfo()
    info.set_node(
        Node.from_dict(
            {"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}}
        )
    )
    a = pod("a", "1", [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}])
    b = pod("b", "2", [{"name": "c"}])
    info.add_pod(PodInfo(a))
    info.add_pod(PodInfo(b))
    assert (info.requested.milli_cpu, info.requested.memory) == (1000, 2**30)
    # b states no requests: scoring counts it as 100m and 200Mi.
    assert (info.non_zero_requested.milli_cpu, info.non_zero_requested.memory) == (
        1100,
        2**30 + 200 * 2**20,
    )
    assert info.allocatable.milli_cpu == 4000 and info.allocatable.allowed_pod_number == 10
    assert info.remove_pod(a) is True
    assert info.remove_pod(a) is False
    assert [p.pod.name for p in info.pods] == ["b"]
    assert info.requested.milli_cpu == 0


def test_every_change_bumps_the_generation() -> None:
    info = NodeInfo()
    seen = [info.generation]
    info.set_node(Node.from_dict({"metadata": {"name": "n"}}))
    seen.append(info.generation)
    p = pod("a", "1", [{"name": "c"}])
    info.add_pod(PodInfo(p))
    seen.append(info.generation)
    info.remove_pod(p)
    seen.append(info.generation)
    assert seen == sorted(set(seen))


def test_clone_is_independent() -> None:
    info = NodeInfo(pod("a", "1", [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]))
    copy = info.clone()
    copy.add_pod(PodInfo(pod("b", "2", [{"name": "c", "resources": {"requests": {"cpu": "1"}}}])))
    assert (info.requested.milli_cpu, len(info.pods)) == (1000, 1)
    assert (copy.requested.milli_cpu, len(copy.pods)) == (2000, 2)


def test_affinity_lists_track_pods_with_affinity() -> None:
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}]
        }
    }
    info = NodeInfo(pod("a", "1", [{"name": "c"}], affinity=anti), pod("b", "2", [{"name": "c"}]))
    assert [p.pod.name for p in info.pods_with_affinity] == ["a"]
    assert [p.pod.name for p in info.pods_with_required_anti_affinity] == ["a"]
    info.remove_pod(info.pods[0].pod)
    assert info.pods_with_affinity == [] and info.pods_with_required_anti_affinity == []


@pytest.mark.parametrize(
    ("used", "wanted", "conflict"),
    [
        (("", "", 80), ("", "TCP", 80), True),
        (("10.0.0.1", "TCP", 80), ("10.0.0.2", "TCP", 80), False),
        (("10.0.0.1", "TCP", 80), ("0.0.0.0", "TCP", 80), True),
        (("0.0.0.0", "TCP", 80), ("10.0.0.2", "TCP", 80), True),
        (("10.0.0.1", "TCP", 80), ("10.0.0.1", "UDP", 80), False),
        (("10.0.0.1", "TCP", 80), ("10.0.0.1", "TCP", 0), False),
    ],
    ids=[
        "defaults are 0.0.0.0 and TCP",
        "different ips",
        "wildcard wanted",
        "wildcard used",
        "different protocol",
        "port 0 is no port",
    ],
)
def test_host_port_conflicts(
    used: tuple[str, str, int], wanted: tuple[str, str, int], conflict: bool
) -> None:
    ports = HostPortInfo()
    ports.add(*used)
    assert ports.check_conflict(*wanted) is conflict


def test_host_ports_of_pods_are_tracked() -> None:
    info = NodeInfo(
        pod("a", "1", [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}])
    )
    assert info.used_ports.check_conflict("", "TCP", 8080)
    info.remove_pod(info.pods[0].pod)
    assert len(info.used_ports) == 0


def test_resource_reads_extended_resources() -> None:
    r = Resource.from_amounts({"cpu": 500, "nvidia.com/gpu": 2, "pods": 3})
    assert (r.get("cpu"), r.get("nvidia.com/gpu"), r.get("pods"), r.get("memory")) == (
        500,
        2,
        3,
        0,
    )
