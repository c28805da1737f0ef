"""The contract between the framework and its plugins: one Protocol per extension point.

A plugin is any object with a ``name()``; it joins an extension point by
having that point's method(s). The framework finds out which points a plugin
implements the way Go does with interface assertions: here,
``isinstance(plugin, FilterPlugin)`` on these ``runtime_checkable``
Protocols. Configuration then decides at which of those points the plugin
is *enabled*.

The points are listed in the order a pod meets them. Each docstring says
when the point runs, which status codes it may return and what the
framework does with each, and the rules a plugin must not break.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/interface.go``
(v1.33). Python manners: ``PreEnqueue`` is ``pre_enqueue``; Go's
``context.Context`` argument is dropped (cancellation is the framework's
business here); a plugin may return ``None`` for success, as Go plugins
return a nil ``*Status``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from framework.cluster_event import ClusterEventWithHint
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.status import Code, Status
from framework.types import NominatingInfo, PodInfo, QueuedPodInfo

__all__ = [
    "MAX_NODE_SCORE",
    "MAX_TOTAL_SCORE",
    "MIN_NODE_SCORE",
    "BindPlugin",
    "Diagnosis",
    "EnqueueExtensions",
    "FilterPlugin",
    "FitError",
    "Handle",
    "NodeInfoLister",
    "NodePluginScores",
    "NodeScore",
    "NodeToStatus",
    "PermitPlugin",
    "Plugin",
    "PluginScore",
    "PodActivator",
    "PodNominator",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
    "SharedLister",
    "SignFragment",
    "SignPlugin",
    "WaitingPod",
]

MAX_NODE_SCORE = 100
"""The highest score a Score plugin may give a node, after normalising."""
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1
"""``math.MaxInt64``: the sum of weighted scores must fit below it."""


@runtime_checkable
class Plugin(Protocol):
    """Every plugin has a name, unique in the registry: the name configuration uses."""

    def name(self) -> str: ...


@dataclass(frozen=True, slots=True)
class SignFragment:
    """One plugin's part of a pod's scheduling signature: a signer name and a JSON-encodable value.

    The signer names are in :mod:`framework.runtime.signature`; two plugins
    that read the same pod fields use the same name and the same value.
    """

    key: str
    value: Any


@runtime_checkable
class SignPlugin(Plugin, Protocol):
    """Says which parts of a pod its Filter and Score answers depend on (KEP-5598, v1.35).

    Called once per scheduling cycle, after PreFilter, when the
    ``OpportunisticBatching`` gate is on. Return the fragments (or none) and
    success; or a non-success status when the answers for this pod depend on
    more than the pod and one node (other pods' placement, say): the pod is
    then *unsignable* and its cycle reuses nothing. If any PreFilter,
    Filter, PreScore or Score plugin of a profile lacks ``sign_pod``, no pod
    of that profile is ever signed (``computeBatchablePlugins``).
    The fragments must be the same for two pods exactly when every
    Filter verdict and score would be: a field left out is a wrong placement.
    """

    def sign_pod(self, pod: Pod) -> tuple[Sequence[SignFragment] | None, Status | None]: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Decides whether a pod may enter the active queue at all.

    Runs when a pod is added to the queue or moved back into activeQ. If any
    PreEnqueue plugin returns anything but success, the pod is parked among
    the unschedulable pods ("gated") and that plugin becomes its gating
    plugin; only events the gating plugin registered re-examine it. Must be
    cheap: it runs inside event handlers. Example: ``SchedulingGates``.
    """

    def pre_enqueue(self, pod: Pod) -> Status | None: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    """Orders the pods waiting in activeQ: ``less(a, b)`` is true when ``a`` goes first.

    Exactly one QueueSort plugin is enabled per profile, and every profile
    must use the same one, because all profiles share one queue and a heap
    has exactly one order. ``less`` must be a strict weak ordering (never
    true both ways), or the heap's order is undefined.
    """

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


@runtime_checkable
class EnqueueExtensions(Protocol):
    """Which cluster events can make a pod this plugin rejected schedulable again.

    Consulted for plugins at PreEnqueue, PreFilter, Filter, Reserve and
    Permit. A plugin at those points that does not implement this is
    assumed to be helped by *every* event. Returning an event with a
    queueing hint lets the plugin decide, per pod and per change, whether
    the change really helps (``QUEUE``) or not (``QUEUE_SKIP``).
    """

    def events_to_register(self) -> list[ClusterEventWithHint]: ...


# --- results the points exchange ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """The nodes a PreFilter plugin already knows are the only candidates (None: all nodes).

    ``NodeName`` returns ``{spec.nodeName}``; NodeAffinity may return the
    nodes a ``metadata.name`` field selector names. Results of several
    plugins are intersected.
    """

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """The intersection; a result that allows all nodes is the identity."""
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        assert self.node_names is not None and other.node_names is not None
        return PreFilterResult(self.node_names & other.node_names)


class NodeToStatus:
    """Why each node was rejected: explicit statuses, and one status for every node not listed.

    After PreFilter rejects a pod, no node has an explicit status and the
    *absent* status (the PreFilter's) stands for all of them; nodes a
    PreFilterResult ruled out get ``UnschedulableAndUnresolvable`` so that
    preemption leaves them alone.
    """

    __slots__ = ("_absent", "_counts", "_statuses")

    def __init__(self, absent: Status | None = None) -> None:
        self._statuses: dict[str, Status] = {}
        self._absent = absent or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        self._counts: list[tuple[Status, int]] | None = None

    def get(self, node_name: str) -> Status:
        return self._statuses.get(node_name, self._absent)

    def set(self, node_name: str, status: Status) -> None:
        self._statuses[node_name] = status
        self._counts = None

    def set_each(
        self,
        node_names: Iterable[str],
        statuses: Iterable[Status],
        counts: list[tuple[Status, int]] | None = None,
    ) -> None:
        """:meth:`set` each node's status, in order (a batch search's thousands in one call).

        ``counts``, when the caller knows them, are :meth:`status_counts` of
        what it sets, taken as they are if nothing was set before.
        """
        empty = not self._statuses
        self._statuses.update(zip(node_names, statuses, strict=True))
        self._counts = counts if empty and counts is not None else None

    def statuses_of(self, node_names: Iterable[str]) -> list[Status]:
        """:meth:`get` of each node, in order."""
        return list(map(self._statuses.get, node_names, itertools.repeat(self._absent)))

    def set_absent_nodes_status(self, status: Status) -> None:
        self._absent = status

    def absent_nodes_status(self) -> Status:
        return self._absent

    def items(self) -> Iterator[tuple[str, Status]]:
        return iter(list(self._statuses.items()))

    def __len__(self) -> int:
        return len(self._statuses)

    def status_counts(self) -> list[tuple[Status, int]]:
        """Each distinct explicit status (by identity), and how many nodes have it.

        Kept until the next :meth:`set`: a failed attempt's message is
        written three times over the same statuses (the event, the pod's
        condition, the trace).
        """
        if self._counts is None:
            statuses = self._statuses.values()
            counts = Counter(map(id, statuses))
            by_id = dict(zip(map(id, statuses), statuses, strict=True))
            self._counts = [(by_id[key], count) for key, count in counts.items()]
        return list(self._counts)

    def nodes_for_status_code(self, nodes: Iterable[NodeInfo], code: Code) -> list[NodeInfo]:
        """The nodes whose status, explicit or absent, has ``code`` (preemption's candidates)."""
        return [n for n in nodes if self.get(n.name).code is code]


# Diagnosis and FitError are in Go's types.go; they stand here, beside the
# NodeToStatus they hold, because types.py is imported by this module.
@dataclass(slots=True)
class Diagnosis:
    """Why no node fits: each node's status, the rejecting plugins, and the phase messages."""

    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, status: Status) -> None:
        """Record which plugin rejected (``Diagnosis.AddPluginStatus``)."""
        if not status.plugin:
            return
        if status.code is Code.PENDING:
            self.pending_plugins.add(status.plugin)
        elif status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)


class FitError(Exception):
    """No node can take the pod; ``str()`` is kube-scheduler's FailedScheduling message."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis
        super().__init__()

    def __str__(self) -> str:
        message = f"0/{self.num_all_nodes} nodes are available:"
        diagnosis = self.diagnosis
        if diagnosis.pre_filter_msg:
            # Every node has the PreFilter's status; listing it per node would repeat it N times.
            message += f" {diagnosis.pre_filter_msg}."
        else:
            histogram: Counter[str] = Counter()
            statuses = diagnosis.node_to_status
            # Go counts each node's reasons; thousands of nodes share a few Status objects
            # (the batch engine's, the preemption dry run's), so count the statuses first.
            for status, nodes in statuses.status_counts():
                for reason in status.reasons:
                    histogram[reason] += nodes
            absent = self.num_all_nodes - len(statuses)
            if absent > 0:
                for reason in statuses.absent_nodes_status().reasons:
                    histogram[reason] += absent
            # Sorted as text, as Go's sort.Strings does: "10 ..." sorts before "2 ...".
            parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
            if parts:
                message += f" {', '.join(parts)}."
        if diagnosis.post_filter_msg:
            message += f" {diagnosis.post_filter_msg}"
        return message


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    """What PostFilter decided for the pod: usually a node to nominate (preemption)."""

    nominating_info: NominatingInfo | None = None


@dataclass(slots=True)
class NodeScore:
    """One node's score from one plugin; NormalizeScore rewrites ``score`` in place."""

    name: str
    score: int


@dataclass(frozen=True, slots=True)
class PluginScore:
    """One plugin's weighted score for one node."""

    name: str
    score: int


@dataclass(slots=True)
class NodePluginScores:
    """A node's weighted score from each plugin, in plugin order, and their sum."""

    name: str
    scores: list[PluginScore] = field(default_factory=list)
    total_score: int = 0


# --- the scheduling cycle ---------------------------------------------------------------------


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Incremental updates of a PreFilter plugin's state when a pod is added or removed.

    Used when the framework evaluates a node *as if* other pods were there
    (nominated pods) or gone (preemption victims), possibly many times, on a
    cloned CycleState. Both methods get the pod being scheduled, the pod to
    add or remove, and the node it is on.
    """

    def add_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_add: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None: ...

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    """Runs once per attempt, before any node is filtered; sees all the snapshot's nodes.

    Returns an optional :class:`PreFilterResult` narrowing the candidate
    nodes, and a status: ``Skip`` skips this plugin's Filter for this pod;
    ``Unschedulable`` rejects the pod (the other PreFilters still run);
    ``UnschedulableAndUnresolvable`` rejects it at once; anything else that is
    not success is an error. ``pre_filter_extensions`` returns None when
    the plugin keeps no state that pods can change.
    """

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    """Can this node run the pod? Called per node, in parallel across nodes.

    A node's Filter plugins run in order and stop at the first that does
    not return success: that status (``Unschedulable``,
    ``UnschedulableAndUnresolvable``) is the node's reason. Must read the
    ``node_info`` it is given, which may be a modified copy (nominated pods,
    preemption), never the snapshot directly.
    """

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None: ...


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    """Runs only when no node passed Filter; may make room (preemption) for a later attempt.

    Whatever it returns, this attempt fails; a success carries the node to
    nominate. The first plugin that returns success or
    ``UnschedulableAndUnresolvable`` ends the PostFilter phase.
    """

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    """Runs once before scoring, with the feasible nodes; ``Skip`` skips this plugin's Score.

    Not called when only one node is feasible (the node is chosen without
    scoring).
    """

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None: ...


@runtime_checkable
class ScoreExtensions(Protocol):
    """Rescales a plugin's raw scores of all feasible nodes into [0, 100], in place."""

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    """How good is this node for the pod? Called per feasible node.

    After NormalizeScore every score must be within [0, 100]; it is then
    multiplied by the plugin's weight and summed with the other plugins'.
    """

    def score(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[int, Status | None]: ...

    def score_extensions(self) -> ScoreExtensions | None: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    """Claims per-node resources a plugin tracks itself, once the pod is assumed on the node.

    If Reserve of any plugin fails, or anything later in the scheduling or
    binding cycle fails, ``unreserve`` of *every* Reserve plugin runs, in
    reverse order. Unreserve must therefore be idempotent and must cope with
    a Reserve that never ran.
    """

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    """The last gate of the scheduling cycle: allow, reject, or ``Wait`` (with a timeout in seconds).

    A pod any plugin asked to wait for is parked in the waiting-pods map
    and its binding cycle blocks until every waiting plugin allows it, one
    rejects it, or a timeout (capped at 15 minutes) rejects it.
    """

    def permit(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[Status | None, float]: ...


# --- the binding cycle ------------------------------------------------------------------------


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    """Work before binding (attach volumes...); runs in the binding cycle, concurrently with others."""

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    """Writes the decision to the API server. Returns ``Skip`` for a pod it does not handle.

    Bind plugins run in order until one does not skip; that one owns the
    binding, and the rest are not called.
    """

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    """Informational, after a successful bind (clean-up, metrics). Cannot fail the pod."""

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


# --- what a plugin gets from the framework ------------------------------------------------------


# --- what the framework shares with plugins (listers.go, interface.go) -------------------------


class NodeInfoLister(Protocol):
    """Read access to the NodeInfos of one cycle (``framework.NodeInfoLister``)."""

    def list(self) -> Sequence[NodeInfo]:
        """Every node, in node-tree order."""
        ...

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        """The nodes running at least one pod with (anti-)affinity to other pods."""
        ...

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        """The nodes running at least one pod with a required anti-affinity term."""
        ...

    def get(self, node_name: str) -> NodeInfo:
        """The node of that name; :class:`~framework.cache.errors.NodeInfoNotFound` if none."""
        ...


class SharedLister(Protocol):
    """What the framework handle shares with plugins (``framework.SharedLister``)."""

    def node_infos(self) -> NodeInfoLister: ...


class PodNominator(Protocol):
    """The nominated pods, by node (``framework.PodNominator``); the scheduling queue is one."""

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to ``node_name``, in their newest known version."""
        ...

    def has_nominated_pods(self, node_name: str) -> bool:
        """Whether any pod is nominated to ``node_name`` (cheaper than listing them)."""
        ...


class PodActivator(Protocol):
    """Moves pods to activeQ at once (``framework.PodActivator``); the scheduling queue is one."""

    def activate(self, pods: Iterable[Pod]) -> None: ...


@runtime_checkable
class WaitingPod(Protocol):
    """A pod parked at Permit: its binding cycle waits until it is allowed or rejected."""

    def get_pod(self) -> Pod: ...

    def get_pending_plugins(self) -> list[str]: ...

    def allow(self, plugin_name: str) -> None: ...

    def reject(self, plugin_name: str, message: str) -> None: ...


class Handle(Protocol):
    """What the framework gives every plugin at construction (``framework.Handle``).

    The snapshot of the current cycle, the API client, the event recorder,
    the waiting pods, the clock, the ability to run the Filter plugins as the
    scheduler would (preemption needs it), and a parallelizer for per-node work.
    """

    def snapshot_shared_lister(self) -> SharedLister: ...

    def client(self) -> Any: ...

    def event_recorder(self) -> Any: ...

    def clock(self) -> Any: ...

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None: ...

    def get_waiting_pod(self, uid: str) -> WaitingPod | None: ...

    def reject_waiting_pod(self, uid: str) -> bool: ...

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None: ...

    def parallelizer(self) -> Any: ...
