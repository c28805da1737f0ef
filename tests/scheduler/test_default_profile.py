"""With no configuration, the v1 default profile runs: its plugins, its order, its weights.

Plugins of the default profile this project does not implement yet are left
out *and listed* (``Framework.skipped_plugins``), never silently; any other
unknown plugin is still an error (runtime/build.py).
"""

from __future__ import annotations

import logging

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.config import config_from_dict, loads_config
from framework.config.framework_checks import FrameworkConfigError
from framework.featuregate import new_feature_gates
from framework.objects import Event, Pod
from framework.objects.manifest import loads
from framework.runtime.build import NOT_IMPLEMENTED_DEFAULT_PLUGINS
from framework.scheduler.scheduler import Scheduler

CLUSTER = """
kind: Node
metadata: {name: small}
status: {allocatable: {cpu: "1", memory: 4Gi, pods: "110"}}
---
kind: Node
metadata: {name: gpu}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
kind: Node
metadata: {name: cordoned}
spec: {unschedulable: true}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
kind: Node
metadata: {name: big-1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
kind: Node
metadata: {name: big-2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def pod(name: str, cpu: str) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
                ]
            },
        }
    )


def test_the_default_profile_runs_whole(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    api = APIServer(clock)
    with caplog.at_level(logging.WARNING):
        scheduler = Scheduler(api, clock=clock, feature_gates=new_feature_gates("1.33"))
        latest = Scheduler(api, clock=clock)
    # v1.33's default profile has every plugin here (DynamicResources joins it in v1.34).
    assert scheduler.profiles["default-scheduler"].skipped_plugins == []
    # v1.37's has DynamicResources too, implemented: nothing is left out of either.
    assert latest.profiles["default-scheduler"].skipped_plugins == []
    assert "DynamicResources" in latest.profiles["default-scheduler"].plugin_names("filter")
    assert "left out" not in caplog.text
    latest.stop()
    fwk = scheduler.profiles["default-scheduler"]
    assert fwk.plugin_names("preBind") == ["VolumeBinding"]
    # Kubernetes' v1 defaults, in order, for what is implemented (default_plugins.go).
    assert fwk.plugin_names("filter")[:6] == [
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
    ]
    assert fwk.plugin_names("filter")[6:10] == [
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
    ]
    assert fwk.score_plugin_weight == {
        "TaintToleration": 3,
        "NodeAffinity": 2,
        "NodeResourcesFit": 1,
        "VolumeBinding": 1,
        "PodTopologySpread": 2,
        "InterPodAffinity": 2,
        "NodeResourcesBalancedAllocation": 1,
        "ImageLocality": 1,
    }
    scheduler.stop()


@pytest.mark.parametrize("version", ["1.33", "1.37"])
def test_default_profile_spreads_by_least_allocated_and_explains_misfits(version: str) -> None:
    clock = FakeClock()
    api = APIServer(clock)
    for obj in loads(CLUSTER):
        api.create(obj)
    for name in ("a", "b"):
        api.create(pod(name, "2"))
    api.create(pod("huge", "6"))
    scheduler = Scheduler(api, clock=clock, seed=1, feature_gates=new_feature_gates(version))
    scheduler.schedule_pending()
    scheduler.stop()
    hosts = {p.name: p.spec.node_name for p in api.list(Pod).items}
    # LeastAllocated: the second 2-CPU pod prefers the emptier big node.
    assert sorted([hosts["a"], hosts["b"]]) == ["big-1", "big-2"]
    assert hosts["huge"] == ""
    (failed,) = [e.message for e in api.list(Event).items if e.reason == "FailedScheduling"]
    # DefaultPreemption's verdict follows: the tainted and the cordoned node are unresolvable
    # (not tried), the others run no lower-priority pod (preemption.go, default_preemption.go).
    # From v1.34 the three nodes too small for 6 CPUs in total are unresolvable too
    # (kubernetes#131345): preemption tries no node at all.
    verdict = {
        "1.33": "2 Preemption is not helpful for scheduling, 3 No preemption victims found "
        "for incoming pod.",
        "1.37": "5 Preemption is not helpful for scheduling.",
    }[version]
    # From v1.34 DynamicResources' PostFilter runs first and gives its reason for a pod
    # without claims (dynamicresources.go PostFilter); the runtime joins the two.
    dra = {"1.33": "", "1.37": "no new claims to deallocate, "}[version]
    assert failed == (
        "0/5 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
        "1 node(s) were unschedulable, 3 Insufficient cpu. " + dra + "preemption: 0/5 nodes are "
        "available: " + verdict
    )


def test_an_unknown_plugin_that_is_not_a_default_one_is_still_an_error() -> None:
    config = loads_config(
        """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled: [{name: NoSuchPlugin}]
"""
    )
    with pytest.raises(FrameworkConfigError, match='"NoSuchPlugin" does not exist'):
        Scheduler(APIServer(FakeClock()), config, clock=FakeClock())


def test_a_profile_enabling_dynamic_resources_runs_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = config_from_dict(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "plugins": {"multiPoint": {"enabled": [{"name": "DynamicResources"}]}},
                }
            ],
        }
    )
    clock = FakeClock()
    with caplog.at_level(logging.INFO):
        scheduler = Scheduler(APIServer(clock), config, clock=clock)
    fwk = scheduler.profiles["default-scheduler"]
    # Implemented since issue 19: nothing is left out of this profile, and nothing said.
    assert fwk.skipped_plugins == []
    assert not NOT_IMPLEMENTED_DEFAULT_PLUGINS
    assert "DynamicResources" in [p.name() for p in fwk.plugins["filter"]]
    assert "plugins not implemented in this project yet, left out" not in caplog.text
