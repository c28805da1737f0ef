"""Chapter 5 done right: Permit holds a pod group until it is complete. Must pass.

:func:`make` builds the module's names; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import skeleton_namespace


def make(
    *,
    wait_at_min_available: bool = False,
    siblings_by_name_only: bool = False,
    reject_only_when_reserved: bool = False,
    message_names_the_sibling: bool = False,
) -> dict[str, Any]:
    given = skeleton_namespace("05_reserve_permit")
    skeleton: Any = given["PodGroupGate"]
    pod_group: Any = given["pod_group"]
    in_group: Any = given["in_group"]
    status: Any = given["Status"]
    name: str = given["NAME"]
    unreserved: str = given["MSG_MEMBER_UNRESERVED"]
    group_name_label: str = given["GROUP_NAME_LABEL"]

    class PodGroupGate(skeleton):  # type: ignore[misc,valid-type]
        def _siblings(self, group: Any, pod: Any) -> list[Any]:
            found: list[Any] = []

            def collect(waiting: Any) -> None:
                other = waiting.get_pod()
                if siblings_by_name_only:
                    member = other.metadata.labels.get(group_name_label) == group.name
                else:
                    member = in_group(other, group)
                if member and other.metadata.uid != pod.metadata.uid:
                    found.append(waiting)

            self._handle.iterate_over_waiting_pods(collect)
            return found

        def permit(self, state: Any, pod: Any, node_name: str) -> tuple[Any, float]:
            group = pod_group(pod)
            if group is None:
                return None, 0
            have = len(self.members(group))
            short = (
                have <= group.min_available
                if wait_at_min_available
                else (have < group.min_available)
            )
            if short:
                return status.wait("waiting for the group"), self._args.permit_waiting_time_seconds
            for waiting in self._siblings(group, pod):
                waiting.allow(name)
            return None, 0

        def unreserve(self, state: Any, pod: Any, node_name: str) -> None:
            group = pod_group(pod)
            if group is None:
                return
            held = self._book.remove(group.key, pod.metadata.uid)
            if reject_only_when_reserved and not held:
                return
            for waiting in self._siblings(group, pod):
                who = waiting.get_pod().name if message_names_the_sibling else pod.name
                waiting.reject(name, unreserved.format(pod=who, group=group.key))

    def new(args: Any, handle: Any) -> Any:
        return PodGroupGate(given["PodGroupGateArgs"].from_config(args), handle)

    return {**given, "PodGroupGate": PodGroupGate, "new": new}


globals().update(make())
