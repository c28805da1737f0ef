"""The scheduling queue, rule by rule, with exact times: a pod's journey from add to done.

Every test drives a :class:`~framework.clock.FakeClock` that starts at 0, so
timestamps and backoff expiries are the numbers written here. Nothing
sleeps; the tests that need a blocked ``pop`` run it on a thread and join it.
"""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.clock import FakeClock
from framework.cluster_event import (
    NODE_ADD,
    UNSCHEDULED_POD_UPDATE,
    ActionType,
    ClusterEvent,
    EventResource,
)
from framework.objects import Node, ObjectMeta
from framework.plugins.queuesort import PrioritySort
from framework.queue import (
    ACTIVE_Q,
    BACKOFF_Q,
    IN_FLIGHT,
    UNSCHEDULABLE_PODS,
    NominatingInfo,
    NominatingMode,
    PodAlreadyQueued,
    PriorityQueue,
)
from framework.queue.hints import is_event_of_interest
from framework.types import PodInfo, QueuedPodInfo
from tests.queue.helpers import NODE_LABEL_UPDATE, fail, new_queue, pod, pop, where

READY_NODE = Node(metadata=ObjectMeta(name="n1", labels={"ready": "yes"}))
NOT_READY_NODE = Node(metadata=ObjectMeta(name="n1", labels={"ready": "no"}))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=0)


@pytest.fixture
def queue(clock: FakeClock) -> PriorityQueue:
    return new_queue(clock)


def snapshot(queue: PriorityQueue, name: str) -> tuple[str, float, int, float]:
    """(queue, timestamp, attempts, backoff expiry) of one pod."""
    for queue_name, pods in queue.pending_pods_by_queue().items():
        for p in pods:
            if p.pod.name == name:
                return queue_name, p.timestamp, p.attempts, p.backoff_expiry
    raise AssertionError(f"{name} is nowhere: {where(queue)}")


# --- added, popped ---------------------------------------------------------------------------


def test_an_added_pod_waits_in_active_q_stamped_with_the_time(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    clock.advance(7)
    queue.add(pod("web"))
    assert snapshot(queue, "web") == (ACTIVE_Q, 7.0, 0, 7.0)
    assert queue.pending_pods()[1] == "activeQ:1; backoffQ:0; unschedulablePods:0"


def test_pop_puts_the_pod_in_flight_and_counts_the_attempt(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("web"))
    clock.advance(2)
    popped = pop(queue)
    assert (popped.pod.name, popped.attempts, popped.initial_attempt_timestamp) == ("web", 1, 0)
    assert queue.scheduling_cycle() == 1
    assert where(queue)[IN_FLIGHT] == ["web"]
    queue.done("web")
    assert where(queue)[IN_FLIGHT] == []


def test_pop_follows_the_queue_sort_order(clock: FakeClock, queue: PriorityQueue) -> None:
    queue.add(pod("low-old", priority=0))
    clock.advance(1)
    queue.add(pod("high", priority=100))
    queue.add(pod("low-new", priority=0))
    assert where(queue)[ACTIVE_Q] == ["high", "low-old", "low-new"]
    assert [pop(queue).pod.name for _ in range(3)] == ["high", "low-old", "low-new"]


def test_pop_blocks_until_a_pod_arrives(queue: PriorityQueue) -> None:
    popped: list[QueuedPodInfo | None] = []
    popper = threading.Thread(target=lambda: popped.append(queue.pop()))
    popper.start()
    queue.add(pod("web"))
    popper.join(timeout=10)
    assert not popper.is_alive()
    assert [p.pod.name for p in popped if p is not None] == ["web"]


def test_close_wakes_a_blocked_pop_with_none(queue: PriorityQueue) -> None:
    popped: list[QueuedPodInfo | None] = [pod_info_placeholder()]
    popper = threading.Thread(target=lambda: popped.__setitem__(0, queue.pop()))
    popper.start()
    queue.close()
    popper.join(timeout=10)
    assert not popper.is_alive() and popped == [None]


def pod_info_placeholder() -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(pod("placeholder")), timestamp=-1)


def test_pop_gives_up_when_its_timeout_passes_on_the_fake_clock(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    popped: list[QueuedPodInfo | None] = [pod_info_placeholder()]
    popper = threading.Thread(target=lambda: popped.__setitem__(0, queue.pop(timeout=5)))
    popper.start()
    clock.block_until_waiters(1)  # the popper waits on the clock
    clock.advance(5)
    popper.join(timeout=10)
    assert not popper.is_alive() and popped == [None]


def test_pop_with_timeout_zero_never_blocks(queue: PriorityQueue) -> None:
    assert queue.pop(timeout=0) is None


def test_a_pod_added_during_a_pop_with_timeout_ends_the_wait(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    popped: list[QueuedPodInfo | None] = []
    popper = threading.Thread(target=lambda: popped.append(queue.pop(timeout=60)))
    popper.start()
    clock.block_until_waiters(1)
    queue.add(pod("web"))
    popper.join(timeout=10)
    assert [p.pod.name for p in popped if p is not None] == ["web"]
    assert clock.now() == 0


# --- failed: rejected or erred ---------------------------------------------------------------


def test_a_rejected_pod_with_no_helpful_event_sleeps_among_the_unschedulable_pods(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    clock.advance(3)
    fail(queue, popped, "NodeFit")
    assert snapshot(queue, "web") == (UNSCHEDULABLE_PODS, 3.0, 1, 4.0)
    assert where(queue)[IN_FLIGHT] == []


def test_an_error_goes_to_backoff_q_whatever_happened(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    clock.advance(3)
    fail(queue, popped)  # no rejecting plugin: an error
    assert snapshot(queue, "web") == (BACKOFF_Q, 3.0, 1, 4.0)


def test_an_event_during_the_flight_sends_the_rejected_pod_to_backoff_not_to_sleep(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, READY_NODE)
    clock.advance(1)
    fail(queue, popped, "NodeFit")
    assert snapshot(queue, "web") == (BACKOFF_Q, 1.0, 1, 2.0)


def test_events_from_before_the_pop_do_not_count(queue: PriorityQueue) -> None:
    queue.add(pod("web"))
    queue.add(pod("other"))
    first = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, READY_NODE)
    second = pop(queue)  # popped after the node was added
    fail(queue, first, "NodeFit")
    fail(queue, second, "NodeFit")
    assert where(queue)[BACKOFF_Q] == [first.pod.name]
    assert where(queue)[UNSCHEDULABLE_PODS] == [second.pod.name]


def test_an_event_only_another_plugin_registered_does_not_help(queue: PriorityQueue) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, READY_NODE)
    fail(queue, popped, "NodeLabels")
    assert where(queue)[UNSCHEDULABLE_PODS] == ["web"]


def test_a_hint_answering_skip_does_not_help(queue: PriorityQueue) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_LABEL_UPDATE, READY_NODE, NOT_READY_NODE)
    fail(queue, popped, "NodeLabels")
    assert where(queue)[UNSCHEDULABLE_PODS] == ["web"]


def test_a_pending_plugin_answering_queue_sends_the_pod_to_active_q_without_backoff(
    queue: PriorityQueue,
) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_LABEL_UPDATE, NOT_READY_NODE, READY_NODE)
    fail(queue, popped, pending=("NodeLabels",))
    assert where(queue)[ACTIVE_Q] == ["web"]


def test_a_failed_pod_goes_behind_equal_pods_that_were_waiting(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("first"))
    clock.advance(1)
    queue.add(pod("second"))
    popped = pop(queue)
    clock.advance(1)
    fail(queue, popped, "NodeFit")
    queue.activate([popped.pod])
    assert where(queue)[ACTIVE_Q] == ["second", "first"]


# --- moved by events and flushes -------------------------------------------------------------


def test_a_cluster_event_moves_a_backing_off_pod_to_backoff_q_and_a_rested_one_to_active_q(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("rested"))
    queue.add(pod("recent"))
    rested, recent = pop(queue), pop(queue)
    fail(queue, rested, "NodeFit")  # failed at 0: backoff until 1
    clock.advance(5)
    fail(queue, recent, "NodeFit")  # failed at 5: backoff until 6
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, READY_NODE)
    assert snapshot(queue, rested.pod.name)[0] == ACTIVE_Q
    assert snapshot(queue, recent.pod.name) == (BACKOFF_Q, 5.0, 1, 6.0)


def test_a_cluster_event_moves_only_the_pods_whose_rejector_registered_it(
    queue: PriorityQueue,
) -> None:
    rejector = {"by-fit": "NodeFit", "by-labels": "NodeLabels", "by-own-labels": "OwnLabels"}
    for name in rejector:
        queue.add(pod(name))
    for _ in rejector:
        popped = pop(queue)
        fail(queue, popped, rejector[popped.pod.name])
    queue.move_all_to_active_or_backoff_queue(NODE_LABEL_UPDATE, NOT_READY_NODE, READY_NODE)
    assert sorted(where(queue)[BACKOFF_Q] + where(queue)[ACTIVE_Q]) == ["by-labels"]
    assert sorted(where(queue)[UNSCHEDULABLE_PODS]) == ["by-fit", "by-own-labels"]


def test_a_plugin_without_events_to_register_is_helped_by_any_event(
    queue: PriorityQueue,
) -> None:
    queue.add(pod("web"))
    fail(queue, pop(queue), "Anything")
    some_volume_event = ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD)
    queue.move_all_to_active_or_backoff_queue(some_volume_event)
    assert where(queue)[BACKOFF_Q] == ["web"]


def test_a_node_add_also_registers_the_node_taint_update(queue: PriorityQueue) -> None:
    """NodeFit registered only Node/Add; a node that loses its not-ready taint helps too."""
    queue.add(pod("web"))
    fail(queue, pop(queue), "NodeFit")
    queue.move_all_to_active_or_backoff_queue(
        ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
    )
    assert where(queue)[BACKOFF_Q] == ["web"]


@pytest.mark.parametrize(
    ("attempts", "expiry"),
    [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (6, 10.0)],
    ids=[
        "1st attempt: 1 s",
        "2nd: 2 s",
        "3rd: 4 s",
        "4th: 8 s",
        "5th: capped at 10 s",
        "6th: 10 s",
    ],
)
def test_the_backoff_of_each_attempt_through_the_queue(
    clock: FakeClock, queue: PriorityQueue, attempts: int, expiry: float
) -> None:
    queue.add(pod("web"))
    for _ in range(attempts - 1):
        fail(queue, pop(queue))
        queue.activate([pod("web")])
    start = clock.now()
    fail(queue, pop(queue))
    assert snapshot(queue, "web") == (BACKOFF_Q, start, attempts, start + expiry)
    clock.advance(expiry - 0.5)
    queue.flush_backoff_q_completed()
    assert where(queue)[BACKOFF_Q] == ["web"]
    clock.advance(0.5)
    queue.flush_backoff_q_completed()
    assert where(queue)[ACTIVE_Q] == ["web"]


def test_the_leftover_flush_moves_pods_unschedulable_for_more_than_five_minutes(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("web"))
    fail(queue, pop(queue), "NodeFit")  # at 0
    clock.advance(300)
    queue.flush_unschedulable_pods_leftover()
    assert where(queue)[UNSCHEDULABLE_PODS] == ["web"]  # exactly 5 minutes is not more
    clock.advance(0.001)
    queue.flush_unschedulable_pods_leftover()
    assert where(queue)[ACTIVE_Q] == ["web"]  # its 1 s backoff ended long ago


def test_the_five_minutes_are_configurable(clock: FakeClock) -> None:
    queue = new_queue(clock, pod_max_in_unschedulable_pods_duration=60)
    queue.add(pod("web"))
    fail(queue, pop(queue), "NodeFit")
    clock.advance(60.5)
    queue.flush_unschedulable_pods_leftover()
    assert where(queue)[ACTIVE_Q] == ["web"]


def test_run_drives_both_flushes_from_the_clock_and_close_stops_them(clock: FakeClock) -> None:
    queue = new_queue(clock)
    queue.add(pod("erred"))
    queue.add(pod("rejected"))
    fail(queue, pop(queue))  # erred at 0: backoffQ until 1
    fail(queue, pop(queue), "NodeFit")  # unschedulable since 0
    queue.run()
    clock.block_until_waiters(2)  # both loops ran once and wait for the clock
    assert where(queue)[BACKOFF_Q] == ["erred"]
    clock.advance(1)
    assert pop_on_thread(queue).pod.name == "erred"
    clock.block_until_waiters(2)
    clock.advance(329)  # one jump: the 30-s loop wakes once, at 330 (> 5 min since 0)
    assert pop_on_thread(queue).pod.name == "rejected"
    queue.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("scheduling-queue-")]


def pop_on_thread(queue: PriorityQueue) -> QueuedPodInfo:
    """Pop, blocking until a flush thread delivers, with a real-time safety limit."""
    popped: list[QueuedPodInfo | None] = []
    popper = threading.Thread(target=lambda: popped.append(queue.pop()))
    popper.start()
    popper.join(timeout=10)
    assert popped and popped[0] is not None, "no pod arrived within 10 s of real time"
    return popped[0]


# --- gated -----------------------------------------------------------------------------------


def test_a_gated_pod_waits_among_the_unschedulable_pods_and_is_never_popped(
    queue: PriorityQueue,
) -> None:
    queue.add(pod("job", gates=("quota",)))
    pending = queue.pending_pods_by_queue()[UNSCHEDULABLE_PODS]
    assert [(p.pod.name, p.gating_plugin) for p in pending] == [("job", "SchedulingGates")]
    assert queue.pop(timeout=0) is None


def test_removing_the_last_gate_moves_the_pod_to_active_q(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    gated = pod("job", gates=("quota", "team"))
    queue.add(gated)
    clock.advance(10)
    one_left = pod("job", gates=("team",))
    queue.update(gated, one_left)
    assert where(queue)[UNSCHEDULABLE_PODS] == ["job"]
    queue.update(one_left, pod("job"))
    assert snapshot(queue, "job") == (ACTIVE_Q, 0.0, 0, 0.0)
    assert pop(queue).initial_attempt_timestamp == 10


def test_a_gated_pod_is_moved_neither_by_cluster_events_nor_by_the_leftover_flush(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("job", gates=("quota",)))
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, READY_NODE)
    queue.activate([pod("job", gates=("quota",))])
    clock.advance(600)
    queue.flush_unschedulable_pods_leftover()
    assert where(queue)[UNSCHEDULABLE_PODS] == ["job"]


# --- updated, deleted, activated -------------------------------------------------------------


def test_an_update_in_active_q_replaces_the_pod_in_place(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("web"))
    clock.advance(5)
    queue.update(pod("web"), pod("web", labels={"v": "2"}))
    popped = pop(queue)
    assert (popped.timestamp, popped.pod.metadata.labels) == (0.0, {"v": "2"})


def test_an_update_that_can_help_an_unschedulable_pod_moves_it(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    queue.add(pod("web"))
    fail(queue, pop(queue), "OwnLabels")
    clock.advance(0.5)
    queue.update(pod("web"), pod("web", labels={"fixed": "yes"}))
    assert snapshot(queue, "web") == (BACKOFF_Q, 0.0, 1, 1.0)


def test_an_update_that_cannot_help_leaves_the_pod_where_it_is(queue: PriorityQueue) -> None:
    queue.add(pod("web"))
    fail(queue, pop(queue), "NodeFit")
    queue.update(pod("web"), pod("web", labels={"fixed": "yes"}))
    assert where(queue)[UNSCHEDULABLE_PODS] == ["web"]
    assert queue.pending_pods()[0][0].metadata.labels == {"fixed": "yes"}


def test_an_update_of_a_pod_in_flight_counts_when_it_comes_back(queue: PriorityQueue) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    queue.update(pod("web"), pod("web", labels={"fixed": "yes"}))
    assert where(queue)[IN_FLIGHT] == ["web"] and queue.pending_pods()[0] == []
    fail(queue, popped, "OwnLabels")
    assert where(queue)[BACKOFF_Q] == ["web"]


def test_an_update_of_a_pod_the_queue_does_not_hold_adds_it(queue: PriorityQueue) -> None:
    queue.update(pod("web"), pod("web", labels={"v": "2"}))
    assert where(queue)[ACTIVE_Q] == ["web"]


@pytest.mark.parametrize("place", [ACTIVE_Q, BACKOFF_Q, UNSCHEDULABLE_PODS])
def test_delete_forgets_the_pod_wherever_it_waits(queue: PriorityQueue, place: str) -> None:
    queue.add(pod("web"))
    if place != ACTIVE_Q:
        fail(queue, pop(queue), *(("NodeFit",) if place == UNSCHEDULABLE_PODS else ()))
    assert where(queue)[place] == ["web"]
    queue.delete(pod("web"))
    assert queue.pending_pods() == ([], "activeQ:0; backoffQ:0; unschedulablePods:0")


def test_activate_moves_pods_to_active_q_skipping_their_backoff(queue: PriorityQueue) -> None:
    queue.add(pod("backing-off"))
    queue.add(pod("unschedulable"))
    fail(queue, pop(queue))
    fail(queue, pop(queue), "NodeFit")
    queue.activate({"default/backing-off": pod("backing-off"), "x/unknown": pod("unknown")})
    queue.activate([pod("unschedulable")])
    assert sorted(where(queue)[ACTIVE_Q]) == ["backing-off", "unschedulable"]


def test_activating_a_pod_in_flight_brings_it_back_through_backoff(queue: PriorityQueue) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    queue.activate([pod("web")])
    fail(queue, popped, "NodeFit")
    assert where(queue)[BACKOFF_Q] == ["web"]


def test_returning_a_pod_that_is_already_queued_is_refused_and_ends_its_flight(
    queue: PriorityQueue,
) -> None:
    queue.add(pod("web"))
    popped = pop(queue)
    queue.add(pod("web"))  # the informer re-delivered it meanwhile
    with pytest.raises(PodAlreadyQueued, match="pod default/web is already present in activeQ"):
        fail(queue, popped, "NodeFit")
    assert where(queue)[IN_FLIGHT] == []


# --- assigned pods ---------------------------------------------------------------------------


def test_an_assigned_pod_moves_only_pods_whose_affinity_or_spreading_looks_at_it(
    queue: PriorityQueue,
) -> None:
    affinity = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}
            ]
        }
    }
    queue.add(pod("wants-db", affinity=affinity))
    queue.add(pod("wants-db-elsewhere", affinity=affinity, namespace="other"))
    queue.add(pod("spreads"))
    queue.add(pod("unrelated"))
    for _ in range(4):
        popped = pop(queue)
        # "Anything" answers QUEUE to every event: only the pre-filter tells these pods apart.
        spread = ("PodTopologySpread",) if popped.pod.name == "spreads" else ()
        fail(queue, popped, "Anything", *spread)
    queue.assigned_pod_added(pod("db-0", labels={"app": "db"}, node_name="n1"))
    assert sorted(where(queue)[BACKOFF_Q]) == ["spreads", "wants-db"]


def test_an_assigned_pod_scaling_down_can_help_every_pod(queue: PriorityQueue) -> None:
    queue.add(pod("web"))
    fail(queue, pop(queue), "Anything")
    scale_down = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_SCALE_DOWN)
    queue.assigned_pod_updated(pod("db", node_name="n1"), pod("db", node_name="n1"), scale_down)
    assert where(queue)[BACKOFF_Q] == ["web"]


# --- bookkeeping -----------------------------------------------------------------------------


def test_pending_pods_lists_every_queued_pod_with_the_kubernetes_summary(
    queue: PriorityQueue,
) -> None:
    for name in ("a", "b", "c", "d"):
        queue.add(pod(name))
    queue.add(pod("gated", gates=("g",)))
    fail(queue, pop(queue))
    fail(queue, pop(queue), "NodeFit")
    pop(queue)  # in flight: not pending
    pods, summary = queue.pending_pods()
    assert summary == "activeQ:1; backoffQ:1; unschedulablePods:2"
    assert sorted(p.name for p in pods) == ["a", "b", "d", "gated"]


def test_the_event_log_is_kept_only_while_a_flight_can_need_it(queue: PriorityQueue) -> None:
    queue.add(pod("a"))
    queue.add(pod("b"))
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)  # nobody in flight: not logged
    first = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)
    second = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)
    log = queue._active_q  # a white-box look at the log's length
    assert log.logged_events() == 2
    queue.done(first.pod.metadata.uid)
    assert log.logged_events() == 1  # the event before `second` flew is no use to anyone
    queue.done(second.pod.metadata.uid)
    assert log.logged_events() == 0


def test_initial_attempt_timestamp_is_set_once_on_first_entry_to_active_q(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    clock.advance(1)
    queue.add(pod("web"))
    clock.advance(1)
    fail(queue, pop(queue))
    clock.advance(5)
    queue.flush_backoff_q_completed()
    again = pop(queue)
    assert (again.attempts, again.initial_attempt_timestamp) == (2, 1.0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pod_initial_backoff_seconds": 0}, "pod_initial_backoff_seconds must be greater than 0"),
        (
            {"pod_initial_backoff_seconds": 5, "pod_max_backoff_seconds": 2},
            r"pod_max_backoff_seconds \(2\) must be greater than or equal to",
        ),
    ],
    ids=["initial backoff zero", "max below initial"],
)
def test_bad_backoff_settings_are_refused_up_front(
    clock: FakeClock, options: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        PriorityQueue(PrioritySort().less, clock=clock, **options)  # type: ignore[arg-type]


# --- the nominator ---------------------------------------------------------------------------


def test_nominated_pods_are_listed_per_node_in_their_newest_version(queue: PriorityQueue) -> None:
    queue.add(pod("big"))
    queue.add_nominated_pod(PodInfo(pod("big")), NominatingInfo("n1", NominatingMode.OVERRIDE))
    queue.update(pod("big"), pod("big", labels={"v": "2"}))
    nominated = queue.nominated_pods_for_node("n1")
    assert [(p.pod.name, p.pod.metadata.labels) for p in nominated] == [("big", {"v": "2"})]
    assert queue.nominated_pods_for_node("n2") == []
    queue.add_nominated_pod(PodInfo(pod("big")), NominatingInfo("", NominatingMode.OVERRIDE))
    assert queue.nominated_pods_for_node("n1") == []


def test_a_pod_added_with_a_nominated_node_name_is_nominated(queue: PriorityQueue) -> None:
    queue.add(pod("big", nominated_node_name="n1"))
    assert [p.pod.name for p in queue.nominated_pods_for_node("n1")] == ["big"]
    queue.delete(pod("big"))
    assert queue.nominated_pods_for_node("n1") == []


def test_an_update_without_nomination_keeps_the_in_memory_nomination(
    queue: PriorityQueue,
) -> None:
    queue.add(pod("big"))
    queue.add_nominated_pod(PodInfo(pod("big")), NominatingInfo("n1", NominatingMode.OVERRIDE))
    queue.update(pod("big"), pod("big", labels={"v": "2"}))
    assert [p.pod.name for p in queue.nominated_pods_for_node("n1")] == ["big"]


def test_the_update_event_label_is_the_kubernetes_one() -> None:
    assert UNSCHEDULED_POD_UPDATE.label() == "UnscheduledPodUpdate"


# --- isEventOfInterest, answered once per event ------------------------------------------------

EVENTS = st.builds(
    ClusterEvent,
    st.sampled_from(EventResource),
    st.integers(0, int(ActionType.ALL)).map(ActionType),
)


@given(st.lists(EVENTS, max_size=30))
def test_the_queues_remembered_interest_in_an_event_is_the_fresh_answer(
    events: list[ClusterEvent],
) -> None:
    # isEventOfInterest (pkg/scheduler/backend/queue/scheduling_queue.go) walks the hint
    # maps on every call; ours keeps each answer, since the maps never change. Asked in any
    # order and again, the kept answer must be the one a fresh walk gives.
    queue = new_queue(FakeClock(start=0))
    for event in events + events:
        assert queue._is_event_of_interest(event) == is_event_of_interest(event, queue._hint_maps)


def test_an_event_of_interest_moves_a_pod_every_time_it_comes(
    clock: FakeClock, queue: PriorityQueue
) -> None:
    for attempt in range(3):
        if attempt == 0:
            queue.add(pod("web"))
        fail(queue, pop(queue), "NodeFit")
        assert where(queue)[UNSCHEDULABLE_PODS] == ["web"]
        queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, READY_NODE)
        assert where(queue)[UNSCHEDULABLE_PODS] == []
        clock.advance(30)
        queue.flush_backoff_q_completed()
