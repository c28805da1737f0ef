"""NodeUnschedulable: a cordoned node takes no new pods, unless the pod tolerates it.

``kubectl cordon`` sets a node's ``spec.unschedulable`` to true: the node
keeps its pods but must receive no new ones (an administrator is about to
drain it, say). This Filter plugin enforces that. A pod may still go there
if it tolerates the taint the node lifecycle controller puts on a cordoned
node, ``node.kubernetes.io/unschedulable:NoSchedule``; DaemonSet pods carry
that toleration, which is how they still land on cordoned nodes. The plugin
reads the field, not the taint, so it works before (and without) the
controller.

A rejection is ``UnschedulableAndUnresolvable`` with the reason
:data:`ERR_REASON_UNSCHEDULABLE`, ``node(s) were unschedulable``: evicting
pods from a cordoned node would not make room there, so preemption leaves
the node alone.

Which events can change the answer (queueing hints on, as in v1.33):

* ``Node/Add | Node/UpdateNodeTaint`` (a cordon or uncordon is reported as
  a taint update): ``QUEUE`` when a node is added schedulable, or a node
  goes from unschedulable to schedulable; anything else is ``QUEUE_SKIP``.
* ``Pod/UpdatePodTolerations``: ``QUEUE`` when the rejected pod itself gains
  a toleration of the unschedulable taint.

Toleration matching is Kubernetes' ``Toleration.ToleratesTaint``
(:func:`toleration_tolerates_taint`): an empty effect matches every effect,
an empty key matches every key, ``Exists`` matches any value, ``Equal`` (or
no operator) compares values, any other operator matches nothing.

>>> from framework.cycle_state import CycleState
>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> cordoned = NodeInfo()
>>> cordoned.set_node(Node.from_dict({"metadata": {"name": "n1"}, "spec": {"unschedulable": True}}))
>>> print(NodeUnschedulable().filter(CycleState(), Pod.from_dict({"metadata": {"name": "web"}}), cordoned))
UnschedulableAndUnresolvable: node(s) were unschedulable

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``
and ``TolerationsTolerateTaint`` in
``staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go`` with
``Toleration.ToleratesTaint`` in ``staging/src/k8s.io/api/core/v1/toleration.go``
(v1.33). One difference: a NodeInfo without a node makes the Go plugin
dereference nil (a panic); here it is an ``Error`` status, which fails this
pod's attempt and nothing else. Before v1.28 (kubernetes/kubernetes#117834)
the plugin checked and answered ``node(s) had unknown conditions``
(:data:`ERR_REASON_UNKNOWN_CONDITION`, still defined upstream).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.cycle_state import CycleState
from framework.interface import SignFragment
from framework.node_info import NodeInfo
from framework.objects import Node, Pod, Taint, Toleration, pod_uid
from framework.plugins import names
from framework.runtime import signature as sig
from framework.status import Status, node_not_found

__all__ = [
    "ERR_REASON_UNKNOWN_CONDITION",
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
"""The reason a cordoned node gives (``ErrReasonUnschedulable``)."""
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
"""``ErrReasonUnknownCondition``: what a NodeInfo without a node got before v1.28; unused since."""

TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
"""``v1.TaintNodeUnschedulable``: the taint the node lifecycle controller puts on cordoned nodes."""

UNSCHEDULABLE_TAINT = Taint(key=TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule")
"""The taint a pod must tolerate to be placed on a cordoned node."""


def toleration_tolerates_taint(
    toleration: Toleration, taint: Taint, comparison_operators: bool = False
) -> bool:
    """Whether one toleration matches a taint, as ``Toleration.ToleratesTaint`` decides.

    >>> t = Toleration(key=TAINT_NODE_UNSCHEDULABLE, operator="Exists", effect="NoSchedule")
    >>> toleration_tolerates_taint(t, UNSCHEDULABLE_TAINT)
    True
    >>> toleration_tolerates_taint(Toleration(operator="Exists"), UNSCHEDULABLE_TAINT)
    True
    >>> toleration_tolerates_taint(Toleration(key="dedicated", operator="Exists"), UNSCHEDULABLE_TAINT)
    False
    """
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    # The API defaults no operator to Equal; Go compares the raw field, so do we.
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    if toleration.operator in ("Lt", "Gt"):
        # TaintTolerationComparisonOperators (alpha, v1.35; KEP-5471): the taint's value
        # compared with the toleration's, both as integers; off, or not numbers: no match.
        return comparison_operators and _compare(
            taint.value, toleration.operator, toleration.value
        )
    return toleration.operator == "Exists"


def _compare(taint_value: str, operator: str, toleration_value: str) -> bool:
    try:
        taint_number, toleration_number = int(taint_value, 10), int(toleration_value, 10)
    except ValueError:
        return False
    if operator == "Lt":
        return taint_number < toleration_number
    return taint_number > toleration_number


def tolerations_tolerate_taint(
    tolerations: Iterable[Toleration], taint: Taint, comparison_operators: bool = False
) -> bool:
    """Whether any of the tolerations matches the taint (``TolerationsTolerateTaint``).

    ``comparison_operators`` plays the ``TaintTolerationComparisonOperators``
    gate: with it, ``Lt`` and ``Gt`` tolerations compare the taint's value.
    """
    return any(toleration_tolerates_taint(t, taint, comparison_operators) for t in tolerations)


class NodeUnschedulable:
    """Filter: no new pods on a node with ``spec.unschedulable``, unless they tolerate it."""

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Feasibility depends on the tolerations (of the unschedulable taint) (Go, v1.35)."""
        return [SignFragment(sig.TOLERATIONS_SIGNER_NAME, sig.tolerations_signer(pod))], None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """None (success) unless the node is cordoned and the pod does not tolerate that."""
        node = node_info.node
        if node is None:
            return node_not_found()
        if not node.spec.unschedulable:
            return None
        if tolerations_tolerate_taint(pod.spec.tolerations, UNSCHEDULABLE_TAINT):
            return None
        return Status.unresolvable(ERR_REASON_UNSCHEDULABLE)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A node added or (un)cordoned; the pod itself gaining a toleration."""
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
        """``QUEUE`` for a node added schedulable, or one that went from unschedulable to schedulable.

        It does not look at the pod: a pod that tolerates the taint was not
        rejected by this plugin in the first place.
        """
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        if new.spec.unschedulable:
            return QueueingHint.QUEUE_SKIP
        if old is None or old.spec.unschedulable:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """``QUEUE`` if this very pod now tolerates the unschedulable taint.

        The old tolerations need no look: tolerations can only be added, and
        a pod that already tolerated the taint would not have been rejected.
        """
        if not isinstance(new, Pod) or (old is not None and not isinstance(old, Pod)):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        if pod_uid(new) != pod_uid(pod):
            return QueueingHint.QUEUE_SKIP
        if tolerations_tolerate_taint(new.spec.tolerations, UNSCHEDULABLE_TAINT):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def new(args: Any, handle: Any) -> NodeUnschedulable:
    """The factory the registry calls; NodeUnschedulable takes no args."""
    return NodeUnschedulable()


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _filter: type[interface.FilterPlugin] = NodeUnschedulable
    _enqueue_extensions: type[interface.EnqueueExtensions] = NodeUnschedulable
