"""``SchedulerAsyncAPICalls``: the scheduler's writes go through the API dispatcher.

Go (read in v1.35-v1.37-era copies through the search index):
``updatePod`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go`` hands
the status patch to ``APICacher().PatchPodStatus`` and does not wait;
``DefaultBinder.Bind`` (``pkg/scheduler/framework/plugins/defaultbinder/default_binder.go``)
queues the binding with ``BindPod`` and waits with ``WaitOnFinish``;
``updatePodInSchedulingQueue`` and ``updateAssignedPodInCache``
(``pkg/scheduler/eventhandlers.go``) sync each pod update with the
dispatcher first. The gate is beta and off by default from v1.34 to v1.37
(``pkg/features/kube_features.go``).

What changes is when the writes land, not what the scheduler decides: a
failed attempt's ``PodScheduled=False`` is written after its cycle, once the
loop moves on, and a simulation ends with the same placements, events and
statuses either way.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

import framework
from framework.__main__ import main
from framework.api_calls import patch_pod_status
from framework.featuregate import new_feature_gates
from framework.objects import Pod
from framework.scheduler.scheduler import Scheduler
from framework.testing.steps import StepLog
from tests.scheduler.helpers import HANG_GUARD, Cluster, Observed, node, pod
from tests.scheduler.test_nomination_versions import N1, schedule

ASYNC = "SchedulerAsyncAPICalls=true"


def pod_scheduled(cluster: Cluster, name: str) -> str:
    current = cluster.api.get(Pod, name, namespace="default")
    return ",".join(f"{c.status}/{c.reason}" for c in current.status.conditions)


def failing(gates: str) -> tuple[Cluster, Scheduler]:
    feature_gates = new_feature_gates("1.37", gates)
    cluster = Cluster(node(N1, cpu="1"), pod("big", cpu="2"), feature_gates=feature_gates)
    sched = cluster.scheduler_with(feature_gates=feature_gates)
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)
    return cluster, sched


def test_the_gate_is_off_by_default_and_there_is_no_dispatcher() -> None:
    cluster = Cluster(node(N1))
    assert cluster.scheduler().api_dispatcher is None
    for version in ("1.34", "1.37"):
        assert not new_feature_gates(version).enabled("SchedulerAsyncAPICalls")


def test_without_the_gate_a_failed_attempt_writes_its_status_in_the_cycle() -> None:
    cluster, sched = failing("")
    assert pod_scheduled(cluster, "big") == "False/Unschedulable"
    sched.stop()


def test_with_the_gate_the_status_lands_after_the_cycle() -> None:
    cluster, sched = failing(ASYNC)
    assert sched.api_dispatcher is not None
    assert pod_scheduled(cluster, "big") == ""  # queued: the loop did not wait for it
    assert sched.api_dispatcher.call_queue.pending_by_type() == {"pod_status_patch": 1}
    assert sched.dispatch_api_calls() == 1
    assert pod_scheduled(cluster, "big") == "False/Unschedulable"
    sched.stop()


def test_with_the_gate_the_binding_goes_through_the_dispatcher() -> None:
    feature_gates = new_feature_gates("1.37", ASYNC)
    cluster = Cluster(node(N1), pod("p"), feature_gates=feature_gates)
    sched = cluster.scheduler_with(feature_gates=feature_gates)
    sched.schedule_pending()
    assert cluster.node_of("p") == N1
    assert sched.api_dispatcher is not None
    assert sched.api_dispatcher.executed_by_type() == {"pod_binding": 1}
    sched.stop()


def test_with_the_gate_a_pod_whose_binding_takes_time_is_still_nominated_first() -> None:
    # The nomination is queued before PreBind, and PreBind (which takes time in a cluster)
    # lets the dispatcher run: the binding does not overwrite it.
    cluster, work = schedule("1.37", ASYNC)
    assert work.seen == [N1]
    assert pod_scheduled(cluster, "p") == "True/"  # the binding wrote it


def test_a_pending_status_patch_made_pointless_by_an_update_is_dropped() -> None:
    """``syncPodWithDispatcher``: the informer's pod already carries the patch's change."""
    cluster, sched = failing(ASYNC)
    dispatcher = sched.api_dispatcher
    assert dispatcher is not None
    pending = dispatcher.call_queue.calls()
    (call,) = pending.values()
    # Someone else writes the same condition first (as a second scheduler instance might).
    current = cluster.api.get(Pod, "big", namespace="default")
    patch_pod_status(cluster.api, current, call.call.new_conditions, None, lambda: "t")
    sched.sync()
    assert dispatcher.call_queue.calls() == {}
    assert sched.dispatch_api_calls() == 0
    sched.stop()


@pytest.mark.parametrize(
    "example",
    [
        "examples/versions/upgrade.yaml",  # a pod too big for any node
        "examples/gangs/preemption-v1.36.yaml",  # preemption: nominations, victims, a gang
        "chapters/09_preemption/cluster.yaml",  # pod-by-pod preemption
        "chapters/11_pending/cluster.yaml",
    ],
)
def test_a_simulation_decides_the_same_with_the_gate_on_and_off(example: str) -> None:
    """Nothing a run reports changes: the same placements, attempts, events and nominations."""
    off = framework.simulate(example, emulated_version="1.37")
    on = framework.simulate(example, emulated_version="1.37", feature_gates=ASYNC)
    assert on.feature_gates is not None and on.feature_gates.enabled("SchedulerAsyncAPICalls")

    def trace(result: framework.SimulationResult) -> dict[str, object]:
        document = result.to_dict()
        del document["featureGates"]
        return document

    assert trace(on) == trace(off)
    assert on.placements  # a run that placed something


def test_compare_takes_a_feature_gate_set_per_side_and_finds_no_difference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        [
            "compare",
            "chapters/09_preemption/cluster.yaml",
            "--feature-gates",
            "SchedulerAsyncAPICalls=false",
            "--feature-gates",
            "SchedulerAsyncAPICalls=true",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "under two sets of feature gates" in out
    assert "B: <default configuration>, --feature-gates SchedulerAsyncAPICalls=true" in out
    assert "SchedulerAsyncAPICalls: A=false B=true" in out
    assert "Every pod ended on the same node under both configurations." in out


def test_compare_refuses_three_sets_of_feature_gates(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--feature-gates", ASYNC] * 3
    assert main(["compare", "chapters/09_preemption/cluster.yaml", *flags]) != 0
    assert "compare takes at most two --feature-gates (A then B), got 3" in capsys.readouterr().err


def test_a_live_scheduler_runs_the_calls_on_its_dispatcher_thread() -> None:
    """``Scheduler.Run`` starts ``APIDispatcher.Run``: bindings and statuses land without a driver."""
    feature_gates = new_feature_gates("1.37", ASYNC)
    names = [f"p{i}" for i in range(4)]
    cluster = Cluster(node(N1, cpu="2"), *(pod(n) for n in names), feature_gates=feature_gates)
    sched = cluster.scheduler_with(feature_gates=feature_gates)
    dispatcher = sched.api_dispatcher
    assert dispatcher is not None
    finished = threading.Condition()
    finalize = dispatcher.call_queue.finalize

    def finalize_and_tell(call: Any) -> None:  # woken by each call that ran, not by polling
        finalize(call)
        with finished:
            finished.notify_all()

    dispatcher.call_queue.finalize = finalize_and_tell  # type: ignore[method-assign]
    observed = Observed()
    sched.add_tracer(StepLog(observed))
    sched.run()
    try:
        observed.wait_until(lambda o: len(o.names("Bound")) == 2, "two pods are bound")
        # The two that do not fit get their PodScheduled=False from the dispatcher's thread.
        with finished:
            assert finished.wait_for(
                lambda: dispatcher.executed_by_type().get("pod_status_patch", 0) >= 2,
                HANG_GUARD,
            ), dispatcher.execution_total
    finally:
        sched.stop()
    bound = [n for n in names if cluster.node_of(n) == N1]
    assert len(bound) == 2
    for name in set(names) - set(bound):
        assert pod_scheduled(cluster, name) == "False/Unschedulable"
