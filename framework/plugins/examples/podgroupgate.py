"""PodGroupGate: the members of a pod group wait at Permit until enough of them have a node.

Some workloads are useless in part: a training job with four workers makes
no progress with three, yet those three hold their nodes while they wait for
the fourth. A *gang* plugin lets such a group start all together or not at
all. A pod joins a group with two labels::

    pod-group.example.com/name: train           # the group, within the namespace
    pod-group.example.com/min-available: "4"    # how many members must have a node

Each member is scheduled on its own, as usual, up to Permit. There the
plugin counts the group's members that have a node — waiting at Permit,
binding, or bound — and the pod **waits** until they are
``min-available``, for at most ``permitWaitingTimeSeconds`` (default 30 s;
the framework caps every Permit wait at 15 minutes). The member that
completes the group is allowed at once, and it **allows its waiting
siblings** through the framework handle, so that their binding cycles go on
together. A pod without the name label is none of the plugin's business
and passes at once.

The count comes from two places. The plugin's own **book** holds the
members that passed Reserve and have not reached the end of their attempt:
Reserve adds a member, Unreserve removes it when the attempt fails, PostBind
when it succeeds. From then on the cluster remembers the member better than
the plugin could — the cycle's snapshot lists every pod bound or assumed on
a node, and forgets it when it is deleted — so the book lets it go. The
union of the two, by uid, is the group's members with a node. (Neither is
enough alone: the snapshot was taken at the start of the cycle, before the
pod in hand was assumed; the book forgets bound members on purpose.)

When a member's attempt fails after Reserve — it was rejected at Permit,
timed out, or its binding failed — Unreserve also **rejects every waiting
sibling**: a group that just lost a member cannot complete within the
siblings' wait, and they should give their nodes back now rather than at
their timeout. Then they all return to the queue and try again together.

Contract, as the framework requires it:

* Reserve claims, Unreserve releases; Unreserve may run for a pod whose
  Reserve never ran, and more than once, so the book is a set of uids
  (removing what is not there does nothing) rather than a counter.
* Reserve and Permit run on the scheduling loop's thread, Unreserve and
  PostBind on binding workers, concurrently: the book takes a lock.
* A pod with the name label but without a positive integer
  ``min-available`` is refused at Reserve, ``UnschedulableAndUnresolvable``:
  only an update of the pod can fix it.

Not a Kubernetes plugin, and not a port: an example written for this book.
It follows the shape of the first, label-based Coscheduling plugin of
``kubernetes-sigs/scheduler-plugins`` (2020, ``pkg/coscheduling/coscheduling.go``:
labels ``pod-group.scheduling.sigs.k8s.io/name`` and ``.../min-available``,
wait at Permit, allow the siblings, reject them in Unreserve), whose current
version reads a ``PodGroup`` object instead of labels and counts the members
from the snapshot alone. Simplified: no PreFilter that turns away a group
too small to ever complete, no activation of the waiting members' siblings
(``PodsToActivate``), no backoff of a whole group.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
    "ReservedMembers",
    "assigned_members",
    "in_group",
    "new",
    "pod_group",
]

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
    """The group ``pod`` belongs to, or None for a pod without the name label.

    >>> p = Pod.from_dict({"metadata": {"name": "w0", "namespace": "ml", "labels": {
    ...     GROUP_NAME_LABEL: "train", MIN_AVAILABLE_LABEL: "4"}}})
    >>> pod_group(p)
    PodGroup(namespace='ml', name='train', min_available=4)
    >>> pod_group(p).key
    'ml/train'
    """
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

    >>> book = ReservedMembers()
    >>> book.add("ml/train", "uid-1"); book.add("ml/train", "uid-1")
    >>> book.members("ml/train")
    frozenset({'uid-1'})
    >>> book.remove("ml/train", "uid-1"), book.remove("ml/train", "uid-1")
    (True, False)
    >>> book.groups()
    []
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


# --- the plugin ----------------------------------------------------------------------------------


class PodGroupGate:
    """Reserve, Permit and PostBind plugin: a pod group starts all together or not at all."""

    def __init__(self, args: PodGroupGateArgs, handle: Handle) -> None:
        self._args = args
        self._handle = handle
        self._book = ReservedMembers()

    def name(self) -> str:
        return NAME

    # Reserve: claim, the moment the pod is assumed on its node.
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
        group = pod_group(pod)
        if group is None:
            return None, 0
        have = len(self.members(group))
        if have < group.min_available:
            reason = MSG_WAITING.format(
                group=group.key, members=have, min_available=group.min_available
            )
            return Status.wait(reason), self._args.permit_waiting_time_seconds
        for waiting in self._waiting_siblings(group, pod):
            waiting.allow(NAME)
        return None, 0

    # Unreserve: the attempt failed after Reserve (ours or another plugin's).
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        group = pod_group(pod)
        if group is None:
            return
        self._book.remove(group.key, pod.metadata.uid)
        message = MSG_MEMBER_UNRESERVED.format(pod=pod.name, group=group.key)
        for waiting in self._waiting_siblings(group, pod):
            waiting.reject(NAME, message)

    # PostBind: bound; the cluster keeps the record from now on.
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

    def _waiting_siblings(self, group: PodGroup, pod: Pod) -> list[WaitingPod]:
        """The pods of ``group``, other than ``pod``, parked at Permit right now."""
        found: list[WaitingPod] = []

        def collect(waiting: WaitingPod) -> None:
            other = waiting.get_pod()
            if in_group(other, group) and other.metadata.uid != pod.metadata.uid:
                found.append(waiting)

        self._handle.iterate_over_waiting_pods(collect)
        return found


def new(args: Any, handle: Any) -> PodGroupGate:
    """The factory the registry calls: ``with_plugin(NAME, new)``."""
    return PodGroupGate(PodGroupGateArgs.from_config(args), handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _reserve: type[interface.ReservePlugin] = PodGroupGate
    _permit: type[interface.PermitPlugin] = PodGroupGate
    _post_bind: type[interface.PostBindPlugin] = PodGroupGate
