"""Chapter 2, wrong on purpose: ``<=`` at the tie-break (hint 4's warning).

Two pods equal in priority, class and timestamp are then less than each
other both ways, which a heap cannot work with. Must fail.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("02_queue", "right"))
Right: Any = globals()["QOSSort"]


class QOSSort(Right):  # type: ignore[misc]
    def tie(self, a: Any, b: Any) -> bool:
        return bool(a.timestamp <= b.timestamp)


def new(args: Any, handle: Any) -> QOSSort:
    return QOSSort()
