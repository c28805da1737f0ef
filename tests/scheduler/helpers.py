"""A small cluster and a scheduler with a test Fit filter, for the scheduler's tests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.featuregate import FeatureGates
from framework.node_info import NodeInfo
from framework.objects import Binding, Node, ObjectMeta, ObjectReference, Pod
from framework.objects.manifest import loads
from framework.objects.resources import pod_requests
from framework.plugins.registry import in_tree_registry
from framework.runtime.registry import Registry
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


def config_with(*plugins: str, extenders: str = "") -> Any:
    """One profile with only these plugins (and the sort, gates and binder); ``extenders``, YAML list items."""
    enabled = ", ".join(
        f"{{name: {p}}}" for p in ("PrioritySort", "SchedulingGates", *plugins, "DefaultBinder")
    )
    extenders_section = f"extenders:\n{extenders}\n" if extenders else ""
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
{extenders_section}""",
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

    def __init__(self, *objects: Node | Pod, feature_gates: FeatureGates | None = None) -> None:
        self.clock = FakeClock()
        self.api = APIServer(self.clock, feature_gates=feature_gates)
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

    def scheduler_with(
        self,
        *plugins: str,
        factories: dict[str, Callable[[Any, Any], Any]] | None = None,
        seed: int = 0,
        **options: Any,
    ) -> Scheduler:
        """Like :meth:`scheduler`, passing ``options`` (``assumed_pod_ttl_seconds``...) on."""
        return Scheduler(
            self.api,
            config_with(FIT, *plugins),
            registry_with(**(factories or {})),
            clock=self.clock,
            seed=seed,
            **options,
        )

    def node_of(self, name: str) -> str:
        return self.api.get(Pod, name, namespace="default").spec.node_name


# --- for the property and concurrency tests of the two cycles ----------------------------------

#: How long (real seconds) a test waits for threads to reach a point before it fails. Nothing
#: waits this long when the code is right: it is a guard against a hang, never a delay.
HANG_GUARD = 20.0


class Observed:
    """A step callback (for :class:`StepLog`) that records each step and lets a test wait.

    ``wait_until`` blocks on a condition variable that every recorded step
    notifies, so the test wakes as soon as the steps it needs have happened.
    """

    def __init__(self) -> None:
        self.steps: list[tuple[str, str, Any]] = []
        self._cond = threading.Condition()

    def __call__(self, event: str, p: Pod, detail: Any) -> None:
        with self._cond:
            self.steps.append((event, p.name, detail))
            self._cond.notify_all()

    def names(self, event: str) -> list[str]:
        with self._cond:
            return [name for step, name, _ in self.steps if step == event]

    def wait_until(self, predicate: Callable[[Observed], bool], what: str) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: predicate(self), HANG_GUARD):
                raise AssertionError(f"timed out waiting until {what}; steps: {self.steps}")


def bind_directly(api: APIServer, pod_name: str, node_name: str) -> Pod:
    """Bind a pod as another component would (``POST pods/<name>/binding``), bypassing us."""
    return api.bind(
        Binding(
            metadata=ObjectMeta(name=pod_name, namespace="default"),
            target=ObjectReference(kind="Node", name=node_name),
        )
    )


def bound_milli_cpu(api: APIServer) -> dict[str, int]:
    """The CPU requests of the pods the API server has bound, per node, in millicores."""
    used: dict[str, int] = {}
    for p in api.list(Pod).items:
        if p.spec.node_name:
            used[p.spec.node_name] = used.get(p.spec.node_name, 0) + pod_requests(p).get("cpu", 0)
    return used


__all__ = [
    "HANG_GUARD",
    "Cluster",
    "Observed",
    "bind_directly",
    "bound_milli_cpu",
    "config_with",
    "loads",
    "node",
    "pod",
    "registry_with",
]
