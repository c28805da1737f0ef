"""Chapter 9, wrong on purpose: split by PodDisruptionBudget first, sort each group after.

Hint 3's rule: sort the potential victims most important first, *then*
split them, because a budget's disruptionsAllowed is spent in the order the
pods come. Split in the node's order and the budget goes to whichever pod
the node listed first. Must fail.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("09_preemption", "right"))
Right: Any = globals()["DefaultPreemption"]
default_preemption_args_from: Any = globals()["default_preemption_args_from"]


class DefaultPreemption(Right):  # type: ignore[misc]
    sort_before_split = False


def new(args: Any, handle: Any) -> DefaultPreemption:
    return DefaultPreemption(handle, default_preemption_args_from(args))
