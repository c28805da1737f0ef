"""A scheduler dies at any moment; a new one starts from the API server's state; nothing is lost or doubled.

kube-scheduler is crash-only: it keeps nothing on disk. A new instance lists
pods and nodes from the API server (``pkg/scheduler/scheduler.go``,
``New``; ``eventhandlers.go``) and goes on. What the crashed one had only
*assumed* (in its cache, in binding cycles in flight, at Permit) dies with
it; what it had *bound* is in the API server, which binds a pod at most once
(``pkg/registry/core/pod/storage/storage.go``, ``pod ... is already assigned
to node``). So, whatever the moment of the crash:

* pods bound before the crash stay bound, where they were;
* every other pod is scheduled by the successor, or reported unschedulable
  with its reason, and only when no node has room for it;
* no pod is bound twice (the successful ``pods/binding`` calls are counted
  on the API server itself), and no node's bound requests exceed its
  allocatable.

Hypothesis chooses the cluster, which binding cycles hang in PreBind (held
in flight when the crash comes), which pods the API server refuses to bind
(a transient 503), and the program of steps the first scheduler gets
through before it dies; a failure shrinks to a short program.
"""

from __future__ import annotations

import concurrent.futures
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Pod
from framework.objects.resources import pod_requests
from framework.scheduler.scheduler import Scheduler
from framework.testing.faults import Fault, FaultPlan, FaultyAPIServer, Rule
from tests.reliability.conftest import report
from tests.reliability.helpers import EVERYWHERE, count_binds, node, pod, scheduler_on, settle
from tests.scheduler.helpers import HANG_GUARD


@pytest.fixture(scope="module")
def tried() -> Iterator[Counter[str]]:
    """What the examples covered, counted across them and reported when the module is done."""
    counts: Counter[str] = Counter()
    yield counts
    report("crash and restart", counts)


@st.composite
def histories(draw: st.DrawFn) -> dict[str, Any]:
    nodes = draw(st.lists(st.sampled_from([1000, 2000, 3000]), min_size=1, max_size=3))
    cpus = draw(st.lists(st.sampled_from([500, 1000, 1500]), min_size=1, max_size=8))
    step = st.one_of(
        st.just(("schedule",)),
        st.just(("schedule",)),
        st.just(("schedule",)),
        st.tuples(st.just("release"), st.integers(0, 7)),
        st.just(("sync",)),
        st.tuples(st.just("tick"), st.sampled_from([1, 10, 301])),
    )
    return {
        "nodes": nodes,
        "cpus": cpus,
        "hang": draw(st.sampled_from([0.0, 0.5, 1.0])),
        "refuse": draw(st.sampled_from([0.0, 0.3])),
        "steps": draw(st.lists(step, max_size=25)),
        "seed": draw(st.integers(0, 2**16)),
    }


def quiet(sched: Scheduler, plan: FaultPlan) -> None:
    """Wait until every binding cycle has ended or is held by a hang: nothing runs behind our back."""
    for _ in range(int(HANG_GUARD / 0.01)):
        running = [f for f in sched.scheduling.binding_futures() if not f.done()]
        if len(running) <= len(plan.hangs()):
            return
        concurrent.futures.wait(running, timeout=0.01)
    raise AssertionError("binding cycles neither ended nor hung")


def play(
    sched: Scheduler, clock: FakeClock, plan: FaultPlan, steps: list[tuple[Any, ...]]
) -> None:
    for step in steps:
        if step[0] == "schedule":
            sched.sync()
            sched.scheduling.schedule_one(timeout=0)
        elif step[0] == "release":
            hangs = plan.hangs()
            if hangs:
                plan.release(hangs[step[1] % len(hangs)])
        elif step[0] == "sync":
            sched.sync()
        else:
            clock.advance(step[1])
            sched.queue.flush_backoff_q_completed()
            sched.queue.flush_unschedulable_pods_leftover()
        quiet(sched, plan)


@pytest.mark.slow
@settings(max_examples=100)
@given(histories())
def test_a_successor_schedules_what_a_crashed_scheduler_left_and_binds_nothing_twice(
    tried: Counter[str], history: dict[str, Any]
) -> None:
    clock = FakeClock()
    store = APIServer(clock)
    binds = count_binds(store)
    allocatable = {f"n{i}": cpu for i, cpu in enumerate(history["nodes"])}
    for name, cpu in allocatable.items():
        store.create(node(name, cpu=f"{cpu}m"))
    for i, cpu in enumerate(history["cpus"]):
        store.create(pod(f"p{i}", cpu=f"{cpu}m"))

    # The first scheduler: binding cycles may hang in PreBind, binds may be refused.
    plan = FaultPlan(
        [
            Rule(
                "PreBind",
                Fault.HANG,
                probability=history["hang"],
                subjects=frozenset({EVERYWHERE}),
            ),
            Rule("bind", Fault.UNAVAILABLE, probability=history["refuse"]),
        ],
        seed=history["seed"],
    )
    door = FaultyAPIServer(store, plan)
    first = scheduler_on(door, clock, plan, seed=history["seed"])
    play(first, clock, plan, history["steps"])

    # The crash: nothing the first scheduler does from now on reaches the API server.
    bound_before = {p.name: p.spec.node_name for p in store.list(Pod).items if p.spec.node_name}
    held = len(plan.hangs())
    door.sever()
    plan.release()  # its held binding cycles run on, into a server that no longer answers
    first.scheduling.wait_for_bindings()
    first.stop()
    assert {p.name: p.spec.node_name for p in store.list(Pod).items if p.spec.node_name} == (
        bound_before
    ), "a dead scheduler bound a pod"

    # The successor starts from the API server's state alone.
    second = scheduler_on(store, clock, seed=history["seed"])
    settle(second, clock)
    second.stop()

    pods = {p.name: p for p in store.list(Pod).items}
    used: Counter[str] = Counter()
    for p in pods.values():
        if p.spec.node_name:
            used[p.spec.node_name] += pod_requests(p).get("cpu", 0)
    assert all(count == 1 for count in binds.values()), f"bound more than once: {binds}"
    for name, where in bound_before.items():
        assert pods[name].spec.node_name == where, f"{name} moved after the crash"
    assert all(used[n] <= allocatable[n] for n in used), (used, allocatable)
    queued = {p.name for p in second.queue.pending_pods()[0]}
    for name, p in pods.items():
        if p.spec.node_name:
            assert binds[name] == 1 and name not in queued
            continue
        assert name in queued, f"{name} is neither bound nor queued: lost"
        condition = next(c for c in p.status.conditions if c.type == "PodScheduled")
        assert (condition.status, condition.reason) == ("False", "Unschedulable")
        wanted = pod_requests(p).get("cpu", 0)
        assert all(wanted > allocatable[n] - used[n] for n in allocatable), (
            f"{name} waits though there is room: {used} of {allocatable}"
        )
    tried["histories"] += 1
    tried["pods"] += len(pods)
    tried["pods bound before the crash"] += len(bound_before)
    tried["binding cycles in flight at the crash"] += held
    tried["pods bound by the successor"] += sum(1 for p in pods.values() if p.spec.node_name)
    tried["pods bound by the successor"] -= len(bound_before)
    tried["pods left unschedulable"] += sum(1 for p in pods.values() if not p.spec.node_name)
