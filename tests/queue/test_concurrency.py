"""Many threads at once, as in the scheduler: one pops, handlers add and move, binders finish.

One scheduling thread pops and starts a binding thread per pod; the binding
thread either finishes the pod (``done``) or hands it back rejected
(``add_unschedulable_if_not_present``), as binding cycles do concurrently;
an informer thread adds pods; the main thread fires cluster events, moves
fake time and runs the flushes. Every pod must be bound exactly once, no
pod may be popped while already in flight, and the queue must end empty.
"""

from __future__ import annotations

import threading
import time

from framework.clock import FakeClock
from framework.cluster_event import NODE_ADD
from framework.types import QueuedPodInfo
from tests.queue.helpers import new_queue, pod

PODS = 120


def test_concurrent_pop_add_fail_done_and_moves_lose_and_duplicate_nothing() -> None:
    clock = FakeClock(start=0)
    queue = new_queue(clock)
    guard = threading.Lock()
    bound: list[str] = []
    in_flight: set[str] = set()
    errors: list[str] = []
    binders: list[threading.Thread] = []
    all_bound = threading.Event()

    def bind_or_reject(pod_info: QueuedPodInfo) -> None:
        name = pod_info.pod.name
        rejected = pod_info.attempts == 1 and int(name[1:]) % 3 == 0
        with guard:
            in_flight.discard(name)
            if not rejected:
                bound.append(name)
                if len(bound) == PODS:
                    all_bound.set()
        if rejected:
            pod_info.unschedulable_plugins.add("NodeFit")
            queue.add_unschedulable_if_not_present(pod_info, queue.scheduling_cycle())
        else:
            queue.done(pod_info.pod.metadata.uid)

    def schedule() -> None:
        while (pod_info := queue.pop()) is not None:
            with guard:
                if pod_info.pod.name in in_flight:
                    errors.append(f"{pod_info.pod.name} popped while in flight")
                in_flight.add(pod_info.pod.name)
            binder = threading.Thread(target=bind_or_reject, args=(pod_info,))
            binders.append(binder)
            binder.start()

    def inform() -> None:
        for i in range(PODS):
            queue.add(pod(f"p{i}"))

    scheduler = threading.Thread(target=schedule)
    informer = threading.Thread(target=inform)
    scheduler.start()
    informer.start()
    # Drive events and fake time until every pod is bound. The loop used to
    # stop after a fixed number of rounds, which a busy machine (or a faster
    # queue) could finish before the binders did; the wall-clock limit only
    # keeps a lost pod from hanging the test, the assertions below judge.
    give_up = time.monotonic() + 120
    while not all_bound.is_set() and time.monotonic() < give_up:
        queue.move_all_to_active_or_backoff_queue(NODE_ADD)
        clock.advance(1)
        queue.flush_backoff_q_completed()
        queue.flush_unschedulable_pods_leftover()
    informer.join(timeout=10)
    queue.close()
    scheduler.join(timeout=10)
    for binder in binders:
        binder.join(timeout=10)

    assert not errors
    assert sorted(bound) == sorted(f"p{i}" for i in range(PODS))
    assert queue.pending_pods() == ([], "activeQ:0; backoffQ:0; unschedulablePods:0")
