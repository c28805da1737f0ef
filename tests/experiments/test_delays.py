"""The network between the API server and a scheduler: bind latency, watch delay, no finished pods.

No Kubernetes counterpart for the delays (a model of the network and etcd);
the finished pods left out come from ``newPodInformer`` in
kubernetes/kubernetes ``pkg/scheduler/scheduler.go`` (v1.33), whose field
selector is ``status.phase!=Succeeded,status.phase!=Failed``.
"""

from __future__ import annotations

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.experiments.delays import Network
from framework.objects import Binding, Node, ObjectMeta, ObjectReference, Pod

START = 1_700_000_000.0


def setup(bind_latency: float = 0.0, watch_delay: float = 0.0) -> tuple[APIServer, Network]:
    clock = FakeClock(START)
    api = APIServer(clock)
    api.create(Node.from_dict({"metadata": {"name": "n"}}))
    api.create(
        Pod.from_dict(
            {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
        )
    )
    return api, Network(api, clock, bind_latency=bind_latency, watch_delay=watch_delay)


def binding() -> Binding:
    return Binding(
        metadata=ObjectMeta(name="p", namespace="default"),
        target=ObjectReference(kind="Node", name="n"),
    )


def test_a_binding_is_committed_bind_latency_after_it_was_posted() -> None:
    api, network = setup(bind_latency=0.02)
    answered = network.client().bind(binding())
    assert answered.spec.node_name == "n"
    assert api.get(Pod, "p").spec.node_name == ""
    assert network.next_due() == pytest.approx(START + 0.02)
    network.advance_to(START + 0.02)
    assert api.get(Pod, "p").spec.node_name == "n"
    assert network.next_due() is None


def test_a_watch_event_arrives_watch_delay_after_its_commit() -> None:
    api, network = setup(watch_delay=0.05)
    client = network.client()
    watch = client.watch(Pod, resource_version=api.current_resource_version())
    api.bind(binding())
    assert watch.drain() == []
    network.advance_to(START + 0.049)
    assert watch.drain() == []
    network.advance_to(START + 0.05)
    assert [e.object.spec.node_name for e in watch.drain()] == ["n"]  # type: ignore[attr-defined]


def test_negative_delays_are_refused() -> None:
    api = APIServer(FakeClock(START))
    with pytest.raises(ValueError, match="bind_latency=-1"):
        Network(api, FakeClock(START), bind_latency=-1)
