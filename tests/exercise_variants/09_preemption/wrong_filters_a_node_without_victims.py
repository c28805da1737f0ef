"""Chapter 9, wrong on purpose:

call Filter on a node with no potential victim (hint 2: the dry run counts Filter calls, and
such a node costs none). Must fail.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("09_preemption", "right"))
Right: Any = globals()["DefaultPreemption"]
default_preemption_args_from: Any = globals()["default_preemption_args_from"]


class DefaultPreemption(Right):  # type: ignore[misc]
    filter_only_with_victims = False


def new(args: Any, handle: Any) -> DefaultPreemption:
    return DefaultPreemption(handle, default_preemption_args_from(args))
