"""SchedulingThroughput and percentiles, computed as scheduler_perf computes them.

scheduler_perf's throughput collector looks at the number of scheduled
pods once a second. It ignores ticks until a pod is scheduled, then skips
that first sample (sampling and pod creation start independently, so it is
an outlier); a tick with no new pod is not recorded as 0 but merged into
the next one that has some, and that throughput (pods over the real time
elapsed) is recorded once per merged interval. The summary is the average
and the 50th/90th/95th/99th percentiles of the sorted samples, a
percentile p being the element at ``ceil(n * p / 100) - 1``.

We record when each pod was seen bound (by the scheduler's own informer,
as scheduler_perf shares the scheduler's), and replay those times against
one-second ticks after the run: the same samples, without a sampling
thread competing with the scheduler for the GIL.

Mirrors ``throughputCollector.run`` and ``collect`` in
``kubernetes/kubernetes:test/integration/scheduler_perf/util.go`` (v1.33).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

__all__ = ["THROUGHPUT_SAMPLE_INTERVAL", "percentile", "scheduling_throughput", "summarize"]

#: scheduler_perf's ``throughputSampleInterval``: one second.
THROUGHPUT_SAMPLE_INTERVAL = 1.0


def percentile(sorted_values: Sequence[float], p: int) -> float:
    """The ``p``-th percentile of already sorted values, as scheduler_perf indexes it."""
    return sorted_values[math.ceil(len(sorted_values) * p / 100) - 1]


def summarize(values: Sequence[float]) -> dict[str, float]:
    """Average, Perc50, Perc90, Perc95, Perc99 of ``values``; empty if there are none."""
    if not values:
        return {}
    ordered = sorted(values)
    summary = {"Average": sum(ordered) / len(ordered)}
    for p in (50, 90, 95, 99):
        summary[f"Perc{p}"] = percentile(ordered, p)
    return summary


def scheduling_throughput(
    start: float,
    bound_at: Sequence[float],
    end: float,
    interval: float = THROUGHPUT_SAMPLE_INTERVAL,
) -> list[float]:
    """The throughput samples (pods/s) of ticks every ``interval`` from ``start`` up to ``end``.

    ``bound_at`` holds the times the measured pods were seen bound. A
    tick's count is the pods bound by then.
    """
    times = sorted(bound_at)
    samples: list[float] = []
    started = False
    last_count = 0
    last_time = start
    skipped = 0
    tick = start + interval
    while tick <= end:
        scheduled = bisect.bisect_right(times, tick)
        if scheduled == 0:
            pass
        elif not started:
            started, last_count, last_time = True, scheduled, tick
        elif scheduled == last_count:
            skipped += 1
        else:
            throughput = (scheduled - last_count) / (tick - last_time)
            samples.extend([throughput] * (skipped + 1))
            last_count, last_time, skipped = scheduled, tick, 0
        tick += interval
    return samples
