"""A generated 200-node, 1000-pod run completes with a trace that agrees with itself and the cluster.

What it checks against (kubernetes/kubernetes, v1.33): ``numFeasibleNodesToFind``
in ``pkg/scheduler/schedule_one.go`` (200 nodes, adaptive percentage
50 − 200/125 = 49 %: 98, raised to the minimum of 100 feasible nodes), and
NodeResourcesFit's Filter (``noderesources/fit.go``: no node is given more
than its allocatable).
"""

from __future__ import annotations

from collections import Counter

import pytest

import framework

NODES, PODS = 200, 1000


def scenario() -> tuple[str, dict[str, int], dict[str, int]]:
    docs, allocatable, requests = [], {}, {}
    for i in range(NODES):
        name, cpu = f"node-{i:03d}", 4 + i % 4
        allocatable[name] = cpu * 1000
        docs.append(
            f"kind: Node\nmetadata: {{name: {name}, labels: {{topology.kubernetes.io/zone: "
            f'z{i % 3}}}}}\nstatus: {{allocatable: {{cpu: "{cpu}", memory: 16Gi, pods: "110"}}}}'
        )
    for j in range(PODS):
        name, milli = f"pod-{j:04d}", 200 + (j % 9) * 150
        requests[f"default/{name}"] = milli
        docs.append(
            f"kind: Pod\nmetadata: {{name: {name}, labels: {{app: a{j % 5}}}}}\nspec: "
            f"{{containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: {milli}m, "
            f"memory: 256Mi}}}}}}]}}"
        )
    return "\n---\n".join(docs) + "\n", allocatable, requests


@pytest.mark.slow
def test_a_large_generated_run_completes_with_a_consistent_trace() -> None:
    manifests, allocatable, requests = scenario()
    result = framework.simulate(manifests)
    placements = result.placements
    assert len(placements) == PODS

    # Each pod's last attempt says where it is; every bound pod has its Scheduled event.
    scheduled_events = Counter(e.object for e in result.events if e.reason == "Scheduled")
    for pod, node in placements.items():
        last = result.attempts_of(pod)[-1]
        if node is None:
            assert last.result != "Scheduled"
        else:
            assert (last.result, last.node) == ("Scheduled", node)
            assert scheduled_events[pod] == 1

    # No node holds more than its allocatable cpu.
    used: Counter[str] = Counter()
    for pod, node in placements.items():
        if node is not None:
            used[node] += requests[pod]
    assert all(used[node] <= allocatable[node] for node in used)
    total_room = sum(allocatable.values())
    assert sum(used.values()) == sum(requests[p] for p, n in placements.items() if n)
    assert sum(requests.values()) < total_room  # everything fits here...
    assert all(node is not None for node in placements.values())  # ...and was placed

    # percentageOfNodesToScore at work: an attempt evaluates at least the 100 nodes it
    # needs (more when some fail), never all 200 while there is room everywhere.
    first = result.attempts[0]
    assert len(first.filter) == 100 and len(first.final_score) == 100
