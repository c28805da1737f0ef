"""The fake clock moves only when told to, and wakes exactly the waiters that fall due."""

from __future__ import annotations

import threading

import pytest

from framework.clock import FakeClock, RealClock, rfc3339


def test_timers_fire_when_time_reaches_them_not_before() -> None:
    clock = FakeClock(start=0)
    early, late = clock.after(1), clock.after(10)
    clock.advance(9.5)
    assert early.is_set() and not late.is_set()
    clock.advance(0.5)
    assert late.is_set()


def test_a_sleeping_thread_wakes_only_after_advance() -> None:
    clock = FakeClock(start=0)
    woke = threading.Event()

    def sleeper() -> None:
        clock.sleep(5)
        woke.set()

    thread = threading.Thread(target=sleeper)
    thread.start()
    clock.block_until_waiters(1)
    clock.advance(4)
    assert not woke.is_set()
    clock.advance(1)
    thread.join(timeout=10)
    assert woke.is_set() and clock.waiters() == 0


def test_wait_returns_true_when_the_event_comes_first() -> None:
    clock = FakeClock(start=0)
    event = threading.Event()
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(clock.wait(event, 30)))
    thread.start()
    clock.block_until_waiters(1)
    event.set()
    thread.join(timeout=10)
    assert result == [True]


def test_wait_returns_false_on_timeout() -> None:
    clock = FakeClock(start=0)
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(clock.wait(threading.Event(), 30)))
    thread.start()
    clock.block_until_waiters(1)
    clock.advance(30)
    thread.join(timeout=10)
    assert result == [False]


def test_next_deadline_lets_a_simulator_jump_ahead() -> None:
    clock = FakeClock(start=0)
    assert clock.next_deadline() is None
    clock.after(7)
    clock.after(3)
    assert clock.next_deadline() == 3
    clock.set(3)
    assert clock.next_deadline() == 7


def test_time_never_goes_backwards() -> None:
    clock = FakeClock(start=10)
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-1)
    with pytest.raises(ValueError, match="backwards"):
        clock.set(5)


def test_block_until_waiters_times_out_with_a_clear_message() -> None:
    with pytest.raises(TimeoutError, match="expected 1 thread"):
        FakeClock().block_until_waiters(1, timeout=0.01)


def test_real_clock_timers_and_rfc3339() -> None:
    clock = RealClock()
    assert clock.after(0).is_set()
    assert clock.wait(threading.Event(), 0.001) is False
    assert rfc3339(1745409600.7) == "2025-04-23T12:00:00Z"


def test_real_timers_share_one_thread_and_fire_in_deadline_order() -> None:
    """A pod parked at Permit holds a timer for minutes: a thread each (threading.Timer) made
    thousands in a gang run. Go's time.AfterFunc costs no goroutine until it fires; here one
    thread fires every RealClock timer."""
    clock = RealClock()
    clock.after(600)  # the timer thread, if any, exists from here on
    before = threading.active_count()
    parked = [clock.after(600) for _ in range(50)]
    assert threading.active_count() == before
    soon, sooner = clock.after(0.05), clock.after(0.01)
    assert clock.wait(soon, 10) and sooner.is_set()
    assert not any(t.is_set() for t in parked)
