"""The parallelizer: every piece once, in chunks, stoppable (parallelize/parallelism.go)."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from framework.runtime.parallelize import Parallelizer, chunk_size_for


@pytest.mark.parametrize(
    ("n", "parallelism", "expected"),
    [(0, 16, 1), (1, 16, 1), (16, 16, 2), (100, 16, 7), (10_000, 16, 100), (10_000, 1000, 11)],
)
def test_chunk_size(n: int, parallelism: int, expected: int) -> None:
    assert chunk_size_for(n, parallelism) == expected


@settings(max_examples=40, deadline=None)
@given(pieces=st.integers(0, 300), parallelism=st.integers(1, 16), threads=st.booleans())
def test_every_piece_is_processed_exactly_once(
    pieces: int, parallelism: int, threads: bool
) -> None:
    seen: list[int] = []
    lock = threading.Lock()

    def work(i: int) -> None:
        with lock:
            seen.append(i)

    Parallelizer(parallelism, use_threads=threads).until(pieces, work)
    assert sorted(seen) == list(range(pieces))


def test_without_threads_pieces_run_in_order_and_stop_early() -> None:
    stop = threading.Event()
    seen: list[int] = []

    def work(i: int) -> None:
        seen.append(i)
        if i == 5:
            stop.set()

    Parallelizer(4).until(100, work, stop)
    assert seen == [0, 1, 2, 3, 4, 5]


def test_a_workers_exception_reaches_the_caller() -> None:
    def work(i: int) -> None:
        if i == 3:
            raise RuntimeError("piece 3")

    with pytest.raises(RuntimeError, match="piece 3"):
        Parallelizer(4, use_threads=True).until(10, work)


def test_parallelism_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Parallelizer(0)
