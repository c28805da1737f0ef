"""The semantics of a run: what is created when, in which order pods are tried, when it ends.

What kube-scheduler does that these expectations rest on (kubernetes/kubernetes, v1.33):
``pkg/scheduler/framework/plugins/queuesort/priority_sort.go`` (higher
priority first, then the earlier queue timestamp), ``pkg/scheduler/eventhandlers.go``
(pods with ``spec.nodeName`` go to the cache, not the queue; pods of a
``schedulerName`` no profile has are not the scheduler's), and
``pkg/scheduler/framework/plugins/schedulinggates`` (a gated pod is never tried).
"""

from __future__ import annotations

import framework
from tests.simulate.test_trace import FILTER_AND_SCORE, nodes, pods

PRIORITY_CLASS = (
    "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\nvalue: %d\n"
)


def pod(name: str, cpu: str = "100m", extra: str = "", namespace: str = "default") -> str:
    return (
        f"---\nkind: Pod\nmetadata: {{name: {name}, namespace: {namespace}}}\nspec:\n{extra}"
        f"  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: {cpu}}}}}}}]\n"
    )


def test_pending_pods_are_tried_in_file_order_within_a_priority() -> None:
    manifests = nodes(2) + "".join(pod(name) for name in ("zeta", "alpha", "mid", "beta"))
    result = framework.simulate(manifests, config=FILTER_AND_SCORE)
    assert [a.pod for a in result.attempts] == [
        "default/zeta",
        "default/alpha",
        "default/mid",
        "default/beta",
    ]
    assert list(result.placements) == [
        "default/zeta",
        "default/alpha",
        "default/mid",
        "default/beta",
    ]


def test_higher_priority_pods_go_first_whatever_their_place_in_the_file() -> None:
    manifests = (
        PRIORITY_CLASS % ("high", 1000)
        + nodes(1)
        + pod("low-1")
        + pod("urgent", extra="  priorityClassName: high\n")
        + pod("low-2")
    )
    result = framework.simulate(manifests, config=FILTER_AND_SCORE)
    assert [a.pod for a in result.attempts] == ["default/urgent", "default/low-1", "default/low-2"]


def test_running_pods_take_their_room_and_are_never_attempted() -> None:
    manifests = (
        nodes(2, cpu="1")
        + pod("already-there", cpu="1", extra="  nodeName: node-000\n")
        + pod("new", cpu="1")
    )
    result = framework.simulate(manifests, config=FILTER_AND_SCORE)
    assert result.placements == {"default/already-there": "node-000", "default/new": "node-001"}
    (only,) = result.attempts
    assert only.pod == "default/new"
    assert only.filter["node-000"]["NodeResourcesFit"].reasons == ("Insufficient cpu",)
    running = next(p for p in result.pods if p.key == "default/already-there")
    assert running.running_at_start


def test_namespaces_the_files_only_mention_are_created() -> None:
    result = framework.simulate(nodes(1) + pod("web", namespace="shop"), config=FILTER_AND_SCORE)
    assert result.placements == {"shop/web": "node-000"}


def test_a_gated_pod_and_a_pod_for_another_scheduler_are_never_attempted() -> None:
    config = FILTER_AND_SCORE.replace(
        "{name: PrioritySort}", "{name: PrioritySort}\n      - {name: SchedulingGates}"
    )
    manifests = (
        nodes(1)
        + pod("gated", extra="  schedulingGates: [{name: example.com/wait}]\n")
        + pod("elsewhere", extra="  schedulerName: my-scheduler\n")
        + pod("mine")
    )
    result = framework.simulate(manifests, config=config)
    assert [a.pod for a in result.attempts] == ["default/mine"]
    assert result.placements == {
        "default/gated": None,
        "default/elsewhere": None,
        "default/mine": "node-000",
    }
    gated = next(p for p in result.pods if p.key == "default/gated")
    assert gated.scheduling_gates == ("example.com/wait",)


def test_an_unschedulable_pod_ends_the_run_instead_of_waiting_for_the_five_minute_flush() -> None:
    result = framework.simulate(nodes(1, cpu="1") + pod("huge", cpu="8"), config=FILTER_AND_SCORE)
    (only,) = result.attempts
    assert only.result == "Unschedulable"


def test_nodes_are_there_before_the_first_cycle_whatever_their_place_in_the_file() -> None:
    manifests = pod("big", cpu="3") + nodes(1, cpu="4")
    result = framework.simulate(manifests, config=FILTER_AND_SCORE)
    (only,) = result.attempts
    assert (only.result, only.node) == ("Scheduled", "node-000")


def test_progress_is_told_after_each_attempt() -> None:
    seen: list[tuple[int, int]] = []
    framework.simulate(
        nodes(2) + pods(3), config=FILTER_AND_SCORE, progress=lambda b, t: seen.append((b, t))
    )
    assert seen == [(1, 3), (2, 3), (3, 3)]
