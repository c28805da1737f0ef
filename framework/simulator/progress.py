"""A progress bar on a terminal: how many pods are bound, how fast, and how long to go.

A run of thousands of pods takes minutes. :class:`ProgressBar` redraws one
line of stderr — pods bound of pods pending, the rate, the time left — at
most ten times a second, so that drawing costs nothing beside scheduling.
It draws only on a terminal: piped or redirected, stderr gets nothing (the
command line also has ``--no-progress``). The clock is injected, so tests
drive it without waiting.

>>> import io
>>> class Terminal(io.StringIO):
...     def isatty(self) -> bool:
...         return True
>>> times = iter([0.0, 2.0])
>>> out = Terminal()
>>> bar = ProgressBar(out, now=lambda: next(times), width=10)
>>> bar.update(50, 200)
>>> out.getvalue()
'\\r   50/200 pods bound [##--------]  25%   25.0 pods/s  ETA 0:00:06'

No Kubernetes counterpart.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["REDRAW_SECONDS", "ProgressBar"]

REDRAW_SECONDS = 0.1
"""The shortest time between two redraws."""


class ProgressBar:
    """Draws ``update(done, total)`` calls on ``stream`` when it is a terminal; otherwise nothing."""

    def __init__(
        self,
        stream: TextIO,
        now: Callable[[], float] = time.monotonic,
        width: int = 30,
        enabled: bool = True,
    ) -> None:
        self.stream = stream
        self.now = now
        self.width = width
        self.enabled = enabled and stream.isatty()
        self.started = now() if self.enabled else 0.0
        self.drawn_at: float | None = None
        self.last = (0, 0)
        self.length = 0

    def update(self, done: int, total: int) -> None:
        """Note progress; redraw if the last redraw is at least :data:`REDRAW_SECONDS` old."""
        if not self.enabled:
            return
        self.last = (done, total)
        at = self.now()
        if self.drawn_at is None or at - self.drawn_at >= REDRAW_SECONDS or done == total:
            self._draw(at)

    def close(self) -> None:
        """Draw the final state and end the line (nothing if nothing was drawn).

        The run is over: pods not bound by now stay pending, and the line says how many.
        """
        if self.enabled and self.drawn_at is not None:
            self._draw(self.now(), final=True)
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, at: float, final: bool = False) -> None:
        done, total = self.last
        self.drawn_at = at
        fraction = done / total if total else 1.0
        filled = round(fraction * self.width)
        elapsed = at - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        if done >= total:
            eta = "done"
        elif final:
            eta = f"done; {total - done} not bound"
        elif rate > 0:
            eta = "ETA " + _clock((total - done) / rate)
        else:
            eta = "ETA --"
        digits = len(str(total))
        line = (
            f"{done:>{digits + 2}}/{total} pods bound [{'#' * filled}{'-' * (self.width - filled)}]"
            f" {fraction:4.0%} {rate:6.1f} pods/s  {eta}"
        )
        # Spaces wipe what a longer previous line left behind ("ETA 0:00:06" → "done").
        self.stream.write("\r" + line.ljust(self.length))
        self.length = len(line)
        self.stream.flush()


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
