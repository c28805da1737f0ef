"""KubeClient against the fake API server over HTTP: the in-memory server's methods, remotely.

Each expectation is the in-memory server's (``framework/apiserver/store.py``),
which follows kube-apiserver; the watch and relist ones come from client-go's
``tools/cache/reflector.go`` (``ListAndWatch``: a ``410 Expired`` watch
leads to a fresh list).
"""

from __future__ import annotations

import dataclasses

import pytest

from framework.adapter import KubeClient
from framework.apiserver import ADDED, DELETED, MODIFIED, APIServer
from framework.apiserver.errors import Conflict, Expired, NotFound, ServiceUnavailable
from framework.clock import FakeClock
from framework.objects import Binding, Event, Node, Pod, PodDisruptionBudget
from framework.objects.manifest import loads
from framework.scheduler.eventhandlers import Informer
from tests.adapter.conftest import WatchedAPIServer
from tests.serve.helpers import official_client, wait_until

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def pod(name: str, scheduler: str = "default-scheduler") -> Pod:
    (obj,) = loads(
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{app: web}}}}
spec:
  schedulerName: {scheduler}
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]
"""
    )
    assert isinstance(obj, Pod)
    return obj


def binding(name: str, node: str = "n1") -> Binding:
    return Binding.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": "default"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        }
    )


def test_objects_are_read_and_written_as_the_in_memory_server_has_them(
    api: APIServer, client: KubeClient
) -> None:
    created = client.create(pod("a"))
    assert created.metadata.uid and created.metadata.resource_version
    assert client.get(Pod, "a", "default") == api.get(Pod, "a", namespace="default")
    listed = client.list(Pod, "default", label_selector="app=web")
    assert [p.name for p in listed.items] == ["a"]
    assert listed.resource_version
    labelled = client.update(created.with_metadata(labels={"app": "db"}))
    assert api.get(Pod, "a", namespace="default").metadata.labels == {"app": "db"}
    status = dataclasses.replace(labelled.status, nominated_node_name="n1")
    client.update_status(dataclasses.replace(labelled, status=status))
    assert api.get(Pod, "a", namespace="default").status.nominated_node_name == "n1"
    assert client.list(PodDisruptionBudget).items == ()
    client.delete(Pod, "a", "default")
    with pytest.raises(NotFound):
        client.get(Pod, "a", "default")


def test_a_stale_update_is_a_conflict(client: KubeClient) -> None:
    created = client.create(pod("a"))
    client.update(created.with_metadata(labels={"v": "1"}))
    with pytest.raises(Conflict):
        client.update(created.with_metadata(labels={"v": "2"}))


def test_a_successful_bind_returns_and_a_second_one_is_a_conflict(
    api: APIServer, client: KubeClient
) -> None:
    """The server answers 201 with a ``Success`` Status; the client's model would reject it.

    ``pkg/registry/core/pod/storage/storage.go`` (``BindingREST.Create``,
    ``assignPod``: "pod %s is already assigned to node %q").
    """
    client.create(pod("a"))
    client.bind(binding("a"))
    assert api.get(Pod, "a", namespace="default").spec.node_name == "n1"
    with pytest.raises(Conflict, match="already assigned"):
        client.bind(binding("a", "n2"))
    with pytest.raises(NotFound):
        client.bind(binding("missing"))


def test_events_can_be_recorded_through_the_client(client: KubeClient) -> None:
    from framework.apiserver import EventRecorder

    target = client.create(pod("a"))
    EventRecorder(client, component="default-scheduler").event(  # type: ignore[arg-type]
        target, "Normal", "Scheduled", "Binding", "Successfully assigned default/a to n1"
    )
    (event,) = client.list(Event, "default").items
    assert (event.reason, event.involved_object.name) == ("Scheduled", "a")


def test_a_watch_streams_changes_after_its_resource_version(client: KubeClient) -> None:
    start = client.list(Pod).resource_version
    with_watch = client.watch(Pod, resource_version=start)
    try:
        client.create(pod("a"))
        client.bind(binding("a"))
        client.delete(Pod, "a", "default")
        seen = [with_watch.next(timeout=10) for _ in range(3)]
        assert [(e.type, e.object.name) for e in seen if e] == [
            (ADDED, "a"),
            (MODIFIED, "a"),
            (DELETED, "a"),
        ]
        assert seen[1] is not None and seen[1].object.spec.node_name == "n1"  # type: ignore[attr-defined]
    finally:
        with_watch.stop()
    assert with_watch.stopped


def test_an_expired_resource_version_ends_the_watch_and_is_refused_at_once_after(
    api: WatchedAPIServer, client: KubeClient
) -> None:
    old = client.list(Pod).resource_version
    for i in range(60):  # more changes than the server's watch window of 50
        api.create(pod(f"p{i}"))
    expired = client.watch(Pod, resource_version=old)
    wait_until(lambda: expired.stopped)
    assert isinstance(expired.error, Expired)
    with pytest.raises(Expired):
        client.watch(Pod, resource_version=old)


def test_an_informer_on_the_client_relists_after_its_watch_expired(
    api: WatchedAPIServer, client: KubeClient
) -> None:
    """``reflector.go``: a watch broken while the history moved on; a relist makes up the gap."""
    seen: dict[str, str] = {}

    def handler(change: str, old: Pod | None, new: Pod | None) -> None:
        if new is None:
            assert old is not None
            seen.pop(old.name, None)
        else:
            seen[new.name] = new.spec.node_name

    api.create(pod("kept"))
    api.create(pod("deleted"))
    informer: Informer[Pod] = Informer(client, Pod, handler)  # type: ignore[arg-type]
    informer.start()
    assert set(seen) == {"kept", "deleted"}
    # Disconnected while the cluster moves on past the history kept.
    informer._watch.stop()  # type: ignore[union-attr]
    api.delete(Pod, "deleted", "default")
    api.bind(binding("kept"))
    for i in range(60):
        api.create(pod(f"p{i}"))
        api.delete(Pod, f"p{i}", "default")
    api.create(pod("new"))

    def caught_up() -> bool:
        informer.sync()
        return informer.relists >= 1 and set(seen) == {"kept", "new"}

    wait_until(caught_up)
    assert seen["kept"] == "n1"
    informer.stop()


def test_an_unreachable_server_is_not_asked_again_until_the_backoff_passed() -> None:
    """``reflector.go``: ``backoffManager`` (800ms doubling to 30s) between failed attempts."""
    clock = FakeClock()
    with official_client("http://127.0.0.1:9") as api_client:  # discard port: refused
        unreachable = KubeClient(api_client, clock=clock, request_timeout=2)
        with pytest.raises(ServiceUnavailable, match="could not be reached"):
            unreachable.list(Node)
        with pytest.raises(ServiceUnavailable, match="backing off"):
            unreachable.list(Node)
        clock.advance(61)
        with pytest.raises(ServiceUnavailable, match="could not be reached"):
            unreachable.list(Node)
