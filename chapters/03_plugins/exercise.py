"""Chapter 3 exercise: write the Filter of NodeUnschedulable, Kubernetes' cordon check.

A node whose ``spec.unschedulable`` is true (``kubectl cordon``) takes no new
pods, unless the pod tolerates the taint ``node.kubernetes.io/unschedulable``
with effect ``NoSchedule``. Fill in :func:`toleration_tolerates_taint` and
:meth:`NodeUnschedulable.filter`, then check them::

    python -m pytest chapters/03_plugins --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/nodeunschedulable.py``. Stuck? ``python -m framework hint 3``
shows the hints one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod, Taint, Toleration, pod_uid
from framework.plugins import names
from framework.status import Status

__all__ = [
    "ERR_REASON_UNSCHEDULABLE",
    "NAME",
    "TAINT_NODE_UNSCHEDULABLE",
    "UNSCHEDULABLE_TAINT",
    "NodeUnschedulable",
    "new",
    "toleration_tolerates_taint",
    "tolerations_tolerate_taint",
]

NAME = names.NODE_UNSCHEDULABLE

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
UNSCHEDULABLE_TAINT = Taint(key=TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule")


def toleration_tolerates_taint(toleration: Toleration, taint: Taint) -> bool:
    """Whether one toleration matches a taint, as Kubernetes' ``Toleration.ToleratesTaint`` decides.

    You have: ``toleration.key``, ``.operator``, ``.value`` and ``.effect``,
    and ``taint.key``, ``.value`` and ``.effect`` (all strings, "" when unset).
    """
    # TODO 1: a toleration with an effect matches only taints with that effect;
    #         one without an effect matches every effect.
    # TODO 2: a toleration with a key matches only taints with that key;
    #         one without a key matches every key.
    # TODO 3: then the operator decides: "Exists" matches any value; "Equal",
    #         or no operator at all, needs the same value; any other operator
    #         matches nothing.
    raise NotImplementedError(
        "chapter 3 exercise: write toleration_tolerates_taint in chapters/03_plugins/exercise.py "
        "(the rule is in the chapter's 'Exercise' section; hints: python -m framework hint 3)"
    )


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """Whether any of the tolerations matches the taint (given: it uses yours)."""
    return any(toleration_tolerates_taint(t, taint) for t in tolerations)


class NodeUnschedulable:
    """Filter: no new pods on a node with ``spec.unschedulable``, unless they tolerate it."""

    def name(self) -> str:
        return NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """None (success) unless the node is cordoned and the pod does not tolerate that.

        You have: ``node_info.node`` (a :class:`~framework.objects.Node`, or
        None), ``node.spec.unschedulable``, ``pod.spec.tolerations``,
        :data:`UNSCHEDULABLE_TAINT`, :func:`tolerations_tolerate_taint`, and
        the :class:`~framework.status.Status` constructors.
        """
        # TODO 4: no node in the NodeInfo? That is a bug, not a verdict on a
        #         node: return an Error status (Status.as_error(SomeError("..."))).
        # TODO 5: a node that is not cordoned passes.
        # TODO 6: a cordoned node passes only a pod that tolerates
        #         UNSCHEDULABLE_TAINT; otherwise reject it so that preemption
        #         does not try (which code?), with ERR_REASON_UNSCHEDULABLE.
        raise NotImplementedError(
            "chapter 3 exercise: write NodeUnschedulable.filter in chapters/03_plugins/exercise.py "
            "(the rule is in the chapter's 'Exercise' section; hints: python -m framework hint 3)"
        )

    # Given: which cluster events can make a pod this plugin rejected schedulable.

    def events_to_register(self) -> list[ClusterEventWithHint]:
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
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE
        if new.spec.unschedulable:
            return QueueingHint.QUEUE_SKIP
        if old is None or old.spec.unschedulable:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        if not isinstance(new, Pod) or (old is not None and not isinstance(old, Pod)):
            return QueueingHint.QUEUE
        if pod_uid(new) != pod_uid(pod):
            return QueueingHint.QUEUE_SKIP
        if tolerations_tolerate_taint(new.spec.tolerations, UNSCHEDULABLE_TAINT):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def new(args: Any, handle: Any) -> NodeUnschedulable:
    """The factory the registry calls; NodeUnschedulable takes no args."""
    return NodeUnschedulable()
