"""Builders for the nodes and pods the cache tests feed in, and a check of a NodeInfo's totals."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from framework.node_info import NodeInfo, Resource
from framework.objects import Node, Pod
from framework.objects.resources import pod_requests

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"


def make_node(
    name: str,
    *,
    zone: str = "",
    region: str = "",
    cpu: str = "4",
    memory: str = "8Gi",
    images: Iterable[tuple[tuple[str, ...], int]] = (),
    labels: dict[str, str] | None = None,
) -> Node:
    all_labels = dict(labels or {})
    if zone:
        all_labels[ZONE] = zone
    if region:
        all_labels[REGION] = region
    return Node.from_dict(
        {
            "metadata": {"name": name, "labels": all_labels},
            "status": {
                "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
                "images": [{"names": list(names), "sizeBytes": size} for names, size in images],
            },
        }
    )


def make_pod(
    name: str,
    *,
    uid: str | None = None,
    node: str = "",
    cpu: str = "",
    memory: str = "",
    affinity: bool = False,
    anti_affinity: bool = False,
    host_port: int = 0,
    namespace: str = "default",
) -> Pod:
    """A pod with one container; ``uid`` defaults to ``uid-<name>``."""
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    container: dict[str, Any] = {"name": "app", "image": "nginx"}
    if requests:
        container["resources"] = {"requests": requests}
    if host_port:
        container["ports"] = [{"containerPort": 80, "hostPort": host_port}]
    term = {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": ZONE}
    spec: dict[str, Any] = {"containers": [container]}
    if node:
        spec["nodeName"] = node
    aff: dict[str, Any] = {}
    if affinity:
        aff["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    if anti_affinity:
        aff["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    if aff:
        spec["affinity"] = aff
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{name}"},
            "spec": spec,
        }
    )


def expected_requested(pods: Iterable[Pod]) -> Resource:
    total = Resource()
    for pod in pods:
        total.add(pod_requests(pod))
    return total


def assert_totals_match_pods(info: NodeInfo) -> None:
    """A NodeInfo's requested resources are exactly the sum of its pods' requests."""
    assert info.requested == expected_requested(p.pod for p in info.pods), info
    assert {id(p) for p in info.pods_with_affinity} <= {id(p) for p in info.pods}
    assert {id(p) for p in info.pods_with_required_anti_affinity} <= {id(p) for p in info.pods}
