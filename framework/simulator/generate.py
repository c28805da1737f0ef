"""A generated cluster and workload of any size, for trying the simulator at scale.

:func:`generate` writes ordinary manifests — Nodes, PriorityClasses and
Deployments — for ``nodes`` nodes and exactly ``pods`` pods, the same text for
the same arguments. ``python -m framework generate --nodes 1000 --pods 5000
--seed 0 > big.yaml`` writes them to a file for ``simulate``.

The cluster looks like a small cloud region: three zones, four node pools
(``general`` 8 CPU / 32 GiB, ``large`` 16 / 64 GiB, ``small`` 4 / 16 GiB, and
``gpu`` with four ``nvidia.com/gpu`` and a ``NoSchedule`` taint), 110 pods per
node. The workload is Deployments of a few to a few dozen replicas, each
with one container size from a menu (100m to 4 CPU), some pinned to a pool by
``nodeSelector``, some spread over zones, a few needing GPUs (with the
toleration), a few high-priority, and one that no node can hold, so that a
run has pending pods to explain. Each node already runs a log agent's pod
(``spec.nodeName`` set, as its DaemonSet would have placed it). About five
pods per node fill the CPU of the cluster to roughly two thirds.

No Kubernetes counterpart: kube-scheduler's own scale tests
(``test/integration/scheduler_perf``) build their clusters from templates
in the same spirit.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["generate"]

ZONES = ("zone-a", "zone-b", "zone-c")
GPU = "nvidia.com/gpu"

# pool → (share of the nodes, cpu, memory, gpus)
_POOLS = (
    ("general", 0.60, "8", "32Gi", 0),
    ("large", 0.25, "16", "64Gi", 0),
    ("small", 0.10, "4", "16Gi", 0),
    ("gpu", 0.05, "16", "64Gi", 4),
)
# container sizes: (cpu, memory)
_SIZES = (
    ("100m", "128Mi"),
    ("250m", "256Mi"),
    ("500m", "512Mi"),
    ("1", "1Gi"),
    ("1", "2Gi"),
    ("2", "4Gi"),
    ("4", "8Gi"),
)


def _dump(document: dict[str, Any]) -> str:
    return json.dumps(document, separators=(",", ":"))


def _node(index: int, pool: str, cpu: str, memory: str, gpus: int) -> dict[str, Any]:
    name = f"node-{index:04d}"
    allocatable = {"cpu": cpu, "memory": memory, "pods": "110"}
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": ZONES[index % len(ZONES)],
                "pool": pool,
            },
        },
        "spec": {},
        "status": {"capacity": dict(allocatable), "allocatable": allocatable},
    }
    if gpus:
        allocatable[GPU] = str(gpus)
        node["status"]["capacity"][GPU] = str(gpus)
        node["spec"]["taints"] = [{"key": GPU, "value": "present", "effect": "NoSchedule"}]
    return node


def _nodes(count: int) -> list[dict[str, Any]]:
    pools: list[tuple[str, str, str, int]] = []
    for name, share, cpu, memory, gpus in _POOLS:
        pools += [(name, cpu, memory, gpus)] * max(1, round(share * 20))
    # Pools interleaved over the node list, so that any prefix of it has every pool.
    return [_node(i, *pools[i % len(pools)]) for i in range(count)]


def _agent(node: dict[str, Any]) -> dict[str, Any]:
    """The pod a DaemonSet would run on ``node``, already running: the "before" of the run."""
    name = node["metadata"]["name"]
    requests = {"cpu": "100m", "memory": "128Mi"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"log-agent-{name}", "namespace": "kube-system"},
        "spec": {
            "nodeName": name,
            # As DaemonSet pods usually are: never preempted for an application's pods.
            "priorityClassName": "system-node-critical",
            "tolerations": [{"operator": "Exists"}],
            "containers": [
                {
                    "name": "agent",
                    "image": "registry.example/log-agent:1",
                    "resources": {"requests": requests, "limits": requests},
                }
            ],
        },
    }


def _deployment(name: str, replicas: int, spec: dict[str, Any], labels: dict[str, str]) -> str:
    return _dump(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": spec},
            },
        }
    )


def _workload(index: int, replicas: int, rng: random.Random) -> str:
    name = f"app-{index:03d}"
    labels = {"app": name}
    cpu, memory = rng.choice(_SIZES)
    requests: dict[str, str] = {"cpu": cpu, "memory": memory}
    spec: dict[str, Any] = {}
    kind = rng.random()
    if kind < 0.05:
        requests[GPU] = "1"
        spec["tolerations"] = [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}]
    elif kind < 0.25:
        spec["nodeSelector"] = {"pool": rng.choice(("general", "large"))}
    elif kind < 0.40:
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": labels},
            }
        ]
    if rng.random() < 0.1:
        spec["priorityClassName"] = "high"
    container = {"name": "app", "image": f"registry.example/{name}:1", "resources": {}}
    container["resources"] = {"requests": requests, "limits": dict(requests)}
    spec["containers"] = [container]
    return _deployment(name, replicas, spec, labels)


def generate(nodes: int, pods: int, seed: int = 0) -> str:
    """Manifests for ``nodes`` nodes and ``pods`` pending pods, as one JSON ``kind: List``.

    Each node also runs one pod already (a log agent, as a DaemonSet would
    place it), so that the run starts from a cluster in use.

    >>> text = generate(nodes=6, pods=20)
    >>> text.count('"kind":"Node"'), text.count('"kind":"Deployment"') > 1
    (6, True)
    """
    if nodes < 1 or pods < 0:
        raise ValueError(f"generate: need nodes >= 1 and pods >= 0, got {nodes} and {pods}")
    rng = random.Random(seed)
    cluster = _nodes(nodes)
    documents = [_dump(node) for node in cluster]
    documents += [_dump(_agent(node)) for node in cluster]
    documents.append(
        _dump(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "high"},
                "value": 1000,
            }
        )
    )
    # One Deployment too big for any node: its pods stay pending, with a reason to read.
    unplaceable = min(2, pods)
    remaining, index = pods - unplaceable, 0
    while remaining > 0:
        replicas = min(remaining, rng.randint(2, 40))
        documents.append(_workload(index, replicas, rng))
        remaining -= replicas
        index += 1
    if unplaceable:
        requests = {"cpu": "64", "memory": "256Gi"}
        spec = {
            "containers": [
                {
                    "name": "app",
                    "image": "registry.example/huge:1",
                    "resources": {"requests": requests},
                }
            ]
        }
        documents.append(_deployment("huge", unplaceable, spec, {"app": "huge"}))
    # One JSON List, an item a line: JSON reads many times faster than YAML at this size.
    items = ",\n".join(documents)
    return f'{{"apiVersion":"v1","kind":"List","items":[\n{items}\n]}}\n'
