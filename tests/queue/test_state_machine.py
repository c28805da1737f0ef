"""The scheduling queue against a small model, under both QueueSort plugins (hypothesis stateful).

Hypothesis writes random programs of the operations the scheduler and its
event handlers perform — add (some pods gated), update a pod's labels,
remove a pod's gates, delete, pop, fail an attempt (rejected by one or more
plugins, ``Pending``, or an error), succeed, fire cluster events (node added,
node labels changed), activate, advance the fake clock, run either flush —
and runs each program on a :class:`~framework.queue.PriorityQueue` and on a
plain model of where every pod must be. After **every** step it checks:

* **the order**: every pop returns a pod whose sort key is the smallest
  among the pods in activeQ, and activeQ as a whole is in key order. The
  key is (−priority, timestamp) for PrioritySort and
  (−priority, QoS rank, timestamp) for QOSSort — priority, then QoS, then
  first come: the headline property of QOSSort;
* **nothing lost, nothing duplicated**: each pod the model knows is in
  exactly one of activeQ, backoffQ, the unschedulable pods or in flight, the
  one the model says, and a deleted or bound pod is in none;
* **backoff**: each pod in backoffQ expires at exactly
  ``timestamp + min(1 s × 2^(attempts−1), 10 s)``, and attempts and
  timestamps agree with the model;
* **gates**: a gated pod sits among the unschedulable pods with
  ``SchedulingGates`` as its gating plugin and is never popped.

Size: each machine runs 200 programs of up to 50 steps (up to 10,000 steps
per QueueSort plugin) on every test run, in about three seconds each;
``SETTINGS`` below. Hypothesis's example database replays earlier failures
first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from framework.clock import FakeClock
from framework.cluster_event import NODE_ADD
from framework.objects import Node, ObjectMeta, Pod
from framework.plugins.qos import QOSSort
from framework.plugins.queuesort import PrioritySort
from framework.queue import ACTIVE_Q, BACKOFF_Q, IN_FLIGHT, UNSCHEDULABLE_PODS, PriorityQueue
from framework.types import QueuedPodInfo
from tests.queue.helpers import (
    BEST_EFFORT,
    BURSTABLE,
    GUARANTEED,
    NODE_LABEL_UPDATE,
    new_queue,
    pod,
)

INITIAL_BACKOFF, MAX_BACKOFF, MAX_UNSCHEDULABLE = 1.0, 10.0, 300.0
QOS_RESOURCES = {"Guaranteed": GUARANTEED, "Burstable": BURSTABLE, "BestEffort": BEST_EFFORT}
QOS_RANK = {"Guaranteed": 0, "Burstable": 1, "BestEffort": 2}
REJECTORS = ("NodeFit", "NodeLabels", "OwnLabels", "Anything")
GATES = "SchedulingGates"
SKIP, AFTER_BACKOFF, IMMEDIATELY = 0, 1, 2
MAX_PODS = 10

Event = tuple[Any, ...]  # ("node_add",), ("node_label", ready), ("own_label", name), ...


@dataclass
class ModelPod:
    """All the model knows of one pod."""

    name: str
    priority: int
    qos: str
    gated: bool
    where: str
    timestamp: float
    attempts: int = 0
    version: int = 0
    rejectors: set[str] = field(default_factory=set)
    pending: set[str] = field(default_factory=set)
    events: list[Event] = field(default_factory=list)  # seen while in flight
    deleted: bool = False  # deleted while in flight; gone at its done

    def manifest(self) -> Pod:
        return pod(
            self.name,
            priority=self.priority,
            resources=QOS_RESOURCES[self.qos],
            gates=("quota",) if self.gated else (),
            labels={"v": str(self.version)},
        )


def helps(plugin: str, event: Event, m: ModelPod) -> bool:
    """Whether ``plugin``'s registrations and hint say QUEUE for this event (see helpers.py)."""
    kind = event[0]
    if plugin == "Anything":  # registered for every resource and action
        return kind in ("node_add", "node_label", "own_label")
    if plugin == "NodeFit":
        return kind == "node_add"
    if plugin == "NodeLabels":
        return kind == "node_label" and event[1]
    if plugin == "OwnLabels":
        return kind == "own_label" and event[1] == m.name
    if plugin == GATES:
        return kind == "gates_removed" and event[1] == m.name
    raise AssertionError(plugin)


def worth(m: ModelPod, event: Event) -> int:
    """isPodWorthRequeuing, told plainly."""
    rejectors = m.rejectors | m.pending
    if not rejectors:
        return AFTER_BACKOFF
    if event[0] == "timeout":
        return AFTER_BACKOFF
    if event[0] == "force_activate":
        return AFTER_BACKOFF if event[1] == m.name else SKIP
    helping = {p for p in rejectors if helps(p, event, m)}
    if helping & m.pending:
        return IMMEDIATELY
    return AFTER_BACKOFF if helping else SKIP


def backoff(attempts: int) -> float:
    return 0.0 if attempts == 0 else min(INITIAL_BACKOFF * 2 ** (attempts - 1), MAX_BACKOFF)


class QueueMachine(RuleBasedStateMachine):
    """One queue, one model, the same program. Subclasses choose the QueueSort plugin."""

    less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]

    def sort_key(self, m: ModelPod) -> tuple[float, ...]:
        raise NotImplementedError

    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock(start=0)
        self.queue: PriorityQueue = new_queue(
            self.clock,
            type(self).less,
            pod_initial_backoff_seconds=INITIAL_BACKOFF,
            pod_max_backoff_seconds=MAX_BACKOFF,
            pod_max_in_unschedulable_pods_duration=MAX_UNSCHEDULABLE,
        )
        self.model: dict[str, ModelPod] = {}
        self.popped: dict[str, QueuedPodInfo] = {}
        self.added = 0

    # --- helpers ---------------------------------------------------------------------------

    def now(self) -> float:
        return self.clock.now()

    def pods_in(self, *places: str) -> list[str]:
        return sorted(n for n, m in self.model.items() if m.where in places and not m.deleted)

    def requeue(self, m: ModelPod, strategy: int) -> None:
        if strategy == SKIP:
            m.where = UNSCHEDULABLE_PODS
        elif strategy == AFTER_BACKOFF and m.timestamp + backoff(m.attempts) > self.now():
            m.where = BACKOFF_Q
        else:
            m.where = UNSCHEDULABLE_PODS if m.gated else ACTIVE_Q

    def cluster_event(self, event: Event) -> None:
        """The model's MoveAllToActiveOrBackoffQueue, and the log for pods in flight."""
        for name in self.pods_in(UNSCHEDULABLE_PODS):
            m = self.model[name]
            if m.gated:
                continue  # SchedulingGates registered no cluster event
            strategy = worth(m, event)
            if strategy != SKIP:
                self.requeue(m, strategy)
        self.log_for_flights(event)

    def log_for_flights(self, event: Event) -> None:
        for m in self.model.values():
            if m.where == IN_FLIGHT:
                m.events.append(event)

    # --- the rules -------------------------------------------------------------------------

    @precondition(lambda self: self.added < MAX_PODS)
    @rule(
        priority=st.sampled_from([0, 0, 100]),
        qos=st.sampled_from(list(QOS_RESOURCES)),
        gated=st.booleans(),
    )
    def add(self, priority: int, qos: str, gated: bool) -> None:
        name = f"p{self.added}"
        self.added += 1
        where = UNSCHEDULABLE_PODS if gated else ACTIVE_Q
        m = ModelPod(name, priority, qos, gated, where, self.now())
        if gated:
            m.rejectors = {GATES}
        self.model[name] = m
        self.queue.add(m.manifest())

    @precondition(lambda self: self.pods_in(ACTIVE_Q))
    @rule()
    def pop(self) -> None:
        smallest = min(self.sort_key(self.model[n]) for n in self.pods_in(ACTIVE_Q))
        popped = self.queue.pop(timeout=0)
        assert popped is not None, "activeQ holds pods but pop returned none"
        m = self.model[popped.pod.name]
        assert m.where == ACTIVE_Q and not m.gated, f"popped {m.name} from {m.where}"
        assert self.sort_key(m) == smallest, f"popped {m.name} {self.sort_key(m)} > {smallest}"
        m.where, m.attempts, m.events = IN_FLIGHT, m.attempts + 1, []
        m.rejectors, m.pending = set(), set()
        self.popped[m.name] = popped

    @precondition(lambda self: self.in_flight())
    @rule(
        data=st.data(),
        rejectors=st.sets(st.sampled_from(REJECTORS), max_size=2),
        pending=st.booleans(),
    )
    def fail(self, data: st.DataObject, rejectors: set[str], pending: bool) -> None:
        m = self.model[data.draw(st.sampled_from(self.in_flight()))]
        popped = self.popped.pop(m.name)
        if m.deleted:  # the scheduler finds the pod gone: Done, no requeue
            self.queue.done(popped.pod.metadata.uid)
            del self.model[m.name]
            return
        m.pending = {"NodeLabels"} if pending else set()
        m.rejectors = rejectors - m.pending
        popped.unschedulable_plugins.update(m.rejectors)
        popped.pending_plugins.update(m.pending)
        self.queue.add_unschedulable_if_not_present(popped, self.queue.scheduling_cycle())
        m.timestamp = self.now()
        if not m.rejectors and not m.pending:
            strategy = AFTER_BACKOFF
        else:
            strategy = max((worth(m, e) for e in m.events), default=SKIP)
        self.requeue(m, strategy)

    @precondition(lambda self: self.in_flight())
    @rule(data=st.data())
    def succeed(self, data: st.DataObject) -> None:
        m = self.model.pop(data.draw(st.sampled_from(self.in_flight())))
        self.queue.done(self.popped.pop(m.name).pod.metadata.uid)

    @rule()
    def node_added(self) -> None:
        self.queue.move_all_to_active_or_backoff_queue(
            NODE_ADD, None, Node(metadata=ObjectMeta(name="n"))
        )
        self.cluster_event(("node_add",))

    @rule(ready=st.booleans())
    def node_labels_changed(self, ready: bool) -> None:
        old = Node(metadata=ObjectMeta(name="n", labels={"ready": "no"}))
        new = old.with_metadata(labels={"ready": "yes" if ready else "no"})
        self.queue.move_all_to_active_or_backoff_queue(NODE_LABEL_UPDATE, old, new)
        self.cluster_event(("node_label", ready))

    @precondition(lambda self: self.known())
    @rule(data=st.data())
    def update_labels(self, data: st.DataObject) -> None:
        m = self.model[data.draw(st.sampled_from(self.known()))]
        old = m.manifest()
        m.version += 1
        self.queue.update(old, m.manifest())
        event = ("own_label", m.name)
        if m.where == IN_FLIGHT:
            # One log for all flights: every pod in flight sees this pod's update.
            self.log_for_flights(event)
        elif m.where == UNSCHEDULABLE_PODS:
            self.requeue(m, worth(m, event))

    @precondition(lambda self: [n for n in self.known() if self.model[n].gated])
    @rule(data=st.data())
    def remove_gates(self, data: st.DataObject) -> None:
        m = self.model[
            data.draw(st.sampled_from([n for n in self.known() if self.model[n].gated]))
        ]
        old = m.manifest()
        m.gated = False
        self.queue.update(old, m.manifest())
        self.requeue(m, worth(m, ("gates_removed", m.name)))

    @precondition(lambda self: self.known())
    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        m = self.model[data.draw(st.sampled_from(self.known()))]
        self.queue.delete(m.manifest())
        if m.where == IN_FLIGHT:
            m.deleted = True
        else:
            del self.model[m.name]

    @precondition(lambda self: self.known())
    @rule(data=st.data())
    def activate(self, data: st.DataObject) -> None:
        m = self.model[data.draw(st.sampled_from(self.known()))]
        self.queue.activate([m.manifest()])
        if m.where == IN_FLIGHT:
            self.log_for_flights(("force_activate", m.name))
        elif m.where in (UNSCHEDULABLE_PODS, BACKOFF_Q) and not m.gated:
            m.where = ACTIVE_Q

    @rule(seconds=st.sampled_from([0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 30.0, 301.0]))
    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)

    @rule()
    def flush_backoff(self) -> None:
        self.queue.flush_backoff_q_completed()
        for name in self.pods_in(BACKOFF_Q):
            m = self.model[name]
            if m.timestamp + backoff(m.attempts) <= self.now():
                m.where = ACTIVE_Q

    @rule()
    def flush_leftover(self) -> None:
        self.queue.flush_unschedulable_pods_leftover()
        leftovers = [
            self.model[n]
            for n in self.pods_in(UNSCHEDULABLE_PODS)
            if self.now() - self.model[n].timestamp > MAX_UNSCHEDULABLE
        ]
        for m in leftovers:
            if not m.gated:
                self.requeue(m, worth(m, ("timeout",)))
        if leftovers:
            self.log_for_flights(("timeout",))

    def in_flight(self) -> list[str]:
        return sorted(n for n, m in self.model.items() if m.where == IN_FLIGHT)

    def known(self) -> list[str]:
        return sorted(n for n, m in self.model.items() if not m.deleted)

    # --- the invariants --------------------------------------------------------------------

    @invariant()
    def every_pod_is_in_exactly_the_place_the_model_says(self) -> None:
        seen: dict[str, str] = {}
        for place, pods in self.queue.pending_pods_by_queue().items():
            for p in pods:
                assert p.pod.name not in seen, f"{p.pod.name} in {seen[p.pod.name]} and {place}"
                seen[p.pod.name] = place
        assert seen == {n: m.where for n, m in self.model.items()}

    @invariant()
    def attempts_timestamps_and_backoff_expiries_are_exact(self) -> None:
        for pods in self.queue.pending_pods_by_queue().values():
            for p in pods:
                m = self.model[p.pod.name]
                assert (p.attempts, p.timestamp) == (m.attempts, m.timestamp), m.name
                assert p.backoff_expiry == m.timestamp + backoff(m.attempts), m.name

    @invariant()
    def gated_pods_wait_at_the_gate(self) -> None:
        for p in self.queue.pending_pods_by_queue()[UNSCHEDULABLE_PODS]:
            assert (p.gating_plugin == GATES) == self.model[p.pod.name].gated, p.pod.name

    @invariant()
    def active_q_is_in_sort_order(self) -> None:
        keys = [self.sort_key(self.model[p.pod.name]) for p in self.pending_active()]
        assert keys == sorted(keys)

    def pending_active(self) -> list[Any]:
        return self.queue.pending_pods_by_queue()[ACTIVE_Q]


class PrioritySortMachine(QueueMachine):
    less = PrioritySort().less

    def sort_key(self, m: ModelPod) -> tuple[float, ...]:
        return (-m.priority, m.timestamp)


class QOSSortMachine(QueueMachine):
    less = QOSSort().less

    def sort_key(self, m: ModelPod) -> tuple[float, ...]:
        return (-m.priority, QOS_RANK[m.qos], m.timestamp)


SETTINGS = settings(max_examples=200, stateful_step_count=50, deadline=None)
PrioritySortMachine.TestCase.settings = SETTINGS
QOSSortMachine.TestCase.settings = SETTINGS
TestQueueWithPrioritySort = PrioritySortMachine.TestCase
TestQueueWithQOSSort = QOSSortMachine.TestCase
