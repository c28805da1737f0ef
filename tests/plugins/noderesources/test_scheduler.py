"""The two resource plugins in a running scheduler on the fake API server.

A profile of PrioritySort, NodeResourcesFit, NodeResourcesBalancedAllocation
and DefaultBinder, configured by file as a user would: the strategy decides
where a pod lands, a pod that fits nowhere gets kube-scheduler's
``FailedScheduling`` message, and the plugin's queueing hint brings it back
when a bound pod is deleted. The message format is ``FitError.Error`` in
``kubernetes/kubernetes:pkg/scheduler/framework/types.go`` (v1.33).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.config import loads_config
from framework.config.framework_checks import FrameworkConfigError
from framework.objects import Event, Node, Pod
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler

PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled:
      - {name: PrioritySort}
      - {name: NodeResourcesFit}
      - {name: NodeResourcesBalancedAllocation}
      - {name: DefaultBinder}
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: {strategy}}}
"""


def node(name: str, cpu: str, memory: str, pods: str = "110") -> Node:
    return Node.from_dict(
        {
            "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
        }
    )


def pod(name: str, cpu: str, memory: str, node_name: str = "") -> Pod:
    spec: dict[str, object] = {
        "containers": [
            {
                "name": "c",
                "image": "busybox",
                "resources": {"requests": {"cpu": cpu, "memory": memory}},
            }
        ]
    }
    if node_name:
        spec["nodeName"] = node_name
    return Pod.from_dict({"metadata": {"name": name}, "spec": spec})


class Cluster:
    """A fake API server on a fake clock, scheduled by the resource profile."""

    def __init__(self, *objects: Node | Pod) -> None:
        self.clock = FakeClock()
        self.api = APIServer(self.clock)
        for obj in objects:
            self.api.create(obj)

    def scheduler(self, strategy: str = "LeastAllocated") -> Scheduler:
        config = loads_config(PROFILE.replace("{strategy}", strategy), "resources.yaml")
        return Scheduler(self.api, config, in_tree_registry(), clock=self.clock, seed=0)

    def node_of(self, name: str) -> str:
        return self.api.get(Pod, name, namespace="default").spec.node_name

    def failures(self) -> list[tuple[str, str]]:
        events = sorted(self.api.list(Event).items, key=lambda e: int(e.metadata.resource_version))
        return [
            (e.involved_object.name, e.message) for e in events if e.reason == "FailedScheduling"
        ]


@pytest.mark.parametrize(
    ("strategy", "chosen"),
    [("LeastAllocated", "b"), ("MostAllocated", "a")],
    ids=["LeastAllocated spreads to the empty node", "MostAllocated packs onto the busy node"],
)
def test_the_scoring_strategy_decides_between_two_nodes_that_fit(
    strategy: str, chosen: str
) -> None:
    # Node a is half full. With the pod, a is 3/4 used and b 1/4, in CPU and memory alike,
    # so BalancedAllocation gives both 100 and the strategy alone decides:
    # LeastAllocated scores a 25 and b 75; MostAllocated scores a 75 and b 25.
    cluster = Cluster(
        node("a", "4", "8Gi"),
        node("b", "4", "8Gi"),
        pod("running", "2", "4Gi", node_name="a"),
        pod("web", "1", "2Gi"),
    )
    sched = cluster.scheduler(strategy)
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("web") == chosen


def test_a_pod_that_fits_nowhere_is_told_why_node_by_node() -> None:
    cluster = Cluster(
        node("a", "1", "8Gi"),
        node("b", "4", "8Gi", pods="1"),
        pod("running", "1", "1Gi", node_name="b"),
        pod("big", "2", "1Gi"),
    )
    sched = cluster.scheduler()
    sched.schedule_pending()
    assert cluster.node_of("big") == ""
    message = "0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods."
    assert cluster.failures() == [("big", message)]
    condition = cluster.api.get(Pod, "big", namespace="default").status.conditions[-1]
    assert (condition.reason, condition.message) == ("Unschedulable", message)

    # Deleting the pod bound to b frees its slot: Fit's hint requeues "big", which lands on b.
    cluster.api.delete(Pod, "running", namespace="default")
    cluster.clock.advance(10)  # past the pod's backoff
    sched.sync()
    sched.queue.flush_backoff_q_completed()
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("big") == "b"


def test_a_node_added_too_small_does_not_requeue_the_pod() -> None:
    cluster = Cluster(node("a", "1", "8Gi"), pod("big", "2", "1Gi"))
    sched = cluster.scheduler()
    sched.schedule_pending()
    cluster.api.create(node("tiny", "1", "8Gi"))
    sched.sync()
    pending, summary = sched.queue.pending_pods()
    assert [p.name for p in pending] == ["big"]
    assert summary == "activeQ:0; backoffQ:0; unschedulablePods:1"
    cluster.api.create(node("large", "8", "8Gi"))
    cluster.clock.advance(10)
    sched.sync()
    sched.queue.flush_backoff_q_completed()
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("big") == "large"


def test_invalid_plugin_args_stop_the_scheduler_at_start_up() -> None:
    # Valid for the configuration's validation, refused by the plugin: RequestedToCapacityRatio
    # without its shape (kube-scheduler v1.33 crashes on it in NewFit).
    config = loads_config(PROFILE.replace("{strategy}", "LeastAllocated"), "resources.yaml")
    profile = config.profiles[0]
    rtcr = {"scoringStrategy": {"type": "RequestedToCapacityRatio"}}
    plugin_config = tuple(
        replace(entry, args=rtcr) if entry.name == "NodeResourcesFit" else entry
        for entry in profile.plugin_config
    )
    broken = replace(config, profiles=(replace(profile, plugin_config=plugin_config),))
    with pytest.raises(FrameworkConfigError) as raised:
        Scheduler(APIServer(FakeClock()), broken, in_tree_registry(), clock=FakeClock())
    assert str(raised.value).startswith('initializing plugin "NodeResourcesFit": ')
    assert "scoringStrategy.requestedToCapacityRatio is required" in str(raised.value)
