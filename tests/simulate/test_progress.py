"""The progress bar: drawn on a terminal only, at most ten times a second, with rate and ETA.

No Kubernetes counterpart; time is a :class:`~framework.clock.FakeClock`, the
terminal a string buffer that says it is one.
"""

from __future__ import annotations

import io

import pytest

import framework
from framework.clock import FakeClock
from framework.simulator.progress import REDRAW_SECONDS, ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def lines(stream: io.StringIO) -> list[str]:
    return [line.rstrip() for line in stream.getvalue().split("\r") if line]


def test_a_terminal_gets_done_total_rate_and_eta() -> None:
    clock, out = FakeClock(), Terminal()
    bar = ProgressBar(out, now=clock.now, width=10)
    clock.advance(4)
    bar.update(100, 500)
    assert lines(out) == ["  100/500 pods bound [##--------]  20%   25.0 pods/s  ETA 0:00:16"]


@pytest.mark.parametrize(
    ("times", "drawn"),
    [
        pytest.param([0.0, 0.05, 0.1, 0.15, 0.3], 3, id="ten times a second at most"),
        pytest.param([0.0, 0.01, 0.02, 0.03], 1, id="a burst draws once"),
        pytest.param([0.0, 1.0, 2.0], 3, id="slow updates all draw"),
    ],
)
def test_redraws_are_at_least_a_tenth_of_a_second_apart(times: list[float], drawn: int) -> None:
    clock, out = FakeClock(), Terminal()
    bar = ProgressBar(out, now=clock.now)
    start = clock.now()
    for at in times:
        clock.set(start + at)
        bar.update(1, 1000)
    assert REDRAW_SECONDS == 0.1
    assert len(lines(out)) == drawn


def test_the_last_update_always_draws_and_close_ends_the_line() -> None:
    clock, out = FakeClock(), Terminal()
    bar = ProgressBar(out, now=clock.now, width=4)
    bar.update(1, 2)
    bar.update(2, 2)  # at once, but it is the end
    bar.close()
    assert out.getvalue().endswith("\n")
    assert lines(out)[-1].endswith("done")
    assert lines(out)[-2].startswith("  2/2 pods bound [####] 100%")


def test_the_last_line_counts_the_pods_left_pending() -> None:
    clock, out = FakeClock(), Terminal()
    bar = ProgressBar(out, now=clock.now, width=4)
    clock.advance(2)
    bar.update(8, 10)
    bar.close()  # the run is over: two pods stay pending
    assert lines(out)[-1] == "   8/10 pods bound [###-]  80%    4.0 pods/s  done; 2 not bound"


def test_a_shorter_line_wipes_the_longer_one_before_it() -> None:
    clock, out = FakeClock(), Terminal()
    bar = ProgressBar(out, now=clock.now, width=4)
    clock.advance(1)
    bar.update(1, 2)
    clock.advance(1)
    bar.update(2, 2)
    first, second = out.getvalue().split("\r")[1:]
    assert len(second) >= len(first)


@pytest.mark.parametrize(
    ("stream", "enabled"),
    [
        pytest.param(io.StringIO(), True, id="not a terminal"),
        pytest.param(Terminal(), False, id="--no-progress"),
    ],
)
def test_nothing_is_drawn_when_off(stream: io.StringIO, enabled: bool) -> None:
    bar = ProgressBar(stream, now=FakeClock().now, enabled=enabled)
    bar.update(1, 2)
    bar.close()
    assert not bar.enabled and stream.getvalue() == ""


def test_a_run_reports_every_pod_bound() -> None:
    clock, out = FakeClock(), Terminal()
    bar = ProgressBar(out, now=clock.now, width=8)
    nodes = "".join(
        f"---\nkind: Node\nmetadata: {{name: n{i}}}\n"
        'status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}\n'
        for i in range(3)
    )
    pods = "".join(
        f"---\nkind: Pod\nmetadata: {{name: p{i}}}\nspec: {{containers: [{{name: c, image: nginx}}]}}\n"
        for i in range(5)
    )
    framework.simulate(nodes + pods, progress=bar.update)
    bar.close()
    assert lines(out)[-1].startswith("  5/5 pods bound [########] 100%")
