"""Chapter 10 done right, on the skeleton's given classes: must pass."""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import skeleton_namespace

globals().update(skeleton_namespace("10_coscheduling"))
Manager: Any = globals()["PodGroupManager"]
Plugin: Any = globals()["Coscheduling"]
PermitStatus: Any = globals()["PermitStatus"]
PermitState: Any = globals()["PermitState"]
PERMIT_STATE_KEY: str = globals()["PERMIT_STATE_KEY"]
FrameworkStatus: Any = globals()["FrameworkStatus"]
MSG_POD_GROUP_NOT_FOUND: str = globals()["MSG_POD_GROUP_NOT_FOUND"]
NAME: str = globals()["NAME"]
get_wait_time_duration: Any = globals()["get_wait_time_duration"]
pod_group_full_name: Any = globals()["pod_group_full_name"]
_coscheduling_args_from: Any = globals()["coscheduling_args_from"]


class PodGroupManager(Manager):  # type: ignore[misc]
    def permit(self, state: Any, pod: Any) -> Any:
        self.sync()
        full_name, pg = self.get_pod_group(pod)
        if not full_name:
            return PermitStatus.POD_GROUP_NOT_SPECIFIED
        if pg is None:
            return PermitStatus.POD_GROUP_NOT_FOUND
        with self._lock:
            assigned = self._assigned_pods_by_pg.setdefault(full_name, set())
            assigned.add(pod.name)
            count = len(assigned)
        if count >= pg.spec.quorum:
            return PermitStatus.SUCCESS
        if count == 1:
            state.write(PERMIT_STATE_KEY, PermitState(activate=True))
        return PermitStatus.WAIT


class Coscheduling(Plugin):  # type: ignore[misc]
    def permit(self, state: Any, pod: Any, node_name: str) -> tuple[Any, float]:
        decision = self.pg_mgr.permit(state, pod)
        if decision is PermitStatus.POD_GROUP_NOT_SPECIFIED:
            return FrameworkStatus.success(), 0
        if decision is PermitStatus.POD_GROUP_NOT_FOUND:
            return FrameworkStatus.unschedulable(MSG_POD_GROUP_NOT_FOUND), 0
        if decision is PermitStatus.WAIT:
            _, pg = self.pg_mgr.get_pod_group(pod)
            wait = get_wait_time_duration(pg, self.schedule_timeout) or self.schedule_timeout
            self.pg_mgr.activate_siblings(pod, state)
            return FrameworkStatus.wait(), wait
        full_name = pod_group_full_name(pod)
        for waiting in self._waiting_pods():
            if pod_group_full_name(waiting.get_pod()) == full_name:
                waiting.allow(NAME)
        return FrameworkStatus.success(), 0


def new(args: Any, handle: Any) -> Coscheduling:
    decoded = _coscheduling_args_from(args)
    manager = PodGroupManager(
        handle.client() if handle is not None else None,
        (lambda: handle.snapshot_shared_lister()) if handle is not None else (lambda: None),
        float(decoded.permit_waiting_time_seconds),
        clock=handle.clock() if handle is not None else None,
    )
    return Coscheduling(decoded, handle, manager)
