"""The API dispatcher of ``SchedulerAsyncAPICalls``: one pending call per object, merged or not.

Transcribed from Kubernetes' tests, read through the search index (no tag is
attached there; the files are of the v1.34-v1.37 era, the dispatcher's
lifetime so far):

* ``TestCallQueueAdd``, ``TestCallQueuePop``, ``TestCallQueueFinalize``,
  ``TestCallQueueSyncObject``, ``TestCallQueueClose`` in
  ``kubernetes/kubernetes:pkg/scheduler/backend/api_dispatcher/call_queue_test.go``
  (index id 61788165244), with their ``mockAPICall`` and ``mockRelevances``
  (``low`` 1, ``high`` 2) from ``api_dispatcher_test.go`` (index id 4209089044);
* ``TestAPIDispatcherLifecycle`` in ``api_dispatcher_test.go``;
* ``TestPodStatusPatchCall_IsNoOp``, ``_Merge``, ``_Sync`` and ``_Execute`` in
  ``pkg/scheduler/framework/api_calls/pod_status_patch_test.go`` (index id
  7691282364, the v1.34 one-condition era; the newer ``pod_status_patch.go``,
  index id 57448917032, keeps a list of conditions, and the merge keeps the
  old call's conditions of other types, which the last Merge case checks).

Go's tests read the queue's internals (``apiCalls``, ``callsQueue``,
``inFlightEntities``) and its pending-calls metric; here the same state is
read through :meth:`CallQueue.pending`, :meth:`CallQueue.calls` and
:meth:`CallQueue.in_flight`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from framework.api_calls import (
    POD_BINDING,
    POD_STATUS_PATCH,
    RELEVANCES,
    PodBindingCall,
    PodStatusPatchCall,
)
from framework.api_dispatcher import (
    APIDispatcher,
    CallOverwritten,
    CallQueue,
    CallSkipped,
    DispatcherClosed,
    OnFinish,
    QueuedAPICall,
)
from framework.objects import Binding, ObjectMeta, ObjectReference, Pod, PodCondition, PodStatus
from framework.types import NominatingInfo, NominatingMode

LOW, HIGH = "low", "high"
MOCK_RELEVANCES = {LOW: 1, HIGH: 2}


@dataclasses.dataclass
class MockAPICall:
    """Go's ``mockAPICall``: every method answers what the test wants."""

    uid_: str
    call_type_: str
    execute_fn: Callable[[Any], None] | None = None
    merge_fn: Callable[[Any], None] | None = None
    sync_fn: Callable[[Any], Any] | None = None
    is_no_op_fn: Callable[[], bool] | None = None

    def call_type(self) -> str:
        return self.call_type_

    def uid(self) -> str:
        return self.uid_

    def execute(self, client: Any) -> None:
        if self.execute_fn is not None:
            self.execute_fn(client)

    def merge(self, old: Any) -> None:
        if self.merge_fn is not None:
            self.merge_fn(old)

    def sync(self, obj: Any) -> Any:
        return self.sync_fn(obj) if self.sync_fn is not None else obj

    def is_no_op(self) -> bool:
        return self.is_no_op_fn() if self.is_no_op_fn is not None else False


def queued(call: MockAPICall, on_finish: OnFinish | None = None) -> QueuedAPICall:
    return QueuedAPICall(call, on_finish)


def verify_queue_state(cq: CallQueue, pending: dict[str, int]) -> None:
    """Go's ``verifyQueueState``: the pending calls per type, and the queue's length."""
    for call_type, expected in pending.items():
        assert cq.pending_by_type().get(call_type, 0) == expected, call_type
    assert len(cq.pending()) == sum(pending.values())


def verify_calls(cq: CallQueue, *calls: QueuedAPICall) -> None:
    """Go's ``verifyCalls``: the one call held per object."""
    held = cq.calls()
    assert len(held) == len(calls)
    for call in calls:
        assert held[call.uid()] is call


def verify_in_flight(cq: CallQueue, *uids: str) -> None:
    assert cq.in_flight() == set(uids)


# --- TestCallQueueAdd ---------------------------------------------------------------------------


def test_first_call_is_added_without_collision() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    call = queued(MockAPICall("uid1", LOW))
    cq.add(call)
    verify_queue_state(cq, {LOW: 1})
    verify_calls(cq, call)


def test_no_op_call_is_skipped() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    on_finish = OnFinish()
    call = queued(MockAPICall("uid1", LOW, is_no_op_fn=lambda: True), on_finish)
    with pytest.raises(CallSkipped):
        cq.add(call)
    verify_queue_state(cq, {LOW: 0})
    verify_calls(cq)
    assert isinstance(on_finish.result(), CallSkipped)


def test_two_calls_for_different_objects_do_not_collide() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    call1 = queued(MockAPICall("uid1", LOW))
    call2 = queued(MockAPICall("uid2", HIGH))
    cq.add(call1)
    cq.add(call2)
    verify_queue_state(cq, {LOW: 1, HIGH: 1})
    verify_calls(cq, call1, call2)


def test_new_call_overwrites_less_relevant_call() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    on_finish = OnFinish()
    call_low = queued(MockAPICall("uid1", LOW), on_finish)
    call_high = queued(MockAPICall("uid1", HIGH))
    cq.add(call_low)
    cq.add(call_high)
    verify_queue_state(cq, {HIGH: 1, LOW: 0})
    verify_calls(cq, call_high)
    assert isinstance(on_finish.result(), CallOverwritten)


def test_new_call_is_skipped_if_less_relevant() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    on_finish = OnFinish()
    call_low = queued(MockAPICall("uid1", LOW), on_finish)
    call_high = queued(MockAPICall("uid1", HIGH))
    cq.add(call_high)
    with pytest.raises(CallSkipped):
        cq.add(call_low)
    verify_queue_state(cq, {HIGH: 1})
    verify_calls(cq, call_high)
    assert isinstance(on_finish.result(), CallSkipped)


def test_new_call_merges_with_old_call_and_skips_if_no_op() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    finish1, finish2, finish3 = OnFinish(), OnFinish(), OnFinish()
    call1 = queued(MockAPICall("uid1", LOW, merge_fn=lambda old: None), finish1)
    call2 = queued(MockAPICall("uid1", LOW, merge_fn=lambda old: None), finish2)
    no_op = {"now": False}

    def merge3(old: Any) -> None:
        no_op["now"] = True

    call3 = queued(
        MockAPICall("uid1", LOW, merge_fn=merge3, is_no_op_fn=lambda: no_op["now"]), finish3
    )
    cq.add(call1)
    cq.add(call2)
    verify_queue_state(cq, {LOW: 1})
    verify_calls(cq, call2)
    assert isinstance(finish1.result(), CallOverwritten)

    with pytest.raises(CallSkipped):
        cq.add(call3)
    verify_queue_state(cq, {LOW: 0})
    verify_calls(cq)
    assert isinstance(finish2.result(), CallOverwritten)
    assert isinstance(finish3.result(), CallSkipped)


def test_a_call_of_another_type_waits_for_the_one_in_flight() -> None:
    """``merge``: types differ and the old call is in flight: the new one waits, none is told."""
    cq = CallQueue(MOCK_RELEVANCES)
    finish_low = OnFinish()
    call_low = queued(MockAPICall("uid1", LOW), finish_low)
    cq.add(call_low)
    assert cq.pop() is call_low
    call_high = queued(MockAPICall("uid1", HIGH))
    cq.add(call_high)
    verify_queue_state(cq, {HIGH: 0, LOW: 0})  # not queued until the low call finishes
    verify_calls(cq, call_high)
    assert not finish_low.done()
    cq.finalize(call_low)
    verify_queue_state(cq, {HIGH: 1})
    verify_in_flight(cq)


# --- TestCallQueuePop / Finalize ------------------------------------------------------------------


def test_calls_are_popped_in_fifo_order() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    call1 = queued(MockAPICall("uid1", LOW))
    call2 = queued(MockAPICall("uid2", LOW))
    cq.add(call1)
    cq.add(call2)
    verify_queue_state(cq, {LOW: 2})
    assert cq.pop() is call1
    verify_queue_state(cq, {LOW: 1})
    verify_calls(cq, call1, call2)
    verify_in_flight(cq, "uid1")
    assert cq.pop() is call2
    verify_queue_state(cq, {LOW: 0})
    verify_calls(cq, call1, call2)
    verify_in_flight(cq, "uid1", "uid2")


def test_pop_on_an_empty_queue_returns_none_without_blocking() -> None:
    """Go's ``pop`` blocks; the stepped queue answers None (the dispatcher's thread waits)."""
    assert CallQueue(MOCK_RELEVANCES).pop() is None


def test_call_details_are_cleared_if_there_is_no_waiting_call() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    call = queued(MockAPICall("uid", LOW))
    cq.add(call)
    popped = cq.pop()
    assert popped is call
    cq.finalize(popped)
    verify_queue_state(cq, {LOW: 0})
    verify_calls(cq)
    verify_in_flight(cq)


def test_uid_is_requeued_if_a_new_call_arrived_while_one_was_in_flight() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    call1 = queued(MockAPICall("uid", LOW))
    cq.add(call1)
    popped = cq.pop()
    assert popped is call1
    call2 = queued(MockAPICall("uid", LOW))
    cq.add(call2)
    cq.finalize(popped)
    verify_queue_state(cq, {LOW: 1})
    verify_calls(cq, call2)
    verify_in_flight(cq)


# --- TestCallQueueSyncObject --------------------------------------------------------------------


def test_object_is_synced_with_pending_call_details() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    obj = ObjectMeta(uid="uid1")

    def sync(o: ObjectMeta) -> ObjectMeta:
        return dataclasses.replace(o, annotations={"synced": "true"})

    call = queued(MockAPICall("uid1", LOW, sync_fn=sync))
    cq.add(call)
    synced = cq.sync_object(obj)
    verify_queue_state(cq, {LOW: 1})
    verify_calls(cq, call)
    verify_in_flight(cq)
    assert synced.annotations == {"synced": "true"}


def test_pending_call_is_cancelled_if_sync_results_in_no_op() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    on_finish = OnFinish()
    no_op = {"now": False}

    def sync(o: ObjectMeta) -> ObjectMeta:
        no_op["now"] = True
        return o

    call = queued(
        MockAPICall("uid1", LOW, sync_fn=sync, is_no_op_fn=lambda: no_op["now"]), on_finish
    )
    cq.add(call)
    cq.sync_object(ObjectMeta(uid="uid1"))
    verify_queue_state(cq, {LOW: 0})
    verify_calls(cq)
    verify_in_flight(cq)
    assert isinstance(on_finish.result(), CallSkipped)


def test_object_is_not_synced_if_its_uid_has_no_call() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    obj = ObjectMeta(uid="uid2")
    cq.add(queued(MockAPICall("uid1", LOW, sync_fn=lambda o: dataclasses.replace(o, name="x"))))
    assert cq.sync_object(obj) is obj


# --- TestCallQueueClose ------------------------------------------------------------------------


def test_pop_returns_none_and_add_fails_once_closed() -> None:
    cq = CallQueue(MOCK_RELEVANCES)
    pending = OnFinish()
    cq.add(queued(MockAPICall("uid1", LOW), pending))
    cq.close()
    assert cq.pop() is None
    assert isinstance(pending.result(), DispatcherClosed)
    late = OnFinish()
    with pytest.raises(DispatcherClosed, match="api dispatcher is closed"):
        cq.add(queued(MockAPICall("uid2", LOW), late))
    assert isinstance(late.result(), DispatcherClosed)


# --- TestAPIDispatcherLifecycle ------------------------------------------------------------------


def test_dispatcher_lifecycle_merges_syncs_then_executes_once() -> None:
    dispatcher = APIDispatcher(client=None, parallelization=1, relevances=MOCK_RELEVANCES)
    counts = {"execute": 0, "merge": 0, "sync": 0, "is_no_op": 0}

    def count(name: str, value: Any = None) -> Callable[..., Any]:
        def fn(*args: Any) -> Any:
            counts[name] += 1
            return args[0] if name == "sync" else value

        return fn

    call1 = MockAPICall("uid", LOW)
    call2 = MockAPICall(
        "uid",
        LOW,
        execute_fn=count("execute"),
        merge_fn=count("merge"),
        sync_fn=count("sync"),
        is_no_op_fn=count("is_no_op", False),
    )
    finish1, finish2 = OnFinish(), OnFinish()
    dispatcher.add(call1, finish1)
    dispatcher.add(call2, finish2)
    assert counts["merge"] == 1
    assert isinstance(finish1.result(), CallOverwritten)
    dispatcher.sync_object(ObjectMeta(uid="uid"))
    assert counts["sync"] == 1
    assert not finish2.done()  # nothing runs until the dispatcher does

    assert dispatcher.dispatch() == 1
    assert finish2.done() and finish2.result() is None
    assert counts["execute"] == 1
    assert counts["is_no_op"] == 2  # at add, and after the sync
    assert dispatcher.executed_by_type() == {LOW: 1}


def test_an_executed_call_that_fails_reports_its_error() -> None:
    dispatcher = APIDispatcher(client=None, relevances=MOCK_RELEVANCES)

    def fail(client: Any) -> None:
        raise RuntimeError("the server said no")

    on_finish = OnFinish()
    dispatcher.add(MockAPICall("uid", LOW, execute_fn=fail), on_finish)
    dispatcher.dispatch()
    error = on_finish.result()
    assert isinstance(error, RuntimeError) and str(error) == "the server said no"


# --- the built-in calls: relevances, PodStatusPatchCall, PodBindingCall ------------------------------


def test_binding_is_more_relevant_than_a_status_patch() -> None:
    """``Relevances`` in ``pkg/scheduler/framework/api_calls/api_calls.go``."""
    assert RELEVANCES == {POD_STATUS_PATCH: 1, POD_BINDING: 2}


def pod_with(nominated: str = "", conditions: tuple[PodCondition, ...] = ()) -> Pod:
    return Pod(
        metadata=ObjectMeta(name="pod", namespace="ns", uid="uid"),
        status=PodStatus(nominated_node_name=nominated, conditions=conditions),
    )


SCHEDULED_FALSE = PodCondition(type="PodScheduled", status="False")
OVERRIDE_A = NominatingInfo("node-a", NominatingMode.OVERRIDE)
OVERRIDE_B = NominatingInfo("node-b", NominatingMode.OVERRIDE)


@pytest.mark.parametrize(
    ("condition", "nominating", "want"),
    [
        (SCHEDULED_FALSE, OVERRIDE_A, True),  # condition and node name match
        (PodCondition(type="PodScheduled", status="True"), OVERRIDE_A, False),
        (SCHEDULED_FALSE, OVERRIDE_B, False),  # nominated node name differs
        (None, OVERRIDE_A, True),
        (None, OVERRIDE_B, False),
    ],
)
def test_pod_status_patch_is_no_op(
    condition: PodCondition | None, nominating: NominatingInfo, want: bool
) -> None:
    call = PodStatusPatchCall(pod_with("node-a", (SCHEDULED_FALSE,)), condition, nominating)
    assert call.is_no_op() is want


def test_merge_takes_the_old_calls_nomination_and_condition() -> None:
    old = PodStatusPatchCall(pod_with(), SCHEDULED_FALSE, OVERRIDE_A)
    new = PodStatusPatchCall(pod_with(), None, NominatingInfo())
    new.merge(old)
    assert new.nominating_info == OVERRIDE_A
    assert [c.type for c in new.new_conditions] == ["PodScheduled"]


def test_merge_does_not_overwrite_the_new_calls_nomination_and_condition() -> None:
    old = PodStatusPatchCall(pod_with(), None, NominatingInfo())
    new = PodStatusPatchCall(pod_with(), SCHEDULED_FALSE, OVERRIDE_B)
    new.merge(old)
    assert new.nominating_info == OVERRIDE_B
    assert new.new_conditions == [SCHEDULED_FALSE]


def test_merge_keeps_the_new_condition_of_a_type_both_carry() -> None:
    old = PodStatusPatchCall(
        pod_with(), PodCondition(type="PodScheduled", status="False", reason="Old"), None
    )
    new = PodStatusPatchCall(
        pod_with(), PodCondition(type="PodScheduled", status="False", reason="New"), None
    )
    new.merge(old)
    assert [c.reason for c in new.new_conditions] == ["New"]


def test_sync_before_execution_updates_the_calls_status_and_the_pod() -> None:
    pod = pod_with("node-a", (SCHEDULED_FALSE,))
    call = PodStatusPatchCall(pod, None, NominatingInfo("node-c", NominatingMode.OVERRIDE))
    updated = dataclasses.replace(
        pod, status=dataclasses.replace(pod.status, nominated_node_name="node-b")
    )
    synced = call.sync(updated)
    assert call.pod_status.nominated_node_name == "node-b"
    assert synced.status.nominated_node_name == "node-c"


def test_sync_during_or_after_execution_updates_only_the_pod() -> None:
    pod = pod_with("node-a", (SCHEDULED_FALSE,))
    call = PodStatusPatchCall(pod, None, NominatingInfo("node-c", NominatingMode.OVERRIDE))
    call.executed = True
    updated = dataclasses.replace(
        pod, status=dataclasses.replace(pod.status, nominated_node_name="node-b")
    )
    synced = call.sync(updated)
    assert call.pod_status.nominated_node_name == "node-a"
    assert synced.status.nominated_node_name == "node-c"


class RecordingClient:
    """Enough of the API client for the calls: what was written."""

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self.writes: list[str] = []

    def get(self, kind: type, name: str, namespace: str = "") -> Pod:
        return self.pod

    def update_status(self, pod: Pod) -> Pod:
        self.writes.append("status")
        self.pod = pod
        return pod

    def bind(self, binding: Binding) -> None:
        self.writes.append(f"bind {binding.target.name}")


def test_execute_patches_the_status() -> None:
    pod = pod_with("node-a")
    client = RecordingClient(pod)
    call = PodStatusPatchCall(pod, SCHEDULED_FALSE, NominatingInfo())
    call.execute(client)
    assert client.writes == ["status"]
    assert call.executed
    assert client.pod.status.conditions[0].type == "PodScheduled"
    assert client.pod.status.nominated_node_name == "node-a"


def test_execute_skips_the_api_call_if_the_patch_is_not_needed() -> None:
    pod = pod_with("node-a")
    client = RecordingClient(pod)
    PodStatusPatchCall(pod, None, OVERRIDE_A).execute(client)
    assert client.writes == []


def test_binding_overwrites_a_pending_status_patch_of_the_same_pod() -> None:
    """The built-in relevances at work: a binding replaces a nomination still queued."""
    pod = pod_with()
    client = RecordingClient(pod)
    dispatcher = APIDispatcher(client)
    patch_done, bind_done = OnFinish(), OnFinish()
    dispatcher.add(PodStatusPatchCall(pod, None, OVERRIDE_A), patch_done)
    binding = Binding(
        metadata=ObjectMeta(name="pod", namespace="ns", uid="uid"),
        target=ObjectReference(kind="Node", name="node-a"),
    )
    dispatcher.add(PodBindingCall(binding), bind_done)
    assert isinstance(patch_done.result(), CallOverwritten)
    # A status patch while the binding waits is skipped: the binding is more relevant.
    with pytest.raises(CallSkipped):
        dispatcher.add(PodStatusPatchCall(pod, SCHEDULED_FALSE, None))
    dispatcher.dispatch()
    assert client.writes == ["bind node-a"]
    assert bind_done.result() is None
