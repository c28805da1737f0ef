"""A plugin that raises, errs, returns nonsense or hangs costs one pod one attempt, and nothing more.

The rules, from ``kubernetes/kubernetes`` v1.33:

* ``pkg/scheduler/framework/runtime/framework.go`` (``RunPreFilterPlugins``,
  ``RunFilterPlugins``, ``RunScorePlugins``, ``RunReservePluginsReserve``,
  ``RunPermitPlugins``, ``RunPreBindPlugins``, ``RunBindPlugins``): a
  status that is neither success nor a rejection aborts the run with an
  error that names the plugin (``running "X" filter plugin: ...``); a
  normalised score outside [0, 100] is ``plugin "X" returns an invalid
  score N, it should in the range of [0, 100] after normalizing``;
  ``RunPostFilterPlugins`` turns an error into the pod's PostFilter
  message, and the attempt stays a FitError (reason ``Unschedulable``);
  Unreserve and PostBind return nothing, so nothing they do fails a pod.
* ``pkg/scheduler/schedule_one.go`` (``handleSchedulingFailure``): the pod
  gets a ``FailedScheduling`` event and ``PodScheduled=False`` with reason
  ``SchedulerError``, and goes back to the queue; a pod that failed with an
  error (no plugin rejected it) waits out its backoff in backoffQ
  (``pkg/scheduler/backend/queue/scheduling_queue.go``,
  ``AddUnschedulableIfNotPresent``).
* ``pkg/scheduler/backend/queue/scheduling_queue.go`` (``runPreEnqueuePlugins``):
  a PreEnqueue that fails keeps the pod out of activeQ, gated, with no
  event: no attempt was made.
* Go's types: a plugin cannot return anything but a ``*Status`` (or an
  ``int64`` score); a Python one can, and it is an error naming the plugin.
* Hangs: kube-scheduler sets no deadline on a plugin. A hung scheduling-cycle
  plugin holds the whole loop; a hung binding-cycle plugin holds only its
  pod, which stays assumed on its node. The opt-in deadline of
  :mod:`framework.testing.deadline` is this project's, and turns a hang into
  an error of that one attempt.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from framework.objects import Pod
from framework.queue.scheduling_queue import BACKOFF_Q, UNSCHEDULABLE_PODS
from framework.scheduler.scheduler import Scheduler
from framework.testing.deadline import with_deadlines
from framework.testing.faults import Fault, FaultPlan, Rule
from framework.testing.steps import StepLog
from tests.reliability.helpers import EVERYWHERE, World, node, pod, registry
from tests.scheduler.helpers import HANG_GUARD, Observed

P1 = "default/p1"

#: What kube-scheduler's runner says around a plugin's error, per extension point.
WRAPPER = {
    "PreFilter": 'running PreFilter plugin "{plugin}"',
    "Filter": 'running "{plugin}" filter plugin',
    "PreScore": 'running PreScore plugin "{plugin}"',
    "Score": 'running Score plugins: plugin "{plugin}" failed with',
    "NormalizeScore": 'running Normalize on Score plugins: plugin "{plugin}" failed with',
    "Reserve": 'running Reserve plugin "{plugin}"',
    "Permit": 'running Permit plugin "{plugin}"',
    "PreBind": 'running PreBind plugin "{plugin}"',
    "Bind": 'running Bind plugin "{plugin}"',
}

#: What the error itself says, per fault.
SAYS = {
    Fault.RAISE: 'plugin "{plugin}" raised InjectedFault: injected fault',
    Fault.ERROR: "injected fault: {plugin} returns Error at {site}",
    Fault.UNKNOWN_CODE: 'plugin "{plugin}" returned a status with unknown code 42',
    Fault.WRONG_TYPE: 'plugin "{plugin}" returned str',
}

ERROR_FAULTS = [
    (site, fault)
    for site in WRAPPER
    for fault in (Fault.RAISE, Fault.ERROR, Fault.UNKNOWN_CODE, Fault.WRONG_TYPE)
]


def plugin_at(site: str) -> str:
    # The default profile has no Bind plugin but DefaultBinder; Everywhere sits everywhere else.
    return "DefaultBinder" if site == "Bind" else EVERYWHERE


def world(site: str, fault: Fault, pods: tuple[str, ...] = (P1,)) -> World:
    plan = FaultPlan(
        [Rule(site, fault, subjects=frozenset({plugin_at(site)}), pods=frozenset(pods), limit=1)]
    )
    # Three nodes: two or more feasible nodes, or Score would not run at all.
    return World([node("a"), node("b"), node("c"), pod("p0"), pod("p1"), pod("p2")], plan)


@pytest.mark.parametrize(
    ("site", "fault"), ERROR_FAULTS, ids=[f"{s} {f.value}" for s, f in ERROR_FAULTS]
)
def test_a_failing_plugin_fails_one_attempt_of_one_pod(site: str, fault: Fault) -> None:
    w = world(site, fault)
    w.scheduler.schedule_pending()
    plugin = plugin_at(site)

    # The scheduler went on: the other pods are bound.
    assert w.node_of("p0") and w.node_of("p2")
    # The pod's attempt failed, with the reason recorded where kube-scheduler records it.
    assert not w.node_of("p1")
    reason, message = w.condition("p1")
    assert reason == "SchedulerError"
    assert WRAPPER[site].format(plugin=plugin) in message
    assert SAYS[fault].format(plugin=plugin, site=site) in message
    assert w.events("p1") == [message]
    # Back in the queue, backing off (1 s for a first failure: podInitialBackoffSeconds).
    assert w.queue_of("p1") == BACKOFF_Q
    assert w.backoff_left("p1") == pytest.approx(1.0)
    assert w.plan is not None and sum(w.plan.counts().values()) == 1

    # The fault was one-off: once the backoff is over, the next attempt binds it.
    w.retry(seconds=1)
    assert w.node_of("p1")
    w.scheduler.stop()


SCORE_FAULTS = [
    (
        "Score",
        Fault.SCORE_OUT_OF_RANGE,
        'applying score defaultWeights on Score plugins: plugin "Everywhere" returns an invalid '
        "score 101, it should in the range of [0, 100] after normalizing",
    ),
    (
        "NormalizeScore",
        Fault.SCORE_OUT_OF_RANGE,
        'applying score defaultWeights on Score plugins: plugin "Everywhere" returns an invalid '
        "score 101, it should in the range of [0, 100] after normalizing",
    ),
    (
        "NormalizeScore",
        Fault.SCORE_WRONG_LENGTH,
        'running Normalize on Score plugins: plugin "Everywhere" failed with: plugin '
        '"Everywhere" NormalizeScore left 4 scores for 3 nodes',
    ),
]


@pytest.mark.parametrize(
    ("site", "fault", "message"),
    SCORE_FAULTS,
    ids=["raw score out of range", "normalised score out of range", "score list too long"],
)
def test_a_malformed_score_fails_one_attempt_with_kubes_message(
    site: str, fault: Fault, message: str
) -> None:
    w = world(site, fault)
    w.scheduler.schedule_pending()
    assert w.node_of("p0") and w.node_of("p2") and not w.node_of("p1")
    assert w.condition("p1") == ("SchedulerError", message)
    assert w.queue_of("p1") == BACKOFF_Q
    w.retry(seconds=1)
    assert w.node_of("p1")


def test_a_score_renamed_to_a_node_nobody_asked_about_is_ignored_as_in_go() -> None:
    # RunScorePlugins reads the i-th score as the i-th node's and never looks at its name.
    faulty = world(
        "NormalizeScore", Fault.SCORE_UNKNOWN_NODE, pods=(P1, "default/p0", "default/p2")
    )
    plain = World([node("a"), node("b"), node("c"), pod("p0"), pod("p1"), pod("p2")])
    faulty.scheduler.schedule_pending()
    plain.scheduler.schedule_pending()
    assert faulty.plan is not None and faulty.plan.counts()
    for name in ("p0", "p1", "p2"):
        assert faulty.node_of(name) == plain.node_of(name)
        assert faulty.condition(name) == ("", "")


@pytest.mark.parametrize("fault", [Fault.RAISE, Fault.ERROR], ids=["raises", "returns Error"])
@pytest.mark.parametrize("plugin", ["DefaultPreemption", EVERYWHERE])
def test_a_failing_post_filter_becomes_the_pods_post_filter_message(
    plugin: str, fault: Fault
) -> None:
    plan = FaultPlan([Rule("PostFilter", fault, subjects=frozenset({plugin}))])
    w = World([node("a"), node("b"), pod("big", cpu="9"), pod("small")], plan)
    w.scheduler.schedule_pending()
    reason, message = w.condition("big")
    # Still a FitError: the nodes' reasons first, then what PostFilter said.
    assert reason == "Unschedulable"
    assert message.startswith("0/2 nodes are available: 2 Insufficient cpu. ")
    assert f"injected fault: {plugin} " in message
    assert w.queue_of("big") == UNSCHEDULABLE_PODS
    assert w.node_of("small")


def test_an_unreserve_that_raises_is_ignored_and_the_others_still_run() -> None:
    # Reserve fails for p1; every Unreserve then runs, and Everywhere's raises.
    plan = FaultPlan(
        [
            Rule("Reserve", Fault.ERROR, subjects=frozenset({EVERYWHERE}), pods=frozenset({P1})),
            Rule("Unreserve", Fault.RAISE, subjects=frozenset({EVERYWHERE})),
        ]
    )
    w = World([node("a"), pod("p0"), pod("p1")], plan)
    w.scheduler.schedule_pending()
    assert plan.counts() == {"Reserve: returns Error": 1, "Unreserve: raises": 1}
    assert w.node_of("p0") and not w.node_of("p1")
    assert w.condition("p1")[0] == "SchedulerError"
    # The room p1 was assumed on is free again: Unreserve's exception did not stop the forget.
    dump = w.scheduler.cache.dump()
    assert not dump.assumed_pods
    assert [p.pod.name for p in dump.nodes["a"].pods] == ["p0"]


def test_a_post_bind_that_raises_changes_nothing() -> None:
    plan = FaultPlan([Rule("PostBind", Fault.RAISE)])
    w = World([node("a"), pod("p0"), pod("p1")], plan)
    w.scheduler.schedule_pending()
    assert plan.counts() == {"PostBind: raises": 2}
    assert w.node_of("p0") and w.node_of("p1")
    assert w.events("p0", "Scheduled") and not w.events("p0")


@pytest.mark.parametrize("fault", [Fault.RAISE, Fault.ERROR, Fault.WRONG_TYPE, Fault.UNKNOWN_CODE])
def test_a_failing_pre_enqueue_gates_the_pod_without_an_attempt(fault: Fault) -> None:
    plan = FaultPlan(
        [
            Rule(
                "PreEnqueue",
                fault,
                subjects=frozenset({EVERYWHERE}),
                pods=frozenset({P1}),
                limit=1,
            )
        ]
    )
    w = World([node("a"), pod("p0"), pod("p1")], plan)
    w.scheduler.schedule_pending()
    assert w.node_of("p0") and not w.node_of("p1")
    gated = [
        p
        for p in w.scheduler.queue.pending_pods_by_queue()[UNSCHEDULABLE_PODS]
        if p.pod.name == "p1"
    ]
    assert [p.gating_plugin for p in gated] == [EVERYWHERE]
    assert w.events("p1") == [] and w.condition("p1") == ("", "")  # no attempt was made
    # A gated pod waits for an event its gating plugin registered (Everywhere registers
    # none, so every Pod and Node event counts: allClusterEvents in
    # pkg/scheduler/framework/runtime/framework.go); the five-minute flush does not move it.
    w.retry(seconds=301)
    assert not w.node_of("p1")
    w.store.create(node("b"))
    w.scheduler.schedule_pending()
    assert w.node_of("p1")


# --- hangs ----------------------------------------------------------------------------------------


@pytest.fixture
def run_in_thread() -> Iterator[list[threading.Thread]]:
    threads: list[threading.Thread] = []
    yield threads
    for thread in threads:
        thread.join(HANG_GUARD)
        assert not thread.is_alive(), f"{thread.name} is still running"


def start(threads: list[threading.Thread], target: object, name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)  # type: ignore[arg-type]
    thread.start()
    threads.append(thread)
    return thread


SCHEDULING_CYCLE_POINTS = ["PreFilter", "Filter", "PreScore", "Score", "Reserve", "Permit"]


@pytest.mark.parametrize("site", SCHEDULING_CYCLE_POINTS)
def test_a_hung_scheduling_cycle_plugin_holds_the_whole_loop_as_in_kubernetes(
    site: str, run_in_thread: list[threading.Thread]
) -> None:
    plan = FaultPlan(
        [
            Rule(
                site,
                Fault.HANG,
                subjects=frozenset({EVERYWHERE}),
                pods=frozenset({"default/p0"}),
                limit=1,  # Filter and Score run once per node: hang the first call only
            )
        ]
    )
    w = World([node("a"), node("b"), node("c"), pod("p0"), pod("p1")], plan)
    seen = Observed()
    w.scheduler.add_tracer(StepLog(seen))
    loop = start(run_in_thread, w.scheduler.schedule_pending, "loop")
    (hang,) = plan.wait_for_hangs(1)
    assert hang.injection.pod == "default/p0"
    # No deadline: the loop waits, and no other pod's cycle starts meanwhile.
    assert seen.names("SchedulingCycleStart") == ["p0"]
    assert loop.is_alive()
    plan.release(hang)
    loop.join(HANG_GUARD)
    assert not loop.is_alive()
    # Once released, the call went on as if nothing happened.
    assert w.node_of("p0") and w.node_of("p1")
    assert seen.names("SchedulingCycleStart") == ["p0", "p1"]
    w.scheduler.stop()


BINDING_CYCLE_POINTS = [
    ("PreBind", EVERYWHERE),
    ("Bind", "DefaultBinder"),
    ("PostBind", EVERYWHERE),
]


@pytest.mark.parametrize(
    ("site", "plugin"), BINDING_CYCLE_POINTS, ids=[s for s, _ in BINDING_CYCLE_POINTS]
)
def test_a_hung_binding_cycle_plugin_holds_only_its_pod(site: str, plugin: str) -> None:
    plan = FaultPlan(
        [Rule(site, Fault.HANG, subjects=frozenset({plugin}), pods=frozenset({"default/p0"}))]
    )
    w = World([node("a", cpu="2"), pod("p0"), pod("p1"), pod("p2")], plan)
    seen = Observed()
    w.scheduler.add_tracer(StepLog(seen))
    scheduling = w.scheduler.scheduling
    w.scheduler.sync()
    for _ in range(3):
        assert scheduling.schedule_one(timeout=0)
    (hang,) = plan.wait_for_hangs(1)
    seen.wait_until(lambda o: bool({"p1", "p2"} & set(o.names("Bound"))), "p1 or p2 is bound")
    w.scheduler.sync()
    # p0 holds its room while it hangs: one more pod fits beside it, the third does not.
    (bound,) = seen.names("Bound")
    other = "p2" if bound == "p1" else "p1"
    assert w.node_of(bound) == "a" and not w.node_of(other)
    assert w.condition(other)[0] == "Unschedulable"
    if site == "PostBind":
        assert w.node_of("p0") == "a"  # PostBind runs after the binding
    else:
        assert not w.node_of("p0")
        assert w.scheduler.cache.is_assumed_pod(w.store.get(Pod, "p0"))
    plan.release(hang)
    scheduling.wait_for_bindings()
    w.scheduler.sync()
    assert w.node_of("p0") == "a"
    w.scheduler.stop()


DEADLINE_POINTS = [
    ("PreFilter", EVERYWHERE),
    ("Filter", EVERYWHERE),
    ("Score", EVERYWHERE),
    ("Reserve", EVERYWHERE),
    ("Permit", EVERYWHERE),
    ("PreBind", EVERYWHERE),
    ("Bind", "DefaultBinder"),
]


@pytest.mark.parametrize(("site", "plugin"), DEADLINE_POINTS, ids=[s for s, _ in DEADLINE_POINTS])
def test_with_the_opt_in_deadline_a_hung_plugin_fails_only_its_attempt(
    site: str, plugin: str, run_in_thread: list[threading.Thread]
) -> None:
    plan = FaultPlan(
        [
            Rule(
                site,
                Fault.HANG,
                subjects=frozenset({plugin}),
                pods=frozenset({"default/p0"}),
                limit=1,
            )
        ]
    )
    # This project's deadline, not kube-scheduler's: 30 s of the fake clock per call.
    bounded = with_deadlines(registry(plan), 30)
    w = World([node("a"), node("b"), node("c"), pod("p0"), pod("p1")], registry_override=bounded)
    assert isinstance(w.scheduler, Scheduler)
    loop = start(run_in_thread, w.scheduler.schedule_pending, "loop")
    (hang,) = plan.wait_for_hangs(1)
    w.clock.block_until_waiters(1)  # the caller waits on the clock for the deadline
    w.clock.advance(30)
    loop.join(HANG_GUARD)
    assert not loop.is_alive(), "the deadline did not free the loop"

    reason, message = w.condition("p0")
    assert reason == "SchedulerError"
    assert f'plugin "{plugin}" did not return from {site} within 30s' in message
    assert "kube-scheduler has none" in message
    assert w.node_of("p1")  # the scheduler went on
    assert w.queue_of("p0") == BACKOFF_Q
    # The abandoned call finishes in the background; what it returns is ignored.
    plan.release(hang)
    w.retry(seconds=1)
    assert w.node_of("p0")
    w.scheduler.stop()
