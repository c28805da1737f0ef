"""Requested / allocatable per node, before and after: what NodeResourcesFit counts.

Expectations from kubernetes/kubernetes v1.33: a pod's request is its
effective request (``PodRequests`` in
``staging/src/k8s.io/component-helpers/resource/helpers.go``: containers
summed, the largest init container, overhead); NodeResourcesFit's Filter
(``pkg/scheduler/framework/plugins/noderesources/fit.go``) compares the
requests on a node with its allocatable, and counts each pod against the
node's ``pods``.
"""

from __future__ import annotations

import pytest

import framework
from framework.simulator.utilisation import NodeLoad, amount, loads, resources, summary, svg

CLUSTER = """
kind: Node
metadata: {name: gpu-1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "10", example.com/gpu: "4"}}
---
kind: Node
metadata: {name: plain-1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
kind: Pod
metadata: {name: running}
spec:
  nodeName: plain-1
  initContainers: [{name: init, image: x, resources: {requests: {cpu: "3"}}}]
  containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: c
    image: x
    resources:
      requests: {cpu: "2", memory: 4Gi, example.com/gpu: "2"}
      limits: {example.com/gpu: "2"}
"""


def test_before_counts_the_running_pods_and_after_the_bound_ones() -> None:
    result = framework.simulate(CLUSTER)
    assert result.placements == {"default/running": "plain-1", "default/trainer": "gpu-1"}
    assert resources(result) == ["cpu", "memory", "pods", "example.com/gpu"]
    # The running pod's init container (3 cores) outweighs its container (1 core).
    assert loads(result, "cpu") == [
        NodeLoad("gpu-1", 8000, 0, 2000),
        NodeLoad("plain-1", 4000, 3000, 3000),
    ]
    assert loads(result, "pods") == [NodeLoad("gpu-1", 10, 0, 1), NodeLoad("plain-1", 10, 1, 1)]
    # Only gpu-1 offers GPUs: plain-1 takes no part in that picture.
    assert loads(result, "example.com/gpu") == [NodeLoad("gpu-1", 4, 0, 2)]
    assert summary("example.com/gpu", loads(result, "example.com/gpu")) == (
        "example.com/gpu: 2 of 4 requested after (50%), 0 before (0%), on 1 node(s)"
    )


@pytest.mark.parametrize(
    ("resource", "value", "text"),
    [
        pytest.param("cpu", 250, "0.25", id="millicores as cores"),
        pytest.param("cpu", 8000, "8", id="whole cores"),
        pytest.param("memory", 512 * 2**20, "512Mi", id="MiB below a GiB"),
        pytest.param("memory", 33 * 2**29, "16.5Gi", id="GiB"),
        pytest.param("example.com/gpu", 3, "3", id="a count"),
    ],
)
def test_amounts_read_as_people_write_them(resource: str, value: int, text: str) -> None:
    assert amount(resource, value) == text


def test_a_few_nodes_get_a_bar_each_many_a_histogram() -> None:
    few = [NodeLoad(f"n{i}", 1000, 0, 500) for i in range(3)]
    many = [NodeLoad(f"n{i}", 1000, 0, 100 * (i % 10)) for i in range(50)]
    assert svg("cpu", few).count("<title>") == 3
    picture = svg("cpu", many)
    assert "nodes by requested / allocatable" in picture
    assert picture.count("<title>5 node(s)</title>") == 10  # after: five nodes in each decile
