"""Chapter 13 checkpoint: SchedulingThroughput's summary, as scheduler_perf computes it.

A small step inside the chapter. scheduler_perf samples the pods scheduled
per second and reports the samples' average and four percentiles. Write
:func:`summarize`, then check it::

    python -m pytest chapters/13_making_it_fast/test_checkpoint_throughput.py --exercise

The rule is in the chapter's "How we measured" section.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["PERCENTILES", "summarize"]

PERCENTILES = (50, 90, 95, 99)
"""The percentiles scheduler_perf reports, as ``Perc50`` ... ``Perc99``. (Given.)"""


def summarize(values: Sequence[float]) -> dict[str, float]:
    """``{"Average": ..., "Perc50": ..., "Perc90": ..., "Perc95": ..., "Perc99": ...}``.

    ``values`` are the per-second samples, in the order they were taken. No
    samples at all: an empty dict.
    """
    # TODO 1: no values: {}. Otherwise sort a copy (the input is in time order).
    # TODO 2: the average of all the samples.
    # TODO 3: percentile p is the sorted sample at index ceil(n * p / 100) - 1, as
    #         scheduler_perf indexes it: no interpolation between two samples.
    raise NotImplementedError(
        "chapter 13 checkpoint: write summarize in chapters/13_making_it_fast/checkpoint_throughput.py"
    )
