"""The README's demo: the book's story, with the facts kube-scheduler would produce, told from the run.

Where the expected facts come from:

* the queue order: QOSSort's ``Less`` (priority, then QoS class, then
  timestamp; ``kubernetes-sigs/scheduler-plugins:pkg/qos/queue_sort.go``
  with kubernetes-sigs/scheduler-plugins#855), the QoS classes from
  ``kubernetes/kubernetes:pkg/apis/core/v1/helper/qos/qos.go`` (a limit
  without a request requests the limit: ``pkg/apis/core/v1/defaults.go``);
* the FailedScheduling message: ``FitError.Error``
  (``pkg/scheduler/framework/types.go``), with TaintToleration's and
  NodeResourcesFit's reasons (``plugins/tainttoleration``,
  ``plugins/noderesources/fit.go``); no ``preemption:`` part, because
  preemption succeeded (``schedule_one.go`` keeps PostFilter's message only
  when it fails);
* the preemption: ``pkg/scheduler/framework/preemption/preemption.go``
  (node-c is the only node where evicting lower-priority pods makes room:
  gpu-1 is UnschedulableAndUnresolvable, node-a and node-b are too small even
  empty) and the victim's ``Preempted`` event;
* the scores of ``cache`` (1 CPU, 1 GiB) on node-a (empty, 4 CPU, 8 GiB) and
  node-b (2 CPU and 4 GiB taken): LeastAllocated
  (``least_allocated.go``) ``((4-1)/4·100 + (8-1)/8·100) // 2 = (75 + 87) // 2
  = 81`` and ``(25 + 37) // 2 = 31``; BalancedAllocation
  (``balanced_allocation.go``) ``1 - |0.25 - 0.125| / 2 → 93`` and
  ``1 - |0.75 - 0.625| / 2 → 93``; TaintToleration 100 × 3 on both;
  ImageLocality 0;
* the gang: Coscheduling's Permit (``pkg/coscheduling/coscheduling.go``):
  the first member waits, the second completes minMember 2 and both bind.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from framework.cli.demo import DemoRun, narrate, run_demo, simulate_demo


@pytest.fixture(scope="module")
def run() -> DemoRun:
    return simulate_demo()


@pytest.fixture(scope="module")
def story(run: DemoRun) -> str:
    return narrate(run)


def first_attempt_order(run: DemoRun) -> list[str]:
    order: list[str] = []
    for attempt in run.result.attempts:
        if attempt.pod not in order:
            order.append(attempt.pod)
    return order


def test_the_queue_takes_priority_then_qos_class_then_arrival(run: DemoRun, story: str) -> None:
    assert run.pending_in_file_order() == [
        "default/logs",
        "default/web",
        "default/cache",
        "default/payments",
        "default/train-0",
        "default/train-1",
    ]
    assert first_attempt_order(run) == [
        "default/payments",  # priority 1000
        "default/cache",  # Guaranteed
        "default/web",  # Burstable, earlier in the file than the gang
        "default/train-0",
        "default/train-1",
        "default/logs",  # BestEffort
    ]
    assert "     2  default/cache     priority 0     Guaranteed" in story


def test_a_filter_rejects_with_kube_schedulers_message(run: DemoRun, story: str) -> None:
    first = run.result.attempts[0]
    assert (first.pod, first.attempt, first.result) == ("default/payments", 1, "Unschedulable")
    message = (
        "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
        "3 Insufficient cpu."
    )
    assert first.message == message
    assert f"  {message}" in story
    assert (
        "gpu-1   TaintToleration   node(s) had untolerated taint {dedicated: gpu} (unresolvable)"
        in story
    )
    assert "node-c  NodeResourcesFit  Insufficient cpu" in story


def test_the_preemption_names_its_victim_and_the_preemptor_binds_on_the_nominated_node(
    run: DemoRun, story: str
) -> None:
    result = run.result
    first = result.attempts[0]
    assert (first.nominated_node, first.victims) == ("node-c", ("default/batch",))
    preempted = [e for e in result.events if e.reason == "Preempted"]
    assert [(e.object, e.message.endswith(" on node node-c")) for e in preempted] == [
        ("default/batch", True)
    ]
    second = result.attempts_of("default/payments")[-1]
    assert (second.attempt, second.result, second.node) == (2, "Scheduled", "node-c")
    assert list(second.filter) == ["node-c"]  # the nominated node, tried first
    assert result.placements["default/batch"] is None
    assert "victims:         default/batch (priority 0)" in story
    assert "Scheduled: Successfully assigned default/payments to node-c" in story


def test_scores_decide_between_two_feasible_nodes(run: DemoRun, story: str) -> None:
    cache = run.result.attempts_of("default/cache")[0]
    assert dict(cache.score["node-a"]) == {
        "TaintToleration": 100,
        "NodeResourcesFit": 81,
        # A Score plugin from v1.35 (kubernetes#134711): 0 for a pod without claims.
        "DynamicResources": 0,
        # v1.37 scores the change in balance (kubernetes#135573): 71 on both (v1.33: 93).
        "NodeResourcesBalancedAllocation": 71,
        "ImageLocality": 0,
    }
    assert cache.score["node-b"]["NodeResourcesFit"] == 31
    assert (cache.total("node-a"), cache.total("node-b"), cache.node) == (452, 402, "node-a")
    assert "NodeResourcesFit (×1)                 81 → 81    31 → 31" in story
    assert "The highest total wins: node-a. The nodes differ only in: NodeResourcesFit." in story


def test_the_gang_waits_at_permit_and_binds_together(run: DemoRun, story: str) -> None:
    attempts = list(run.result.attempts)
    index = {a.pod: i for i, a in reversed(list(enumerate(attempts)))}
    first, second = index["default/train-0"], index["default/train-1"]
    assert second == first + 1
    bound = run.bound_after
    assert bound[first] == bound[first - 1]  # train-0 waited at Permit: nothing new bound
    assert bound[second] == bound[first] + 2  # train-1 completed the group: both bound
    assert {attempts[first].result, attempts[second].result} == {"Scheduled"}
    assert "4      default/train-0  node-a  Scheduled  2 (none new: waiting at Permit)" in story
    assert "5      default/train-1  node-a  Scheduled  4 (2 new, at once)" in story


def test_every_pending_pod_is_placed(run: DemoRun, story: str) -> None:
    assert dict(run.result.placements) == {
        "default/metrics": "node-b",
        "default/batch": None,
        "default/logs": "node-c",
        "default/web": "node-a",
        "default/cache": "node-a",
        "default/payments": "node-c",
        "default/train-0": "node-a",
        # v1.37: BalancedAllocation scores the change in balance, and train-1 joins train-0 on
        # node-a (v1.33: node-b).
        "default/train-1": "node-a",
    }
    assert (
        "The end: 6 of 6 pods placed, 1 running pod(s) preempted (default/batch), "
        "in 7 scheduling attempts." in story
    )


def test_a_step_whose_evidence_is_missing_says_so() -> None:
    # The narration reads the run: a run without a rejection, a preemption, unequal scores
    # or a gang tells that, rather than the demo's usual story.
    from framework.simulator import simulate

    text = (
        'kind: Node\nmetadata: {name: only}\nstatus: {allocatable: {cpu: "1", pods: "10"}}\n'
        "---\nkind: Pod\nmetadata: {name: lone}\nspec: {containers: [{name: c, image: x}]}\n"
    )
    story = narrate(DemoRun(text, simulate(text), []))
    assert "(every attempt in this run found a node)" in story
    assert "(no attempt in this run preempted anything)" in story
    assert "(no attempt in this run scored unequal nodes)" in story
    assert "(the scenario has no PodGroup)" in story
    assert "The end: 1 of 1 pods placed, in 1 scheduling attempts." in story


def test_the_demo_is_the_same_every_run() -> None:
    assert run_demo() == run_demo()


def test_python_dash_m_framework_demo_runs_quietly() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "framework", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert result.stdout.startswith("The scheduling framework in one run\n")
    assert "3. Preemption: room for default/payments (priority 1000)" in result.stdout
    assert result.stderr == ""
