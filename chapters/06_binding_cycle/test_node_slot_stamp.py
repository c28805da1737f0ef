"""Chapter 6: NodeSlotStamp's PreBind stamps the slot; its Unreserve releases it, once.

First the two methods alone, on a framework handle over the fake API
server; then whole binding cycles through the Scheduler: a PreBind failure
must release the slot exactly once and send the pod back to backoffQ with
``SchedulerError``; success leaves the stamp and a ``Scheduled`` event; and
binding cycles that run at the same time (they meet at a barrier in
PreBind) each get a slot of their own. Run against your code with
``python -m pytest chapters/06_binding_cycle --exercise``.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from framework.apiserver import APIServer, Forbidden
from framework.apiserver.errors import resource_for
from framework.cache.snapshot import new_snapshot
from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.objects import Event, Node, Pod
from framework.runtime.framework import Framework
from framework.status import Code, Status, is_success
from tests.scheduler.helpers import Cluster

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.examples.nodeslotstamp",
    skeleton="exercise.py",
    asks=["NodeSlotStamp.unreserve", "NodeSlotStamp.pre_bind"],
)

SLOTS_LABEL = "example.com/slots"
SLOT_ANNOTATION = "example.com/slot"


def slotted_node(name: str, slots: int) -> Node:
    return Node.from_dict(
        {
            "metadata": {"name": name, "labels": {SLOTS_LABEL: str(slots)}},
            "status": {"allocatable": {"cpu": "8", "pods": "110"}},
        }
    )


def new_pod(name: str) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        }
    )


def events(cluster: Cluster, reason: str) -> list[tuple[str, str]]:
    found = sorted(cluster.api.list(Event).items, key=lambda e: int(e.metadata.resource_version))
    return [(e.involved_object.name, e.message) for e in found if e.reason == reason]


# --- the two methods alone --------------------------------------------------------------------


def on_node(pod: Pod, node_name: str) -> Pod:
    """The pod as the scheduler's cache has it once assumed on a node."""
    return dataclasses.replace(pod, spec=dataclasses.replace(pod.spec, node_name=node_name))


class Alone:
    """The plugin on a framework handle over a fake API server; pod p reserved slot 0 of node a.

    ``client`` wraps the API server into the client the plugin gets from its handle.
    """

    def __init__(self, impl: ModuleType, client: Callable[[APIServer], Any] | None = None) -> None:
        self.api = APIServer(FakeClock())
        self.pod = self.api.create(new_pod("p"))
        self.client = client(self.api) if client else self.api
        self.handle = Framework("default-scheduler", client=self.client)
        self.handle.snapshot = new_snapshot([], [slotted_node("a", 2)])
        self.plugin = impl.NodeSlotStamp(self.handle)
        self.state = CycleState()
        assert self.plugin.reserve(self.state, self.pod, "a") is None

    def stored(self) -> Pod:
        return self.api.get(Pod, "p", namespace="default")


def test_pre_bind_stamps_the_reserved_slot_and_keeps_the_other_annotations(
    impl: ModuleType,
) -> None:
    alone = Alone(impl)
    alone.api.update(alone.stored().with_metadata(annotations={"owner": "team-blue"}))
    assert is_success(alone.plugin.pre_bind(alone.state, alone.pod, "a"))
    assert alone.stored().metadata.annotations == {"owner": "team-blue", SLOT_ANNOTATION: "0"}


def test_pre_bind_without_a_reserved_slot_writes_nothing(impl: ModuleType) -> None:
    alone = Alone(impl)
    before = alone.stored().metadata.resource_version
    assert is_success(alone.plugin.pre_bind(CycleState(), alone.pod, "a"))
    assert alone.stored().metadata.resource_version == before


def test_pre_bind_reads_again_and_retries_when_its_write_loses_a_race(impl: ModuleType) -> None:
    class Racing:
        """Another writer labels the pod between the plugin's read and write, twice."""

        def __init__(self, api: APIServer) -> None:
            self.api = api
            self.updates = 0

        def get(self, *args: Any, **kwargs: Any) -> Any:
            return self.api.get(*args, **kwargs)

        def update(self, obj: Pod) -> Pod:
            self.updates += 1
            if self.updates <= 2:
                current = self.api.get(Pod, obj.name, namespace=obj.namespace)
                labels = {**current.metadata.labels, f"writer-{self.updates}": "yes"}
                self.api.update(current.with_metadata(labels=labels))
            return self.api.update(obj)  # Conflict while another write came in between

    alone = Alone(impl, client=Racing)
    assert is_success(alone.plugin.pre_bind(alone.state, alone.pod, "a"))
    stored = alone.stored()
    assert stored.metadata.labels == {"writer-1": "yes", "writer-2": "yes"}
    assert stored.metadata.annotations[SLOT_ANNOTATION] == "0"
    assert alone.client.updates == 3


def test_pre_bind_turns_a_refusal_into_an_error_status(impl: ModuleType) -> None:
    refusal = Forbidden(resource_for(Pod), "p", "annotations are frozen")

    class Refusing:
        def __init__(self, api: APIServer) -> None:
            self.api = api

        def get(self, *args: Any, **kwargs: Any) -> Any:
            return self.api.get(*args, **kwargs)

        def update(self, obj: Pod) -> Pod:
            raise refusal

    alone = Alone(impl, client=Refusing)
    status = alone.plugin.pre_bind(alone.state, alone.pod, "a")
    assert status is not None and status.code is Code.ERROR
    assert status.message() == f"stamping slot 0 on pod default/p: {refusal}"


def test_unreserve_releases_the_hold_and_a_second_call_changes_nothing(impl: ModuleType) -> None:
    alone = Alone(impl)
    other = alone.api.create(new_pod("q"))
    # The next cycle's snapshot has p assumed on a, so q takes slot 1.
    alone.handle.snapshot = new_snapshot([on_node(alone.pod, "a")], [slotted_node("a", 2)])
    assert alone.plugin.reserve(CycleState(), other, "a") is None
    assert sorted(alone.plugin.holds().values()) == [("a", 0), ("a", 1)]
    alone.plugin.unreserve(alone.state, alone.pod, "a")
    assert alone.plugin.holds() == {other.metadata.uid: ("a", 1)}
    alone.plugin.unreserve(alone.state, alone.pod, "a")
    assert alone.plugin.holds() == {other.metadata.uid: ("a", 1)}


def test_unreserve_of_a_pod_that_holds_nothing_is_harmless(impl: ModuleType) -> None:
    alone = Alone(impl)
    stranger = new_pod("stranger")
    alone.plugin.unreserve(CycleState(), stranger, "a")
    assert alone.plugin.holds() == {alone.pod.metadata.uid: ("a", 0)}


# --- whole binding cycles, through the Scheduler ------------------------------------------------


class Built:
    """The factory the registry calls, remembering the plugin it built and counting Unreserves."""

    def __init__(self, impl: ModuleType) -> None:
        self.impl = impl
        self.plugin: Any = None
        self.unreserved: list[str] = []

    def __call__(self, args: Any, handle: Any) -> Any:
        unreserved = self.unreserved

        class Counting(self.impl.NodeSlotStamp):  # type: ignore[misc,name-defined]
            def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
                unreserved.append(pod.name)
                super().unreserve(state, pod, node_name)

        self.plugin = Counting(handle)
        return self.plugin


def test_a_failed_pre_bind_releases_the_slot_exactly_once_and_backs_off_as_an_error(
    impl: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = Cluster(slotted_node("a", 1))
    cluster.api.create(new_pod("p1"))
    refusal = Forbidden(resource_for(Pod), "p1", "admission webhook denied the request")

    update = cluster.api.update

    def refuse_pods(obj: Any) -> Any:
        if isinstance(obj, Pod):
            raise refusal  # an admission webhook refuses the stamp
        return update(obj)

    monkeypatch.setattr(cluster.api, "update", refuse_pods)
    built = Built(impl)
    sched = cluster.scheduler("NodeSlotStamp", NodeSlotStamp=built)
    sched.schedule_pending()

    assert built.unreserved == ["p1"]
    assert built.plugin.holds() == {}
    assert cluster.node_of("p1") == ""
    assert [p.pod.name for p in sched.queue.pending_pods_by_queue()["backoffQ"]] == ["p1"]
    ((name, message),) = events(cluster, "FailedScheduling")
    assert name == "p1"
    # The runner's words around the plugin's own.
    assert message == (
        f'running PreBind plugin "NodeSlotStamp": stamping slot 0 on pod default/p1: {refusal}'
    )
    condition = cluster.api.get(Pod, "p1", namespace="default").status.conditions[-1]
    assert (condition.type, condition.status, condition.reason, condition.message) == (
        "PodScheduled",
        "False",
        "SchedulerError",
        message,
    )

    # The slot is free for the next pod; a late second Unreserve of p1 does not take it away.
    monkeypatch.undo()
    cluster.api.create(new_pod("p2"))
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("p2") == "a"
    p2 = cluster.api.get(Pod, "p2", namespace="default")
    assert p2.metadata.annotations[SLOT_ANNOTATION] == "0"
    failed = cluster.api.get(Pod, "p1", namespace="default")
    built.plugin.unreserve(CycleState(), failed, "a")
    assert built.plugin.holds() == {p2.metadata.uid: ("a", 0)}


def test_a_successful_binding_cycle_leaves_the_stamp_and_a_scheduled_event(
    impl: ModuleType,
) -> None:
    cluster = Cluster(slotted_node("a", 2))
    cluster.api.create(new_pod("web"))
    built = Built(impl)
    sched = cluster.scheduler("NodeSlotStamp", NodeSlotStamp=built)
    sched.schedule_pending()
    sched.stop()
    web = cluster.api.get(Pod, "web", namespace="default")
    assert web.spec.node_name == "a"
    assert web.metadata.annotations[SLOT_ANNOTATION] == "0"
    assert events(cluster, "Scheduled") == [("web", "Successfully assigned default/web to a")]
    assert events(cluster, "FailedScheduling") == []
    assert built.unreserved == []


def test_binding_cycles_that_overlap_each_get_their_own_slot(impl: ModuleType) -> None:
    pods = 4
    barrier = threading.Barrier(pods, timeout=30)

    class Rendezvous:
        """PreBind, before NodeSlotStamp's: passes only when every binding cycle is here at once."""

        def name(self) -> str:
            return "Rendezvous"

        def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
            barrier.wait()
            return None

    cluster = Cluster(slotted_node("a", pods), slotted_node("b", 0))
    for i in range(pods):
        cluster.api.create(new_pod(f"p{i}"))
    built = Built(impl)
    sched = cluster.scheduler(
        "Rendezvous", "NodeSlotStamp", Rendezvous=lambda *_: Rendezvous(), NodeSlotStamp=built
    )
    sched.schedule_pending()
    sched.stop()
    bound = [cluster.api.get(Pod, f"p{i}", namespace="default") for i in range(pods)]
    assert [p.spec.node_name for p in bound] == ["a"] * pods
    assert sorted(p.metadata.annotations.get(SLOT_ANNOTATION, "") for p in bound) == [
        str(slot) for slot in range(pods)
    ]
    assert len(events(cluster, "Scheduled")) == pods
    assert built.unreserved == []
