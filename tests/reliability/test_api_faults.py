"""The API server stumbles: binds fail, writes fail, watches drop and expire; nothing is lost or doubled.

What Kubernetes promises, and where (v1.33):

* ``pkg/scheduler/framework/plugins/defaultbinder/default_binder.go``: any
  error from ``pods/binding`` is the Bind plugin's Error status;
  ``pkg/scheduler/schedule_one.go`` (``handleBindingCycleError``) then runs
  Unreserve, forgets the assumed pod (its room is free again, and
  ``AssignedPodDelete`` moves the pods waiting for room), and requeues the
  pod with backoff, unless it was deleted meanwhile.
* ``pkg/registry/core/pod/storage/storage.go``: the API server binds a pod
  at most once (``pod ... is already assigned to node``), which is what makes
  a retried bind safe when the answer to the first one was lost.
* ``pkg/scheduler/schedule_one.go`` (``updatePod``) and client-go's event
  broadcaster: failing to write the pod's condition or an Event is logged,
  never fatal; the next attempt writes them again.
* ``k8s.io/client-go/tools/cache/reflector.go``: a watch the server closes is
  opened again from the last resourceVersion seen; ``410 Expired`` means
  list again, and the difference becomes adds, updates and deletes.
"""

from __future__ import annotations

import pytest

from framework.apiserver import APIServer, Expired
from framework.objects import Node, Pod
from framework.queue.scheduling_queue import BACKOFF_Q, UNSCHEDULABLE_PODS
from framework.testing.faults import Fault, FaultPlan, FaultyAPIServer, Rule
from framework.testing.steps import StepLog
from tests.reliability.helpers import World, node, pod
from tests.scheduler.helpers import Observed, bind_directly


def faulty(plan: FaultPlan) -> FaultyAPIServerDoor:
    return FaultyAPIServerDoor(plan)


class FaultyAPIServerDoor:
    """Makes a FaultyAPIServer for World (which builds the store first), and keeps it."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self.door: FaultyAPIServer | None = None

    def __call__(self, store: APIServer) -> APIServer:
        self.door = FaultyAPIServer(store, self.plan)
        return self.door


BIND_REFUSALS = [
    (
        Fault.CONFLICT,
        'running Bind plugin "DefaultBinder": Operation cannot be fulfilled on pods/binding '
        '"p0": the object has been modified; please apply your changes to the latest version '
        "and try again",
    ),
    (
        Fault.INTERNAL_ERROR,
        'running Bind plugin "DefaultBinder": Internal error occurred: injected: pods 500 '
        "InternalError at bind for pod default/p0",
    ),
    (
        Fault.UNAVAILABLE,
        'running Bind plugin "DefaultBinder": injected: pods 503 ServiceUnavailable at bind for '
        "pod default/p0",
    ),
]


@pytest.mark.parametrize(
    ("fault", "message"), BIND_REFUSALS, ids=[f.value for f, _ in BIND_REFUSALS]
)
def test_a_refused_bind_frees_the_room_and_requeues_the_pod_with_backoff(
    fault: Fault, message: str
) -> None:
    plan = FaultPlan([Rule("bind", fault, pods=frozenset({"default/p0"}), limit=1)])
    w = World([node("a", cpu="1"), pod("p0"), pod("p1")], door=faulty(plan))
    w.scheduler.schedule_pending()
    assert w.condition("p0") == ("SchedulerError", message)
    assert w.events("p0") == [message]
    # Whichever pod went first, the room p0 was assumed in is free again, and one pod got it.
    dump = w.scheduler.cache.dump()
    assert not dump.assumed_pods
    assert sum(w.binds.values()) == (1 if w.node_of("p1") else 0)
    if w.queue_of("p0") == BACKOFF_Q:
        assert w.backoff_left("p0") == pytest.approx(1.0)
    w.retry()
    w.retry()
    bound = [name for name in ("p0", "p1") if w.node_of(name)]
    assert len(bound) == 1, "one node of 1 cpu: exactly one of the two pods"
    assert w.binds == {bound[0]: 1}
    w.scheduler.stop()


def test_a_pod_deleted_before_its_bind_is_dropped_not_requeued() -> None:
    plan = FaultPlan([Rule("bind", Fault.POD_DELETED, pods=frozenset({"default/p0"}))])
    w = World([node("a"), pod("p0"), pod("p1")], door=faulty(plan))
    w.scheduler.schedule_pending()
    assert plan.counts() == {"bind: the pod is deleted first (404 NotFound)": 1}
    assert [p.name for p in w.store.list(Pod).items] == ["p1"]
    assert w.node_of("p1") == "a"
    assert w.queue_of("p0") == ""  # gone from the cluster, gone from the queue
    (message,) = w.events("p0")
    assert message == 'running Bind plugin "DefaultBinder": pods "p0" not found'
    dump = w.scheduler.cache.dump()
    assert not dump.assumed_pods
    assert [p.pod.name for p in dump.nodes["a"].pods] == ["p1"]
    assert w.binds == {"p1": 1}


def test_a_bind_whose_answer_is_lost_binds_exactly_once() -> None:
    # The binding lands; the scheduler hears 504, forgets the pod and requeues it; the watch
    # then shows it bound, and it leaves the queue. A retry in between would meet the API
    # server's "already assigned" Conflict: the server is the guard against a second binding.
    plan = FaultPlan([Rule("bind", Fault.LOST_RESPONSE, pods=frozenset({"default/p0"}))])
    w = World([node("a"), node("b"), pod("p0")], door=faulty(plan))
    w.scheduler.schedule_pending()
    w.retry()
    assert w.binds == {"p0": 1}
    assert w.node_of("p0") in ("a", "b")
    assert w.queue_of("p0") == ""
    (message,) = w.events("p0")
    assert message.startswith('running Bind plugin "DefaultBinder": Timeout: injected:')
    dump = w.scheduler.cache.dump()
    assert not dump.assumed_pods
    assert [p.pod.name for p in dump.nodes[w.node_of("p0")].pods] == ["p0"]
    # The condition is not written over a bound pod (updatePod checks nodeName first).
    assert w.condition("p0") == ("", "")


def test_a_retried_bind_after_a_lost_answer_meets_the_servers_conflict() -> None:
    # The watch is slow this time: the scheduler retries before it learns the pod is bound.
    plan = FaultPlan([Rule("bind", Fault.LOST_RESPONSE, pods=frozenset({"default/p0"}))])
    door = faulty(plan)
    w = World([node("a"), pod("p0")], door=door)
    w.scheduler.sync()
    assert w.scheduler.scheduling.schedule_one(timeout=0)
    w.scheduler.scheduling.wait_for_bindings()
    assert door.door is not None
    door.door.drop_watches()  # the binding's MODIFIED event is lost with the connection
    w.clock.advance(1)
    w.scheduler.queue.flush_backoff_q_completed()
    assert w.scheduler.scheduling.schedule_one(timeout=0)  # before any sync: a second bind
    w.scheduler.scheduling.wait_for_bindings()
    second = w.events("p0")[-1]
    assert "is already assigned to node" in second
    w.scheduler.schedule_pending()  # the informer reconnects and learns the pod is bound
    assert w.binds == {"p0": 1}
    assert w.queue_of("p0") == ""
    assert not w.scheduler.cache.dump().assumed_pods


def test_failing_to_write_the_event_and_the_condition_does_not_lose_the_pod() -> None:
    plan = FaultPlan(
        [
            Rule("update_status", Fault.INTERNAL_ERROR, subjects=frozenset({"pods"}), limit=1),
            Rule("create", Fault.UNAVAILABLE, subjects=frozenset({"events"}), limit=1),
        ]
    )
    w = World([node("a", cpu="1"), pod("big", cpu="2"), pod("p0")], door=faulty(plan))
    w.scheduler.schedule_pending()
    assert plan.counts() == {
        "create: 503 ServiceUnavailable": 1,
        "update_status: 500 InternalError": 1,
    }
    assert w.node_of("p0") == "a"  # the scheduler went on
    assert w.queue_of("big") == UNSCHEDULABLE_PODS  # requeued before anything was written
    assert w.events("big") == [] and w.condition("big") == ("", "")
    w.retry()  # the next attempt writes both
    reason, message = w.condition("big")
    assert reason == "Unschedulable" and message.startswith("0/1 nodes are available")
    assert w.events("big") == [message]


def test_a_dropped_watch_resumes_where_it_stopped() -> None:
    plan = FaultPlan()
    door = faulty(plan)
    w = World([node("a")], door=door)
    w.scheduler.sync()
    w.store.create(pod("p0"))
    w.store.create(node("b"))
    assert door.door is not None
    assert door.door.drop_watches() >= 2  # pods and nodes; their pending events are lost
    w.scheduler.schedule_pending()
    assert w.node_of("p0") in ("a", "b")
    informers = (w.scheduler.pod_informer, w.scheduler.node_informer)
    assert [i.rewatches for i in informers] == [1, 1]
    assert [i.relists for i in informers] == [0, 0]
    assert sorted(w.scheduler.cache.dump().nodes) == ["a", "b"]


@pytest.mark.parametrize(
    "how", ["injected 410", "history compacted"], ids=["410 injected", "watch window exceeded"]
)
def test_an_expired_watch_lists_again_and_applies_the_difference(how: str) -> None:
    plan = FaultPlan()
    door = faulty(plan)
    w = World(
        [node("a"), node("b"), pod("p1"), pod("p3")],
        door=door,
        watch_window=4 if how == "history compacted" else 10_000,
    )
    w.scheduler.sync()
    assert door.door is not None
    if how == "injected 410":
        plan.with_rules(Rule("watch", Fault.WATCH_EXPIRED))
    door.door.drop_watches()
    # While the scheduler is not watching: a node goes and another comes, a pending pod goes
    # and another comes, someone else binds a pod, and enough else happens to compact history.
    w.store.delete(Node, "b")
    w.store.create(node("c"))
    w.store.delete(Pod, "p1")
    w.store.create(pod("p2"))
    bind_directly(w.store, "p3", "a")
    for i in range(5):
        w.store.create(pod(f"x{i}"))
        w.store.delete(Pod, f"x{i}")
    if how == "history compacted":
        with pytest.raises(Expired):
            w.store.watch(Pod, resource_version=w.scheduler.pod_informer.resource_version)

    w.scheduler.sync()
    pods, nodes = w.scheduler.pod_informer, w.scheduler.node_informer
    assert (pods.relists, pods.rewatches) == (1, 0)
    # Nodes changed twice: within a 4-change window they resume; a 410 makes them list too.
    assert (nodes.relists, nodes.rewatches) == ((1, 0) if how == "injected 410" else (0, 1))
    assert sorted(w.scheduler.cache.dump().nodes) == ["a", "c"]
    queued = {p.name for p in w.scheduler.queue.pending_pods()[0]}
    assert queued == {"p2"}
    cached = {
        pi.pod.name: n for n, info in w.scheduler.cache.dump().nodes.items() for pi in info.pods
    }
    assert cached == {"p3": "a"}
    w.scheduler.schedule_pending()
    assert w.node_of("p2") in ("a", "c")
    assert w.binds == {"p3": 1, "p2": 1}


def test_a_running_scheduler_reconnects_its_dropped_watches() -> None:
    # Scheduler.run: the informers follow their watches on threads of their own.
    plan = FaultPlan()
    door = faulty(plan)
    w = World([node("a")], door=door)
    seen = Observed()
    w.scheduler.add_tracer(StepLog(seen))
    w.scheduler.run()
    try:
        assert door.door is not None
        door.door.drop_watches()
        w.store.create(pod("p0"))
        seen.wait_until(lambda o: "p0" in o.names("Bound"), "p0 is bound")
    finally:
        w.scheduler.stop()
    assert w.binds == {"p0": 1}
    assert w.scheduler.pod_informer.rewatches + w.scheduler.pod_informer.relists >= 1
