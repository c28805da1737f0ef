"""Chapter 10 exercise: Coscheduling's Permit, where a gang is let through together.

The rest of the plugin is given (QueueSort, PreFilter, PostFilter,
Reserve/Unreserve, the PodGroupManager's book and checks): the classes below
build on the reference's, whose own Permit is masked, so neither deleting
yours nor calling ``super().permit`` passes. You write the two
halves of the decision a member meets at Permit:

* :meth:`PodGroupManager.permit`: count the member among its group's
  assigned members and say ``SUCCESS`` (the quorum is there), ``WAIT``
  (not yet), ``POD_GROUP_NOT_SPECIFIED`` (no group) or
  ``POD_GROUP_NOT_FOUND`` (its PodGroup does not exist). The group's first
  member to wait also asks for its siblings to be activated.
* :meth:`Coscheduling.permit`: turn that answer into the framework's
  ``(status, seconds)``: pass, reject, or wait for the right time; the
  member that completes the quorum allows its waiting siblings, a member
  that waits brings its siblings to activeQ.

Then check them::

    python -m pytest chapters/10_coscheduling --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/coscheduling/``. Stuck?
``python -m framework hint 10`` shows the hints one at a time.
"""

from __future__ import annotations

from typing import Any

from framework.config.args_coscheduling import coscheduling_args_from
from framework.cycle_state import CycleState
from framework.objects import Pod
from framework.objects.podgroup import pod_group_full_name
from framework.plugins.coscheduling import core
from framework.plugins.coscheduling import coscheduling as reference
from framework.plugins.coscheduling.core import (
    DEFAULT_WAIT_TIME,
    PERMIT_STATE_KEY,
    PermitState,
    PermitStatus,
    get_wait_time_duration,
)
from framework.plugins.coscheduling.coscheduling import MSG_POD_GROUP_NOT_FOUND, NAME
from framework.status import Status as FrameworkStatus

__all__ = [
    "DEFAULT_WAIT_TIME",
    "MSG_POD_GROUP_NOT_FOUND",
    "NAME",
    "PERMIT_STATE_KEY",
    "Coscheduling",
    "PermitState",
    "PermitStatus",
    "PodGroupManager",
    "get_wait_time_duration",
    "new",
    "pod_group_full_name",
]


class _GivenManager(core.PodGroupManager):
    """The reference manager with its Permit masked: the answer is not inherited."""

    permit = None


class _GivenCoscheduling(reference.Coscheduling):
    """The reference plugin with its Permit masked: the answer is not inherited."""

    permit = None


class PodGroupManager(_GivenManager):
    """The reference manager, but for its Permit, which you write."""

    def permit(self, state: CycleState, pod: Pod) -> PermitStatus:
        """Count ``pod`` among its group's assigned members; return the manager's decision.

        You have: ``self.sync()`` (apply the pod informer's news first),
        ``self.get_pod_group(pod)`` (``("", None)`` for a pod in no group,
        ``(full_name, None)`` when its PodGroup does not exist, else
        ``(full_name, pg)``), ``pg.spec.quorum`` (``minMember``),
        ``self._assigned_pods_by_pg`` (group full name -> set of pod names)
        under ``with self._lock:``, and ``state.write(PERMIT_STATE_KEY,
        PermitState(activate=True))``.
        """
        # TODO 1: apply the informer's news, then find the pod's group. No group:
        #         POD_GROUP_NOT_SPECIFIED. A group without a PodGroup: POD_GROUP_NOT_FOUND.
        # TODO 2: add the pod's *name* to its group's assigned members (create the set
        #         if needed) and count them, all under the lock.
        # TODO 3: at least minMember: SUCCESS. Otherwise WAIT; and if the pod is the
        #         only one counted, write PermitState(activate=True) under PERMIT_STATE_KEY.
        raise NotImplementedError(
            "chapter 10 exercise: write PodGroupManager.permit in "
            "chapters/10_coscheduling/exercise.py (hints: python -m framework hint 10)"
        )


class Coscheduling(_GivenCoscheduling):
    """The reference plugin, but for its Permit, which you write."""

    def permit(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[FrameworkStatus | None, float]:
        """Let the quorum through together: return ``(status, seconds to wait)``.

        You have: ``self.pg_mgr.permit(state, pod)`` (your method above),
        ``self.schedule_timeout`` (``permitWaitingTimeSeconds``),
        ``self.pg_mgr.get_pod_group(pod)``, ``get_wait_time_duration(pg,
        self.schedule_timeout)``, ``self.pg_mgr.activate_siblings(pod,
        state)``, ``self._waiting_pods()`` (every pod parked at Permit),
        ``pod_group_full_name(pod)`` and ``waiting.allow(NAME)``.
        """
        # TODO 4: not in a group: (FrameworkStatus.success(), 0).
        #         PodGroup not found: (FrameworkStatus.unschedulable(MSG_POD_GROUP_NOT_FOUND), 0).
        # TODO 5: WAIT: the wait is get_wait_time_duration(pg, self.schedule_timeout), unless
        #         that is 0 (then self.schedule_timeout). Activate the siblings, and return
        #         (FrameworkStatus.wait(), the wait).
        # TODO 6: SUCCESS: allow every waiting pod of the same group (same full name), then
        #         (FrameworkStatus.success(), 0).
        raise NotImplementedError(
            "chapter 10 exercise: write Coscheduling.permit in "
            "chapters/10_coscheduling/exercise.py (hints: python -m framework hint 10)"
        )


def new(args: Any, handle: Any) -> Coscheduling:
    """The factory the registry calls: the plugin with your manager. (Given.)"""
    decoded = coscheduling_args_from(args)
    manager = PodGroupManager(
        handle.client() if handle is not None else None,
        (lambda: handle.snapshot_shared_lister()) if handle is not None else (lambda: None),
        float(decoded.permit_waiting_time_seconds),
        clock=handle.clock() if handle is not None else None,
    )
    return Coscheduling(decoded, handle, manager)
