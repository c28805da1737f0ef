"""SchedulingGates: the gate's message, the event that opens it, and its hint."""

from __future__ import annotations

from framework.cluster_event import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface import EnqueueExtensions, PreEnqueuePlugin
from framework.plugins import schedulinggates
from framework.plugins.schedulinggates import SchedulingGates, waiting_for_gates
from framework.status import Code
from tests.queue.helpers import pod


def test_a_pod_without_gates_passes() -> None:
    assert SchedulingGates().pre_enqueue(pod("p")) is None


def test_a_gated_pod_is_unschedulable_and_unresolvable_with_its_gates_named() -> None:
    status = SchedulingGates().pre_enqueue(pod("p", gates=("quota", "team")))
    assert status is not None
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message() == "waiting for scheduling gates: [quota team]"
    assert status.message() == waiting_for_gates(["quota", "team"])


def test_one_gate_prints_as_a_one_element_go_slice() -> None:
    assert waiting_for_gates(["only"]) == "waiting for scheduling gates: [only]"


def test_it_registers_the_gates_eliminated_update_of_a_pod() -> None:
    (registration,) = SchedulingGates().events_to_register()
    assert registration.event == ClusterEvent(
        EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    )
    incoming = ClusterEvent(
        EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    )
    assert registration.event.match(incoming)


def test_the_hint_queues_only_for_the_pods_own_update() -> None:
    hint = SchedulingGates().is_schedulable_after_update_pod_scheduling_gates_eliminated
    gated = pod("job", gates=("quota",))
    assert hint(gated, gated, pod("job")) is QueueingHint.QUEUE
    assert hint(gated, pod("other", gates=("x",)), pod("other")) is QueueingHint.QUEUE_SKIP
    assert hint(gated, None, "not a pod") is QueueingHint.QUEUE


def test_the_plugin_is_pre_enqueue_and_enqueue_extensions_named_as_kubernetes_names_it() -> None:
    plugin = schedulinggates.new(None, None)
    assert isinstance(plugin, PreEnqueuePlugin) and isinstance(plugin, EnqueueExtensions)
    assert plugin.name() == schedulinggates.NAME == "SchedulingGates"
