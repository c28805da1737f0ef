"""The batch Filter over the search's window: the nodes from ``next_start_node_index`` on.

``findNodesThatPassFilters`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``
(v1.33) stops at the ``numFeasibleNodesToFind``-th feasible node of its
round robin; past 200 nodes that is a share of the cluster, so the batch
forms answer first for twice that many nodes from where the search starts,
and for every node only when the window might not hold enough feasible
ones. These clusters are larger than :mod:`tests.batch.test_differential`'s
(past 200 nodes, where the window is smaller than the cluster), with
rejections scattered through them; every cycle runs both engines
(``engine="both"``) and must agree, as there.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import framework
from framework.batch import arrays as batch_arrays
from tests.batch.test_differential import HIGH, LOW, node, pod

# Each example is a cluster of 200-odd nodes: fewer of them than the differential test's.
EXAMPLES = max(2, int(os.environ.get("KSF_DIFFERENTIAL_EXAMPLES", "8")) // 8)


def _plain_node(index: int, pods: int = 110) -> dict[str, Any]:
    name = f"node-{index}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": str(pods)}},
    }


def _pending(index: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"pod-{index}", "namespace": "default"},
        "spec": {
            "containers": [
                {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
            ]
        },
    }


# 10 % of 300 is below kube's floor of 100 nodes to find (minFeasibleNodesToFind).
TEN_PERCENT = (
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    "percentageOfNodesToScore: 10\n"
)


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(window size, cluster size) of every window the batch Filter opened."""
    seen: list[tuple[int, int]] = []
    original = batch_arrays.NodeWindow.__init__

    def recording(self: Any, base: Any, start: int, size: int) -> None:
        original(self, base, start, size)
        seen.append((size, len(base)))

    monkeypatch.setattr(batch_arrays.NodeWindow, "__init__", recording)
    return seen


def test_a_large_cluster_is_filtered_over_a_window(windows: list[tuple[int, int]]) -> None:
    """300 roomy nodes: 100 to find, so 200 nodes are looked at, and the engines agree."""
    nodes = [_plain_node(i) for i in range(300)]
    pending = [_pending(i) for i in range(5)]
    result = framework.simulate(*nodes, *pending, config=TEN_PERCENT, engine="both")
    assert all(p.node for p in result.pods)
    assert windows and all(size == 200 < total for size, total in windows)


def test_too_few_feasible_nodes_in_the_window_widens_it(windows: list[tuple[int, int]]) -> None:
    """Most nodes full: the window cannot hold 100 feasible nodes, so every node is looked at."""
    nodes = [_plain_node(i, pods=0 if i % 10 else 110) for i in range(300)]
    pending = [_pending(i) for i in range(3)]
    result = framework.simulate(*nodes, *pending, config=TEN_PERCENT, engine="both")
    assert all(p.node for p in result.pods)
    assert (300, 300) in windows


@st.composite
def large_cluster(draw: Any) -> list[dict[str, Any]]:
    count = draw(st.integers(201, 215))
    nodes = [draw(node(i)) for i in range(count)]
    names = [n["metadata"]["name"] for n in nodes]
    running = [draw(pod(f"run-{i}", names, True)) for i in range(draw(st.integers(0, 20)))]
    pending = [draw(pod(f"pod-{i}", names, False)) for i in range(draw(st.integers(1, 6)))]
    return [HIGH, LOW, *nodes, *running, *pending]


@pytest.mark.timeout(1800)
@settings(max_examples=EXAMPLES, deadline=None)
@given(
    manifests=large_cluster(),
    percentage=st.sampled_from([None, 5, 30, 60]),
    seed=st.integers(0, 2**16),
)
def test_the_engines_agree_past_200_nodes(
    manifests: list[dict[str, Any]], percentage: int | None, seed: int
) -> None:
    config = None
    if percentage is not None:
        config = (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            f"percentageOfNodesToScore: {percentage}\n"
        )
    framework.simulate(*manifests, config=config, seed=seed, engine="both")
