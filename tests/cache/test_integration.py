"""The cache fed from the fake API server's watches, as kube-scheduler's informers feed it.

Nodes come from a watch on all nodes, and pods from a watch on *assigned*
pods only (``spec.nodeName!=``), as in kube-scheduler's event handlers: a pod
enters that view, as ADDED, when it is bound.
"""

from __future__ import annotations

import dataclasses

import pytest

from framework.apiserver import ADDED, DELETED, APIServer, Watch
from framework.cache import Cache, Snapshot
from framework.clock import FakeClock
from framework.objects import KubeObject, Node, Pod
from framework.types import PodInfo
from tests.apiserver.helpers import binding, new_api
from tests.cache.helpers import make_node


class Informers:
    """Just enough of an informer: apply watch events to the cache, remembering old versions."""

    def __init__(self, api: APIServer, cache: Cache) -> None:
        self.cache = cache
        self.nodes: Watch = api.watch(Node)
        self.pods: Watch = api.watch(Pod, field_selector="spec.nodeName!=")
        self.known: dict[str, KubeObject] = {}

    def sync(self) -> None:
        for event in self.nodes.drain():
            node = event.object
            assert isinstance(node, Node)
            if event.type == ADDED:
                self.cache.add_node(node)
            elif event.type == DELETED:
                self.cache.remove_node(node)
            else:
                old = self.known[node.key]
                assert isinstance(old, Node)
                self.cache.update_node(old, node)
            self.known[node.key] = node
        for event in self.pods.drain():
            pod = event.object
            assert isinstance(pod, Pod)
            if event.type == ADDED:
                self.cache.add_pod(pod)
            elif event.type == DELETED:
                self.cache.remove_pod(pod)
            else:
                old = self.known[pod.key]
                assert isinstance(old, Pod)
                self.cache.update_pod(old, pod)
            self.known[pod.key] = pod


def new_pod(name: str, cpu: str, node: str = "") -> Pod:
    spec: dict[str, object] = {
        "containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]
    }
    if node:
        spec["nodeName"] = node
    return Pod.from_dict({"metadata": {"name": name}, "spec": spec})


@pytest.fixture
def api() -> APIServer:
    server = new_api(clock=FakeClock())
    server.create(make_node("n1", cpu="4"))
    server.create(make_node("n2", cpu="4"))
    return server


def test_an_assumed_pod_is_confirmed_when_the_bound_pod_arrives(api: APIServer) -> None:
    cache = Cache()
    informers = Informers(api, cache)
    informers.sync()
    pending = api.create(new_pod("web", cpu="1"))

    # The scheduling cycle picked n1: assume at once, bind in the background.
    assumed = dataclasses.replace(pending, spec=dataclasses.replace(pending.spec, node_name="n1"))
    cache.assume_pod(PodInfo(assumed))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert snapshot.get("n1").requested.milli_cpu == 1000, "the next cycle already sees it"

    bound = api.bind(binding("web", "n1"))
    cache.finish_binding(assumed)
    assert cache.is_assumed_pod(assumed)
    informers.sync()
    assert not cache.is_assumed_pod(assumed)
    assert cache.get_pod(assumed) == bound

    api.delete(Pod, "web", "default")
    informers.sync()
    cache.update_snapshot(snapshot)
    assert snapshot.get("n1").requested.milli_cpu == 0
    assert cache.pod_count() == 0


def test_pods_bound_by_someone_else_and_node_changes_reach_the_snapshot(api: APIServer) -> None:
    cache = Cache()
    informers = Informers(api, cache)
    api.create(new_pod("other", cpu="2", node="n2"))
    informers.sync()
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert [info.name for info in snapshot.list()] == ["n1", "n2"]
    assert snapshot.get("n2").requested.milli_cpu == 2000

    api.update(dataclasses.replace(api.get(Node, "n1"), spec=dataclasses.replace(
        api.get(Node, "n1").spec, unschedulable=True)))  # fmt: skip
    api.delete(Node, "n2")
    informers.sync()
    cache.update_snapshot(snapshot)
    assert [info.name for info in snapshot.list()] == ["n1"]
    n1 = snapshot.get("n1").node
    assert n1 is not None and n1.spec.unschedulable
    assert cache.node_count() == 2, "n2 lingers as a ghost while its pod is cached"
    api.delete(Pod, "other", "default")
    informers.sync()
    assert cache.node_count() == 1
