"""Pods, nodes and NodeInfos for the noderesources tests, built the way Kubernetes' tests build them.

``requests(...)`` mirrors ``newResourcePod(framework.Resource{...})`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/fit_test.go``:
every container lists cpu, memory, pods and ephemeral-storage, zero or not.
``capacity(...)`` mirrors ``st.MakeNode().Capacity(...)`` from
``pkg/scheduler/testing/wrappers.go``, which adds 32 pod slots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from framework.node_info import NodeInfo
from framework.objects import Node, Pod

EXTENDED_A = "example.com/aaa"
EXTENDED_B = "example.com/bbb"
KUBERNETES_IO_A = "kubernetes.io/something"
KUBERNETES_IO_B = "subdomain.kubernetes.io/something"
HUGE_PAGE_A = "hugepages-2Mi"


def requests(
    milli_cpu: int = 0,
    memory: int = 0,
    ephemeral_storage: int = 0,
    scalars: Mapping[str, int] | None = None,
) -> dict[str, str]:
    """One container's requests, every field written out as Go's test helper writes them."""
    result = {
        "cpu": f"{milli_cpu}m",
        "memory": str(memory),
        "pods": "0",
        "ephemeral-storage": str(ephemeral_storage),
    }
    for name, amount in (scalars or {}).items():
        result[name] = str(amount)
    return result


def make_pod(
    *containers: Mapping[str, str],
    init: Sequence[Mapping[str, str]] = (),
    overhead: Mapping[str, str] | None = None,
    name: str = "p",
    uid: str = "",
    node_name: str = "",
    nominated_node_name: str = "",
    labels: Mapping[str, str] | None = None,
) -> Pod:
    """A pod whose containers (and init containers) request the given resources."""

    def container(i: int, prefix: str, reqs: Mapping[str, str]) -> dict[str, Any]:
        return {"name": f"{prefix}{i}", "image": "busybox", "resources": {"requests": dict(reqs)}}

    spec: dict[str, Any] = {
        "containers": [container(i, "c", r) for i, r in enumerate(containers)],
        "initContainers": [container(i, "init", r) for i, r in enumerate(init)],
    }
    if overhead:
        spec["overhead"] = dict(overhead)
    if node_name:
        spec["nodeName"] = node_name
    metadata: dict[str, Any] = {"name": name, "namespace": "default"}
    if uid:
        metadata["uid"] = uid
    if labels:
        metadata["labels"] = dict(labels)
    manifest: dict[str, Any] = {"metadata": metadata, "spec": spec}
    if nominated_node_name:
        manifest["status"] = {"nominatedNodeName": nominated_node_name}
    return Pod.from_dict(manifest)


def make_node(name: str = "n1", allocatable: Mapping[str, str] | None = None) -> Node:
    """A node with exactly this allocatable (and capacity)."""
    resources = dict(allocatable or {})
    return Node.from_dict(
        {"metadata": {"name": name}, "status": {"capacity": resources, "allocatable": resources}}
    )


def capacity(name: str, resources: Mapping[str, str]) -> Node:
    """``st.MakeNode().Name(name).Capacity(resources)``: the resources plus 32 pod slots."""
    return make_node(name, {"pods": "32", **resources})


def node_info(node: Node | None, *pods: Pod) -> NodeInfo:
    """A NodeInfo holding ``pods``, for ``node``."""
    info = NodeInfo(*pods)
    if node is not None:
        info.set_node(node)
    return info


def snapshot(nodes: Sequence[Node], pods: Sequence[Pod] = ()) -> list[NodeInfo]:
    """One NodeInfo per node with the pods bound to it, as ``cache.NewSnapshot`` builds them."""
    return [node_info(n, *(p for p in pods if p.spec.node_name == n.name)) for n in nodes]


class at_release:
    """A plugin handle carrying only the gates of one emulated release (``handle.feature_gates``)."""

    def __init__(self, version: str) -> None:
        from framework.featuregate import new_feature_gates

        self.feature_gates = new_feature_gates(version)
