"""NodePorts: two pods cannot listen on the same host port of the same node.

A container port with a ``hostPort`` is opened on the node itself, so the
node can give each ``(IP, protocol, port)`` to one pod only. Pods with
``hostNetwork: true`` share the node's network outright; the API server
defaults their ``hostPort`` to the ``containerPort``, so they take part in
the same check without a special case here.

**PreFilter** collects the host ports the pod's containers want and
returns ``Skip`` when there are none: most pods want none, and then Filter
is not called at all. **Filter** asks the node's
:class:`~framework.node_info.HostPortInfo` about each wanted port; an
empty IP means every address (``0.0.0.0``) and an empty protocol means TCP,
so ``0.0.0.0:8080/TCP`` conflicts with ``10.0.0.1:8080/TCP`` but not with
``10.0.0.1:8080/UDP``. A conflict is ``Unschedulable`` (not unresolvable:
evicting the pod that holds the port frees it, so preemption may help),
with :data:`ERR_REASON`.

>>> from framework.cycle_state import CycleState
>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> def web(name):
...     return Pod.from_dict({"metadata": {"name": name, "uid": name}, "spec": {"containers": [
...         {"name": "c", "image": "nginx", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}})
>>> node = NodeInfo(web("running"))
>>> node.set_node(Node.from_dict({"metadata": {"name": "n1"}}))
>>> plugin, state = NodePorts(), CycleState()
>>> plugin.pre_filter(state, web("new"), [node])
(None, None)
>>> print(plugin.filter(state, web("new"), node))
Unschedulable: node(s) didn't have free ports for the requested pod ports

Which events can help (queueing hints on, as in v1.33): a pod deleted
from a node, when it held a port this pod wants (``Pod/Delete``, with a
hint), and a node added (``Node/Add``, no hint: a new node has every port
free). A pod's ports cannot change after creation, so pod updates are not
registered.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodeports/node_ports.go``
(v1.33) with kubernetes#132040 ("Make nodeports scheduling plugin restartable
initContainer aware", merged for v1.34 and cherry-picked to v1.33 as #133390):
the host ports of sidecar (restartable init) containers count too, in the pod
and on the node, in every release this project emulates. v1.33.0 to the patch
release with the fix counted regular containers' ports only.
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
from framework.interface import PreFilterResult, SignFragment
from framework.node_info import HostPortInfo, NodeInfo
from framework.objects import ContainerPort, Pod
from framework.plugins import names
from framework.runtime import signature as sig
from framework.status import Status

__all__ = [
    "ERR_REASON",
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "NodePorts",
    "fits",
    "fits_ports",
    "get_container_ports",
    "new",
]

NAME = names.NODE_PORTS

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
"""Where PreFilter leaves the wanted host ports for Filter (``preFilterStateKey``)."""

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
"""The reason a node with a conflicting host port gives (``ErrReason``)."""


def get_container_ports(*pods: Pod) -> list[ContainerPort]:
    """The ports of the pods' containers and sidecars that ask for a host port (``hostPort > 0``).

    A sidecar (an init container with ``restartPolicy: Always``) runs beside
    the containers for the pod's whole life, so its host ports count; those
    of ordinary init containers, which finish before the containers start,
    do not.
    """
    return [
        port
        for pod in pods
        for container in (
            *pod.spec.containers,
            *(c for c in pod.spec.init_containers if c.restart_policy == "Always"),
        )
        for port in container.ports
        if port.host_port > 0
    ]


def fits_ports(want_ports: list[ContainerPort], node_info: NodeInfo) -> bool:
    """Whether none of the wanted host ports conflicts with one in use on the node."""
    used = node_info.used_ports
    return not any(used.check_conflict(p.host_ip, p.protocol, p.host_port) for p in want_ports)


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """Whether the pod's host ports are all free on the node (``Fits``)."""
    return fits_ports(get_container_ports(pod), node_info)


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    """The pod's wanted host ports; other pods coming and going do not change them."""

    ports: list[ContainerPort]

    def clone(self) -> _PreFilterState:
        return self  # never changed after PreFilter, so sharing is safe (as in Go)


class NodePorts:
    """PreFilter and Filter on host ports; see the module docstring."""

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Feasibility depends on the host ports asked for (Go's ``NodePorts.SignPod``, v1.35)."""
        return [SignFragment(sig.HOST_PORTS_SIGNER_NAME, sig.host_ports_signer(pod))], None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """``Skip`` for a pod without host ports; otherwise remember them for Filter."""
        ports = get_container_ports(pod)
        if not ports:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(ports))
        return None, None

    def pre_filter_extensions(self) -> None:
        """None: the wanted ports do not depend on the other pods."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Unschedulable`` if any wanted host port is taken on the node."""
        try:
            wanted = state.read_as(PRE_FILTER_STATE_KEY, _PreFilterState)
        except (NotFound, TypeError) as error:
            return Status.as_error(
                ValueError(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: {error}')
            )
        if not fits_ports(wanted.ports, node_info):
            return Status.unschedulable(ERR_REASON)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A pod deleted (it may have held the port), a node added (all its ports are free)."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` if the deleted pod was on a node (or nominated to one) and held a port this pod wants.

        It builds a node holding only the deleted pod's ports: if this pod
        fits there, the two pods share no port, and the deletion freed
        nothing it needs.
        """
        if not isinstance(old, Pod):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        deleted = old
        if not deleted.spec.node_name and not deleted.status.nominated_node_name:
            return QueueingHint.QUEUE_SKIP
        used = HostPortInfo()
        for port in get_container_ports(deleted):
            used.add(port.host_ip, port.protocol, port.host_port)
        if len(used) == 0:
            return QueueingHint.QUEUE_SKIP
        only_the_deleted_pod = NodeInfo()
        only_the_deleted_pod.used_ports = used
        if fits(pod, only_the_deleted_pod):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def new(args: Any, handle: Any) -> NodePorts:
    """The factory the registry calls; NodePorts takes no args."""
    return NodePorts()


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = NodePorts
    _filter: type[interface.FilterPlugin] = NodePorts
    _enqueue_extensions: type[interface.EnqueueExtensions] = NodePorts
