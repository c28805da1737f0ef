"""A small cluster and a scheduler with a test Fit filter, for the scheduler's tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.manifest import loads
from framework.objects.resources import pod_requests
from framework.registry import Registry, in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.status import Status

FIT = "TestFit"


class TestFit:
    """Filter: the pod's CPU must fit in what is left of the node's allocatable CPU."""

    def name(self) -> str:
        return FIT

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Room appears when a node is added or changes, or a bound pod goes away.
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE)
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)),
        ]

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        wanted = pod_requests(pod).get("cpu", 0)
        if node_info.requested.milli_cpu + wanted > node_info.allocatable.milli_cpu:
            return Status.unschedulable("Insufficient cpu")
        return None


def config_with(*plugins: str) -> Any:
    enabled = ", ".join(
        f"{{name: {p}}}" for p in ("PrioritySort", "SchedulingGates", *plugins, "DefaultBinder")
    )
    return loads_config(
        f"""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{{name: '*'}}]
      enabled: [{enabled}]
""",
        "test-config.yaml",
    )


def registry_with(**factories: Callable[[Any, Any], Any]) -> Registry:
    registry = in_tree_registry()
    registry.register(FIT, lambda _args, _handle: TestFit())
    for name, factory in factories.items():
        registry.register(name, factory)
    return registry


def node(name: str, cpu: str = "2") -> Node:
    return Node.from_dict(
        {"metadata": {"name": name}, "status": {"allocatable": {"cpu": cpu, "pods": "110"}}}
    )


def pod(name: str, cpu: str = "1") -> Pod:
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


class Cluster:
    """A fake API server on a fake clock, and a scheduler for it."""

    def __init__(self, *objects: Node | Pod) -> None:
        self.clock = FakeClock()
        self.api = APIServer(self.clock)
        for obj in objects:
            self.api.create(obj)

    def scheduler(
        self, *plugins: str, seed: int = 0, **factories: Callable[[Any, Any], Any]
    ) -> Scheduler:
        return Scheduler(
            self.api,
            config_with(FIT, *plugins),
            registry_with(**factories),
            clock=self.clock,
            seed=seed,
        )

    def node_of(self, name: str) -> str:
        return self.api.get(Pod, name, namespace="default").spec.node_name


__all__ = ["Cluster", "config_with", "loads", "node", "pod", "registry_with"]
