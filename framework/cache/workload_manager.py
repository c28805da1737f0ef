"""Who belongs to which gang, and where each member stands: the scheduler's workload manager.

GangScheduling asks, at PreEnqueue and at Permit, how many pods its gang has
and how many of them are assumed or bound; the PodGroup scheduling cycle asks
which members are still unscheduled. The answers are kept here, fed by the
scheduler's pod event handlers (every add, update and delete of an
unfinished pod, before the cache or the queue sees it), so no question
reaches the API server: one dict lookup and a copy of the gang's few members.

For each gang, as Go's ``podGroupInfo``: all its pods by UID, which of them
are *assumed* (passed Reserve, waiting at Permit; the plugin says so), which
are *assigned* (bound: the pod arrived with a node), and the gang's
scheduling deadline. A pod that gets its node leaves the assumed set; a pod
deleted leaves every set, and a gang with no pod left is dropped.

Mirrors ``workloadManager`` (``AddPod``, ``UpdatePod``, ``DeletePod``,
``PodGroupInfo``) and ``podGroupInfo`` with ``DefaultSchedulingTimeoutDuration``
(5 minutes) in ``kubernetes/kubernetes:pkg/scheduler/backend/workloadmanager``
(v1.35-era copies: workloadmanager.go index id 316871942, podgroupinfo.go
index id 53995250428), fed as ``addPod``, ``updatePod`` and ``deletePod`` in
``pkg/scheduler/eventhandlers.go`` feed it (v1.35-era copy, index id 510693257).
From v1.36 Go keeps the same state in the cache (``Cache.PodGroupStates()``,
read by ``podGroupInfoForPod`` and by the plugin's ``PodGroupManager``); here
one manager serves every release, keyed by :func:`pod_group_key` (the whole
``workloadRef`` in v1.35, the PodGroup's name from v1.36). Simplified: a gang
unknown to the manager reads as empty (Go's ``PodGroupInfo`` returns an
error there, which fails the pod's attempt; PreEnqueue's answer is the same).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from framework.clock import Clock
from framework.objects import Pod
from framework.objects.workload import pod_group_key

__all__ = ["DEFAULT_SCHEDULING_TIMEOUT_SECONDS", "GroupKey", "GroupState", "WorkloadManager"]

DEFAULT_SCHEDULING_TIMEOUT_SECONDS = 5 * 60.0
"""How long members wait at Permit for the quorum (``DefaultSchedulingTimeoutDuration``)."""

GroupKey = tuple[str, ...]


@dataclass
class GroupState:
    """One gang as the plugin sees it at one moment (``podGroupInfo``): its pods, the assumed ones."""

    all_pods: dict[str, Pod] = field(default_factory=dict)
    assumed: set[str] = field(default_factory=set)
    deadline: float | None = None

    def assigned(self) -> set[str]:
        return {uid for uid, pod in self.all_pods.items() if pod.spec.node_name}

    def unscheduled(self) -> list[Pod]:
        """Members neither assumed nor bound (``UnscheduledPods``), in name order."""
        taken = self.assumed | self.assigned()
        return sorted(
            (p for uid, p in self.all_pods.items() if uid not in taken), key=lambda p: p.name
        )

    def scheduled_count(self) -> int:
        """Assumed or bound members (``ScheduledPodsCount``; v1.35: assumed ∪ assigned)."""
        return len((self.assumed & set(self.all_pods)) | self.assigned())


def _uid(pod: Pod) -> str:
    return pod.metadata.uid or pod.key


class WorkloadManager:
    """The gangs' members and their state, kept from the pod informer's events."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._pods: dict[GroupKey, dict[str, Pod]] = {}
        self._assumed: dict[GroupKey, set[str]] = {}
        self._deadlines: dict[GroupKey, float] = {}

    def __len__(self) -> int:
        """How many gangs have a pod (Go's tests read ``len(podGroupInfos)``)."""
        with self._lock:
            return len(self._pods)

    # --- fed by the scheduler's pod event handlers ------------------------------------------------

    def add_pod(self, pod: Pod) -> None:
        key = pod_group_key(pod)
        if key is None:
            return
        with self._lock:
            self._pods.setdefault(key, {})[_uid(pod)] = pod

    def update_pod(self, old: Pod, new: Pod) -> None:
        """The member's latest version; once it has a node it is assigned, no longer assumed."""
        key = pod_group_key(new)
        if key is None:
            return
        uid = _uid(new)
        with self._lock:
            self._pods.setdefault(key, {})[uid] = new
            if new.spec.node_name and not old.spec.node_name:
                self._assumed.get(key, set()).discard(uid)

    def delete_pod(self, pod: Pod) -> None:
        key = pod_group_key(pod)
        if key is None:
            return
        uid = _uid(pod)
        with self._lock:
            members = self._pods.get(key, {})
            members.pop(uid, None)
            self._assumed.get(key, set()).discard(uid)
            if not members:  # the gang's last pod is gone: so is its state
                self._pods.pop(key, None)
                self._assumed.pop(key, None)
                self._deadlines.pop(key, None)

    # --- read and marked by GangScheduling and the PodGroup cycle ---------------------------------

    def state(self, key: GroupKey) -> GroupState:
        """A copy of the gang's state: its pods, the assumed ones, its deadline."""
        with self._lock:
            pods = dict(self._pods.get(key, {}))
            assumed = self._assumed.get(key, set()) & set(pods)
            return GroupState(pods, assumed, self._deadlines.get(key))

    def assume_pod(self, key: GroupKey, uid: str) -> None:
        with self._lock:
            self._assumed.setdefault(key, set()).add(uid)

    def forget_pod(self, key: GroupKey, uid: str) -> None:
        with self._lock:
            self._assumed.get(key, set()).discard(uid)

    def assumed_pods(self, key: GroupKey) -> set[str]:
        with self._lock:
            return set(self._assumed.get(key, ()))

    def scheduling_timeout(self, key: GroupKey) -> float:
        """Seconds left until the gang's deadline, a new one when none or the last has passed."""
        now = float(self._clock.now())
        with self._lock:
            deadline = self._deadlines.get(key)
            # Go's Before(now) is strict; a simulated clock lands exactly on the deadline, where
            # a zero timeout would reject every new member at once, so "not after now" renews it.
            if deadline is None or deadline <= now:
                deadline = now + DEFAULT_SCHEDULING_TIMEOUT_SECONDS
                self._deadlines[key] = deadline
            return deadline - now
