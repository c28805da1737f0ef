"""Chapter 5 exercise: a Permit plugin that holds the members of a pod group until it is complete.

PodGroupGate lets a pod group start all together or not at all. A pod joins
a group with the labels ``pod-group.example.com/name`` and
``pod-group.example.com/min-available``. Reserve (written for you) puts each
member in the plugin's book. You write the two methods that decide:

* :meth:`PodGroupGate.permit`: a member waits, for the timeout of the
  plugin's args, until ``min-available`` members of its group have a node;
  the member that completes the group allows its waiting siblings through
  the framework handle. A pod outside any group passes at once.
* :meth:`PodGroupGate.unreserve`: a member's attempt failed after Reserve;
  release its reservation (it may hold none) and reject every waiting
  sibling, so that the whole group gives its nodes back and tries again.

Then check them::

    python -m pytest chapters/05_reserve_permit --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/examples/podgroupgate.py``. Stuck?
``python -m framework hint 5`` shows the hints one at a time.
"""

from __future__ import annotations

from typing import Any

from framework.cycle_state import CycleState
from framework.interface import Handle, WaitingPod
from framework.objects import Pod
from framework.plugins.examples.podgroupgate import (
    DEFAULT_PERMIT_WAITING_TIME_SECONDS,
    GROUP_NAME_LABEL,
    MIN_AVAILABLE_LABEL,
    MSG_INVALID_MIN_AVAILABLE,
    MSG_MEMBER_UNRESERVED,
    MSG_WAITING,
    NAME,
    PodGroup,
    PodGroupGateArgs,
    ReservedMembers,
    assigned_members,
    in_group,
    pod_group,
)
from framework.status import Status

__all__ = [
    "DEFAULT_PERMIT_WAITING_TIME_SECONDS",
    "GROUP_NAME_LABEL",
    "MIN_AVAILABLE_LABEL",
    "MSG_INVALID_MIN_AVAILABLE",
    "MSG_MEMBER_UNRESERVED",
    "MSG_WAITING",
    "NAME",
    "PodGroup",
    "PodGroupGate",
    "PodGroupGateArgs",
    "WaitingPod",
    "in_group",
    "new",
    "pod_group",
]


class PodGroupGate:
    """Reserve, Permit and PostBind plugin: a pod group starts all together or not at all."""

    def __init__(self, args: PodGroupGateArgs, handle: Handle) -> None:
        self._args = args
        self._handle = handle
        self._book = ReservedMembers()

    def name(self) -> str:
        return NAME

    # Reserve: claim, the moment the pod is assumed on its node. (Given.)
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        group = pod_group(pod)
        if group is None:
            return None
        if group.min_available < 1:
            value = pod.metadata.labels.get(MIN_AVAILABLE_LABEL, "")
            return Status.unresolvable(
                MSG_INVALID_MIN_AVAILABLE.format(label=MIN_AVAILABLE_LABEL, value=value)
            )
        self._book.add(group.key, pod.metadata.uid)
        return None

    # Permit: the last gate of the scheduling cycle.
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """Allow the pod, or make it wait for its group; return ``(status, timeout in seconds)``.

        You have: ``pod_group(pod)``, ``self.members(group)`` (the uids of the
        group's members that have a node, this pod included: its Reserve ran
        just before), ``group.min_available``,
        ``self._args.permit_waiting_time_seconds``, the handle's
        ``iterate_over_waiting_pods``, and ``waiting.allow(NAME)``.
        """
        # TODO 1: a pod outside any group passes at once: (None, 0).
        # TODO 2: fewer members with a node than group.min_available? Wait:
        #         (Status.wait(reason), the args' timeout). Any reason will do;
        #         MSG_WAITING is there if you want one.
        # TODO 3: the group is complete: allow every other waiting member of the
        #         group through the handle, then let this pod pass: (None, 0).
        raise NotImplementedError(
            "chapter 5 exercise: write PodGroupGate.permit in "
            "chapters/05_reserve_permit/exercise.py (hints: python -m framework hint 5)"
        )

    # Unreserve: the attempt failed after Reserve (ours or another plugin's).
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Release ``pod``'s reservation and reject its waiting siblings.

        You have: ``pod_group(pod)`` (None outside any group; ``.key`` names
        the group), ``self._book.remove(group.key, uid)`` (False when the pod
        held nothing), ``self._handle.iterate_over_waiting_pods(callback)``
        (calls ``callback(waiting)`` for every pod parked at Permit),
        ``waiting.get_pod()``, ``in_group(pod, group)``, and
        ``waiting.reject(NAME, message)``.
        """
        # TODO 4: a pod outside any group: nothing to undo.
        # TODO 5: release the pod's reservation in the book. It may hold none
        #         (its Reserve never ran, or Unreserve runs a second time).
        # TODO 6: reject every *other* waiting member of the group, with
        #         MSG_MEMBER_UNRESERVED.format(pod=pod.name, group=group.key).
        raise NotImplementedError(
            "chapter 5 exercise: write PodGroupGate.unreserve in "
            "chapters/05_reserve_permit/exercise.py (hints: python -m framework hint 5)"
        )

    # PostBind: bound; the cluster keeps the record from now on. (Given.)
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        group = pod_group(pod)
        if group is not None:
            self._book.remove(group.key, pod.metadata.uid)

    def members(self, group: PodGroup) -> frozenset[str]:
        """The uids of the group's members that have a node: reserved in the book, or in the snapshot."""
        snapshot = self._handle.snapshot_shared_lister()
        return self._book.members(group.key) | assigned_members(snapshot, group)

    def reserved(self) -> dict[str, frozenset[str]]:
        """The book, group by group (for tests and the curious)."""
        return {key: self._book.members(key) for key in self._book.groups()}


def new(args: Any, handle: Any) -> PodGroupGate:
    """The factory the registry calls: ``with_plugin(NAME, new)``."""
    return PodGroupGate(PodGroupGateArgs.from_config(args), handle)
