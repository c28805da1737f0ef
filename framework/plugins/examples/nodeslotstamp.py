"""NodeSlotStamp: a node's numbered slots, and each pod told which one it holds.

Some nodes carry a few numbered things that two pods must never share: the
sockets of an accelerator board, a set of local scratch disks. Such a node
says how many it has with the label ``example.com/slots``. NodeSlotStamp
gives each pod scheduled there the lowest free slot, and *stamps* the number
on the pod, in the annotation ``example.com/slot``, for the node agent that
will hand that slot to the pod's containers. (GPU-sharing schedulers work
this way: the scheduler picks the device and writes its index on the pod.)
A node without the label has no slots, and the plugin leaves its pods alone.

Each step runs where it must:

* **Filter** (scheduling cycle) refuses a node whose slots are all taken,
  with the reason ``node(s) had no free slot``.
* **Reserve** (scheduling cycle) picks the slot and remembers it twice: in
  the pod's CycleState, for its own PreBind, and in the plugin's *holds*,
  for the Filter and Reserve of the pods that come next, which could not
  otherwise see a slot that is not yet written on any pod.
* **PreBind** (binding cycle) writes the annotation through the API client,
  reading the pod again and retrying when the write loses a race
  (``Conflict``). It runs before Bind, so the node never sees the pod
  without its slot.
* **Unreserve** (whenever the attempt fails after Reserve) drops the hold.
  It may run more than once, and for a pod that holds nothing: dropping
  what is not there does nothing.

**What may be touched from where.** Filter and Reserve run on the
scheduling loop's thread, one pod at a time; PreBind and Unreserve run on
the binding workers, many pods at once, while the loop goes on. So:

* the holds are shared by all of them, and a lock guards every access;
* CycleState belongs to one pod's attempt, so the slot passes from Reserve
  to PreBind there without any care;
* the snapshot is read only in Filter and Reserve. It belongs to the
  scheduling cycle: by the time a binding cycle runs, the loop is already
  rebuilding it for the next pod.

**Which slots are taken on a node**: for each pod the snapshot has there,
the slot this plugin holds for it, else the slot its annotation names. The
hold wins because an annotation can be stale: a pod whose last binding
failed after PreBind keeps the old number until the next PreBind writes the
new one. A hold outlives the binding, because the scheduler's cache keeps
the pod as it was assumed, without the annotation, until the watch brings
the bound pod; Reserve drops the holds on its node that the snapshot no
longer needs (the pod is gone, or carries the held number itself).

Not a Kubernetes plugin: an example with the shape of kube-scheduler's
VolumeBinding (assume in Reserve, write to the API server in PreBind, undo
in Unreserve), ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/volumebinding/volume_binding.go``.
Simplified: pods bound without this plugin (by another scheduler, say) take
no slot; a change of a node's label does not move pods already there.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import APIError, Conflict
from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.cycle_state import CycleState, NotFound
from framework.interface import Handle
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.status import Status

__all__ = [
    "ERR_REASON_NO_FREE_SLOT",
    "MAX_CONFLICT_RETRIES",
    "NAME",
    "SLOTS_LABEL",
    "SLOT_ANNOTATION",
    "STATE_KEY",
    "NodeSlotStamp",
    "SlotState",
    "new",
    "node_slots",
    "stamped_slot",
]

NAME = "NodeSlotStamp"
SLOTS_LABEL = "example.com/slots"
"""The node label saying how many numbered slots it has (0, 1, ... up to the value minus one)."""
SLOT_ANNOTATION = "example.com/slot"
"""The pod annotation holding the slot it holds on its node, written by PreBind."""
ERR_REASON_NO_FREE_SLOT = "node(s) had no free slot"
MAX_CONFLICT_RETRIES = 5
"""Attempts at writing the annotation, as client-go's ``retry.DefaultRetry`` (5 steps)."""
STATE_KEY = "Reserve" + NAME


@dataclass(frozen=True, slots=True)
class SlotState:
    """The slot Reserve chose, kept in CycleState for PreBind. Immutable: clone is itself."""

    node_name: str
    slot: int

    def clone(self) -> SlotState:
        return self


def node_slots(node: Node | None) -> int | None:
    """How many slots a node declares; None if it has no (valid) ``example.com/slots`` label."""
    if node is None:
        return None
    value = node.metadata.labels.get(SLOTS_LABEL)
    if value is None or not value.isdigit():
        return None
    return int(value)


def stamped_slot(pod: Pod) -> int | None:
    """The slot written on a pod, or None."""
    value = pod.metadata.annotations.get(SLOT_ANNOTATION, "")
    return int(value) if value.isdigit() else None


class NodeSlotStamp:
    """Filter, Reserve/Unreserve and PreBind: one numbered slot per pod, stamped on the pod."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._lock = threading.Lock()
        # pod UID -> (node name, slot). Shared by the scheduling loop and the binding workers.
        self._held: dict[str, tuple[str, int]] = {}

    def name(self) -> str:
        return NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A slot frees up when a bound pod goes; slots appear with a new or relabelled node."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
        ]

    # --- scheduling cycle -----------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_slots(node_info.node) is None:
            return None
        with self._lock:
            free = self._free_slot(node_info)
        return None if free is not None else Status.unschedulable(ERR_REASON_NO_FREE_SLOT)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        node_info = self._handle.snapshot_shared_lister().node_infos().get(node_name)
        if node_slots(node_info.node) is None:
            return None
        with self._lock:
            self._drop_settled_holds(node_info)
            slot = self._free_slot(node_info)
            if slot is None:
                return Status.unschedulable(ERR_REASON_NO_FREE_SLOT)
            self._held[pod.metadata.uid] = (node_name, slot)
        state.write(STATE_KEY, SlotState(node_name, slot))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Drop the pod's hold, if it has one. Idempotent; never talks to the API server."""
        with self._lock:
            self._held.pop(pod.metadata.uid, None)

    # --- binding cycle ----------------------------------------------------------------------

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Write the reserved slot on the pod; read again and retry when the write loses a race."""
        try:
            chosen = state.read_as(STATE_KEY, SlotState)
        except NotFound:
            return None  # Reserve chose no slot: the node has none
        client = self._handle.client()
        last: APIError | None = None
        for _ in range(MAX_CONFLICT_RETRIES):
            try:
                current = client.get(Pod, pod.name, namespace=pod.namespace)
                annotations = {**current.metadata.annotations, SLOT_ANNOTATION: str(chosen.slot)}
                client.update(current.with_metadata(annotations=annotations))
                return None
            except Conflict as error:  # someone wrote the pod since we read it
                last = error
            except APIError as error:
                return _stamp_failed(pod, chosen.slot, error)
        assert last is not None
        return _stamp_failed(pod, chosen.slot, last)

    # --- the holds ---------------------------------------------------------------------------

    def holds(self) -> dict[str, tuple[str, int]]:
        """A copy of the holds, pod UID -> (node, slot): for tests and curious readers."""
        with self._lock:
            return dict(self._held)

    # The two helpers below read and change the holds: their callers hold self._lock.

    def _free_slot(self, node_info: NodeInfo) -> int | None:
        slots = node_slots(node_info.node) or 0
        taken = set()
        for info in node_info.pods:
            held = self._held.get(info.pod.metadata.uid)
            slot = held[1] if held is not None and held[0] == node_info.name else None
            taken.add(slot if slot is not None else stamped_slot(info.pod))
        return next((s for s in range(slots) if s not in taken), None)

    def _drop_settled_holds(self, node_info: NodeInfo) -> None:
        on_node = {info.pod.metadata.uid: info.pod for info in node_info.pods}
        for uid, (node_name, slot) in list(self._held.items()):
            if node_name != node_info.name:
                continue
            pod = on_node.get(uid)
            if pod is None or stamped_slot(pod) == slot:
                del self._held[uid]


def _stamp_failed(pod: Pod, slot: int, error: APIError) -> Status:
    failure = RuntimeError(f"stamping slot {slot} on pod {pod.key}: {error}")
    failure.__cause__ = error
    return Status.as_error(failure)


def new(args: Any, handle: Any) -> NodeSlotStamp:
    """The factory the registry calls; NodeSlotStamp takes no args."""
    return NodeSlotStamp(handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _filter: type[interface.FilterPlugin] = NodeSlotStamp
    _reserve: type[interface.ReservePlugin] = NodeSlotStamp
    _pre_bind: type[interface.PreBindPlugin] = NodeSlotStamp
    _enqueue_extensions: type[interface.EnqueueExtensions] = NodeSlotStamp
