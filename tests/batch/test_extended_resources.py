"""The batch engine decides pods that request extended resources, as the reference does.

NodeResourcesFit's Filter (``fitsRequest`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/fit.go``,
v1.33, with v1.34's unresolvable shortages and v1.36's ``DRAExtendedResource``)
checks each requested extended resource against the node's allocatable minus
what its pods request, a node that does not advertise the resource having 0;
with ``DRAExtendedResource`` on, a resource a DeviceClass serves is left to
DynamicResources on a node that does not advertise it (absent or 0). Each
cycle runs both engines (``engine="both"``); the batch engine must search
those pods itself (no hand-over to the reference), with the reference's
statuses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import framework
from framework.batch.arrays import NodeArrays
from framework.batch.engine import DifferentialSchedulingAlgorithm
from framework.cache import Cache, Snapshot
from framework.objects import Node, Pod

GPU = "nvidia.com/gpu"


def node(name: str, gpus: int | None, cpu: str = "4") -> dict[str, Any]:
    allocatable = {"cpu": cpu, "memory": "8Gi", "pods": "10"}
    if gpus is not None:
        allocatable[GPU] = str(gpus)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": allocatable, "capacity": allocatable},
    }


def pod(name: str, gpus: int, cpu: str = "1", node_name: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "app",
                "image": "trainer",
                "resources": {
                    "requests": {"cpu": cpu, GPU: str(gpus)},
                    "limits": {GPU: str(gpus)},
                },
            }
        ]
    }
    if node_name is not None:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def _fit_handed_over(algorithm: DifferentialSchedulingAlgorithm) -> list[str]:
    return [why for why in algorithm.stats.reference if "NodeResourcesFit" in why]


def test_gpu_pods_are_searched_by_the_batch_engine(
    algorithms: list[DifferentialSchedulingAlgorithm],
) -> None:
    manifests = [
        node("no-gpu", None),
        node("zero-gpu", 0),
        node("one-gpu", 1),
        node("four-gpu", 4, cpu="1"),
        pod("running", 1, node_name="one-gpu"),
        pod("small", 1, cpu="500m"),
        pod("big", 2),
        pod("huge", 8),
    ]
    result = framework.simulate(*manifests, engine="both", seed=3)
    (algorithm,) = algorithms
    assert algorithm.mismatches == []
    assert result.placements["default/small"] == "four-gpu"
    assert result.placements["default/big"] is None  # four-gpu has 500m of cpu left
    # A node without the resource, or with 0 of it, is short of it; so is one whose GPU is taken.
    assert result.attempts_of("default/big")[0].message.startswith(
        "0/4 nodes are available: 1 Insufficient cpu, 3 Insufficient nvidia.com/gpu."
    )
    assert result.attempts_of("default/huge")[0].message.startswith(
        "0/4 nodes are available: 1 Insufficient cpu, 4 Insufficient nvidia.com/gpu."
    )
    assert algorithm.stats.batch_filters >= 3
    assert _fit_handed_over(algorithm) == []


def test_a_dra_backed_resource_is_left_to_dynamic_resources_on_a_node_without_it(
    algorithms: list[DifferentialSchedulingAlgorithm],
) -> None:
    from tests.simulate.test_devices import CLUSTER, EXTENDED_CLASS, limits_pod

    pods = "".join(limits_pod(f"train-{i}") for i in range(4))
    result = framework.simulate(CLUSTER, EXTENDED_CLASS, pods, engine="both", seed=1)
    placed = sorted(n for n in result.placements.values() if n is not None)
    assert placed == ["gpu-1", "gpu-2", "gpu-2"]
    (algorithm,) = algorithms
    assert algorithm.mismatches == []
    assert _fit_handed_over(algorithm) == []


def test_the_extended_resource_columns_follow_the_snapshot() -> None:
    cache, snapshot, arrays = Cache(), Snapshot(), NodeArrays()
    for item in (node("a", None), node("b", 0), node("c", 4)):
        cache.add_node(Node.from_dict(item))
    cache.update_snapshot(snapshot)
    arrays.refresh(snapshot)
    columns = arrays.scalar(GPU)
    assert columns is not None
    allocatable, requested = columns
    assert allocatable.tolist() == [0, 0, 4]
    assert requested.tolist() == [0, 0, 0]
    running = Pod.from_dict({**pod("p", 3, node_name="c"), "metadata": {"name": "p", "uid": "p"}})
    cache.add_pod(running)
    cache.update_snapshot(snapshot)
    arrays.refresh(snapshot)
    assert arrays.rows_updated == 1
    columns = arrays.scalar(GPU)
    assert columns is not None
    allocatable, requested = columns
    assert requested.tolist() == [0, 0, 3]
    fresh = NodeArrays()
    fresh.refresh(snapshot)
    found = fresh.scalar(GPU)
    assert found is not None
    assert np.array_equal(found[0], allocatable)
    assert np.array_equal(found[1], requested)


GPU_SCORING = f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {{name: cpu, weight: 1}}
        - {{name: memory, weight: 1}}
        - {{name: {GPU}, weight: 3}}
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
      - {{name: cpu, weight: 1}}
      - {{name: memory, weight: 1}}
      - {{name: {GPU}, weight: 1}}
"""


def test_an_extended_resource_in_the_scores_is_scored_by_the_batch_engine(
    algorithms: list[DifferentialSchedulingAlgorithm], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``calculateResourceAllocatableRequest`` (resource_allocation.go, v1.33): a node without
    the resource, or a pod that does not ask for it, leaves it out of the node's score."""
    from framework.batch import forms
    from framework.plugins.noderesources import balanced_allocation, fit

    answers: list[bool] = []
    for kind in (fit.Fit, balanced_allocation.BalancedAllocation):
        form = forms._SCORE_FORMS[kind]

        def recorded(*args: Any, form: Any = form) -> Any:
            verdict = form(*args)
            answers.append(verdict is not None)
            return verdict

        monkeypatch.setitem(forms._SCORE_FORMS, kind, recorded)
    manifests = [
        node("no-gpu", None),
        node("zero-gpu", 0),
        node("two-gpu", 2),
        node("eight-gpu", 8),
        pod("running", 1, node_name="eight-gpu"),
        *(pod(f"train-{i}", 1, cpu="500m") for i in range(4)),
        pod("cpu-only", 0, cpu="500m"),
    ]
    framework.simulate(*manifests, config=GPU_SCORING, engine="both", seed=5)
    (algorithm,) = algorithms
    assert algorithm.mismatches == []
    assert answers and all(answers)  # no Score form declined a pod
