"""The PodScheduled=False condition a failed attempt writes keeps its lastTransitionTime while False.

``updatePod`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``
(v1.33) calls ``podutil.UpdatePodCondition`` (``pkg/api/v1/pod/util.go``):
the new condition replaces the old one in place, and ``LastTransitionTime``
stays the old one whenever the *status* is unchanged, whatever the reason
or message say now.
"""

from __future__ import annotations

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Pod
from framework.scheduler.scheduler import Scheduler
from tests.scheduler.helpers import node, pod


def _condition(api: APIServer, name: str) -> tuple[str, str, str]:
    current = api.get(Pod, name, namespace="default")
    condition = next(c for c in current.status.conditions if c.type == "PodScheduled")
    return condition.status, condition.message, condition.last_transition_time


def test_a_new_failure_message_keeps_the_transition_time() -> None:
    clock = FakeClock()
    api = APIServer(clock)
    scheduler = Scheduler(api, clock=clock, seed=0)
    api.create(node("small", cpu="1"))
    api.create(pod("big", cpu="3"))
    scheduler.sync()
    scheduler.schedule_pending()
    status, first_message, first_time = _condition(api, "big")
    assert status == "False" and "1 Insufficient cpu" in first_message

    clock.advance(600)
    api.create(node("small-2", cpu="2"))  # the pod is tried again, on two nodes
    scheduler.sync()
    scheduler.queue.flush_unschedulable_pods_leftover()
    scheduler.queue.flush_backoff_q_completed()
    scheduler.schedule_pending()
    status, message, time = _condition(api, "big")
    assert status == "False"
    assert message != first_message and "2 Insufficient cpu" in message
    assert time == first_time
