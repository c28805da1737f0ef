"""Objects vanish under a pod in flight: its node while it is assumed there, the pod itself at Permit or in binding.

What kube-scheduler does (kubernetes/kubernetes v1.33):

* a pod deleted while it waits at Permit is rejected at once
  (``pkg/scheduler/eventhandlers.go``, ``deletePodFromSchedulingQueue``:
  ``fwk.RejectWaitingPod``); its binding cycle unreserves and forgets it, and
  it is not requeued, because it no longer exists (``handleSchedulingFailure``
  looks it up first);
* a pod deleted during its binding cycle makes ``pods/binding`` fail with
  ``404 NotFound``; one deleted and created again under the same name fails
  the binding's uid precondition with ``409 Conflict``
  (``defaultbinder``: the Binding carries the pod's uid), so the new pod is
  never bound by a decision made for the old one;
* a node deleted while a pod is assumed on it leaves the cache's NodeInfo in
  place, without its Node, until its pods are gone (``backend/cache/cache.go``,
  ``RemoveNode``), and no new pod is placed there (the snapshot lists nodes
  from the node tree). The API server does not check that a binding's node
  exists, so the held binding still lands; in a real cluster the pod
  garbage collector then deletes such orphans (not modelled here).
"""

from __future__ import annotations

from framework.objects import Node, Pod
from framework.testing.faults import Fault, FaultPlan, Rule
from framework.testing.steps import StepLog
from tests.reliability.helpers import EVERYWHERE, World, node, pod
from tests.scheduler.helpers import HANG_GUARD, Observed


def test_a_pod_deleted_while_waiting_at_permit_is_rejected_and_forgotten() -> None:
    w = World([node("a", cpu="1"), pod("p0")], permit_wait=60)
    seen = Observed()
    w.scheduler.add_tracer(StepLog(seen))
    w.scheduler.sync()
    assert w.scheduler.scheduling.schedule_one(timeout=0)
    fwk = w.scheduler.profiles["default-scheduler"]
    uid = w.store.get(Pod, "p0").metadata.uid
    assert fwk.get_waiting_pod(uid) is not None
    assert w.scheduler.cache.is_assumed_pod(w.store.get(Pod, "p0"))

    w.store.delete(Pod, "p0")
    w.scheduler.sync()  # the informer sees the delete and rejects the waiting pod
    seen.wait_until(lambda o: "p0" in o.names("SchedulingFailed"), "p0's binding cycle ended")
    w.scheduler.scheduling.wait_for_bindings()
    assert fwk.get_waiting_pod(uid) is None
    assert not w.scheduler.cache.dump().assumed_pods
    assert w.queue_of("p0") == ""
    assert sum(w.binds.values()) == 0
    # The room is free: a pod that needs the whole node fits.
    w.store.create(pod("p1", cpu="1"))
    w.scheduler.sync()
    assert w.scheduler.scheduling.schedule_one(timeout=0)
    fwk.get_waiting_pod(w.store.get(Pod, "p1").metadata.uid).allow(EVERYWHERE)  # type: ignore[union-attr]
    w.clock.advance(0)
    w.scheduler.scheduling.wait_for_bindings()
    assert w.node_of("p1") == "a"


def held_in_pre_bind(*objects: Node | Pod) -> tuple[World, FaultPlan]:
    plan = FaultPlan(
        [
            Rule(
                "PreBind",
                Fault.HANG,
                subjects=frozenset({EVERYWHERE}),
                pods=frozenset({"default/p0"}),
                limit=1,
            )
        ]
    )
    w = World(objects, plan)
    w.scheduler.sync()
    assert w.scheduler.scheduling.schedule_one(timeout=0)
    plan.wait_for_hangs(1, timeout=HANG_GUARD)
    return w, plan


def test_a_pod_deleted_in_its_binding_cycle_is_not_bound_nor_requeued() -> None:
    w, plan = held_in_pre_bind(node("a", cpu="1"), pod("p0"))
    w.store.delete(Pod, "p0")
    w.scheduler.sync()
    plan.release()
    w.scheduler.scheduling.wait_for_bindings()
    w.scheduler.sync()
    assert sum(w.binds.values()) == 0
    assert w.queue_of("p0") == ""
    assert not w.scheduler.cache.dump().assumed_pods
    assert w.events("p0") == ['running Bind plugin "DefaultBinder": pods "p0" not found']


def test_a_pod_recreated_under_the_same_name_is_not_bound_by_the_old_decision() -> None:
    w, plan = held_in_pre_bind(node("a", cpu="1"), node("b", cpu="1"), pod("p0"))
    held_on = w.scheduler.cache.get_pod(w.store.get(Pod, "p0")).spec.node_name
    old_uid = w.store.get(Pod, "p0").metadata.uid
    w.store.delete(Pod, "p0")
    w.store.create(pod("p0"))  # same name, new uid
    plan.release()
    w.scheduler.scheduling.wait_for_bindings()
    message = w.events("p0")[0]
    assert f"Precondition failed: UID in precondition: {old_uid}" in message
    # The new p0 is scheduled on its own, once.
    w.scheduler.schedule_pending()
    assert w.node_of("p0") in ("a", "b") and held_on in ("a", "b")
    assert w.binds == {"p0": 1}
    assert w.store.get(Pod, "p0").metadata.uid != old_uid


def test_a_node_deleted_under_an_assumed_pod_takes_no_new_pods() -> None:
    w, plan = held_in_pre_bind(node("a", cpu="2"), node("b", cpu="2"), pod("p0"))
    seen = Observed()
    w.scheduler.add_tracer(StepLog(seen))
    held_on = w.scheduler.cache.get_pod(w.store.get(Pod, "p0")).spec.node_name
    other = "b" if held_on == "a" else "a"
    w.store.delete(Node, held_on)
    w.store.create(pod("p1"))
    w.store.create(pod("p2"))
    w.scheduler.sync()
    # The NodeInfo stays while p0 is assumed on it, without its Node.
    info = w.scheduler.cache.dump().nodes[held_on]
    assert info.node is None and [p.pod.name for p in info.pods] == ["p0"]
    while w.scheduler.scheduling.schedule_one(timeout=0):
        pass
    seen.wait_until(lambda o: {"p1", "p2"} <= set(o.names("Bound")), "p1 and p2 are bound")
    assert w.node_of("p1") == other and w.node_of("p2") == other

    # The held binding lands: the API server does not check that the node exists.
    plan.release()
    w.scheduler.scheduling.wait_for_bindings()
    w.scheduler.sync()
    assert w.node_of("p0") == held_on
    assert w.binds == {"p0": 1, "p1": 1, "p2": 1}
    # Once the orphan goes (podgc's job in a real cluster), so does the node's last trace.
    w.store.delete(Pod, "p0")
    w.scheduler.sync()
    assert held_on not in w.scheduler.cache.dump().nodes
