"""Chapter 9, wrong on purpose:

leave the violating group's victims before the others instead of sorting the merged list (hint
5). Must fail.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("09_preemption", "right"))
Right: Any = globals()["DefaultPreemption"]
default_preemption_args_from: Any = globals()["default_preemption_args_from"]


class DefaultPreemption(Right):  # type: ignore[misc]
    sort_merged_victims = False


def new(args: Any, handle: Any) -> DefaultPreemption:
    return DefaultPreemption(handle, default_preemption_args_from(args))
