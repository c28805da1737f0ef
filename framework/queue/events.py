"""Which cluster events an update stands for, and the events the queue itself names.

An informer tells the scheduler "this node changed" with the old and the new
object. Most changes cannot help any waiting pod (a heartbeat, a new
``resourceVersion``), and the ones that can are of different kinds: a node
that gained allocatable CPU helps pods rejected for resources, a node whose
labels changed helps pods rejected by node affinity. So before asking the
queue to move pods, the scheduler turns an update into the specific
:class:`~framework.cluster_event.ClusterEvent` actions it contains:

* :func:`node_scheduling_properties_change`: allocatable, labels, taints (or
  ``spec.unschedulable`` turned off), condition statuses, annotations;
* :func:`pod_scheduling_properties_change`: labels, a request scaled down,
  scheduling gates all removed, tolerations added, the claims generated for
  its templates (``status.resourceClaimStatuses``); anything else is the
  generic "other update".

An update that changes none of a node's scheduling properties yields no
event at all, and the queue is not even asked.

>>> from framework.objects import Node, ObjectMeta
>>> old = Node(metadata=ObjectMeta(name="n1"))
>>> new = old.with_metadata(labels={"disktype": "ssd"})
>>> [e.label() for e in node_scheduling_properties_change(new, old)]
['NodeUpdateNodeLabel']
>>> node_scheduling_properties_change(old, old)
[]

The named events themselves live in :mod:`framework.cluster_event`.

Mirrors ``NodeSchedulingPropertiesChange`` and ``PodSchedulingPropertiesChange`` in
``kubernetes/kubernetes:pkg/scheduler/framework/events.go`` (v1.33), and the
cross-topology pre-filter ``getUnschedulablePodsWithCrossTopologyTerm`` of
``pkg/scheduler/backend/queue/scheduling_queue.go``. Simplified:
node conditions are compared by type and status only, as Kubernetes does.
"""

from __future__ import annotations

from decimal import Decimal

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    EventResource,
)
from framework.objects import Node, Pod, PodAffinityTerm, ResourceList
from framework.objects.labels import label_selector_as_selector
from framework.objects.resources import pod_requests

__all__ = [
    "node_scheduling_properties_change",
    "pod_matches_required_affinity_of",
    "pod_scheduling_properties_change",
]


# --- nodes ---------------------------------------------------------------------------------


def node_scheduling_properties_change(new: Node, old: Node) -> list[ClusterEvent]:
    """The node-update events hidden in ``old`` → ``new``, in Kubernetes' order; maybe none."""
    actions = [
        _node_unschedulable_turned_off(new, old),
        _node_allocatable_changed(new, old),
        _changed(new.metadata.labels, old.metadata.labels, ActionType.UPDATE_NODE_LABEL),
        _changed(new.spec.taints, old.spec.taints, ActionType.UPDATE_NODE_TAINT),
        _node_conditions_changed(new, old),
        _changed(
            new.metadata.annotations, old.metadata.annotations, ActionType.UPDATE_NODE_ANNOTATION
        ),
    ]
    return [ClusterEvent(EventResource.NODE, a) for a in actions if a is not ActionType.NONE]


def _changed(new: object, old: object, action: ActionType) -> ActionType:
    return action if new != old else ActionType.NONE


def _node_unschedulable_turned_off(new: Node, old: Node) -> ActionType:
    # Only uncordoning can help a pod; cordoning a node never makes one schedulable.
    if new.spec.unschedulable != old.spec.unschedulable and not new.spec.unschedulable:
        return ActionType.UPDATE_NODE_TAINT
    return ActionType.NONE


def _node_allocatable_changed(new: Node, old: Node) -> ActionType:
    # Compare values, not spellings: "1" and "1000m" CPU are the same allocatable.
    def values(resources: ResourceList) -> dict[str, Decimal]:
        return {name: quantity.value for name, quantity in resources.items()}

    return _changed(
        values(new.status.allocatable),
        values(old.status.allocatable),
        ActionType.UPDATE_NODE_ALLOCATABLE,
    )


def _node_conditions_changed(new: Node, old: Node) -> ActionType:
    # Heartbeat and transition times change all the time; only type → status matters.
    def statuses(node: Node) -> dict[str, str]:
        return {c.type: c.status for c in node.status.conditions}

    return _changed(statuses(new), statuses(old), ActionType.UPDATE_NODE_CONDITION)


# --- pods ----------------------------------------------------------------------------------


def pod_scheduling_properties_change(new: Pod, old: Pod) -> list[ClusterEvent]:
    """The pod-update events hidden in ``old`` → ``new``: at least one (the generic update).

    The resource is ``AssignedPod`` for a bound pod and ``UnscheduledPod``
    for a pending one. When no specific change is found the event is
    ``UPDATE_POD_OTHER``, which only a registration for the generic pod
    ``Update`` matches.

    >>> old = Pod.from_dict({"metadata": {"name": "web"},
    ...                      "spec": {"schedulingGates": [{"name": "wait"}]}})
    >>> new = Pod.from_dict({"metadata": {"name": "web", "labels": {"app": "web"}}})
    >>> [e.label() for e in pod_scheduling_properties_change(new, old)]
    ['UnscheduledPodUpdatePodLabel', 'UnscheduledPodUpdatePodSchedulingGatesEliminated']
    """
    resource = EventResource.ASSIGNED_POD if new.spec.node_name else EventResource.UNSCHEDULED_POD
    actions = [
        _changed(new.metadata.labels, old.metadata.labels, ActionType.UPDATE_POD_LABEL),
        _pod_scaled_down(new, old),
        _pod_scheduling_gates_eliminated(new, old),
        _pod_tolerations_added(new, old),
        _changed(
            new.status.extra.get("resourceClaimStatuses"),
            old.status.extra.get("resourceClaimStatuses"),
            ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM,
        ),
    ]
    events = [ClusterEvent(resource, a) for a in actions if a is not ActionType.NONE]
    return events or [ClusterEvent(resource, ActionType.UPDATE_POD_OTHER)]


def _pod_scaled_down(new: Pod, old: Pod) -> ActionType:
    # Go passes UseStatusResources: InPlacePodVerticalScaling, on in every release emulated
    # here (an override of it to off is not followed by this one check).
    new_requests = pod_requests(new, use_status_resources=True)
    for name, old_amount in pod_requests(old, use_status_resources=True).items():
        if name not in new_requests or new_requests[name] < old_amount:
            return ActionType.UPDATE_POD_SCALE_DOWN
    return ActionType.NONE


def _pod_scheduling_gates_eliminated(new: Pod, old: Pod) -> ActionType:
    if not new.spec.scheduling_gates and old.spec.scheduling_gates:
        return ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    return ActionType.NONE


def _pod_tolerations_added(new: Pod, old: Pod) -> ActionType:
    # The API only lets tolerations be added, never changed or removed, so a
    # different count means new tolerations.
    if len(new.spec.tolerations) != len(old.spec.tolerations):
        return ActionType.UPDATE_POD_TOLERATIONS
    return ActionType.NONE


# --- cross-topology pre-filter ------------------------------------------------------------


def pod_matches_required_affinity_of(pending: Pod, assigned: Pod) -> bool:
    """Whether ``assigned`` matches a required pod-affinity term of ``pending``.

    When a pod lands on a node, only pending pods whose required pod
    affinity names such a pod can be helped by it (or pods rejected by
    PodTopologySpread, which the queue checks itself). A term matches when
    the assigned pod is in one of the term's namespaces (the pending pod's
    own namespace when the term names none) and its labels match the term's
    selector. A ``namespaceSelector`` is evaluated against a namespace with
    no labels: the queue has no namespace lister, so only the empty selector
    (every namespace) matches.
    """
    affinity = pending.spec.affinity
    if affinity is None or affinity.pod_affinity is None:
        return False
    terms = affinity.pod_affinity.required_during_scheduling_ignored_during_execution
    return any(_term_matches(term, pending, assigned) for term in terms)


def _term_matches(term: PodAffinityTerm, pending: Pod, assigned: Pod) -> bool:
    namespaces = set(term.namespaces)
    if not namespaces and term.namespace_selector is None:
        namespaces = {pending.namespace}
    in_namespace = assigned.namespace in namespaces or (
        term.namespace_selector is not None
        and label_selector_as_selector(term.namespace_selector).matches({})
    )
    return in_namespace and label_selector_as_selector(term.label_selector).matches(
        assigned.metadata.labels
    )
