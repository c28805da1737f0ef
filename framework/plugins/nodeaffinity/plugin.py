"""The NodeAffinity plugin: PreFilter, Filter, PreScore, Score and NormalizeScore on node labels.

The pod's journey through it:

1. **PreFilter** returns ``Skip`` when there is nothing to check: no
   ``nodeSelector``, no required node affinity, no ``addedAffinity`` in
   the plugin's args. Otherwise it compiles the pod's rules once, for
   Filter. If every required term pins node names
   (``matchFields: metadata.name In [...]``), it also returns those names
   as a :class:`~framework.interface.PreFilterResult`, so the scheduler
   filters only those nodes (DaemonSet pods look like this); the names of
   one term are intersected, those of different terms united, and terms
   that leave no name at all are ``UnschedulableAndUnresolvable``,
   ``pod affinity terms conflict``.
2. **Filter** rejects a node, ``UnschedulableAndUnresolvable``, when it
   fails the scheduler-enforced ``addedAffinity``
   (:data:`ERR_REASON_ENFORCED`) or the pod's own rules
   (:data:`ERR_REASON_POD`, ``node(s) didn't match Pod's node
   affinity/selector``).
3. **PreScore** returns ``Skip`` when there are no preferred terms, the
   pod's or the args'.
4. **Score** is the sum of the weights of the preferred terms the node
   matches; **NormalizeScore** scales the sums so the best node gets 100
   (``default_normalize_score(100, reverse=False)``).

>>> from framework.cycle_state import CycleState
>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> pod = Pod.from_dict({"metadata": {"name": "web"}, "spec": {"nodeSelector": {"disk": "ssd"}}})
>>> hdd = NodeInfo()
>>> hdd.set_node(Node.from_dict({"metadata": {"name": "n1", "labels": {"disk": "hdd"}}}))
>>> plugin, state = NodeAffinity(), CycleState()
>>> plugin.pre_filter(state, pod, [hdd])
(None, None)
>>> print(plugin.filter(state, pod, hdd))
UnschedulableAndUnresolvable: node(s) didn't match Pod's node affinity/selector

Which events can help (queueing hints on, as in v1.33): a node added or
relabelled (``Node/Add | UpdateNodeLabel``), when the node now matches
the pod's required rules (and the ``addedAffinity``) and did not before.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go``
(v1.33); its args are in :mod:`framework.config.args_nodeaffinity`.
Differences: a NodeInfo without a node is an ``Error`` status where Go
would dereference nil; an empty ``nodeSelector`` map or an empty list of
preferred terms counts as none (Go tells a nil map or slice from an empty
one, which JSON manifests rarely do and which changes no outcome).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.config.args_nodeaffinity import (
    ADDED_PREFERRED,
    ADDED_REQUIRED,
    NodeAffinityArgs,
    validate_node_affinity_args,
)
from framework.cycle_state import CycleState, NotFound
from framework.interface import MAX_NODE_SCORE, NodeScore, PreFilterResult, SignFragment
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.nodeaffinity import (
    OBJECT_NAME_FIELD,
    LazyErrorNodeSelector,
    NodeSelectorParseError,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
    get_required_node_affinity,
    new_node_selector,
    new_preferred_scheduling_terms,
)
from framework.plugins import names
from framework.plugins.helper import default_normalize_score
from framework.runtime import signature as sig
from framework.status import Status, node_not_found

__all__ = [
    "ERR_REASON_CONFLICT",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_POD",
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "NodeAffinity",
    "get_pod_preferred_node_affinity",
    "new",
]

NAME = names.NODE_AFFINITY

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
"""The reason of a node that fails the pod's ``nodeSelector`` or required terms (``ErrReasonPod``)."""
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
"""The reason of a node that fails the plugin's ``addedAffinity`` (``errReasonEnforced``)."""
ERR_REASON_CONFLICT = "pod affinity terms conflict"
"""PreFilter's reason when the terms' ``metadata.name`` fields leave no node (``errReasonConflict``)."""


# --- cycle state --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    required_node_selector_and_affinity: RequiredNodeAffinity

    def clone(self) -> _PreFilterState:
        return self  # other pods do not change it, so sharing is safe (as in Go)


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    preferred_node_affinity: PreferredSchedulingTerms | None

    def clone(self) -> _PreScoreState:
        return self


def get_pod_preferred_node_affinity(pod: Pod) -> PreferredSchedulingTerms | None:
    """The pod's compiled preferred terms, None if it has none; raise NodeSelectorParseError."""
    affinity = pod.spec.affinity
    if (
        affinity is not None
        and affinity.node_affinity is not None
        and affinity.node_affinity.preferred_during_scheduling_ignored_during_execution
    ):
        return new_preferred_scheduling_terms(
            affinity.node_affinity.preferred_during_scheduling_ignored_during_execution
        )
    return None


def _has_required_node_affinity(pod: Pod) -> bool:
    affinity = pod.spec.affinity
    return (
        affinity is not None
        and affinity.node_affinity is not None
        and affinity.node_affinity.required_during_scheduling_ignored_during_execution is not None
    )


# --- the plugin ---------------------------------------------------------------------------------


class NodeAffinity:
    """Filter and score nodes by the pod's node selector and node affinity; see the module docstring."""

    def __init__(self, handle: Any = None, args: NodeAffinityArgs | None = None) -> None:
        self._handle = handle
        self.added_node_selector: LazyErrorNodeSelector | None = None
        self.added_pref_sched_terms: PreferredSchedulingTerms | None = None
        added = args.added_affinity if args is not None else None
        if added is not None:
            required = added.required_during_scheduling_ignored_during_execution
            if required is not None:
                self.added_node_selector = new_node_selector(required, ADDED_REQUIRED)
            preferred = added.preferred_during_scheduling_ignored_during_execution
            if preferred:
                self.added_pref_sched_terms = new_preferred_scheduling_terms(
                    preferred, ADDED_PREFERRED
                )

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Filter and Score read the node affinity and the nodeSelector (KEP-5598, v1.35).

        The profile's ``addedAffinity`` is the same for every pod of the
        profile, and a signature is only compared within one profile.
        """
        return [
            SignFragment(sig.NODE_AFFINITY_SIGNER_NAME, sig.node_affinity_signer(pod)),
            SignFragment(sig.NODE_SELECTOR_SIGNER_NAME, dict(pod.spec.node_selector)),
        ], None

    # --- PreFilter, Filter ----------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """Skip, or compile the pod's rules; narrow to the nodes its ``metadata.name`` fields allow."""
        has_required = _has_required_node_affinity(pod)
        if not has_required and self.added_node_selector is None and not pod.spec.node_selector:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(get_required_node_affinity(pod)))
        if not has_required:
            return None, None
        assert pod.spec.affinity is not None and pod.spec.affinity.node_affinity is not None
        required = (
            pod.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution
        )
        assert required is not None
        node_names: set[str] | None = None
        for term in required.node_selector_terms:
            term_node_names: set[str] | None = None
            for requirement in term.match_fields:
                if requirement.key == OBJECT_NAME_FIELD and requirement.operator == "In":
                    # Requirements of one term are ANDed: intersect their names.
                    values = set(requirement.values)
                    term_node_names = (
                        values if term_node_names is None else term_node_names & values
                    )
            if term_node_names is None:
                # Terms are ORed, and this one does not pin names: any node may do.
                return None, None
            node_names = term_node_names if node_names is None else node_names | term_node_names
        if node_names is not None and not node_names:
            return None, Status.unresolvable(ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(frozenset(node_names)), None
        return None, None

    def pre_filter_extensions(self) -> None:
        """None: the compiled rules do not depend on the other pods."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject a node that fails the ``addedAffinity`` or the pod's selector and required terms."""
        node = node_info.node
        if node is None:
            return node_not_found()
        if self.added_node_selector is not None and not self.added_node_selector.matches(node):
            return Status.unresolvable(ERR_REASON_ENFORCED)
        try:
            pre_filter = state.read_as(PRE_FILTER_STATE_KEY, _PreFilterState)
        except (NotFound, TypeError):
            # PreFilter is disabled in this profile: compile the rules here.
            pre_filter = _PreFilterState(get_required_node_affinity(pod))
        # Terms that do not compile just do not match: old pods may carry them.
        if not pre_filter.required_node_selector_and_affinity.matches(node):
            return Status.unresolvable(ERR_REASON_POD)
        return None

    # --- PreScore, Score, NormalizeScore ---------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Skip without preferred terms; otherwise compile the pod's, for Score."""
        try:
            preferred = get_pod_preferred_node_affinity(pod)
        except NodeSelectorParseError as error:
            return Status.as_error(error)
        if preferred is None and self.added_pref_sched_terms is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The sum of the weights of the preferred terms (the args' and the pod's) the node matches."""
        node = node_info.node
        if node is None:
            return 0, node_not_found()
        count = 0
        if self.added_pref_sched_terms is not None:
            count += self.added_pref_sched_terms.score(node)
        try:
            preferred = state.read_as(PRE_SCORE_STATE_KEY, _PreScoreState).preferred_node_affinity
        except (NotFound, TypeError):
            # PreScore is disabled in this profile: compile the terms here.
            try:
                preferred = get_pod_preferred_node_affinity(pod)
            except NodeSelectorParseError as error:
                return 0, Status.as_error(error)
        if preferred is not None:
            count += preferred.score(node)
        return count, None

    def score_extensions(self) -> NodeAffinity:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        """The highest sum becomes 100, the others in proportion (integer division)."""
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    # --- Events and hints ---------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A node added or relabelled."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.is_schedulable_after_node_change,
            )
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` for a node added that matches the pod, or updated from not matching to matching."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        if self.added_node_selector is not None and not self.added_node_selector.matches(new):
            return QueueingHint.QUEUE_SKIP
        required = get_required_node_affinity(pod)
        is_matched, problems = required.match(new)
        if problems:
            return QueueingHint.QUEUE  # Kubernetes returns the parse error, which queues
        if not is_matched:
            return QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        was_matched, problems = required.match(old)
        if problems:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP if was_matched else QueueingHint.QUEUE


def new(args: Any, handle: Any) -> NodeAffinity:
    """The factory the registry calls: decode and validate the args, then build the plugin."""
    decoded = NodeAffinityArgs.from_args(args)
    problems = validate_node_affinity_args("", decoded)
    if problems:
        raise NodeSelectorParseError(problems)
    return NodeAffinity(handle, decoded)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = NodeAffinity
    _filter: type[interface.FilterPlugin] = NodeAffinity
    _pre_score: type[interface.PreScorePlugin] = NodeAffinity
    _score: type[interface.ScorePlugin] = NodeAffinity
    _enqueue_extensions: type[interface.EnqueueExtensions] = NodeAffinity
