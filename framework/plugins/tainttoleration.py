"""TaintToleration: a node's taints keep away the pods that do not tolerate them.

A taint on a node (``dedicated=gpu:NoSchedule``) repels pods; a toleration
on a pod lets it past one taint. The effect decides how hard the push is:

* ``NoSchedule`` and ``NoExecute`` are hard. **Filter** walks the node's
  taints in order and rejects the node at the first one of these the pod
  does not tolerate, ``UnschedulableAndUnresolvable`` (evicting pods would
  not remove a taint), naming the taint:
  ``node(s) had untolerated taint {dedicated: gpu}``.
* ``PreferNoSchedule`` is soft. **PreScore** keeps the pod's tolerations
  that can match it (effect ``PreferNoSchedule``, or empty, which matches
  every effect); **Score** counts the node's ``PreferNoSchedule`` taints
  none of them tolerates; **NormalizeScore** turns the counts around with
  ``default_normalize_score(100, reverse=True)``, so the node with the
  fewest such taints gets 100 and the one with the most gets 0.

>>> from framework.cycle_state import CycleState
>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> gpu = NodeInfo()
>>> gpu.set_node(Node.from_dict({"metadata": {"name": "gpu-1"}, "spec": {"taints": [
...     {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}}))
>>> print(TaintToleration().filter(CycleState(), Pod.from_dict({"metadata": {"name": "web"}}), gpu))
UnschedulableAndUnresolvable: node(s) had untolerated taint {dedicated: gpu}

Which events can change the answer (queueing hints on, as in v1.33): a
node added or its taints changed, when the pod tolerated the new node's
taints but not the old one's (``Node/Add | UpdateNodeTaint``); and the pod
itself gaining a toleration (``Pod/UpdatePodToleration``).

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``
(v1.33). One difference: a NodeInfo without a node makes the Go plugin
dereference nil (a panic); here it is an ``Error`` status for this pod's
attempt. The v1.33 reason names the taint; the constant
:data:`ERR_REASON_NOT_MATCH` (``node(s) had taints that the pod didn't
tolerate``) is still defined upstream but no longer returned.

**Since v1.35** (``TaintTolerationComparisonOperators``, alpha and off by
default; KEP-5471) a toleration may use ``Lt`` or ``Gt``: it matches a taint
of its key whose value, read as an integer, is less (greater) than the
toleration's, so ``{key: sla, operator: Gt, value: "950"}`` tolerates
``sla=990:NoSchedule`` and not ``sla=900:NoSchedule``. With the gate off (and
before v1.35) such a toleration matches nothing, and the API server refuses
it. The plugin reads the gate from its handle when it is built, as Go's
``New`` reads ``feature.Features``.
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
from framework.cycle_state import CycleState, NotFound
from framework.featuregate import features_of
from framework.interface import MAX_NODE_SCORE, NodeScore, SignFragment
from framework.node_info import NodeInfo
from framework.objects import Node, Pod, Taint, Toleration, pod_uid
from framework.plugins import names
from framework.plugins.helper import (
    default_normalize_score,
    do_not_schedule_taints_filter_func,
    find_matching_untolerated_taint,
)
from framework.plugins.nodeunschedulable import tolerations_tolerate_taint
from framework.runtime import signature as sig
from framework.status import Status, node_not_found

# Built once, not per node as Go's Filter does: in CPython each call makes a closure.
_DO_NOT_SCHEDULE = do_not_schedule_taints_filter_func()

__all__ = [
    "ERR_REASON_NOT_MATCH",
    "NAME",
    "PRE_SCORE_STATE_KEY",
    "TaintToleration",
    "count_intolerable_taints_prefer_no_schedule",
    "get_all_toleration_prefer_no_schedule",
    "new",
    "untolerated_taint_reason",
]

NAME = names.TAINT_TOLERATION

PRE_SCORE_STATE_KEY = "PreScore" + NAME
"""Where PreScore leaves the tolerations Score needs (``preScoreStateKey``)."""

ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
"""``ErrReasonNotMatch``: the older, anonymous reason; v1.33 names the taint instead."""


def untolerated_taint_reason(taint: Taint) -> str:
    """The Filter's reason for a node: ``node(s) had untolerated taint {key: value}``.

    Go prints it with ``{%s: %s}``, so a taint without a value leaves a
    space before the brace: ``{node-role.kubernetes.io/control-plane: }``.
    """
    return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"


def get_all_toleration_prefer_no_schedule(tolerations: tuple[Toleration, ...]) -> list[Toleration]:
    """The tolerations that can match a ``PreferNoSchedule`` taint: that effect, or none (all effects)."""
    return [t for t in tolerations if not t.effect or t.effect == "PreferNoSchedule"]


def count_intolerable_taints_prefer_no_schedule(
    taints: tuple[Taint, ...], tolerations: list[Toleration], comparison_operators: bool = False
) -> int:
    """How many of the node's ``PreferNoSchedule`` taints no toleration matches."""
    # A plain loop, as Go's: Score runs this for every node, and most have no taints.
    intolerable = 0
    for taint in taints:
        if taint.effect == "PreferNoSchedule" and not tolerations_tolerate_taint(
            tolerations, taint, comparison_operators
        ):
            intolerable += 1
    return intolerable


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    """The pod's tolerations that matter for scoring, found once per attempt."""

    tolerations_prefer_no_schedule: list[Toleration]

    def clone(self) -> _PreScoreState:
        return self  # never changed after PreScore, so sharing is safe (as in Go)


class TaintToleration:
    """Filter, PreScore, Score and NormalizeScore on the node's taints; see the module docstring."""

    def __init__(self, handle: Any = None) -> None:
        self._handle = handle
        # Go: fts.EnableTaintTolerationComparisonOperators, handed to New by the registry.
        self.comparison_operators = features_of(handle).enabled(
            "TaintTolerationComparisonOperators"
        )

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Filter and Score read the tolerations only (Go's ``TaintToleration.SignPod``, v1.35)."""
        return [SignFragment(sig.TOLERATIONS_SIGNER_NAME, sig.tolerations_signer(pod))], None

    # --- Filter -------------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject the node at its first ``NoSchedule``/``NoExecute`` taint the pod does not tolerate."""
        node = node_info.node
        if node is None:
            return node_not_found()
        taint = find_matching_untolerated_taint(
            node.spec.taints, pod.spec.tolerations, _DO_NOT_SCHEDULE, self.comparison_operators
        )
        if taint is None:
            return None
        return Status.unresolvable(untolerated_taint_reason(taint))

    # --- PreScore, Score, NormalizeScore ---------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Keep the tolerations that can match ``PreferNoSchedule`` taints, for Score."""
        state.write(
            PRE_SCORE_STATE_KEY,
            _PreScoreState(get_all_toleration_prefer_no_schedule(pod.spec.tolerations)),
        )
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The number of the node's ``PreferNoSchedule`` taints the pod does not tolerate (lower is better)."""
        node = node_info.node
        if node is None:
            return 0, node_not_found()
        try:
            pre_score = state.read_as(PRE_SCORE_STATE_KEY, _PreScoreState)
        except (NotFound, TypeError) as error:
            return 0, Status.as_error(
                ValueError(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: {error}')
            )
        return (
            count_intolerable_taints_prefer_no_schedule(
                node.spec.taints,
                pre_score.tolerations_prefer_no_schedule,
                self.comparison_operators,
            ),
            None,
        )

    def score_extensions(self) -> TaintToleration:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        """Fewest intolerable ``PreferNoSchedule`` taints → 100, most → 0."""
        return default_normalize_score(MAX_NODE_SCORE, True, scores)

    # --- Events and hints ---------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A node added or re-tainted; the pod itself gaining a toleration."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATIONS),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` when the node had (or, new, is assumed to have had) an untolerated taint and now has none."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        hard = do_not_schedule_taints_filter_func()
        was_untolerated = (
            old is None
            or find_matching_untolerated_taint(
                old.spec.taints, pod.spec.tolerations, hard, self.comparison_operators
            )
            is not None
        )
        is_untolerated = (
            find_matching_untolerated_taint(
                new.spec.taints, pod.spec.tolerations, hard, self.comparison_operators
            )
            is not None
        )
        if was_untolerated and not is_untolerated:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """``QUEUE`` if the pod whose tolerations changed is this very pod.

        Tolerations can only be added to a pod, and any added one may be the
        one that was missing, so the hint does not look further.
        """
        if not isinstance(new, Pod) or (old is not None and not isinstance(old, Pod)):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        return QueueingHint.QUEUE if pod_uid(new) == pod_uid(pod) else QueueingHint.QUEUE_SKIP


def new(args: Any, handle: Any) -> TaintToleration:
    """The factory the registry calls; TaintToleration takes no args."""
    return TaintToleration(handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _filter: type[interface.FilterPlugin] = TaintToleration
    _pre_score: type[interface.PreScorePlugin] = TaintToleration
    _score: type[interface.ScorePlugin] = TaintToleration
    _enqueue_extensions: type[interface.EnqueueExtensions] = TaintToleration
