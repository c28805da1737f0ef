"""Chapter 9, wrong on purpose:

count every victim as a budget violation, not only those of the violating group (hint 4). Must
fail.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("09_preemption", "right"))
Right: Any = globals()["DefaultPreemption"]
default_preemption_args_from: Any = globals()["default_preemption_args_from"]


class DefaultPreemption(Right):  # type: ignore[misc]
    count_only_violating = False


def new(args: Any, handle: Any) -> DefaultPreemption:
    return DefaultPreemption(handle, default_preemption_args_from(args))
