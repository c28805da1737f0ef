"""NodeSlotStamp: which slots are taken, the holds' life cycle, the stamp and its retries.

The learner's half (PreBind, Unreserve, their failures and the binding
cycles around them) is tested in ``chapters/06_binding_cycle``; this file
covers the rest of the plugin, and the reference's PreBind edges.
"""

from __future__ import annotations

import threading
from typing import Any

from framework.apiserver import APIServer, Conflict, NotFound
from framework.apiserver.errors import MSG_OBJECT_MODIFIED, resource_for
from framework.cache.snapshot import new_snapshot
from framework.clock import FakeClock
from framework.cluster_event import ASSIGNED_POD_DELETE, NODE_ADD, ActionType, ClusterEvent
from framework.cycle_state import CycleState
from framework.interface import EnqueueExtensions, FilterPlugin, PreBindPlugin, ReservePlugin
from framework.objects import Node, Pod
from framework.plugins.examples import nodeslotstamp
from framework.plugins.examples.nodeslotstamp import (
    ERR_REASON_NO_FREE_SLOT,
    MAX_CONFLICT_RETRIES,
    SLOT_ANNOTATION,
    SLOTS_LABEL,
    STATE_KEY,
    NodeSlotStamp,
    SlotState,
    node_slots,
    stamped_slot,
)
from framework.runtime.framework import Framework
from framework.status import Code, Status
from tests.scheduler.helpers import Cluster


def slotted(name: str, slots: str | None) -> Node:
    labels = {} if slots is None else {SLOTS_LABEL: slots}
    return Node.from_dict(
        {
            "metadata": {"name": name, "labels": labels},
            "status": {"allocatable": {"cpu": "8", "pods": "110"}},
        }
    )


def pod(name: str, node: str = "", slot: int | None = None) -> Pod:
    annotations = {} if slot is None else {SLOT_ANNOTATION: str(slot)}
    return Pod.from_dict(
        {
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": f"uid-{name}",
                "annotations": annotations,
            },
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox"}]},
        }
    )


class Setup:
    """An API server, a framework handle on it, and the plugin built with that handle."""

    def __init__(self, nodes: list[Node], pods: list[Pod], client: Any = None) -> None:
        self.api = APIServer(FakeClock())
        self.handle = Framework("default-scheduler", client=client or self.api)
        self.plugin = NodeSlotStamp(self.handle)
        self.snap(nodes, pods)

    def snap(self, nodes: list[Node], pods: list[Pod]) -> None:
        """A new scheduling cycle's snapshot."""
        self.handle.snapshot = new_snapshot(pods, nodes)

    def node_info(self, name: str) -> Any:
        return self.handle.snapshot.node_infos().get(name)


def test_a_node_says_how_many_slots_it_has_with_a_label() -> None:
    assert node_slots(slotted("a", "4")) == 4
    assert node_slots(slotted("a", "0")) == 0
    assert node_slots(slotted("a", None)) is None
    assert node_slots(slotted("a", "four")) is None
    assert node_slots(slotted("a", "-1")) is None
    assert node_slots(None) is None


def test_a_pod_says_its_slot_with_an_annotation() -> None:
    assert stamped_slot(pod("p", slot=3)) == 3
    assert stamped_slot(pod("p")) is None


def test_filter_leaves_a_node_without_slots_alone() -> None:
    setup = Setup([slotted("a", None)], [pod("x", "a")])
    assert setup.plugin.filter(CycleState(), pod("p"), setup.node_info("a")) is None


def test_filter_refuses_a_node_whose_slots_are_all_stamped() -> None:
    setup = Setup([slotted("a", "2")], [pod("x", "a", slot=0), pod("y", "a", slot=1)])
    status = setup.plugin.filter(CycleState(), pod("p"), setup.node_info("a"))
    assert status is not None
    assert status.code is Code.UNSCHEDULABLE
    assert status.message() == ERR_REASON_NO_FREE_SLOT == "node(s) had no free slot"


def test_a_node_with_zero_slots_takes_no_pod() -> None:
    setup = Setup([slotted("a", "0")], [])
    status = setup.plugin.filter(CycleState(), pod("p"), setup.node_info("a"))
    assert status is not None and status.code is Code.UNSCHEDULABLE


def test_pods_without_a_stamp_or_a_hold_take_no_slot() -> None:
    setup = Setup([slotted("a", "1")], [pod("bound-elsewhere", "a")])
    assert setup.plugin.filter(CycleState(), pod("p"), setup.node_info("a")) is None


def test_reserve_takes_the_lowest_free_slot_and_tells_pre_bind_through_cycle_state() -> None:
    setup = Setup([slotted("a", "4")], [pod("x", "a", slot=0), pod("y", "a", slot=2)])
    state = CycleState()
    assert setup.plugin.reserve(state, pod("p", "a"), "a") is None
    assert state.read(STATE_KEY) == SlotState("a", 1)
    assert setup.plugin.holds() == {"uid-p": ("a", 1)}


def test_reserve_on_a_node_without_slots_holds_nothing_and_pre_bind_writes_nothing() -> None:
    setup = Setup([slotted("a", None)], [])
    created = setup.api.create(pod("p"))
    state = CycleState()
    assert setup.plugin.reserve(state, created, "a") is None
    assert setup.plugin.holds() == {}
    assert setup.plugin.pre_bind(state, created, "a") is None
    unchanged = setup.api.get(Pod, "p", namespace="default")
    assert unchanged.metadata.resource_version == created.metadata.resource_version


def test_the_next_pods_see_a_held_slot_before_any_pod_carries_it() -> None:
    setup = Setup([slotted("a", "2")], [])
    first = pod("p1", "a")
    setup.plugin.reserve(CycleState(), first, "a")
    setup.snap([slotted("a", "2")], [first])  # the cache now has p1 assumed, unstamped
    state = CycleState()
    setup.plugin.reserve(state, pod("p2", "a"), "a")
    assert state.read(STATE_KEY) == SlotState("a", 1)
    setup.snap([slotted("a", "2")], [first, pod("p2", "a")])
    status = setup.plugin.filter(CycleState(), pod("p3"), setup.node_info("a"))
    assert status is not None and status.message() == ERR_REASON_NO_FREE_SLOT


def test_a_hold_wins_over_a_stale_stamp() -> None:
    # p1 still carries slot 1 from an attempt whose Bind failed; this time it holds slot 0.
    node = slotted("a", "2")
    setup = Setup([node], [pod("x", "a", slot=1)])
    p1 = pod("p1", "a", slot=1)
    setup.plugin.reserve(CycleState(), p1, "a")
    assert setup.plugin.holds() == {"uid-p1": ("a", 0)}
    setup.snap([node], [pod("x", "a", slot=1), p1])
    status = setup.plugin.filter(CycleState(), pod("p2"), setup.node_info("a"))
    assert status is not None and status.message() == ERR_REASON_NO_FREE_SLOT


def test_reserve_drops_the_holds_its_node_no_longer_needs() -> None:
    nodes = [slotted("a", "4"), slotted("b", "4")]
    setup = Setup(nodes, [])
    for slot, (name, node) in enumerate(
        (("stamped", "a"), ("deleted", "a"), ("pending", "a"), ("other", "b"))
    ):
        setup.plugin._held[f"uid-{name}"] = (node, slot)
    setup.snap(nodes, [pod("stamped", "a", slot=0), pod("pending", "a"), pod("other", "b")])
    setup.plugin.reserve(CycleState(), pod("p", "a"), "a")
    # "stamped" carries its slot itself now, "deleted" is gone; "other" is another node's.
    assert setup.plugin.holds() == {
        "uid-pending": ("a", 2),
        "uid-other": ("b", 3),
        "uid-p": ("a", 1),
    }


def test_reserve_refuses_when_no_slot_is_left() -> None:
    setup = Setup([slotted("a", "1")], [pod("x", "a", slot=0)])
    state = CycleState()
    status = setup.plugin.reserve(state, pod("p", "a"), "a")
    assert status is not None and status.message() == ERR_REASON_NO_FREE_SLOT
    assert setup.plugin.holds() == {}


def test_unreserve_leaves_other_pods_holds() -> None:
    setup = Setup([slotted("a", "2")], [])
    setup.plugin.reserve(CycleState(), pod("p1", "a"), "a")
    setup.snap([slotted("a", "2")], [pod("p1", "a")])
    setup.plugin.reserve(CycleState(), pod("p2", "a"), "a")
    setup.plugin.unreserve(CycleState(), pod("p1", "a"), "a")
    setup.plugin.unreserve(CycleState(), pod("p1", "a"), "a")
    assert setup.plugin.holds() == {"uid-p2": ("a", 1)}


def test_pre_bind_keeps_a_concurrent_writers_change() -> None:
    api = APIServer(FakeClock())

    class Racing:
        """A client whose first update loses a race against another writer's label."""

        def __init__(self) -> None:
            self.updates = 0

        def get(self, *args: Any, **kwargs: Any) -> Any:
            return api.get(*args, **kwargs)

        def update(self, obj: Pod) -> Pod:
            self.updates += 1
            if self.updates == 1:
                other = api.get(Pod, obj.name, namespace=obj.namespace)
                api.update(other.with_metadata(labels={"team": "blue"}))
            return api.update(obj)

    client = Racing()
    setup = Setup([slotted("a", "2")], [], client=client)
    created = api.create(pod("p"))
    state = CycleState()
    state.write(STATE_KEY, SlotState("a", 1))
    assert setup.plugin.pre_bind(state, created, "a") is None
    stored = api.get(Pod, "p", namespace="default")
    assert stored.metadata.labels == {"team": "blue"}
    assert stored.metadata.annotations[SLOT_ANNOTATION] == "1"
    assert client.updates == 2


def test_pre_bind_gives_up_after_five_conflicts_with_the_last_one() -> None:
    api = APIServer(FakeClock())
    created = api.create(pod("p"))
    conflict = Conflict(resource_for(Pod), "p", MSG_OBJECT_MODIFIED)

    class AlwaysLosing:
        def __init__(self) -> None:
            self.updates = 0

        def get(self, *args: Any, **kwargs: Any) -> Any:
            return api.get(*args, **kwargs)

        def update(self, obj: Pod) -> Pod:
            self.updates += 1
            raise conflict

    client = AlwaysLosing()
    setup = Setup([slotted("a", "1")], [], client=client)
    state = CycleState()
    state.write(STATE_KEY, SlotState("a", 0))
    status = setup.plugin.pre_bind(state, created, "a")
    assert client.updates == MAX_CONFLICT_RETRIES == 5
    assert status is not None and status.code is Code.ERROR
    assert status.message() == f"stamping slot 0 on pod default/p: {conflict}"


def test_pre_bind_of_a_deleted_pod_is_an_error() -> None:
    setup = Setup([slotted("a", "1")], [])
    ghost = pod("ghost")
    state = CycleState()
    state.write(STATE_KEY, SlotState("a", 0))
    status = setup.plugin.pre_bind(state, ghost, "a")
    assert status is not None and status.code is Code.ERROR
    assert status.message() == (
        f"stamping slot 0 on pod default/ghost: {NotFound(resource_for(Pod), 'ghost')}"
    )


def test_unreserve_and_reserve_from_many_threads_never_lose_or_share_a_slot() -> None:
    # The scheduling loop reserves while binding workers unreserve failed pods.
    slots = 64
    setup = Setup([slotted("a", str(slots))], [])
    first = [pod(f"old{i}", "a") for i in range(slots // 2)]
    for p in first:
        setup.plugin.reserve(CycleState(), p, "a")
    setup.snap([slotted("a", str(slots))], first)
    barrier = threading.Barrier(len(first) + 1, timeout=30)

    def fail(p: Pod) -> None:
        barrier.wait()
        setup.plugin.unreserve(CycleState(), p, "a")

    workers = [threading.Thread(target=fail, args=(p,)) for p in first]
    for worker in workers:
        worker.start()
    barrier.wait()
    fresh = [pod(f"new{i}", "a") for i in range(slots // 2)]
    for i, p in enumerate(fresh):
        assert setup.plugin.reserve(CycleState(), p, "a") is None
        setup.snap([slotted("a", str(slots))], first + fresh[: i + 1])  # p is assumed now
    for worker in workers:
        worker.join()
    held = setup.plugin.holds()
    assert set(held) == {p.metadata.uid for p in fresh}
    assert len({slot for _node, slot in held.values()}) == len(fresh)


def test_a_pod_rejected_while_waiting_on_permit_frees_its_slot_and_waits_for_an_event() -> None:
    """Kubernetes defers the AssignedPodDelete move of a binding-cycle rejection.

    Were the move made before the pod is requeued, it would be logged in the
    pod's own flight and send it to backoffQ; deferred, the pod waits among
    the unschedulable pods for an event that may help it.
    """

    class Gate:
        def name(self) -> str:
            return "Gate"

        def permit(self, state: CycleState, p: Pod, node_name: str) -> tuple[Status, float]:
            return Status.wait(), 60.0

    plugins: list[NodeSlotStamp] = []

    def build(args: Any, handle: Any) -> NodeSlotStamp:
        plugins.append(NodeSlotStamp(handle))
        return plugins[-1]

    cluster = Cluster(slotted("a", "1"))
    uid = cluster.api.create(pod("p")).metadata.uid
    sched = cluster.scheduler("NodeSlotStamp", "Gate", NodeSlotStamp=build, Gate=lambda *_: Gate())
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)
    (plugin,) = plugins
    assert plugin.holds() == {uid: ("a", 0)}
    waiting = sched.profiles["default-scheduler"].get_waiting_pod(uid)
    assert waiting is not None
    waiting.reject("Gate", "not today")
    sched.scheduling.wait_for_bindings()
    sched.stop()
    assert plugin.holds() == {}
    queued = sched.queue.pending_pods_by_queue()
    assert [p.pod.name for p in queued["unschedulablePods"]] == ["p"]
    assert queued["backoffQ"] == []


def test_a_pre_bind_rejection_after_ours_frees_the_slot_and_only_backs_off() -> None:
    """A PreBind or Bind rejection is no FitError: no plugin to wait for, so backoff, as in kube."""

    class Attach:
        def name(self) -> str:
            return "Attach"

        def pre_bind(self, state: CycleState, p: Pod, node_name: str) -> Status:
            return Status.unschedulable("volume node affinity conflict")

    plugins: list[NodeSlotStamp] = []

    def build(args: Any, handle: Any) -> NodeSlotStamp:
        plugins.append(NodeSlotStamp(handle))
        return plugins[-1]

    cluster = Cluster(slotted("a", "1"))
    cluster.api.create(pod("p"))
    sched = cluster.scheduler(
        "NodeSlotStamp", "Attach", NodeSlotStamp=build, Attach=lambda *_: Attach()
    )
    sched.schedule_pending()
    sched.stop()
    (plugin,) = plugins
    assert plugin.holds() == {}
    stored = cluster.api.get(Pod, "p", namespace="default")
    assert stored.metadata.annotations[SLOT_ANNOTATION] == "0"  # stale now, and harmless
    condition = stored.status.conditions[-1]
    assert (condition.reason, condition.message) == (
        "Unschedulable",
        "volume node affinity conflict",
    )
    (queued,) = sched.queue.pending_pods_by_queue()["backoffQ"]
    assert queued.pod.name == "p" and queued.unschedulable_plugins == set()


def test_it_registers_the_events_that_free_or_add_slots() -> None:
    registered = [r.event for r in NodeSlotStamp(Framework("x")).events_to_register()]
    assert any(e.match(ASSIGNED_POD_DELETE) for e in registered)
    assert any(e.match(NODE_ADD) for e in registered)
    relabelled = ClusterEvent(NODE_ADD.resource, ActionType.UPDATE_NODE_LABEL)
    assert any(e.match(relabelled) for e in registered)


def test_the_plugin_extends_filter_reserve_and_pre_bind() -> None:
    plugin = nodeslotstamp.new(None, Framework("x"))
    for protocol in (FilterPlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions):
        assert isinstance(plugin, protocol)
    assert plugin.name() == nodeslotstamp.NAME == "NodeSlotStamp"
