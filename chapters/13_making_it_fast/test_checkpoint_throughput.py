"""Chapter 13 checkpoint: the summary of SchedulingThroughput's samples.

``collect`` in ``test/integration/scheduler_perf/util.go`` (v1.33) sorts the
samples and reads percentile p at index ``ceil(n * p / 100) - 1``, with the
average beside them. Run against your code with
``python -m pytest chapters/13_making_it_fast/test_checkpoint_throughput.py --exercise``.
"""

from __future__ import annotations

from types import ModuleType

import pytest

pytestmark = pytest.mark.exercise(
    reference="framework.bench.throughput",
    skeleton="checkpoint_throughput.py",
    asks=["summarize"],
)


def test_no_samples_no_summary(impl: ModuleType) -> None:
    assert impl.summarize([]) == {}


def test_the_samples_are_sorted_first(impl: ModuleType) -> None:
    summary = impl.summarize([30.0, 10.0, 20.0, 40.0])
    assert summary == {
        "Average": 25.0,
        "Perc50": 20.0,
        "Perc90": 40.0,
        "Perc95": 40.0,
        "Perc99": 40.0,
    }, f"expected the percentiles of the sorted samples [10, 20, 30, 40], got {summary}"


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, (1, 1, 1, 1)),
        (10, (5, 9, 10, 10)),
        (20, (10, 18, 19, 20)),
        (100, (50, 90, 95, 99)),
        (101, (51, 91, 96, 100)),
        (200, (100, 180, 190, 198)),
    ],
    ids=lambda v: str(v),
)
def test_a_percentile_is_a_sample_at_ceil_n_p_over_100(
    impl: ModuleType, n: int, expected: tuple[int, int, int, int]
) -> None:
    samples = [float(i) for i in range(n, 0, -1)]  # n down to 1: sorted, sample k is k
    summary = impl.summarize(samples)
    got = tuple(summary[f"Perc{p}"] for p in (50, 90, 95, 99))
    assert got == expected, f"with samples 1..{n}, expected Perc50..Perc99 {expected}, got {got}"
    assert summary["Average"] == pytest.approx((n + 1) / 2)


def test_the_input_is_left_in_its_order(impl: ModuleType) -> None:
    samples = [3.0, 1.0, 2.0]
    impl.summarize(samples)
    assert samples == [3.0, 1.0, 2.0], "expected summarize to sort a copy, not the caller's list"
