"""A cluster that changes between cycles, for the tests of InterPodAffinity's state kept across cycles.

Kubernetes has no such type: this is the scaffolding that
``test_per_node_cache.py`` and ``test_per_node_totals.py`` share. Both drive a
long-lived plugin through the same hypothesis steps (a pod comes, goes or is
relabelled, a namespace is relabelled, a node moves zone) and compare it, after
each step, with what Kubernetes computes afresh every cycle
(``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/``
``filtering.go`` and ``scoring.go``, v1.33).
"""

from __future__ import annotations

from typing import Any

from framework.apiserver import APIServer
from framework.cache.cache import Cache
from framework.cache.snapshot import Snapshot
from framework.clock import FakeClock
from framework.objects import Namespace, Node, ObjectMeta, Pod
from framework.runtime.framework import Framework
from tests.plugins.interpodaffinity.helpers import pod

Step = tuple[str, int, int, int, str]
"""``(operation, pod index, node index, shape index, app label)``."""


class ChangingCluster:
    """Nodes in a cache, a snapshot the framework reads, and namespace ``other`` (team ``b``) in the API."""

    def __init__(self, nodes: list[Node], shapes: list[dict[str, Any]]) -> None:
        self.api = APIServer(FakeClock())
        self.api.create(Namespace(metadata=ObjectMeta(name="other", labels={"team": "b"})))
        self.cache = Cache()
        self.nodes = list(nodes)
        for n in self.nodes:
            self.cache.add_node(n)
        self.snapshot = Snapshot()
        self.fwk = Framework("default-scheduler", client=self.api)
        self.fwk.snapshot = self.snapshot
        self.shapes = shapes
        self.placed: dict[int, Pod] = {}

    def step(self, step: Step) -> None:
        """Apply one change (a step that does not apply is a no-op), then update the snapshot."""
        op, index, node_index, shape, app = step
        current = self.placed.get(index)
        if op == "add" and current is None:
            self.placed[index] = pod(
                f"p{index}",
                namespace="other" if index % 3 == 0 else "default",
                labels={"app": app},
                node=f"n{node_index}",
                **self.shapes[shape],
            ).with_metadata(uid=f"uid-{index}")
            self.cache.add_pod(self.placed[index])
        elif op == "remove" and current is not None:
            self.cache.remove_pod(self.placed.pop(index))
        elif op == "relabel" and current is not None:
            self.placed[index] = current.with_metadata(labels={"app": app})
            self.cache.update_pod(current, self.placed[index])
        elif op == "namespace":
            # The default namespace's team decides whether a namespaceSelector matches it.
            stored = self.api.get(Namespace, "default")
            team = "a" if app == "web" else "b"
            self.api.update(stored.with_metadata(labels={**stored.metadata.labels, "team": team}))
        elif op == "node":
            old = self.nodes[node_index]
            zone = "z0" if old.metadata.labels["zone"] == "z1" else "z1"
            self.nodes[node_index] = old.with_metadata(
                labels={**old.metadata.labels, "zone": zone}
            )
            self.cache.update_node(old, self.nodes[node_index])
        self.cache.update_snapshot(self.snapshot)
