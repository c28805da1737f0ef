"""What both experiments share: a fake cluster, its schedulers, and a driver for simulated time.

:class:`ExperimentCluster` holds one API server on a
:class:`~framework.clock.FakeClock`, a :class:`~framework.experiments.delays.Network`
in front of it, the kubelets' admission
(:class:`~framework.simulator.kubelet.NodeAdmission`) and any number of independent
:class:`~framework.scheduler.scheduler.Scheduler` instances, each with its own
client, cache and queue. :meth:`ExperimentCluster.run` creates the pods at
their arrival times and moves time from one due thing to the next (an
arrival, a binding committed, a watch event delivered, a backoff ending), so
a run is the same for the same seed on every machine.

No Kubernetes counterpart: it plays the cluster around the schedulers.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from framework.apiserver import APIServer, NotFound
from framework.clock import FakeClock
from framework.config import loads_config
from framework.config.types import KubeSchedulerConfiguration
from framework.experiments.delays import Network
from framework.node_info import Resource
from framework.objects import Node, Pod
from framework.objects.resources import CPU, pod_requests
from framework.scheduler.scheduler import Scheduler
from framework.simulator.kubelet import NodeAdmission

__all__ = [
    "START",
    "ExperimentCluster",
    "Outcome",
    "node",
    "pod",
    "profiles_config",
]

#: Where the experiments' clock starts, in November 2023; any fixed time would do.
START = 1_700_000_000.0
#: How long after the last arrival a run may go on (backoffs, retries), in simulated seconds.
SETTLE_SECONDS = 60.0
#: Rounds of scheduling and admission within one instant before time must move on.
MAX_ROUNDS_PER_INSTANT = 100


def node(name: str, cpu: str, memory: str = "16Gi", labels: dict[str, str] | None = None) -> Node:
    """A Node with ``cpu`` and ``memory`` allocatable and 110 pod slots."""
    resources = {"cpu": cpu, "memory": memory, "pods": "110"}
    return Node.from_dict(
        {
            "metadata": {"name": name, "labels": labels or {}},
            "status": {"capacity": resources, "allocatable": resources},
        }
    )


def pod(
    name: str,
    cpu: str,
    memory: str = "256Mi",
    *,
    scheduler_name: str = "default-scheduler",
    node_name: str = "",
    node_selector: dict[str, str] | None = None,
) -> Pod:
    """A one-container pod requesting ``cpu`` and ``memory``."""
    spec: dict[str, object] = {
        "schedulerName": scheduler_name,
        "containers": [
            {
                "name": "app",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {"requests": {"cpu": cpu, "memory": memory}},
            }
        ],
    }
    if node_name:
        spec["nodeName"] = node_name
    if node_selector:
        spec["nodeSelector"] = node_selector
    return Pod.from_dict({"metadata": {"name": name}, "spec": spec})


def profiles_config(*profiles: tuple[str, str]) -> KubeSchedulerConfiguration:
    """A configuration with one profile per ``(schedulerName, scoring strategy)``.

    The strategy is NodeResourcesFit's ``LeastAllocated`` (the default:
    spread) or ``MostAllocated`` (pack); every other plugin is the default
    profile's.
    """
    text = ["apiVersion: kubescheduler.config.k8s.io/v1", "kind: KubeSchedulerConfiguration"]
    text.append("profiles:")
    for name, strategy in profiles:
        text += [
            f"- schedulerName: {name}",
            "  pluginConfig:",
            "  - name: NodeResourcesFit",
            "    args:",
            "      scoringStrategy:",
            f"        type: {strategy}",
            "        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]",
        ]
    return loads_config("\n".join(text) + "\n", "<experiment>")


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where each pod ended: ``running`` on a node, ``rejected`` by its kubelet, ``pending``,
    or ``deleted`` (no experiment here deletes pods)."""

    pod: Pod
    state: str
    node_name: str = ""
    reason: str = ""


class ExperimentCluster:
    """One API server, its network delays, the kubelets, and the schedulers sharing it."""

    def __init__(
        self,
        nodes: Iterable[Node],
        *,
        seed: int = 0,
        bind_latency: float = 0.0,
        watch_delay: float = 0.0,
    ) -> None:
        self.clock = FakeClock(START)
        uids = itertools.count(1)
        self.api = APIServer(
            self.clock,
            uid_factory=lambda: f"00000000-0000-0000-0000-{next(uids):012d}",
            rng=random.Random(seed),
        )
        self.network = Network(
            self.api, self.clock, bind_latency=bind_latency, watch_delay=watch_delay
        )
        self.nodes = [self.api.create(n) for n in nodes]
        self.kubelets = NodeAdmission(self.api, self.clock)
        self.kubelets.sync()
        self.schedulers: list[Scheduler] = []
        self._seed = seed

    def add_scheduler(self, config: KubeSchedulerConfiguration) -> Scheduler:
        """A scheduler of its own (client, cache, queue), seeded from the run's seed."""
        scheduler = Scheduler(
            self.network.client(),
            config,
            clock=self.clock,
            seed=self._seed + len(self.schedulers),
        )
        self.schedulers.append(scheduler)
        return scheduler

    def run(self, arrivals: Sequence[tuple[float, Pod]]) -> list[Outcome]:
        """Create each pod at its arrival time (seconds after the start); run until all is quiet.

        Every scheduler runs its queue dry at each instant something happens;
        then the kubelets admit what was bound. Return each pod's outcome, in
        arrival order.
        """
        ordered = sorted(arrivals, key=lambda a: a[0])
        created: list[Pod] = []
        horizon = START + (ordered[-1][0] if ordered else 0.0) + SETTLE_SECONDS
        next_arrival, stalled = 0, 0
        while True:
            while (
                next_arrival < len(ordered)
                and START + ordered[next_arrival][0] <= self.clock.now()
            ):
                created.append(self.api.create(ordered[next_arrival][1]))
                next_arrival += 1
            self._settle_instant()
            due = [START + ordered[next_arrival][0]] if next_arrival < len(ordered) else []
            due += [t for t in (self.network.next_due(), self._next_backoff()) if t is not None]
            if not due or min(due) > horizon:
                break
            if min(due) <= self.clock.now():
                stalled += 1
                if stalled > MAX_ROUNDS_PER_INSTANT:
                    raise RuntimeError(
                        f"the experiment is stuck at {self.clock.now() - START:.3f}s: something "
                        "stays due and nothing takes it (a watch no scheduler drains?)"
                    )
            else:
                stalled = 0
            self.network.advance_to(max(min(due), self.clock.now()))
            for scheduler in self.schedulers:
                scheduler.queue.flush_backoff_q_completed()
        self.network.pump()
        for scheduler in self.schedulers:
            scheduler.stop()
        self.kubelets.stop()
        return [self._outcome(p) for p in created]

    def _settle_instant(self) -> None:
        for _ in range(MAX_ROUNDS_PER_INSTANT):
            attempts = sum(s.schedule_pending() for s in self.schedulers)
            self.network.deliver()
            rejected = self.kubelets.sync()
            if not attempts and not rejected and self.network.next_due() != self.clock.now():
                return

    def _next_backoff(self) -> float | None:
        expiries = [
            p.backoff_expiry
            for s in self.schedulers
            for p in s.queue.pending_pods_by_queue()["backoffQ"]
        ]
        return min(expiries) if expiries else None

    def _outcome(self, created: Pod) -> Outcome:
        try:
            stored = self.api.get(Pod, created.name, created.namespace)
        except NotFound:
            return Outcome(created, "deleted")
        if stored.status.phase == "Failed":
            reason = str(stored.to_dict()["status"].get("reason", ""))
            return Outcome(stored, "rejected", stored.spec.node_name, reason)
        if stored.spec.node_name:
            return Outcome(stored, "running", stored.spec.node_name)
        return Outcome(stored, "pending")

    def cpu_requested(self, outcomes: Iterable[Outcome]) -> dict[str, int]:
        """Milli-CPU requested per node by the running pods among ``outcomes``."""
        used = {n.name: 0 for n in self.nodes}
        for outcome in outcomes:
            if outcome.state == "running":
                used[outcome.node_name] += pod_requests(outcome.pod).get(CPU, 0)
        return used

    def cpu_allocatable(self) -> dict[str, int]:
        """Milli-CPU allocatable per node."""
        return {
            n.name: Resource.from_resource_list(n.status.allocatable).milli_cpu for n in self.nodes
        }
