"""Properties of preemption, checked by Hypothesis over random clusters and preemptors.

What kube-scheduler's preemption promises
(``pkg/scheduler/framework/preemption/preemption.go`` and
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``, v1.33),
whatever the cluster:

* **Only lower priorities.** A victim's priority is strictly below the
  preemptor's (``isPreemptionAllowed``); every victim runs on the node the
  preemptor is nominated to, and there are victims only when there is a
  nomination.
* **It works.** Once the victims are gone, the preemptor fits its
  nominated node; when nothing else changes, the next attempt binds it
  there (``evaluateNominatedNode``), and no node is over-committed.
* **Nothing lost or doubled.** Every pod that was not a victim is still
  there, on the node it was on; the victims, and only they, are gone; the
  preemptor is bound at most once.

Each example builds a cluster on the fake API server (nodes of 1, 2 or 4
CPUs, bound pods of random priority and size, graceful or immediate
deletion), runs the default profile with a seed Hypothesis picks, adds one
preemptor, plays the kubelet that ends terminating pods, and lets time
pass once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer, NotFound
from framework.clock import FakeClock
from framework.objects import Event, Node, ObjectMeta, Pod, PriorityClass
from framework.objects.resources import pod_requests
from framework.scheduler.scheduler import Scheduler

PRIORITIES = (0, 10, 100, 1000)


@dataclass(frozen=True)
class Existing:
    name: str
    milli_cpu: int
    priority: int
    node: str
    grace: int


@dataclass(frozen=True)
class Scenario:
    capacities: dict[str, int]  # node -> milli-CPU
    pods: tuple[Existing, ...]
    preemptor_cpu: int
    preemptor_priority: int
    seed: int


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """Nodes mostly full of lower-priority pods, so that preemption is often worth trying."""
    capacities = {
        f"n{i}": draw(st.sampled_from([2000, 1000, 4000])) for i in range(draw(st.integers(1, 4)))
    }
    pods = []
    for node, capacity in capacities.items():
        used, slack = 0, draw(st.sampled_from([0, 250, 500, capacity]))
        while used < capacity - slack:
            cpu = min(draw(st.sampled_from([250, 500, 1000])), capacity - used)
            used += cpu
            pods.append(
                Existing(
                    f"p{len(pods)}",
                    cpu,
                    draw(st.sampled_from(PRIORITIES[:3])),
                    node,
                    draw(st.sampled_from([0, 30])),
                )
            )
    return Scenario(
        capacities,
        tuple(pods),
        # Hypothesis starts from the first value of each list: a high, mid-sized preemptor.
        draw(st.sampled_from([1000, 500, 2000, 4000])),
        draw(st.sampled_from([1000, 100, 10, 0])),
        draw(st.integers(0, 7)),
    )


def _pod(name: str, milli_cpu: int, priority: int, node: str = "", grace: int = 0) -> Pod:
    spec: dict[str, object] = {
        "containers": [
            {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": f"{milli_cpu}m"}}}
        ],
        "terminationGracePeriodSeconds": grace,
    }
    if priority:
        spec["priorityClassName"] = f"p{priority}"
    if node:
        spec["nodeName"] = node
    return Pod.from_dict({"metadata": {"name": name}, "spec": spec})


@dataclass
class Outcome:
    scenario: Scenario
    victims: list[str]
    nominated: str
    preempted_on: set[str] = field(default_factory=set)
    bound_to: str = ""
    remaining: dict[str, str] = field(default_factory=dict)  # pod -> node
    scheduled_events: int = 0
    overcommitted: list[str] = field(default_factory=list)


def run(scenario: Scenario) -> Outcome:
    clock = FakeClock()
    api = APIServer(clock)
    for value in PRIORITIES[1:]:
        api.create(PriorityClass(metadata=ObjectMeta(name=f"p{value}"), value=value))
    for name, cpu in scenario.capacities.items():
        allocatable = {"cpu": f"{cpu}m", "memory": "8Gi", "pods": "110"}
        api.create(
            Node.from_dict({"metadata": {"name": name}, "status": {"allocatable": allocatable}})
        )
    for p in scenario.pods:
        api.create(_pod(p.name, p.milli_cpu, p.priority, p.node, p.grace))
    scheduler = Scheduler(api, clock=clock, seed=scenario.seed)
    try:
        scheduler.schedule_pending()
        api.create(_pod("vip", scenario.preemptor_cpu, scenario.preemptor_priority))
        scheduler.schedule_pending()
        preempted = [e for e in api.list(Event).items if e.reason == "Preempted"]
        vip = api.get(Pod, "vip", "default")
        nominated = vip.status.nominated_node_name
        if preempted and not nominated:
            # Victims without a grace period go at once, and the preemptor may already be
            # bound: since v1.35 the binding clears the nomination
            # (ClearingNominatedNodeNameAfterBinding), so the node it was nominated to is
            # the one it is on.
            nominated = vip.spec.node_name
        outcome = Outcome(
            scenario,
            victims=sorted(e.involved_object.name for e in preempted),
            nominated=nominated,
            preempted_on={e.message.rsplit(" ", 1)[-1] for e in preempted},
        )
        # The kubelet ends the terminating victims; then time passes once.
        for p in api.list(Pod).items:
            if p.metadata.deletion_timestamp is not None:
                api.delete(Pod, p.name, p.namespace, grace_period_seconds=0)
        clock.advance(10)
        scheduler.sync()
        scheduler.queue.flush_backoff_q_completed()
        scheduler.schedule_pending()
    finally:
        scheduler.stop()
    try:
        outcome.bound_to = api.get(Pod, "vip", "default").spec.node_name
    except NotFound:
        outcome.bound_to = "<lost>"
    outcome.remaining = {p.name: p.spec.node_name for p in api.list(Pod).items if p.name != "vip"}
    outcome.scheduled_events = sum(
        e.count
        for e in api.list(Event).items
        if e.reason == "Scheduled" and e.involved_object.name == "vip"
    )
    used: dict[str, int] = {}
    for p in api.list(Pod).items:
        if p.spec.node_name:
            used[p.spec.node_name] = used.get(p.spec.node_name, 0) + pod_requests(p).get("cpu", 0)
    outcome.overcommitted = [n for n, cpu in used.items() if cpu > scenario.capacities[n]]
    return outcome


@settings(max_examples=60)
@given(scenarios())
def test_preemption_never_evicts_a_pod_of_equal_or_higher_priority(scenario: Scenario) -> None:
    outcome = run(scenario)
    priority = {p.name: p.priority for p in scenario.pods}
    assert all(priority[v] < scenario.preemptor_priority for v in outcome.victims)
    if outcome.victims:
        node_of = {p.name: p.node for p in scenario.pods}
        assert {node_of[v] for v in outcome.victims} == {outcome.nominated}
        assert outcome.preempted_on == {outcome.nominated}
    else:
        assert outcome.nominated == ""


@settings(max_examples=60)
@given(scenarios())
def test_the_preemptor_fits_its_nominated_node_and_lands_there(scenario: Scenario) -> None:
    outcome = run(scenario)
    if outcome.nominated:
        # The victims freed enough room: the next attempt, with nothing else changed, binds it.
        node_of = {p.name: p.node for p in scenario.pods}
        left = sum(
            p.milli_cpu
            for p in scenario.pods
            if p.node == outcome.nominated and p.name not in outcome.victims
        )
        assert left + scenario.preemptor_cpu <= scenario.capacities[outcome.nominated]
        assert outcome.bound_to == outcome.nominated
        assert all(node_of[v] == outcome.nominated for v in outcome.victims)
    assert outcome.overcommitted == []


@settings(max_examples=60)
@given(scenarios())
def test_no_pod_is_lost_or_duplicated(scenario: Scenario) -> None:
    outcome = run(scenario)
    expected = {p.name: p.node for p in scenario.pods if p.name not in outcome.victims}
    assert outcome.remaining == expected
    assert outcome.bound_to != "<lost>"
    assert outcome.scheduled_events == (1 if outcome.bound_to else 0)
    if not outcome.bound_to:
        assert outcome.victims == []  # nothing was evicted for a pod that still waits
