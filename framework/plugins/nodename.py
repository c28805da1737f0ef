"""NodeName: a pod that names its node in ``spec.nodeName`` fits that node only.

Normally the scheduler *writes* ``spec.nodeName``, by binding, and a pod
created with the field already set never enters the scheduling queue: it
is assigned, and that node's kubelet runs it. The check still belongs in
the Filter chain for whoever runs the Filter plugins to ask "would this
pod fit on that node?" about such a pod (the cluster autoscaler does, for
DaemonSet pods; so can a simulator): every node but the named one must
say no. A node fits when the pod names no node or names this one;
otherwise ``UnschedulableAndUnresolvable`` with :data:`ERR_REASON`
(evicting pods cannot change a node's name).

>>> from framework.cycle_state import CycleState
>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> other = NodeInfo()
>>> other.set_node(Node.from_dict({"metadata": {"name": "n2"}}))
>>> pinned = Pod.from_dict({"metadata": {"name": "web"}, "spec": {"nodeName": "n1"}})
>>> print(NodeName().filter(CycleState(), pinned, other))
UnschedulableAndUnresolvable: node(s) didn't match the requested node name

Only a new node can help a pod this plugin rejected (it could be the
named one), so it registers ``Node/Add``, without a hint (queueing hints
on, as in v1.33: no node update can change a node's name).

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodename/node_name.go``
(v1.33). One difference: a NodeInfo without a node makes the Go plugin
dereference nil (a panic); here it is an ``Error`` status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.cycle_state import CycleState
from framework.interface import SignFragment
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.plugins import names
from framework.runtime import signature as sig
from framework.status import Status, node_not_found

__all__ = ["ERR_REASON", "NAME", "NodeName", "fits", "new"]

NAME = names.NODE_NAME

ERR_REASON = "node(s) didn't match the requested node name"
"""The reason every node but the requested one gives (``ErrReason``)."""


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """Whether the pod names no node, or names this one (``Fits``)."""
    return not pod.spec.node_name or pod.spec.node_name == node_info.name


class NodeName:
    """Filter: only the node named by ``spec.nodeName``, if the pod names one."""

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Feasibility depends on ``spec.nodeName`` only (Go's ``NodeName.SignPod``, v1.35)."""
        return [SignFragment(sig.NODE_NAME_SIGNER_NAME, pod.spec.node_name)], None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.node is None:
            return node_not_found()
        if not fits(pod, node_info):
            return Status.unresolvable(ERR_REASON)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A node added: it may be the one the pod names. Always worth a retry, so no hint."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD))]


def new(args: Any, handle: Any) -> NodeName:
    """The factory the registry calls; NodeName takes no args."""
    return NodeName()


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _filter: type[interface.FilterPlugin] = NodeName
    _enqueue_extensions: type[interface.EnqueueExtensions] = NodeName
