"""Chapter 10, wrong on purpose: hand Permit to a parent class (``super()``).

Before the skeleton stood alone (it built on the reference's classes), this
passed every test. Must fail: no parent of the skeleton's classes answers.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import skeleton_namespace

globals().update(skeleton_namespace("10_coscheduling"))
Manager: Any = globals()["PodGroupManager"]
Plugin: Any = globals()["Coscheduling"]


class PodGroupManager(Manager):  # type: ignore[misc]
    def permit(self, state: Any, pod: Any) -> Any:
        return super(Manager, self).permit(state, pod)


class Coscheduling(Plugin):  # type: ignore[misc]
    def permit(self, state: Any, pod: Any, node_name: str) -> Any:
        return super(Plugin, self).permit(state, pod, node_name)


_coscheduling_args_from: Any = globals()["coscheduling_args_from"]


def new(args: Any, handle: Any) -> Coscheduling:
    decoded = _coscheduling_args_from(args)
    manager = PodGroupManager(
        handle.client() if handle is not None else None,
        (lambda: handle.snapshot_shared_lister()) if handle is not None else (lambda: None),
        float(decoded.permit_waiting_time_seconds),
        clock=handle.clock() if handle is not None else None,
    )
    return Coscheduling(decoded, handle, manager)
