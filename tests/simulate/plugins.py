"""Small out-of-tree plugins the simulator's tests register with ``plugins=``.

Each is the least that exercises one path of a run: a Permit plugin that
parks pods until a group is complete (concurrent binding cycles, Permit
timeouts), plugins that fail once or always (Error results, backoff on
simulated time), and a PreFilter that rejects (a PreFilter verdict for
every node).
"""

from __future__ import annotations

import threading
from typing import Any

from framework.status import Status

GROUP_LABEL = "test.example/group"


class WaitForGroup:
    """Permit: park each pod of a labelled group until ``size`` of them are parked, then allow all.

    The same shape as Coscheduling's Permit (scheduler-plugins
    ``pkg/coscheduling``), without PodGroups: the group size comes from the
    plugin's args.
    """

    def __init__(self, args: Any, handle: Any) -> None:
        args = args or {}
        self.size = int(args.get("size", 2))
        self.timeout = float(args.get("timeoutSeconds", 30))
        self.handle = handle
        self.lock = threading.Lock()

    def name(self) -> str:
        return "WaitForGroup"

    def permit(self, state: Any, pod: Any, node_name: str) -> tuple[Status, float]:
        group = pod.metadata.labels.get(GROUP_LABEL)
        if not group:
            return Status.success(), 0.0
        waiting = []
        self.handle.iterate_over_waiting_pods(
            lambda w: (
                waiting.append(w)
                if w.get_pod().metadata.labels.get(GROUP_LABEL) == group
                else None
            )
        )
        if len(waiting) + 1 >= self.size:
            for w in waiting:
                w.allow(self.name())
            return Status.success(), 0.0
        return Status.wait(f"waiting for {self.size} pods of group {group}"), self.timeout


class FailFirstAttempt:
    """PreFilter: an Error on each pod's first attempt, success afterwards."""

    def __init__(self, args: Any, handle: Any) -> None:
        self.seen: set[str] = set()

    def name(self) -> str:
        return "FailFirstAttempt"

    def pre_filter(self, state: Any, pod: Any, nodes: Any) -> tuple[None, Status]:
        if pod.metadata.uid in self.seen:
            return None, Status.success()
        self.seen.add(pod.metadata.uid)
        raise RuntimeError("the first attempt always fails")

    def pre_filter_extensions(self) -> None:
        return None


class AlwaysError:
    """PreFilter: raises on every attempt (a pod that can never be scheduled, nor given up)."""

    def __init__(self, args: Any, handle: Any) -> None:
        pass

    def name(self) -> str:
        return "AlwaysError"

    def pre_filter(self, state: Any, pod: Any, nodes: Any) -> tuple[None, Status]:
        raise RuntimeError("broken")

    def pre_filter_extensions(self) -> None:
        return None


class RejectLabelled:
    """PreFilter: pods labelled ``test.example/reject`` are Unschedulable everywhere."""

    def __init__(self, args: Any, handle: Any) -> None:
        pass

    def name(self) -> str:
        return "RejectLabelled"

    def pre_filter(self, state: Any, pod: Any, nodes: Any) -> tuple[None, Status]:
        if "test.example/reject" in pod.metadata.labels:
            return None, Status.unschedulable("the pod is labelled test.example/reject")
        return None, Status.success()

    def pre_filter_extensions(self) -> None:
        return None


PLUGINS = {
    "WaitForGroup": WaitForGroup,
    "FailFirstAttempt": FailFirstAttempt,
    "AlwaysError": AlwaysError,
    "RejectLabelled": RejectLabelled,
}
"""Name → factory (each class is its own ``new(args, handle)``)."""
