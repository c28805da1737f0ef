"""The net under the cycles: an exception from the framework's own code costs one attempt, too.

Plugins' exceptions are caught where each plugin is called
(``framework/runtime/framework.py``); these tests make the code *around*
them fail, and check that the scheduler treats it as kube-scheduler treats
an error returned from ``schedulingCycle`` or ``bindingCycle``
(``pkg/scheduler/schedule_one.go``, v1.33): ``FailedScheduling`` with reason
``SchedulerError``, the pod back in the queue with backoff, the assumed room
given back, the loop going on. They also pin how a plugin's status code is
read when it is a plain ``int`` rather than a :class:`~framework.status.Code`.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.queue.scheduling_queue import BACKOFF_Q
from framework.runtime.registry import Registry
from framework.status import Code, Status
from tests.reliability.helpers import World, node, pod, registry


class BoomError(RuntimeError):
    pass


def test_an_exception_in_the_algorithm_fails_one_attempt_and_the_loop_goes_on() -> None:
    w = World([node("a"), pod("p0"), pod("p1")])
    algorithm = w.scheduler.scheduling.algorithm
    real = algorithm.schedule_pod

    def schedule_pod(fwk: Any, state: CycleState, p: Pod, snapshot: Any) -> Any:
        if p.name == "p0":
            raise BoomError("the algorithm tripped")
        return real(fwk, state, p, snapshot)

    algorithm.schedule_pod = schedule_pod  # type: ignore[method-assign]
    w.scheduler.schedule_pending()
    assert w.node_of("p1") == "a" and not w.node_of("p0")
    assert w.condition("p0") == (
        "SchedulerError",
        "scheduling cycle failed: BoomError: the algorithm tripped",
    )
    assert w.queue_of("p0") == BACKOFF_Q
    algorithm.schedule_pod = real  # type: ignore[method-assign]
    w.retry(seconds=1)
    assert w.node_of("p0") == "a"


def test_an_exception_after_assume_gives_the_room_back() -> None:
    w = World([node("a", cpu="1"), pod("p0")])
    queue = w.scheduler.queue
    real = queue.delete_nominated_pod_if_exists

    def fails_once(p: Pod) -> None:
        queue.delete_nominated_pod_if_exists = real  # type: ignore[method-assign]
        raise BoomError("after assume")

    queue.delete_nominated_pod_if_exists = fails_once  # type: ignore[method-assign]
    w.scheduler.schedule_pending()
    assert w.condition("p0")[0] == "SchedulerError"
    assert not w.scheduler.cache.dump().assumed_pods
    w.retry(seconds=1)
    assert w.node_of("p0") == "a"


def test_an_exception_in_the_binding_cycle_fails_one_binding() -> None:
    w = World([node("a", cpu="1"), pod("p0")])
    fwk = w.scheduler.profiles["default-scheduler"]
    real = fwk.wait_on_permit

    def fails_once(p: Pod) -> Status:
        fwk.wait_on_permit = real  # type: ignore[method-assign]
        raise BoomError("while waiting on permit")

    fwk.wait_on_permit = fails_once  # type: ignore[method-assign]
    w.scheduler.schedule_pending()
    assert w.condition("p0") == (
        "SchedulerError",
        "binding cycle failed: BoomError: while waiting on permit",
    )
    assert not w.scheduler.cache.dump().assumed_pods
    assert w.queue_of("p0") == BACKOFF_Q
    w.retry(seconds=1)
    assert w.node_of("p0") == "a"


class IntCoded:
    """A Filter that builds its status with a plain int code, as a Go port might."""

    def __init__(self, code: int) -> None:
        self.code = code

    def name(self) -> str:
        return "Everywhere"  # in Everywhere's place in the profile

    def filter(self, state: CycleState, p: Pod, node_info: NodeInfo) -> Status:
        return Status(self.code, ("said with an int",))  # type: ignore[arg-type]


def with_int_coded(code: int) -> Registry:
    reg = registry()
    reg.unregister("Everywhere")
    reg.register("Everywhere", lambda _args, _handle: IntCoded(code))
    return reg


@pytest.mark.parametrize(
    ("code", "reason", "says"),
    [
        (2, "Unschedulable", "0/1 nodes are available: 1 said with an int."),
        (3, "Unschedulable", "0/1 nodes are available: 1 said with an int."),
        (
            9,
            "SchedulerError",
            'running "Everywhere" filter plugin: plugin "Everywhere" returned a status with '
            "unknown code 9 from filter; want a Status or None",
        ),
    ],
    ids=["2 is Unschedulable", "3 is UnschedulableAndUnresolvable", "9 is no code"],
)
def test_a_status_code_given_as_a_plain_int_is_read_as_its_code(
    code: int, reason: str, says: str
) -> None:
    assert code not in (Code.SUCCESS, Code.ERROR)
    w = World([node("a"), pod("p0")], registry_override=with_int_coded(code))
    w.scheduler.schedule_pending()
    assert w.condition("p0")[0] == reason
    assert w.condition("p0")[1].startswith(says)
