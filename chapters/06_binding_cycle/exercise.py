"""Chapter 6 exercise: NodeSlotStamp's PreBind, and the Unreserve that undoes its Reserve.

NodeSlotStamp gives each pod on a node with numbered slots (the node label
``example.com/slots``) the lowest free slot. Filter and Reserve are written
for you: Reserve picks the slot, writes it into the pod's CycleState
(``SlotState`` under ``STATE_KEY``) and records a *hold* in the plugin's own
map, which a lock guards. Fill in the two binding-cycle methods:

* :meth:`NodeSlotStamp.pre_bind` writes the slot on the pod, in the
  annotation ``example.com/slot``, through the API client;
* :meth:`NodeSlotStamp.unreserve` drops the pod's hold when its attempt fails.

Then check them::

    python -m pytest chapters/06_binding_cycle --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/examples/nodeslotstamp.py``. Stuck?
``python -m framework hint 6`` shows the hints one at a time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

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
    "APIError",
    "Conflict",
    "NodeSlotStamp",
    "NotFound",
    "SlotState",
    "new",
    "node_slots",
    "stamped_slot",
]

_TODO = (
    "chapter 6 exercise: write NodeSlotStamp.{method} in chapters/06_binding_cycle/exercise.py "
    "(the rules are in the chapter's 'Exercise' section; hints: python -m framework hint 6)"
)


# --- given: the labels, the slot in CycleState, and reading a node's slots ------------------------

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


# --- the plugin: PreBind and Unreserve are yours ----------------------------------------------------


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
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
        ]

    # --- scheduling cycle (given) -----------------------------------------------------------

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

    # --- yours --------------------------------------------------------------------------------

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Drop the pod's hold, if it has one.

        Runs on a binding worker (or the scheduling loop) whenever the pod's
        attempt fails after Reserve, possibly for a pod that holds nothing,
        possibly twice. It returns nothing and must not fail.
        """
        # TODO 1: under self._lock, remove the pod's entry (by its UID) from
        #         self._held, if there is one. Touch no other pod's entry.
        raise NotImplementedError(_TODO.format(method="unreserve"))

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Write the reserved slot on the pod, in the annotation ``SLOT_ANNOTATION``.

        You have: ``state.read_as(STATE_KEY, SlotState)`` (raises
        :class:`NotFound` when Reserve chose no slot), the API client
        ``self._handle.client()`` with ``get(Pod, name, namespace=...)`` and
        ``update(pod)``, and ``pod.with_metadata(annotations=...)``.
        Return None on success, an Error status (``Status.as_error``) when
        the API server refuses.
        """
        # TODO 2: read the SlotState Reserve wrote. None there? Nothing to do.
        # TODO 3: read the pod *again* from the API server (yours may be old),
        #         add the annotation (keep the others), and update it.
        # TODO 4: Conflict means someone wrote the pod since you read it:
        #         read again and retry, up to MAX_CONFLICT_RETRIES attempts.
        #         Any other APIError, or too many conflicts: an Error status
        #         whose message is "stamping slot <n> on pod <ns>/<name>: <error>".
        raise NotImplementedError(_TODO.format(method="pre_bind"))

    # --- the holds (given) ----------------------------------------------------------------------

    def holds(self) -> dict[str, tuple[str, int]]:
        """A copy of the holds, pod UID -> (node, slot)."""
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


def new(args: Any, handle: Any) -> NodeSlotStamp:
    """The factory the registry calls; NodeSlotStamp takes no args."""
    return NodeSlotStamp(handle)
