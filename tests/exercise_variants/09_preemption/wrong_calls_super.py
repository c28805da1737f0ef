"""Chapter 9, wrong on purpose: hand the question to a parent class instead of answering it.

What ``super().select_victims_on_node(...)`` answered when the skeleton
inherited from the reference plugin. Must fail: the skeleton stands alone,
and no parent of it chooses victims.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import skeleton_namespace

globals().update(skeleton_namespace("09_preemption"))
Skeleton: Any = globals()["DefaultPreemption"]
default_preemption_args_from: Any = globals()["default_preemption_args_from"]


class DefaultPreemption(Skeleton):  # type: ignore[misc]
    def select_victims_on_node(self, *args: Any) -> Any:
        return super(Skeleton, self).select_victims_on_node(*args)  # type: ignore[misc]


def new(args: Any, handle: Any) -> DefaultPreemption:
    return DefaultPreemption(handle, default_preemption_args_from(args))
