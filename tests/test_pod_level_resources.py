"""Pod-level resources and in-place resize: what a pod's requests are, per release and gate.

Sources (kubernetes/kubernetes, read through the search index):

* ``staging/src/k8s.io/component-helpers/resource/helpers.go``, a v1.37-era copy
  (index id 68478188220): ``PodRequests`` replaces the containers' aggregate by each
  pod-level request of a supported resource (cpu, memory, hugepages-*), then adds
  overhead; with ``UseStatusResources`` the aggregate is
  ``max(spec, actuated, allocated)``, and ``max(actuated, allocated)`` when the
  resize is ``Infeasible``.
* ``pkg/scheduler/framework/types.go`` (v1.34+, index id 29820444):
  ``PodInfo.CalculateResource`` passes ``UseStatusResources: InPlacePodVerticalScaling``
  and ``SkipPodLevelResources: !PodLevelResources``; ``getNonMissingContainerRequests``
  gives the scoring defaults, with pod-level requests set, only to cpu/memory stated
  nowhere.
* ``pkg/scheduler/framework/plugins/noderesources/fit.go`` (v1.35-era, index id
  277813796): ``computePodResourceRequest`` follows ``EnablePodLevelResources`` and
  never reads a pending pod's status; ``resource_allocation.go`` (v1.37-era, index id
  3571686475): ``calculatePodResourceRequest`` follows both gates.
* ``pkg/features/kube_features.go``: ``PodLevelResources`` alpha (off) in v1.32, beta
  (on) from v1.34; ``InPlacePodVerticalScaling`` on from v1.33.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

import framework
from framework.cache import Cache
from framework.cycle_state import CycleState
from framework.featuregate import new_feature_gates
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.resources import ResourceGates, pod_requests, resource_gates
from framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from framework.plugins.noderesources.fit import Fit
from framework.types import PodInfo

MI = 2**20
ON, OFF = ResourceGates(), ResourceGates(pod_level_resources=False)


def make_pod(
    name: str = "p",
    *containers: dict[str, Any],
    pod_level: dict[str, str] | None = None,
    node: str = "",
    status: dict[str, Any] | None = None,
    overhead: dict[str, str] | None = None,
) -> Pod:
    spec: dict[str, Any] = {"containers": list(containers)}
    if pod_level is not None:
        spec["resources"] = {"requests": pod_level}
    if node:
        spec["nodeName"] = node
    if overhead:
        spec["overhead"] = overhead
    return Pod.from_dict(
        {"metadata": {"name": name, "uid": name}, "spec": spec, "status": status or {}}
    )


def c(name: str = "c", **requests: str) -> dict[str, Any]:
    return {"name": name, "image": "i", "resources": {"requests": requests}}


def handle(version: str, gates: str = "") -> Any:
    return SimpleNamespace(feature_gates=new_feature_gates(version, gates or None))


def node(cpu: str = "2", memory: str = "4Gi") -> Node:
    return Node.from_dict(
        {
            "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "10"}},
        }
    )


# --- PodRequests -------------------------------------------------------------------------------


def test_a_pod_level_request_replaces_the_containers_sum_and_overhead_still_adds() -> None:
    pod = make_pod(
        "p",
        c("a", cpu="500m", memory="1Gi"),
        c("b", cpu="250m"),
        pod_level={"cpu": "2", "ephemeral-storage": "1Gi"},
        overhead={"cpu": "100m"},
    )
    # cpu from the pod level (+ overhead); memory from the containers; ephemeral-storage is
    # not a pod-level resource (IsSupportedPodLevelResource), so it is ignored.
    assert pod_requests(pod) == {"cpu": 2100, "memory": 1024 * MI}
    assert pod_requests(pod, skip_pod_level_resources=True) == {"cpu": 850, "memory": 1024 * MI}


def test_an_in_place_resize_counts_the_largest_of_spec_allocated_and_actuated() -> None:
    statuses = [
        {"name": "a", "allocatedResources": {"cpu": "3"}, "resources": {"requests": {"cpu": "2"}}}
    ]
    pod = make_pod("p", c("a", cpu="1"), status={"containerStatuses": statuses})
    assert pod_requests(pod) == {"cpu": 1000}  # UseStatusResources false: spec only
    assert pod_requests(pod, use_status_resources=True) == {"cpu": 3000}
    shrinking = make_pod(
        "q",
        c("a", cpu="1"),
        status={"containerStatuses": [{"name": "a", "resources": {"requests": {"cpu": "4"}}}]},
    )
    assert pod_requests(shrinking, use_status_resources=True) == {"cpu": 4000}


def test_an_infeasible_resize_no_longer_counts_the_spec() -> None:
    status = {
        "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
        "containerStatuses": [{"name": "a", "allocatedResources": {"cpu": "1"}}],
    }
    pod = make_pod("p", c("a", cpu="8"), status=status)
    assert pod_requests(pod, use_status_resources=True) == {"cpu": 1000}
    deferred = {**status, "conditions": [{**status["conditions"][0], "reason": "Deferred"}]}
    assert pod_requests(
        make_pod("q", c("a", cpu="8"), status=deferred), use_status_resources=True
    ) == {"cpu": 8000}


# --- NodeInfo accounting (CalculateResource) ---------------------------------------------------


def test_calculate_resource_gives_defaults_only_to_what_no_level_states() -> None:
    pod = make_pod("p", c("a"), c("b"), pod_level={"cpu": "2"})
    on = PodInfo(pod).calculate_resource(ON)
    assert on.requests == {"cpu": 2000}
    # memory is stated nowhere: each container counts 200Mi; cpu comes from the pod level.
    assert (on.non0_cpu, on.non0_mem) == (2000, 2 * 200 * MI)
    off = PodInfo(pod).calculate_resource(OFF)
    assert off.requests == {}
    assert (off.non0_cpu, off.non0_mem) == (2 * 100, 2 * 200 * MI)


def test_the_cache_counts_pod_level_requests_by_the_runs_gate() -> None:
    def requested(gates: ResourceGates) -> int:
        cache = Cache(resource_gates=gates)
        cache.add_node(node())
        cache.add_pod(make_pod("p", c("a", cpu="500m"), pod_level={"cpu": "2"}, node="n1"))
        return cache.dump().nodes["n1"].requested.milli_cpu

    assert requested(resource_gates(new_feature_gates("1.37"))) == 2000
    assert requested(resource_gates(new_feature_gates("1.33"))) == 500  # alpha, off
    assert requested(resource_gates(new_feature_gates("1.34"))) == 2000  # beta, on


def test_a_node_infos_clone_keeps_its_gates() -> None:
    info = NodeInfo(resource_gates=OFF)
    assert info.clone().resource_gates == OFF


# --- the plugins -------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "fits"), [("1.33", True), ("1.34", False), ("1.37", False)])
def test_fit_compares_the_pod_level_request_from_v1_34(version: str, fits: bool) -> None:
    plugin = Fit(handle=handle(version))
    info = NodeInfo()
    info.set_node(node(cpu="1"))
    pod = make_pod("p", c("a", cpu="500m"), pod_level={"cpu": "2"})
    state = CycleState()
    plugin.pre_filter(state, pod, [info])
    status = plugin.filter(state, pod, info)
    assert (status is None) == fits, status


def test_fit_can_turn_pod_level_resources_off_at_v1_37() -> None:
    plugin = Fit(handle=handle("1.37", "PodLevelResources=false"))
    info = NodeInfo()
    info.set_node(node(cpu="1"))
    pod = make_pod("p", c("a", cpu="500m"), pod_level={"cpu": "2"})
    state = CycleState()
    plugin.pre_filter(state, pod, [info])
    assert plugin.filter(state, pod, info) is None


def test_the_scorers_read_pod_level_requests_by_their_gate() -> None:
    pod = make_pod("p", c("a", cpu="500m"), pod_level={"cpu": "2"})
    for version, cpu in (("1.33", 500), ("1.37", 2000)):
        fit = Fit(handle=handle(version))
        balanced = BalancedAllocation(handle=handle(version))
        assert fit.scorer.calculate_pod_resource_request(pod, "cpu") == cpu, version
        assert balanced.scorer.calculate_pod_resource_request(pod, "cpu") == cpu, version


def test_signatures_tell_pods_apart_that_the_gate_would_count_differently() -> None:
    pod_level = make_pod("p", c("a", cpu="500m"), pod_level={"cpu": "2"})
    plain = make_pod("q", c("a", cpu="2"))
    on, off = Fit(handle=handle("1.37")), Fit(handle=handle("1.33"))
    assert on.sign_pod(pod_level)[0] == on.sign_pod(plain)[0]
    assert off.sign_pod(pod_level)[0] != off.sign_pod(plain)[0]


# --- end to end --------------------------------------------------------------------------------

CLUSTER = """\
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 4Gi, pods: "10"}}
---
kind: Pod
metadata: {name: big}
spec:
  resources: {requests: {cpu: "2"}}
  containers: [{name: c, image: app, resources: {requests: {cpu: 500m}}}]
"""


@pytest.mark.parametrize("engine", ["reference", "batch"])
def test_a_pod_level_request_decides_the_placement_per_release(engine: str) -> None:
    old = framework.simulate(CLUSTER, emulated_version="1.33", engine=engine)
    new = framework.simulate(CLUSTER, emulated_version="1.37", engine=engine)
    assert old.placements["default/big"] == "n1"
    assert new.placements["default/big"] is None


RUNNING = """\
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 4Gi, pods: "10"}}
---
kind: Pod
metadata: {name: db}
spec:
  nodeName: n1
  resources: {requests: {cpu: "2"}}
  containers: [{name: c, image: db, resources: {requests: {cpu: 500m}}}]
"""


def test_the_reports_count_a_running_pod_as_the_runs_scheduler_does() -> None:
    for version, cpu in (("1.33", 500), ("1.37", 2000)):
        result = framework.simulate(RUNNING, emulated_version=version)
        (n1,) = result.nodes
        assert n1.requested_before["cpu"] == cpu, version


def test_the_books_pod_level_example_moves_a_pod_between_releases() -> None:
    # examples/versions/pod-level.yaml, shown by chapter 0's versions page.
    for version, where in (("1.33", "large"), ("1.34", None), ("1.37", None)):
        result = framework.simulate("examples/versions/pod-level.yaml", emulated_version=version)
        assert result.placements["default/trainer"] == where, version
    off = framework.simulate(
        "examples/versions/pod-level.yaml", feature_gates="PodLevelResources=false"
    )
    assert off.placements["default/trainer"] == "large"
