"""The InterPodAffinity plugin: place a pod near, or away from, other pods, per topology domain.

A pod's ``podAffinity`` and ``podAntiAffinity`` talk about *other pods*: "run
in a zone where an ``app=db`` pod runs" (affinity), "never share a node
with another ``app=web`` pod" (anti-affinity). Required terms filter;
preferred terms (with weights 1-100) score. Existing pods' rules count too:
a node where an existing pod's required anti-affinity would select the new
pod is out, whatever the new pod says.

The pod's journey through it:

1. **PreFilter** compiles the pod's terms (a bad selector is
   ``UnschedulableAndUnresolvable``, ``parsing pod: ...``), unrolls each
   required term's ``namespaceSelector`` into namespace names (listing the
   Namespaces through the handle's namespace lister), takes a snapshot of the pod's
   namespace labels, and counts per topology domain
   (:mod:`~framework.plugins.interpodaffinity.filtering`). It returns
   ``Skip`` when nothing can reject a node: no existing pod's anti-affinity
   selects the pod and the pod has no required terms.
2. **AddPod / RemovePod** keep the counts true when the framework adds
   nominated pods or removes preemption victims.
3. **Filter** checks, in this order: the pod's affinity
   (``UnschedulableAndUnresolvable``: adding or removing pods on *this*
   node cannot create a matching pod elsewhere, so preemption would not
   help), its anti-affinity (``Unschedulable``), then the existing pods'
   anti-affinity (``Unschedulable``: evicting those pods may help).
4. **PreScore** builds the score map
   (:mod:`~framework.plugins.interpodaffinity.scoring`), or returns
   ``Skip`` when no pod contributes anything; **Score** reads it;
   **NormalizeScore** scales min-max to [0, 100].

>>> from framework.cache import new_snapshot
>>> from framework.cycle_state import CycleState
>>> from framework.objects import Node, Pod
>>> from framework.runtime.framework import Framework
>>> node = lambda name, zone: Node.from_dict({"metadata": {"name": name, "labels": {"zone": zone}}})
>>> db = Pod.from_dict({"metadata": {"name": "db", "namespace": "default", "labels": {"app": "db"}},
...                     "spec": {"nodeName": "a", "containers": [{"name": "c", "image": "db"}]}})
>>> web = Pod.from_dict({"metadata": {"name": "web", "namespace": "default"}, "spec": {"affinity": {
...     "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
...         {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}}}})
>>> fwk = Framework("default-scheduler")
>>> fwk.snapshot = new_snapshot([db], [node("a", "east"), node("b", "east"), node("c", "west")])
>>> plugin, state = InterPodAffinity(fwk), CycleState()
>>> plugin.pre_filter(state, web, [])
(None, None)
>>> [str(plugin.filter(state, web, fwk.snapshot.get(n)) or "fits") for n in "abc"]
['fits', 'fits', "UnschedulableAndUnresolvable: node(s) didn't match pod affinity rules"]

Which events can help (queueing hints on, as in v1.33): an assigned pod
added that matches all the pod's affinity terms, relabelled so that it
starts to match them or stops matching its anti-affinity terms, or deleted
while matching its anti-affinity terms; a node added or relabelled that has
one of the terms' topology keys.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/plugin.go``,
``filtering.go`` and ``scoring.go`` (v1.33). Differences: the namespace
lister is the scheduler's namespace informer, as in kube, but a Framework
built without a scheduler reads the API through its client
(:mod:`framework.runtime.listers`; with neither, no namespace has labels);
a NodeInfo without a node is an ``Error`` status.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import APIError
from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.config.args_interpodaffinity import (
    InterPodAffinityArgs,
    InvalidArgsError,
    aggregate,
    inter_pod_affinity_args_from,
    validate_inter_pod_affinity_args,
)
from framework.cycle_state import CycleState, NotFound
from framework.interface import NodeScore, PreFilterResult, SignFragment
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.errors import aggregate as aggregate_errors
from framework.objects.labels import Selector, SelectorError
from framework.plugins import names
from framework.plugins.interpodaffinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    PreFilterState,
    existing_anti_affinity_totals,
    get_existing_anti_affinity_counts,
    get_incoming_affinity_anti_affinity_counts,
    incoming_affinity_anti_affinity_totals,
    pod_matches_all_affinity_terms,
    satisfy_existing_pods_anti_affinity,
    satisfy_pod_affinity,
    satisfy_pod_anti_affinity,
    term_key,
)
from framework.plugins.interpodaffinity.scoring import (
    PreScoreState,
    ScoreMap,
    normalize,
    score_map_on_node,
    score_node,
    score_totals,
)
from framework.plugins.interpodaffinity.terms import (
    AffinityTerm,
    get_affinity_terms,
    get_pod_affinity_terms,
    get_pod_anti_affinity_terms,
    parse_pod_terms,
    pod_info_terms,
)
from framework.runtime import signature as sig
from framework.status import Status, node_not_found

__all__ = [
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "InterPodAffinity",
    "get_namespace_labels_snapshot",
    "new",
]

NAME = names.INTER_POD_AFFINITY
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

logger = logging.getLogger(__name__)


def get_namespace_labels_snapshot(lister: Any, namespace: str) -> dict[str, str]:
    """A copy of the namespace's labels; empty if it cannot be read (``GetNamespaceLabelsSnapshot``)."""
    if lister is None:
        return {}
    try:
        found = lister.get(namespace)
    except APIError as error:
        logger.debug("getting namespace %s, assuming empty labels: %s", namespace, error)
        return {}
    return dict(found.metadata.labels)


class InterPodAffinity:
    """Filter and score nodes by the pods already on them; see the module docstring."""

    def __init__(self, handle: Any, args: InterPodAffinityArgs | None = None) -> None:
        self._handle = handle
        self.args = args or InterPodAffinityArgs()
        # The counts and scores summed over the nodes, kept across cycles; only changed nodes recount.
        self._existing_totals = existing_anti_affinity_totals()
        self._incoming_totals = incoming_affinity_anti_affinity_totals()
        self._score_totals = score_totals()

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Unsignable with pod (anti-)affinity; else the labels, which existing pods' terms match.

        As Go's ``InterPodAffinity.SignPod`` and its ``TestPodAffinitySignature``
        (v1.35): with ``ignorePreferredTermsOfExistingPods`` no fragment at
        all. The namespace is not signed upstream either; a hint is always
        filtered again, so that costs a score, never a wrong fit.
        """
        affinity = pod.spec.affinity
        if affinity is not None and (
            affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None
        ):
            return None, Status.unschedulable("pods with pod affinity are not signable")
        if self.args.ignore_preferred_terms_of_existing_pods:
            return None, None
        return [SignFragment(sig.LABELS_SIGNER_NAME, dict(pod.metadata.labels))], None

    # --- the namespace lister -------------------------------------------------------------------

    def _namespace_lister(self) -> Any:
        lister = getattr(self._handle, "namespace_lister", None)
        return lister() if callable(lister) else None

    def _node_infos(self) -> Any:
        return self._handle.snapshot_shared_lister().node_infos()

    def merge_affinity_term_namespaces_if_not_empty(self, term: AffinityTerm) -> None:
        """Unroll a non-empty namespace selector into namespace names, then make it select nothing.

        Done for the incoming pod's terms only, so that matching them
        against existing pods never needs those pods' namespace labels.
        """
        if term.namespace_selector.empty():
            return
        lister = self._namespace_lister()
        if lister is not None and not term.namespace_selector.matches_nothing:
            for namespace in lister.list(term.namespace_selector):
                term.namespaces.add(namespace.name)
        term.namespace_selector = Selector.nothing()

    # --- PreFilter, extensions, Filter ------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """Count per topology domain what Filter needs; Skip when nothing can reject a node."""
        node_infos = self._node_infos()
        all_nodes = node_infos.list()
        with_required_anti_affinity = node_infos.have_pods_with_required_anti_affinity_list()
        pod_info, errors = parse_pod_terms(pod)
        if errors:
            return None, Status.unresolvable(f"parsing pod: {aggregate_errors(errors)}")
        try:
            for term in (
                *pod_info.required_affinity_terms,
                *pod_info.required_anti_affinity_terms,
            ):
                self.merge_affinity_term_namespaces_if_not_empty(term)
        except APIError as error:
            return None, Status.as_error(error)
        namespace_labels = get_namespace_labels_snapshot(self._namespace_lister(), pod.namespace)
        s = PreFilterState(pod_info, namespace_labels)
        # Go walks only the nodes with such pods; the others add nothing. The kept totals
        # walk all nodes (none if no node has such pods): a node's position in the full
        # list does not move when it gains its first such pod, as it would in the short one.
        s.existing_anti_affinity_counts = get_existing_anti_affinity_counts(
            pod,
            namespace_labels,
            all_nodes if with_required_anti_affinity else (),
            self._existing_totals,
        )
        s.affinity_counts, s.anti_affinity_counts = get_incoming_affinity_anti_affinity_counts(
            pod_info, all_nodes, self._incoming_totals
        )
        if (
            not s.existing_anti_affinity_counts
            and not pod_info.required_affinity_terms
            and not pod_info.required_anti_affinity_terms
        ):
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> InterPodAffinity:
        return self

    def _pre_filter_state(self, state: CycleState) -> PreFilterState:
        try:
            return state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
        except (NotFound, TypeError) as error:
            raise LookupError(
                f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: {error}'
            ) from None

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: Any, node_info: NodeInfo
    ) -> Status | None:
        """Count a pod the framework adds to ``node_info`` (a nominated pod)."""
        return self._update(state, pod_info_to_add, node_info, 1)

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: Any,
        node_info: NodeInfo,
    ) -> Status | None:
        """Uncount a pod the framework removes from ``node_info`` (a preemption victim)."""
        return self._update(state, pod_info_to_remove, node_info, -1)

    def _update(
        self, state: CycleState, pod_info: Any, node_info: NodeInfo, sign: int
    ) -> Status | None:
        try:
            s = self._pre_filter_state(state)
        except LookupError as error:
            return Status.as_error(error)
        if node_info.node is None:
            return node_not_found()
        s.update_with_pod(pod_info_terms(pod_info), node_info.node, sign)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """The pod's affinity, then its anti-affinity, then the existing pods' anti-affinity."""
        try:
            s = self._pre_filter_state(state)
        except LookupError as error:
            return Status.as_error(error)
        node = node_info.node
        if node is None:
            return node_not_found()
        if not satisfy_pod_affinity(s, node):
            return Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_pod_anti_affinity(s, node):
            return Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_existing_pods_anti_affinity(s, node):
            return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return None

    # --- PreScore, Score, NormalizeScore ------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Build the score map from the existing pods; Skip when it stays empty."""
        affinity = pod.spec.affinity
        has_preferred_affinity = bool(
            affinity is not None
            and affinity.pod_affinity is not None
            and affinity.pod_affinity.preferred_during_scheduling_ignored_during_execution
        )
        has_preferred_anti_affinity = bool(
            affinity is not None
            and affinity.pod_anti_affinity is not None
            and affinity.pod_anti_affinity.preferred_during_scheduling_ignored_during_execution
        )
        has_constraints = has_preferred_affinity or has_preferred_anti_affinity
        if self.args.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status.skip()
        node_infos = self._node_infos()
        # Without preferred terms of its own, only pods with affinity can contribute, so
        # none when no node has one; if some do, the kept total walks all nodes (see pre_filter).
        all_nodes = (
            node_infos.list()
            if has_constraints or node_infos.have_pods_with_affinity_list()
            else ()
        )
        pod_info, errors = parse_pod_terms(pod)
        if errors:
            return Status.as_error(ValueError(f"failed to parse pod: {aggregate_errors(errors)}"))
        try:
            for weighted in (
                *pod_info.preferred_affinity_terms,
                *pod_info.preferred_anti_affinity_terms,
            ):
                self.merge_affinity_term_namespaces_if_not_empty(weighted.term)
        except APIError as error:
            return Status.as_error(error)
        namespace_labels = get_namespace_labels_snapshot(self._namespace_lister(), pod.namespace)
        s = PreScoreState(pod_info, namespace_labels)
        weight = self.args.hard_pod_affinity_weight

        def on_node(node_info: NodeInfo) -> ScoreMap | None:
            if not has_constraints and not node_info.pods_with_affinity:
                return None  # most nodes, when all are walked: no map to build
            return score_map_on_node(s, node_info, pod, weight, has_constraints) or None

        # A node's map depends on it and on these; it is reused while the node is unchanged.
        condition = (
            has_constraints,
            weight,
            pod.namespace,
            frozenset(pod.metadata.labels.items()),
            frozenset(namespace_labels.items()),
            tuple((term_key(w.term), w.weight) for w in pod_info.preferred_affinity_terms),
            tuple((term_key(w.term), w.weight) for w in pod_info.preferred_anti_affinity_terms),
        )
        # A copy: the kept total must not change with the cycle's state.
        s.topology_score = self._score_totals.total(
            condition, all_nodes, on_node
        ).scores.copy_map()
        if not s.topology_score:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def _pre_score_state(self, state: CycleState) -> PreScoreState:
        try:
            return state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)
        except (NotFound, TypeError) as error:
            raise LookupError(
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: {error}'
            ) from None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The points of the node's domains: positive for affinity, negative for anti-affinity."""
        try:
            s = self._pre_score_state(state)
        except LookupError as error:
            return 0, Status.as_error(error)
        if node_info.node is None:
            return 0, node_not_found()
        return score_node(s, node_info.node), None

    def score_extensions(self) -> InterPodAffinity:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        """Lowest to 0, highest to 100, linearly (nothing to do when the map is empty)."""
        try:
            s = self._pre_score_state(state)
        except LookupError as error:
            return Status.as_error(error)
        if not s.topology_score:
            return None
        normalize(scores)
        return None

    # --- Events and hints ---------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Pods added, relabelled or deleted; nodes added or relabelled."""
        return [
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.POD,
                    ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
                ),
                self.is_schedulable_after_pod_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.is_schedulable_after_node_change,
            ),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` when an assigned pod's change can satisfy the pod's affinity or anti-affinity."""
        if (new is not None and not isinstance(new, Pod)) or (
            old is not None and not isinstance(old, Pod)
        ):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        if (new is not None and not new.spec.node_name) or (
            old is not None and not old.spec.node_name
        ):
            return QueueingHint.QUEUE_SKIP  # an unscheduled pod changes no domain's count
        try:
            terms = get_affinity_terms(pod, get_pod_affinity_terms(pod))
            anti_terms = get_affinity_terms(pod, get_pod_anti_affinity_terms(pod))
        except SelectorError:
            return QueueingHint.QUEUE
        if new is not None and old is not None:
            if not pod_matches_all_affinity_terms(terms, old) and pod_matches_all_affinity_terms(
                terms, new
            ):
                return QueueingHint.QUEUE
            if pod_matches_all_affinity_terms(anti_terms, old) and not (
                pod_matches_all_affinity_terms(anti_terms, new)
            ):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new is not None:
            if pod_matches_all_affinity_terms(terms, new):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if old is None or not pod_matches_all_affinity_terms(anti_terms, old):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` when the added or updated node has a topology key of one of the pod's required terms."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        try:
            terms = get_affinity_terms(pod, get_pod_affinity_terms(pod))
        except SelectorError:
            return QueueingHint.QUEUE
        if any(term.topology_key in new.metadata.labels for term in terms):
            return QueueingHint.QUEUE
        try:
            anti_terms = get_affinity_terms(pod, get_pod_anti_affinity_terms(pod))
        except SelectorError:
            return QueueingHint.QUEUE
        if any(term.topology_key in new.metadata.labels for term in anti_terms):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def new(args: Any, handle: Any) -> InterPodAffinity:
    """The factory the registry calls: decode and validate the args, then build the plugin."""
    # Go refuses a handle without a snapshot lister; ours sets its snapshot per cycle, later.
    decoded = inter_pod_affinity_args_from(args)
    causes = validate_inter_pod_affinity_args(decoded)
    if causes:
        raise InvalidArgsError(aggregate(causes))
    return InterPodAffinity(handle, decoded)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = InterPodAffinity
    _filter: type[interface.FilterPlugin] = InterPodAffinity
    _pre_score: type[interface.PreScorePlugin] = InterPodAffinity
    _score: type[interface.ScorePlugin] = InterPodAffinity
    _enqueue_extensions: type[interface.EnqueueExtensions] = InterPodAffinity
