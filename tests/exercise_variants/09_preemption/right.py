"""Chapter 9 done right, on the skeleton's given helpers: must pass."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.exercise_variants import skeleton_namespace

globals().update(skeleton_namespace("09_preemption"))
Skeleton: Any = globals()["DefaultPreemption"]
Status: Any = globals()["Status"]
MSG_NO_VICTIMS: str = globals()["MSG_NO_VICTIMS"]
filter_pods_with_pdb_violation: Any = globals()["filter_pods_with_pdb_violation"]
default_preemption_args_from: Any = globals()["default_preemption_args_from"]


class DefaultPreemption(Skeleton):  # type: ignore[misc]
    # The rules a wrong variant may break, one each.
    sort_before_split = True  # sort by importance, then split by budget (hint 3)
    filter_only_with_victims = True  # no Filter call on a node without victims (hint 2)
    count_only_violating = True  # the count is of the violating group's victims (hint 4)
    sort_merged_victims = True  # victims most important first across both groups (hint 5)

    def select_victims_on_node(
        self, state: Any, pod: Any, node_info: Any, pdbs: Sequence[Any]
    ) -> tuple[list[Any], int, Any]:
        potential = [p for p in node_info.pods if self.is_preemption_allowed(node_info, p, pod)]
        if not potential:
            if not self.filter_only_with_victims:
                self.fits(state, pod, node_info)
            return [], 0, Status.unresolvable(MSG_NO_VICTIMS)
        for pod_info in potential:
            status = self.remove_from_node(state, pod, pod_info, node_info)
            if not status.is_success():
                return [], 0, status
        status = self.fits(state, pod, node_info)
        if not status.is_success():
            return [], 0, status
        order = self.importance()
        if self.sort_before_split:
            potential.sort(key=order)
            violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        else:
            violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
            violating.sort(key=order)
            non_violating.sort(key=order)
        victims: list[Any] = []
        num_violating = 0
        for group, counts in ((violating, True), (non_violating, False)):
            for pod_info in group:
                status = self.add_to_node(state, pod, pod_info, node_info)
                if not status.is_success():
                    return [], 0, status
                if not self.fits(state, pod, node_info).is_success():
                    status = self.remove_from_node(state, pod, pod_info, node_info)
                    if not status.is_success():
                        return [], 0, status
                    victims.append(pod_info)
                    num_violating += counts or not self.count_only_violating
        if self.sort_merged_victims:
            victims.sort(key=order)
        return [p.pod for p in victims], num_violating, Status.success()


def new(args: Any, handle: Any) -> DefaultPreemption:
    return DefaultPreemption(handle, default_preemption_args_from(args))
