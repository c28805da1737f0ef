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

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.cycle_state import CycleState
from framework.interface import Handle, WaitingPod
from framework.objects import Pod
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

# --- given: the group's labels, its args, and the plugin's book of reservations ------------------

NAME = "PodGroupGate"
GROUP_NAME_LABEL = "pod-group.example.com/name"
MIN_AVAILABLE_LABEL = "pod-group.example.com/min-available"
DEFAULT_PERMIT_WAITING_TIME_SECONDS = 30

MSG_WAITING = "waiting for pod group {group}: {members} of {min_available} members have a node"
"""The reason of Permit's ``Wait`` (the framework shows its own message instead)."""
MSG_MEMBER_UNRESERVED = "member {pod} of pod group {group} was unreserved"
"""Why Unreserve rejects the waiting siblings of a member whose attempt failed."""
MSG_INVALID_MIN_AVAILABLE = 'label {label} must be a positive integer, got "{value}"'
"""Why Reserve refuses a pod of a group without a usable size."""


# --- the plugin's args ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PodGroupGateArgs:
    """``pluginConfig`` args: how long a member may wait at Permit for its group.

    In a profile::

        pluginConfig:
        - name: PodGroupGate
          args: {permitWaitingTimeSeconds: 60}
    """

    permit_waiting_time_seconds: int = DEFAULT_PERMIT_WAITING_TIME_SECONDS

    @classmethod
    def from_config(cls, args: Any) -> PodGroupGateArgs:
        """The args from a profile's ``pluginConfig`` (None, a mapping, or already args).

        Every problem is reported at once, with its field and value, as
        kube-scheduler's args validation does.
        """
        if args is None:
            return cls()
        if isinstance(args, cls):
            return args
        if not isinstance(args, Mapping):
            raise ValueError(
                f"{NAME}Args: want a mapping such as {{permitWaitingTimeSeconds: 30}}, "
                f"got {type(args).__name__}"
            )
        problems = [
            f'{NAME}Args: unknown field "{key}"'
            for key in args
            if key not in ("permitWaitingTimeSeconds", "apiVersion", "kind")
        ]
        seconds = args.get("permitWaitingTimeSeconds", DEFAULT_PERMIT_WAITING_TIME_SECONDS)
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
            problems.append(
                f"permitWaitingTimeSeconds: Invalid value: {seconds!r}: "
                "must be a whole number of seconds greater than 0"
            )
        if problems:
            raise ValueError("; ".join(problems))
        return cls(permit_waiting_time_seconds=seconds)


# --- which group a pod belongs to ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PodGroup:
    """A pod group as a pod's labels name it; groups are namespaced.

    ``min_available`` is 0 when the label is missing or is not a positive
    integer (Reserve refuses such a pod).
    """

    namespace: str
    name: str
    min_available: int

    @property
    def key(self) -> str:
        """``namespace/name``: what identifies the group."""
        return f"{self.namespace}/{self.name}"


def pod_group(pod: Pod) -> PodGroup | None:
    """The group ``pod`` belongs to, or None for a pod without the name label."""
    labels = pod.metadata.labels
    name = labels.get(GROUP_NAME_LABEL, "")
    if not name:
        return None
    raw = labels.get(MIN_AVAILABLE_LABEL, "")
    min_available = int(raw) if raw.isascii() and raw.isdigit() else 0
    return PodGroup(pod.namespace, name, min_available)


def in_group(pod: Pod, group: PodGroup) -> bool:
    """Whether ``pod`` is a member of ``group`` (same namespace, same group name)."""
    return (
        pod.namespace == group.namespace
        and pod.metadata.labels.get(GROUP_NAME_LABEL) == group.name
    )


def assigned_members(snapshot: Any, group: PodGroup) -> frozenset[str]:
    """The uids of the group's pods that the cycle's snapshot has on a node (bound or assumed).

    ``snapshot`` is what ``handle.snapshot_shared_lister()`` returns; outside
    a scheduling cycle (None) no member is known to be there.
    """
    if snapshot is None:
        return frozenset()
    return frozenset(
        info.pod.metadata.uid
        for node_info in snapshot.node_infos().list()
        for info in node_info.pods
        if in_group(info.pod, group)
    )


# --- the book ------------------------------------------------------------------------------------


class ReservedMembers:
    """The plugin's book: per group, the uids of the members that hold a reservation.

    A set per group, so that adding twice counts once and removing what is
    not there does nothing: exactly what an idempotent Unreserve needs.
    Thread-safe (Unreserve and PostBind run on binding workers).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._members: dict[str, set[str]] = {}

    def add(self, group_key: str, uid: str) -> None:
        with self._lock:
            self._members.setdefault(group_key, set()).add(uid)

    def remove(self, group_key: str, uid: str) -> bool:
        """Release one member's reservation; False if it held none."""
        with self._lock:
            members = self._members.get(group_key)
            if members is None or uid not in members:
                return False
            members.remove(uid)
            if not members:
                del self._members[group_key]  # an empty group leaves nothing behind
            return True

    def members(self, group_key: str) -> frozenset[str]:
        with self._lock:
            return frozenset(self._members.get(group_key, ()))

    def groups(self) -> list[str]:
        """The groups with at least one reservation, sorted."""
        with self._lock:
            return sorted(self._members)


# --- the plugin: Permit and Unreserve are yours ------------------------------------------------------


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
