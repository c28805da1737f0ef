"""backoffQ: the backoff formula, exactly, and the order in which pods leave."""

from __future__ import annotations

import pytest

from framework.clock import FakeClock
from framework.queue.backoff import BackoffQueue
from framework.types import PodInfo, QueuedPodInfo
from tests.queue.helpers import pod


def queued(name: str, *, timestamp: float, attempts: int) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(pod(name)), timestamp=timestamp, attempts=attempts)


@pytest.mark.parametrize(
    ("attempts", "seconds"),
    [(0, 0.0), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (6, 10.0), (50, 10.0)],
    ids=lambda v: str(v),
)
def test_backoff_doubles_until_the_cap(attempts: int, seconds: float) -> None:
    backoff = BackoffQueue(FakeClock(start=0), initial_seconds=1, max_seconds=10)
    assert backoff.backoff_duration(attempts) == seconds


@pytest.mark.parametrize(
    ("initial", "maximum", "expected"),
    [
        (2, 60, [2, 4, 8, 16, 32, 60, 60]),
        (3, 10, [3, 6, 10, 10, 10, 10, 10]),
        (5, 5, [5, 5, 5, 5, 5, 5, 5]),
    ],
    ids=["initial 2 max 60", "initial 3 max 10: 12 is capped", "initial equals max"],
)
def test_backoff_is_configurable(initial: int, maximum: int, expected: list[int]) -> None:
    backoff = BackoffQueue(FakeClock(start=0), initial_seconds=initial, max_seconds=maximum)
    assert [backoff.backoff_duration(n) for n in range(1, 8)] == expected


def test_a_pod_backs_off_until_timestamp_plus_duration_and_not_a_moment_longer() -> None:
    clock = FakeClock(start=100)
    backoff = BackoffQueue(clock, initial_seconds=1, max_seconds=10)
    third_attempt = queued("p", timestamp=100, attempts=3)
    assert backoff.backoff_expiry(third_attempt) == 104
    clock.advance(3.999)
    assert backoff.is_backing_off(third_attempt)
    clock.advance(0.001)
    assert not backoff.is_backing_off(third_attempt)  # an expiry of "now" is over


def test_a_pod_never_tried_has_no_backoff() -> None:
    backoff = BackoffQueue(FakeClock(start=100), initial_seconds=1, max_seconds=10)
    assert not backoff.is_backing_off(queued("p", timestamp=100, attempts=0))


def test_pods_leave_in_expiry_order_and_only_once_expired() -> None:
    clock = FakeClock(start=0)
    backoff = BackoffQueue(clock, initial_seconds=1, max_seconds=10)
    backoff.add(queued("late", timestamp=0, attempts=4))  # expires at 8
    backoff.add(queued("early", timestamp=0, attempts=1))  # 1
    backoff.add(queued("middle", timestamp=2, attempts=2))  # 4
    assert [p.pod.name for p in backoff.pod_infos()] == ["early", "middle", "late"]
    assert backoff.pop_all_completed() == []
    clock.advance(4)
    assert [p.pod.name for p in backoff.pop_all_completed()] == ["early", "middle"]
    assert len(backoff) == 1 and "default/late" in backoff
    clock.advance(4)
    assert [p.pod.name for p in backoff.pop_all_completed()] == ["late"]


# --- SchedulerPopFromBackoffQ (beta, on since v1.33; KEP-5142) ---------------------------------
# backoff_queue.go as of v1.33: alignToWindow, isPodBackingoff, lessBackoffCompletedWithPriority,
# popBackoff, podErrorBackoffQ; active_queue.go unlockedPop.


def _priority_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    pa, pb = a.pod.spec.priority or 0, b.pod.spec.priority or 0
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


def _rejected(name: str, *, timestamp: float, attempts: int, priority: int = 0) -> QueuedPodInfo:
    info = QueuedPodInfo(
        PodInfo(pod(name, priority=priority)), timestamp=timestamp, attempts=attempts
    )
    info.unschedulable_plugins = {"NodeResourcesFit"}
    return info


def test_with_the_gate_expiries_align_to_one_second_windows() -> None:
    clock = FakeClock(start=100)
    backoff = BackoffQueue(clock, initial_seconds=1, max_seconds=10, pop_from_backoff_q=True)
    p = _rejected("p", timestamp=100.3, attempts=1)
    assert backoff.backoff_expiry(p) == 101  # 101.3 truncated to its window
    clock.set(101.5)
    assert backoff.is_backing_off(p)  # its window is the current one: still backing off
    clock.set(102)
    assert not backoff.is_backing_off(p)
    assert backoff.completes_at(p) == 102


def test_with_the_gate_a_window_is_ordered_as_activeq_and_its_head_can_be_popped() -> None:
    backoff = BackoffQueue(
        FakeClock(start=0),
        initial_seconds=1,
        max_seconds=10,
        pop_from_backoff_q=True,
        less=_priority_less,
    )
    backoff.add(_rejected("low", timestamp=0.1, attempts=1, priority=0))
    backoff.add(_rejected("high", timestamp=0.7, attempts=1, priority=100))  # same window: 1
    backoff.add(_rejected("later", timestamp=1.2, attempts=1, priority=1000))  # window 2
    errored = QueuedPodInfo(PodInfo(pod("errored")), timestamp=0, attempts=1)  # no plugin named
    backoff.add(errored)
    popped = [backoff.pop_backoff() for _ in range(4)]
    assert [p.key if p else None for p in popped] == [
        "default/high",
        "default/low",
        "default/later",
        None,  # an error's pod is never popped early
    ]
    assert len(backoff) == 1


def test_without_the_gate_nothing_is_popped_early() -> None:
    backoff = BackoffQueue(FakeClock(start=0), initial_seconds=1, max_seconds=10)
    backoff.add(_rejected("p", timestamp=0, attempts=1))
    assert backoff.len_backoff() == 0
    assert backoff.pop_backoff() is None
