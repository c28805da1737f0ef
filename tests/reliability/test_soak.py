"""Soak: 2,000 pods on 200 nodes with faults at every extension point and in the API server.

Sized for CI: one seeded run, well under a minute on two cores (it prints
how long it took; nothing asserts it). Faults strike with small
probabilities everywhere at once: every plugin of kube-scheduler's default
profile and ``Everywhere`` (a plugin at every point the default profile
leaves empty) may raise, return Error, return an unknown code or the wrong
type; scores may leave [0, 100] or come back a node too many; binding
cycles may hang in PreBind or Bind until the driver lets them go, many at a
time; the API server refuses binds (409, 500, 503) or deletes the pod
first (404), drops every watch now and then, and refuses to resume them
(410). Then the faults stop and every waiting pod gets its retries.

What must hold at the end (kubernetes/kubernetes v1.33 is the reference for
each: ``pkg/scheduler/schedule_one.go`` for failure handling and requeueing,
``pkg/registry/core/pod/storage/storage.go`` for binding at most once,
``noderesources/fit.go`` with the cache's assumed pods for no over-commit):

* every pod still in the cluster is bound, exactly once (the successful
  ``pods/binding`` calls are counted on the API server), or waits among the
  unschedulable pods with a ``FailedScheduling`` event and
  ``PodScheduled=False`` giving the reason; pods deleted by a fault are gone
  from the queue too;
* no node's bound requests exceed its allocatable (cpu, memory, pods);
* activeQ, backoffQ and the in-flight set are empty, nothing is assumed;
* no thread the scheduler started is left running.

Left out, and tested on their own: a hang in the scheduling cycle (with no
deadline it holds the loop, as in kube-scheduler: ``test_plugin_faults.py``)
and a bind whose answer is lost (kube-scheduler forgets the pod and may
place another on the same room before the watch tells it the bind landed,
an over-commit the kubelet would refuse: ``test_api_faults.py``).
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Event, Node, Pod
from framework.objects.resources import pod_requests
from framework.queue.scheduling_queue import ACTIVE_Q, BACKOFF_Q, IN_FLIGHT, UNSCHEDULABLE_PODS
from framework.scheduler.scheduler import Scheduler
from framework.testing.faults import Fault, FaultPlan, FaultyAPIServer, Rule
from tests.reliability.conftest import Numbers
from tests.reliability.helpers import EVERYWHERE, count_binds, scheduler_on, settle

NODES, PODS, UNFIT = 200, 2000, 20
SEED = 20250423

SCHEDULING_CYCLE = ["PreFilter", "PostFilter", "PreScore", "Reserve", "Permit"]
ONCE_PER_NODE = ["Filter", "Score"]  # asked once per node: far smaller odds per call
BINDING_CYCLE = ["PreBind", "Bind"]
FAILURES = [Fault.RAISE, Fault.ERROR, Fault.UNKNOWN_CODE, Fault.WRONG_TYPE]


def plan() -> FaultPlan:
    rules: list[Rule] = []
    for site in SCHEDULING_CYCLE + BINDING_CYCLE:
        rules += [Rule(site, fault, probability=0.002) for fault in FAILURES]
    for site in ONCE_PER_NODE:
        rules += [Rule(site, fault, probability=0.00002) for fault in FAILURES]
    rules += [
        # A PreEnqueue error gates the pod until an event its plugin registered comes, as in
        # kube-scheduler; Everywhere registers none, so any Pod or Node event will do.
        Rule("PreEnqueue", Fault.ERROR, probability=0.002, subjects=frozenset({EVERYWHERE})),
        Rule("NormalizeScore", Fault.SCORE_OUT_OF_RANGE, probability=0.002),
        Rule("NormalizeScore", Fault.SCORE_WRONG_LENGTH, probability=0.002),
        Rule("NormalizeScore", Fault.SCORE_UNKNOWN_NODE, probability=0.002),
        Rule("Unreserve", Fault.RAISE, probability=0.05),
        Rule("PostBind", Fault.RAISE, probability=0.01),
        Rule("PreBind", Fault.HANG, probability=0.001),
        Rule("Bind", Fault.HANG, probability=0.01),  # DefaultBinder is the only Bind plugin
        Rule("bind", Fault.CONFLICT, probability=0.02),
        Rule("bind", Fault.INTERNAL_ERROR, probability=0.02),
        Rule("bind", Fault.UNAVAILABLE, probability=0.02),
        Rule("bind", Fault.POD_DELETED, probability=0.005),
        Rule("watch", Fault.WATCH_EXPIRED, probability=0.3),
    ]
    return FaultPlan(rules, seed=SEED)


def cluster(store: APIServer) -> dict[str, dict[str, int]]:
    """Create the nodes and pods; return each node's allocatable (cpu in millis, memory, pods)."""
    rng = random.Random(SEED)
    allocatable: dict[str, dict[str, int]] = {}
    for i in range(NODES):
        cpu = 4 + i % 5
        name = f"node-{i:03d}"
        allocatable[name] = {"cpu": cpu * 1000, "memory": 16 * 2**30, "pods": 110}
        store.create(
            Node.from_dict(
                {
                    "metadata": {"name": name, "labels": {"zone": f"z{i % 3}"}},
                    "status": {"allocatable": {"cpu": str(cpu), "memory": "16Gi", "pods": "110"}},
                }
            )
        )
    for j in range(PODS):
        requests = {"cpu": f"{rng.choice([100, 250, 400, 500, 750, 1000])}m", "memory": "256Mi"}
        resources: dict[str, dict[str, str]] = {"requests": requests}
        if j < UNFIT:  # no node has one: unschedulable, with a reason
            requests["example.com/gpu"] = "1"
            resources["limits"] = {"example.com/gpu": "1"}  # extended resources need both
        store.create(
            Pod.from_dict(
                {
                    "metadata": {"name": f"pod-{j:04d}", "labels": {"app": f"a{j % 7}"}},
                    "spec": {
                        "containers": [{"name": "c", "image": "nginx", "resources": resources}]
                    },
                }
            )
        )
    return allocatable


def drive(sched: Scheduler, door: FaultyAPIServer, faults: FaultPlan, clock: FakeClock) -> int:
    """Schedule with faults on, the driver letting hung bindings go and dropping watches at times."""
    rng = random.Random(SEED)
    attempts = idle = 0
    while idle < 3:
        sched.sync()
        if sched.scheduling.schedule_one(timeout=0):
            attempts += 1
            idle = 0
        else:
            idle += 1
            faults.release()  # nothing to schedule: let every held binding go on
            sched.scheduling.wait_for_bindings()
            clock.advance(1)
            sched.queue.flush_backoff_q_completed()
        hangs = faults.hangs()
        if len(hangs) > 8 or (hangs and rng.random() < 0.05):
            faults.release(hangs[rng.randrange(len(hangs))])
        if rng.random() < 0.003:
            door.drop_watches()
        if attempts % 200 == 0:
            clock.advance(1)
            sched.queue.flush_backoff_q_completed()
    return attempts


@pytest.mark.slow
def test_soak_thousands_of_pods_with_faults_everywhere(numbers: Numbers) -> None:
    started = time.perf_counter()
    threads_before = set(threading.enumerate())
    clock = FakeClock()
    store = APIServer(clock)
    binds = count_binds(store)
    allocatable = cluster(store)
    faults = plan()
    door = FaultyAPIServer(store, faults)
    sched = scheduler_on(door, clock, faults, seed=SEED)
    try:
        attempts = drive(sched, door, faults, clock)
        faults.disabled()  # no more faults: every waiting pod gets its retries
        # An event for the pods a PreEnqueue fault gated: the five-minute flush leaves them be.
        first = store.get(Node, "node-000")
        store.update(first.with_metadata(labels={**first.metadata.labels, "soak": "over"}))
        attempts += settle(sched, clock)
    finally:
        faults.disabled()
        sched.stop()
    elapsed = time.perf_counter() - started

    pods = {p.name: p for p in store.list(Pod).items}
    events: dict[str, list[str]] = {}
    for e in store.list(Event).items:
        if e.reason == "FailedScheduling":
            events.setdefault(e.involved_object.name, []).append(e.message)
    queued = sched.queue.pending_pods_by_queue()
    waiting = {p.pod.name for p in queued[UNSCHEDULABLE_PODS]}

    # Nothing bound twice; every pod bound or waiting with its reason; deleted pods gone.
    assert all(count == 1 for count in binds.values()), [n for n, c in binds.items() if c > 1]
    unbound = {name for name, p in pods.items() if not p.spec.node_name}
    assert waiting == unbound
    for name in unbound:
        gating = [p.gating_plugin for p in queued[UNSCHEDULABLE_PODS] if p.pod.name == name]
        condition = next(
            (c for c in pods[name].status.conditions if c.type == "PodScheduled"), None
        )
        assert condition is not None, (name, gating)
        assert (condition.status, condition.reason) == ("False", "Unschedulable"), name
        assert "Insufficient example.com/gpu" in condition.message, (name, condition.message)
        assert condition.message in events[name]
    assert unbound == {f"pod-{j:04d}" for j in range(UNFIT)}, "only the pods that fit nowhere wait"
    deleted = PODS - len(pods)
    assert set(binds) == {name for name, p in pods.items() if p.spec.node_name}

    # No node over-committed.
    used: dict[str, Counter[str]] = {n: Counter() for n in allocatable}
    for p in pods.values():
        if p.spec.node_name:
            requests = pod_requests(p)
            used[p.spec.node_name].update(
                cpu=requests.get("cpu", 0), memory=requests.get("memory", 0), pods=1
            )
    for name, room in allocatable.items():
        for resource, limit in room.items():
            assert used[name][resource] <= limit, (name, resource, used[name][resource], limit)

    # The queue holds only the unschedulable; nothing assumed; no thread left behind.
    assert not queued[ACTIVE_Q] and not queued[BACKOFF_Q] and not queued[IN_FLIGHT]
    assert not sched.cache.dump().assumed_pods
    left = [t.name for t in set(threading.enumerate()) - threads_before if t.is_alive()]
    assert not left, f"threads left running: {left}"

    injected = faults.counts()
    numbers(
        "soak",
        {
            "pods": PODS,
            "nodes": NODES,
            "bound": len(pods) - len(unbound),
            "unschedulable": len(unbound),
            "deleted by a fault": deleted,
            "scheduling attempts": attempts,
            "faults injected": sum(injected.values()),
            "informer rewatches": sched.pod_informer.rewatches + sched.node_informer.rewatches,
            "informer relists": sched.pod_informer.relists + sched.node_informer.relists,
            "seconds": round(elapsed, 1),
        },
    )
    numbers("soak: faults injected by kind", injected)
    # Every kind of fault the plan holds did strike at least once.
    assert len(injected) >= 25, injected
