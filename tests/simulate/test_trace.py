"""The trace of small runs, field by field, against what kube-scheduler computes.

Sources of the expectations (kubernetes/kubernetes, v1.33):

* ``pkg/scheduler/framework/runtime/framework.go`` (``RunFilterPlugins``):
  a node's Filter plugins run in order and the first that does not succeed
  ends the node's evaluation — so a row ends at its first failure;
  ``RunPreFilterPlugins`` marks the plugins whose PreFilter returned Skip,
  and their Filter is not run.
* ``pkg/scheduler/schedule_one.go``: ``findNodesThatFitPod`` (a PreFilter
  rejection is every node's status), ``numFeasibleNodesToFind``
  (percentageOfNodesToScore: at least 100 nodes), the round-robin
  ``nextStartNodeIndex``, ``schedulePod`` (one feasible node is chosen without
  scoring), ``prioritizeNodes`` (the weighted sum), ``handleSchedulingFailure``
  (the FailedScheduling message).
* ``pkg/scheduler/framework/plugins/nodeunschedulable``, ``tainttoleration``
  (UnschedulableAndUnresolvable filters, the reasons' wording),
  ``noderesources/least_allocated.go`` (``((allocatable − requested) × 100 /
  allocatable)`` per resource, averaged with weight 1 each for cpu and memory).
"""

from __future__ import annotations

from typing import Any

import pytest

import framework
from framework.plugins.registry import in_tree_registry
from framework.simulator.result import SimulationResult
from tests.simulate.plugins import PLUGINS


def profile(*plugins: str, extra: str = "") -> str:
    enabled = "\n".join(f"      - {p}" for p in plugins)
    return f"""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{{name: '*'}}]
      enabled:
{enabled}
{extra}"""


FILTER_AND_SCORE = profile(
    "{name: PrioritySort}",
    "{name: NodeUnschedulable}",
    "{name: TaintToleration, weight: 3}",
    "{name: NodeResourcesFit, weight: 2}",
    "{name: DefaultBinder}",
)

CLUSTER = """
kind: Node
metadata: {name: cordoned}
spec: {unschedulable: true}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}
---
kind: Node
metadata: {name: gpu}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}
---
kind: Node
metadata: {name: small}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Node
metadata: {name: big}
status: {allocatable: {cpu: "4", memory: 4Gi, pods: "10"}}
---
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
---
kind: Pod
metadata: {name: batch}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "3", memory: 1Gi}}}]}
---
kind: Pod
metadata: {name: huge}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "16"}}}]}
"""

OK = {"code": "Success", "reasons": []}
CORDONED = {
    "NodeUnschedulable": {
        "code": "UnschedulableAndUnresolvable",
        "reasons": ["node(s) were unschedulable"],
    }
}
TAINTED = {
    "NodeUnschedulable": OK,
    "TaintToleration": {
        "code": "UnschedulableAndUnresolvable",
        "reasons": ["node(s) had untolerated taint {dedicated: gpu}"],
    },
}
FITS = {"NodeUnschedulable": OK, "TaintToleration": OK, "NodeResourcesFit": OK}
NO_CPU = {
    "NodeUnschedulable": OK,
    "TaintToleration": OK,
    "NodeResourcesFit": {"code": "Unschedulable", "reasons": ["Insufficient cpu"]},
}


def attempt(pod: str, result: str, node: str | None, message: str, **rest: Any) -> dict[str, Any]:
    return {
        "pod": pod,
        "attempt": rest.pop("attempt", 1),
        "profile": "default-scheduler",
        "result": result,
        "node": node,
        "message": message,
        "filter": rest.pop("filter", {}),
        "score": rest.pop("score", {}),
        "finalScore": rest.pop("finalScore", {}),
        "nominatedNode": rest.pop("nominatedNode", None),
        "victims": rest.pop("victims", []),
    }


def test_the_trace_of_a_small_run_is_exactly_what_kube_scheduler_computes() -> None:
    # v1.33: before kubernetes#131345, a node too small in total is only Unschedulable.
    trace = framework.simulate(CLUSTER, config=FILTER_AND_SCORE, emulated_version="1.33").to_dict()
    assert trace.pop("featureGates")["emulatedVersion"] == "1.33"
    huge_message = (
        "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
        "1 node(s) were unschedulable, 2 Insufficient cpu."
    )
    assert trace == {
        "version": "v1",
        "placements": {"default/web": "big", "default/batch": "big", "default/huge": None},
        "attempts": [
            attempt(
                "default/web",
                "Scheduled",
                "big",
                "Successfully assigned default/web to big",
                filter={"cordoned": CORDONED, "gpu": TAINTED, "small": FITS, "big": FITS},
                # TaintToleration: no PreferNoSchedule taint anywhere, so 100 after its
                # reverse normalisation. LeastAllocated: small (1 of 2 cpu, 1 of 4Gi):
                # (50 + 75) / 2 = 62; big (1 of 4 cpu, 1 of 4Gi): (75 + 75) / 2 = 75.
                score={
                    "small": {"TaintToleration": 100, "NodeResourcesFit": 62},
                    "big": {"TaintToleration": 100, "NodeResourcesFit": 75},
                },
                finalScore={
                    "small": {"TaintToleration": 300, "NodeResourcesFit": 124},
                    "big": {"TaintToleration": 300, "NodeResourcesFit": 150},
                },
            ),
            # Only big has 3 cpu left: one feasible node is chosen without scoring.
            attempt(
                "default/batch",
                "Scheduled",
                "big",
                "Successfully assigned default/batch to big",
                filter={"cordoned": CORDONED, "gpu": TAINTED, "small": NO_CPU, "big": FITS},
            ),
            attempt(
                "default/huge",
                "Unschedulable",
                None,
                huge_message,
                filter={"cordoned": CORDONED, "gpu": TAINTED, "small": NO_CPU, "big": NO_CPU},
            ),
        ],
        "events": [
            {
                "type": "Normal",
                "reason": "Scheduled",
                "object": "default/web",
                "message": "Successfully assigned default/web to big",
            },
            {
                "type": "Normal",
                "reason": "Scheduled",
                "object": "default/batch",
                "message": "Successfully assigned default/batch to big",
            },
            {
                "type": "Warning",
                "reason": "FailedScheduling",
                "object": "default/huge",
                "message": huge_message,
            },
        ],
    }


def nodes(count: int, cpu: str = "4") -> str:
    return "".join(
        f"---\nkind: Node\nmetadata: {{name: node-{i:03d}}}\n"
        f'status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}\n'
        for i in range(count)
    )


def pods(count: int, cpu: str = "100m", labels: str = "{}", prefix: str = "pod") -> str:
    return "".join(
        f"---\nkind: Pod\nmetadata: {{name: {prefix}-{i:03d}, labels: {labels}}}\n"
        f"spec: {{containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: {cpu}}}}}}}]}}\n"
        for i in range(count)
    )


def test_the_filter_map_shows_percentage_of_nodes_to_score_and_the_round_robin() -> None:
    # 120 nodes, 50 %: numFeasibleNodesToFind = max(120 × 50 / 100, 100) = 100. The search
    # stops at the 100th feasible node; the next pod starts where it stopped.
    config = FILTER_AND_SCORE + "  percentageOfNodesToScore: 50\n"
    result = framework.simulate(nodes(120) + pods(2), config=config)
    first, second = result.attempts
    assert list(first.filter) == [f"node-{i:03d}" for i in range(100)]
    assert list(second.filter) == [f"node-{i:03d}" for i in (*range(100, 120), *range(80))]
    assert len(first.score) == len(first.final_score) == 100


def test_scores_are_the_plugins_scores_and_the_chosen_node_has_the_best_total() -> None:
    result = framework.simulate(nodes(5) + pods(8, cpu="700m"), config=FILTER_AND_SCORE)
    weights = {"TaintToleration": 3, "NodeResourcesFit": 2}
    assert result.score_weights["default-scheduler"] == weights
    for tried in result.attempts:
        assert set(tried.score) == set(tried.final_score)
        for node, row in tried.final_score.items():
            assert row == {name: s * weights[name] for name, s in tried.score[node].items()}
        if tried.final_score:
            assert tried.node is not None
            best = max(tried.total(node) for node in tried.final_score)
            assert tried.total(tried.node) == best


def test_a_prefilter_rejection_is_every_nodes_verdict_and_skip_is_recorded() -> None:
    config = profile(
        "{name: PrioritySort}",
        "{name: RejectLabelled}",
        "{name: NodeAffinity}",
        "{name: NodeResourcesFit}",
        "{name: DefaultBinder}",
    )
    manifests = nodes(2) + pods(1, labels="{test.example/reject: 'yes'}") + pods(1, prefix="ok")
    result = framework.simulate(manifests, config=config, plugins=PLUGINS)
    rejected = result.attempts_of("default/pod-000")[0]
    (placed,) = result.attempts_of("default/ok-000")
    verdict = {"code": "Unschedulable", "reasons": ["the pod is labelled test.example/reject"]}
    assert rejected.to_dict()["filter"] == {
        "node-000": {"RejectLabelled": verdict},
        "node-001": {"RejectLabelled": verdict},
    }
    assert rejected.message == (
        "0/2 nodes are available: the pod is labelled test.example/reject."
    )
    # NodeAffinity's PreFilter returns Skip for a pod with no affinity: its Filter does not run.
    skip = {"code": "Skip", "reasons": []}
    assert placed.to_dict()["filter"]["node-000"] == {"NodeAffinity": skip, "NodeResourcesFit": OK}


def test_an_error_is_an_attempt_and_the_retry_comes_after_the_backoff_on_simulated_time() -> None:
    config = profile("{name: PrioritySort}", "{name: FailFirstAttempt}", "{name: DefaultBinder}")
    result = framework.simulate(nodes(1) + pods(1), config=config, plugins=PLUGINS)
    first, second = result.attempts
    assert (first.result, first.attempt, first.node) == ("Error", 1, None)
    assert first.message.startswith(
        'running PreFilter plugin "FailFirstAttempt": plugin "FailFirstAttempt" raised '
        "RuntimeError: the first attempt always fails"
    )
    assert (second.result, second.attempt, second.node) == ("Scheduled", 2, "node-000")
    assert [e.reason for e in result.events] == ["FailedScheduling", "Scheduled"]


def test_permit_waits_release_together_or_time_out_as_permit_rejected() -> None:
    config = profile(
        "{name: PrioritySort}",
        "{name: NodeResourcesFit}",
        "{name: WaitForGroup}",
        "{name: DefaultBinder}",
        extra="  pluginConfig:\n  - name: WaitForGroup\n    args: {size: 3, timeoutSeconds: 5}\n",
    )
    complete = pods(3, labels="{test.example/group: a}", prefix="a")
    short = pods(1, labels="{test.example/group: b}", prefix="b")
    result = framework.simulate(nodes(3) + complete + short, config=config, plugins=PLUGINS)
    assert [result.placements[f"default/a-{i:03d}"] is not None for i in range(3)] == [True] * 3
    assert result.placements["default/b-000"] is None
    b_attempts = result.attempts_of("default/b-000")
    assert {a.result for a in b_attempts} == {"PermitRejected"}
    assert b_attempts[0].message == (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 5s at plugin "
        "WaitForGroup."
    )
    assert b_attempts[0].node is not None  # the node it waited on
    # The three bound together; their Scheduled events come in the order of their attempts.
    scheduled = [e.object for e in result.events if e.reason == "Scheduled"]
    assert scheduled == ["default/a-000", "default/a-001", "default/a-002"]


def test_a_pod_that_errors_forever_does_not_keep_the_run_going_forever() -> None:
    config = profile("{name: PrioritySort}", "{name: AlwaysError}", "{name: DefaultBinder}")
    result = framework.simulate(nodes(1) + pods(1), config=config, plugins=PLUGINS)
    attempts = result.attempts_of("default/pod-000")
    assert all(a.result == "Error" for a in attempts)
    # Backoff 1, 2, 4, 8, then 10 s: about 90 attempts fit in the 15 idle minutes.
    assert 10 < len(attempts) < 120


@pytest.mark.skipif(
    "DefaultPreemption" not in in_tree_registry(), reason="DefaultPreemption not registered yet"
)
def test_a_preemption_names_its_victims_and_the_nominated_node() -> None:
    config = profile(
        "{name: PrioritySort}",
        "{name: NodeResourcesFit}",
        "{name: DefaultPreemption}",
        "{name: DefaultBinder}",
    )
    manifests = (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
        "value: 1000\n"
        + nodes(1, cpu="1")
        + "---\nkind: Pod\nmetadata: {name: low}\nspec:\n  nodeName: node-000\n"
        '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]\n'
        + "---\nkind: Pod\nmetadata: {name: urgent}\nspec:\n  priorityClassName: high\n"
        '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]\n'
    )
    result: SimulationResult = framework.simulate(manifests, config=config)
    first = result.attempts[0]
    assert (first.pod, first.result) == ("default/urgent", "Unschedulable")
    assert first.nominated_node == "node-000"
    assert first.victims == ("default/low",)
    assert result.attempts[-1].result == "Scheduled"
    assert result.placements == {"default/low": None, "default/urgent": "node-000"}
    assert any(e.reason == "Preempted" and e.object == "default/low" for e in result.events)
