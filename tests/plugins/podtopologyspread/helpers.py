"""Builders for the PodTopologySpread tests: nodes with labels and taints, pods with constraints."""

from __future__ import annotations

from typing import Any

from framework.apiserver import APIServer
from framework.cache.snapshot import Snapshot, new_snapshot
from framework.clock import FakeClock
from framework.objects import KubeObject, Namespace, Node, ObjectMeta, Pod

ZONE = "zone"
HOST = "kubernetes.io/hostname"
FOO_EXISTS = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}


class Handle:
    """Just enough framework handle: the snapshot PreScore lists all nodes from, and a client.

    The client (an API server) holds the Services and controllers default
    constraints take their selector from; None is a cluster with none.
    """

    def __init__(self, snapshot: Snapshot | None, client: APIServer | None = None) -> None:
        self.snapshot = snapshot
        self._client = client

    def snapshot_shared_lister(self) -> Snapshot | None:
        return self.snapshot

    def client(self) -> APIServer | None:
        return self._client


def cluster_with(*objects: KubeObject) -> APIServer:
    """An API server holding ``objects`` (ReplicaSets, Services...)."""
    api = APIServer(FakeClock())
    for namespace in {o.metadata.namespace for o in objects} - {"", "default"}:
        api.create(Namespace(metadata=ObjectMeta(name=namespace)))
    for obj in objects:
        api.create(obj)
    return api


def node(name: str, taints: list[dict[str, str]] | None = None, **labels: str) -> Node:
    """A node; ``zone=...``/``host=...`` keywords become the zone and hostname labels."""
    real = {ZONE if k == "zone" else HOST if k == "host" else k: v for k, v in labels.items()}
    return Node.from_dict(
        {"metadata": {"name": name, "labels": real}, "spec": {"taints": taints or []}}
    )


def spread(
    max_skew: int,
    key: str,
    when: str = "DoNotSchedule",
    selector: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One ``topologySpreadConstraints`` entry (selector ``foo`` exists unless given)."""
    return {
        "maxSkew": max_skew,
        "topologyKey": key,
        "whenUnsatisfiable": when,
        "labelSelector": FOO_EXISTS if selector is None else selector,
        **extra,
    }


def pod(
    name: str,
    node_name: str = "",
    *constraints: dict[str, Any],
    labels: dict[str, str] | None = None,
    namespace: str = "default",
    spec: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> Pod:
    """A pod labelled ``foo`` (unless ``labels`` says otherwise), on ``node_name`` if given."""
    return Pod.from_dict(
        {
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": f"{namespace}-{name}",
                "labels": {"foo": ""} if labels is None else labels,
                **(metadata or {}),
            },
            "spec": {
                "nodeName": node_name,
                "containers": [{"name": "c", "image": "busybox"}],
                "topologySpreadConstraints": list(constraints),
                **(spec or {}),
            },
        }
    )


def snapshot(pods: list[Pod], nodes: list[Node]) -> Snapshot:
    return new_snapshot(pods, nodes)
