"""Clusters, a plugin at every extension point, and questions about a pod's fate, for the fault suites.

The profile is kube-scheduler's default (``pkg/scheduler/apis/config/v1/default_plugins.go``)
plus ``Everywhere``, a plugin that does nothing at every extension point the
default profile leaves empty here (Reserve, Permit, PreBind, PostBind...),
so that a fault can be injected at any point with the default plugins
around it.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.featuregate import new_feature_gates
from framework.interface import NodeToStatus
from framework.node_info import NodeInfo
from framework.objects import Binding, Event, Node, Pod
from framework.plugins.registry import in_tree_registry
from framework.queue.scheduling_queue import BACKOFF_Q
from framework.runtime.registry import PluginFactory, Registry
from framework.scheduler.scheduler import Scheduler
from framework.status import Status
from framework.testing.faults import FaultPlan, faulty_registry

EVERYWHERE = "Everywhere"


class Everywhere:
    """A plugin at every extension point that lets everything through.

    With ``permit_wait`` set, its Permit parks every pod for that many
    seconds (Wait), so that something else must allow or reject it.
    """

    def __init__(self, permit_wait: float = 0.0) -> None:
        self.permit_wait = permit_wait

    def name(self) -> str:
        return EVERYWHERE

    def pre_enqueue(self, pod: Pod) -> Status | None:
        return None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> tuple[None, None]:
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[None, Status]:
        return None, Status.unschedulable("Everywhere cannot help")

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, None]:
        return 0, None

    def score_extensions(self) -> None:
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        if self.permit_wait:
            return Status.wait("held by Everywhere"), self.permit_wait
        return None, 0.0

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None


CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: Everywhere}]
"""


def registry(plan: FaultPlan | None = None, permit_wait: float = 0.0) -> Registry:
    """The in-tree plugins and Everywhere, all wrapped in faults from ``plan`` if given."""
    base = in_tree_registry()
    factory: PluginFactory = lambda _args, _handle: Everywhere(permit_wait)  # noqa: E731
    base.register(EVERYWHERE, factory)
    return faulty_registry(base, plan) if plan is not None else base


def node(name: str, cpu: str = "4") -> Node:
    return Node.from_dict(
        {
            "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"}},
        }
    )


def pod(name: str, cpu: str = "1") -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "containers": [
                    {
                        "name": "c",
                        "image": "busybox",
                        "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}},
                    }
                ]
            },
        }
    )


# These tests pin the classic backoff timing (a pod waits out its backoff even when the
# scheduler is idle): v1.33 with SchedulerPopFromBackoffQ off.
CLASSIC_QUEUE = new_feature_gates("1.33", "SchedulerPopFromBackoffQ=false")


def scheduler_on(
    api: APIServer, clock: FakeClock, plan: FaultPlan | None = None, seed: int = 0
) -> Scheduler:
    """A scheduler with the reliability profile, on an API server that already exists."""
    return Scheduler(
        api,
        loads_config(CONFIG, "reliability.yaml"),
        registry(plan),
        clock=clock,
        seed=seed,
        feature_gates=CLASSIC_QUEUE,
    )


def settle(sched: Scheduler, clock: FakeClock, rounds: int = 20) -> int:
    """Retry every waiting pod (backoffs over, the five-minute flush due) until a round binds none.

    Returns the number of scheduling attempts made.
    """

    def bound() -> int:
        return sum(1 for p in sched.api.list(Pod).items if p.spec.node_name)

    attempts = sched.schedule_pending()
    for _ in range(rounds):
        before = bound()
        clock.advance(301)
        sched.queue.flush_backoff_q_completed()
        sched.queue.flush_unschedulable_pods_leftover()
        attempts += sched.schedule_pending()
        if bound() == before:
            return attempts
    raise AssertionError(f"still binding pods after {rounds} rounds")


def count_binds(store: APIServer) -> Counter[str]:
    """Count each pod's successful ``pods/binding`` calls on ``store`` (the API server's own)."""
    binds: Counter[str] = Counter()
    lock = threading.Lock()
    original = store.bind

    def bind(binding: Binding) -> Pod:
        bound = original(binding)
        with lock:
            binds[bound.name] += 1
        return bound

    store.bind = bind  # type: ignore[method-assign]
    return binds


class World:
    """A fake clock, an API server holding ``objects``, and a scheduler whose plugins follow ``plan``."""

    def __init__(
        self,
        objects: Iterable[Node | Pod],
        plan: FaultPlan | None = None,
        *,
        door: Callable[[APIServer], APIServer] | None = None,
        registry_override: Registry | None = None,
        seed: int = 0,
        watch_window: int = 10_000,
        permit_wait: float = 0.0,
        **options: Any,
    ) -> None:
        self.clock = FakeClock()
        self.store = APIServer(self.clock, watch_window=watch_window)
        self.binds: Counter[str] = count_binds(self.store)
        for obj in objects:
            self.store.create(obj)
        self.api = door(self.store) if door is not None else self.store
        self.plan = plan
        self.scheduler = Scheduler(
            self.api,
            loads_config(CONFIG, "reliability.yaml"),
            registry_override if registry_override is not None else registry(plan, permit_wait),
            clock=self.clock,
            seed=seed,
            **{"feature_gates": CLASSIC_QUEUE, **options},
        )

    # --- questions about one pod --------------------------------------------------------------

    def node_of(self, name: str) -> str:
        return self.store.get(Pod, name).spec.node_name

    def condition(self, name: str) -> tuple[str, str]:
        """The PodScheduled condition's (reason, message), or ("", "") if there is none."""
        conditions = self.store.get(Pod, name).status.conditions
        found = next((c for c in conditions if c.type == "PodScheduled"), None)
        return (found.reason, found.message) if found is not None else ("", "")

    def events(self, name: str, reason: str = "FailedScheduling") -> list[str]:
        return [
            e.message
            for e in self.store.list(Event).items
            if e.involved_object.name == name and e.reason == reason
        ]

    def queue_of(self, name: str) -> str:
        """Where the pod waits in the queue, or "" if it is not there."""
        for queue, pods in self.scheduler.queue.pending_pods_by_queue().items():
            if any(p.pod.name == name for p in pods):
                return queue
        return ""

    def backoff_left(self, name: str) -> float:
        for p in self.scheduler.queue.pending_pods_by_queue()[BACKOFF_Q]:
            if p.pod.name == name:
                return p.backoff_expiry - self.clock.now()
        raise AssertionError(f"{name} is not in backoffQ")

    def retry(self, seconds: float = 301) -> int:
        """Move the clock on, flush the queue's waiting pods, and schedule what is ready."""
        self.clock.advance(seconds)
        self.scheduler.queue.flush_backoff_q_completed()
        self.scheduler.queue.flush_unschedulable_pods_leftover()
        return self.scheduler.schedule_pending()
