"""SchedulingThroughput computed as scheduler_perf computes it.

Expectations from ``throughputCollector.run`` and ``collect`` in
kubernetes/kubernetes:test/integration/scheduler_perf/util.go (v1.33).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.bench.throughput import percentile, scheduling_throughput, summarize


@pytest.mark.parametrize(
    ("bound_at", "end", "expected"),
    [
        pytest.param([], 5.0, [], id="nothing scheduled: no samples"),
        pytest.param([0.5] * 3, 5.0, [], id="the first tick with pods is skipped"),
        pytest.param(
            [0.5, 1.5, 1.6, 2.5, 2.6, 2.7], 3.0, [2.0, 3.0], id="one sample per later tick"
        ),
        pytest.param(
            [0.5, 1.5, 1.6, 3.5, 3.6, 3.7, 3.8],
            4.0,
            [2.0, 2.0, 2.0],
            id="an empty interval is merged with the next and recorded once per interval",
        ),
        pytest.param([2.5, 3.5], 4.0, [1.0], id="ticks before the first pod are ignored"),
        pytest.param([0.5, 1.5, 2.5, 3.5], 2.9, [1.0], id="no tick after the end"),
    ],
)
def test_samples_follow_scheduler_perfs_collector(
    bound_at: list[float], end: float, expected: list[float]
) -> None:
    assert scheduling_throughput(0.0, bound_at, end) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("n", "p", "index"),
    [
        pytest.param(1, 99, 0, id="one sample is every percentile"),
        pytest.param(10, 50, 4, id="ceil(10*50/100)-1"),
        pytest.param(10, 90, 8, id="ceil(10*90/100)-1"),
        pytest.param(10, 99, 9, id="ceil(10*99/100)-1"),
        pytest.param(7, 50, 3, id="ceil(7*50/100)-1"),
    ],
)
def test_percentile_index_is_ceil_n_p_over_100_minus_1(n: int, p: int, index: int) -> None:
    values = [float(i) for i in range(n)]
    assert percentile(values, p) == values[index]


def test_summary_has_the_five_figures_scheduler_perf_reports() -> None:
    summary = summarize([3.0, 1.0, 2.0, 4.0])
    assert summary == {
        "Average": 2.5,
        "Perc50": 2.0,
        "Perc90": 4.0,
        "Perc95": 4.0,
        "Perc99": 4.0,
    }
    assert summarize([]) == {}


@given(st.lists(st.floats(min_value=0.0, max_value=20.0), max_size=200))
def test_samples_never_count_more_pods_than_were_bound(bound_at: list[float]) -> None:
    samples = scheduling_throughput(0.0, bound_at, 21.0)
    # Each sample is pods per one-second interval; summed they cover pods after the first tick.
    assert sum(samples) <= len(bound_at) + 1e-9
    assert all(s > 0 for s in samples)
