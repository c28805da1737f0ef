"""Builders for the DefaultPreemption tests, in the shape of Kubernetes' own.

``default_preemption_test.go`` builds pods with ``st.MakePod()`` and nodes
with ``st.MakeNode().Capacity(...)`` (which also sets ``pods: 32``), runs the
framework's PreFilter on a fresh CycleState, and calls the plugin; a
``FakeFilterPlugin`` first in the Filter list counts Filter calls. The
same pieces are here: :func:`make_pod`, :func:`make_node`, the four request
sizes, :class:`CountingFilter`, and :func:`build`, which wires a Framework
(NodeResourcesFit and any extra plugins at PreFilter and Filter) and a
DefaultPreemption plugin on a snapshot, with or without a fake API server.

Go's ``epochTime1..6`` are 1 to 6 *nanoseconds* after the epoch; here they
are 1 to 6 seconds, since timestamps are RFC 3339 text with whole seconds.
Only their order matters to the tests.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from framework.apiserver import APIServer, EventRecorder
from framework.cache import new_snapshot
from framework.clock import FakeClock, rfc3339
from framework.cycle_state import CycleState
from framework.featuregate import FeatureGates
from framework.interface import Plugin
from framework.node_info import NodeInfo
from framework.objects import Node, ObjectMeta, Pod, PodDisruptionBudget, PriorityClass
from framework.plugins.defaultpreemption import DefaultPreemption, DefaultPreemptionArgs
from framework.plugins.noderesources import fit
from framework.queue.nominator import Nominator
from framework.runtime.framework import Framework
from framework.status import Status

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
"""``negPriority`` ... ``veryHighPriority`` of default_preemption_test.go."""

SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400"}


def epoch(seconds: int) -> str:
    """``epochTimeN``, as an RFC 3339 start time (seconds; see the module docstring)."""
    return rfc3339(float(seconds))


def make_pod(
    name: str,
    priority: int | None = None,
    *,
    node: str = "",
    req: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    start: str | None = None,
    namespace: str = "default",
    nominated: str = "",
    terminating: bool = False,
    conditions: Sequence[Mapping[str, str]] = (),
    preemption_policy: str | None = None,
    spec: Mapping[str, Any] | None = None,
) -> Pod:
    """``st.MakePod().Name(name).UID(name)...``: the uid is the name, as in the Go tests."""
    metadata: dict[str, Any] = {"name": name, "uid": name, "namespace": namespace}
    if labels:
        metadata["labels"] = dict(labels)
    if terminating:
        metadata["deletionTimestamp"] = epoch(0)
    container: dict[str, Any] = {"name": "c", "image": "pause"}
    if req:
        container["resources"] = {"requests": dict(req)}
    pod_spec: dict[str, Any] = {"containers": [container], **(spec or {})}
    if node:
        pod_spec["nodeName"] = node
    if priority is not None:
        pod_spec["priority"] = priority
    if preemption_policy is not None:
        pod_spec["preemptionPolicy"] = preemption_policy
    status: dict[str, Any] = {}
    if start:
        status["startTime"] = start
    if nominated:
        status["nominatedNodeName"] = nominated
    if conditions:
        status["conditions"] = [dict(c) for c in conditions]
    return Pod.from_dict({"metadata": metadata, "spec": pod_spec, "status": status})


def make_node(
    name: str, capacity: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None
) -> Node:
    """``st.MakeNode().Name(name).Capacity(capacity)``: allocatable too, with 32 pods by default."""
    allocatable = {"pods": "32", **(capacity or {})}
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = dict(labels)
    return Node.from_dict(
        {"metadata": metadata, "status": {"capacity": allocatable, "allocatable": allocatable}}
    )


def make_pdb(
    name: str,
    labels: Mapping[str, str],
    *,
    allowed: int = 0,
    disrupted: Mapping[str, str] | None = None,
    namespace: str = "default",
    min_available: int | str | None = None,
) -> PodDisruptionBudget:
    """A PDB as the scheduler reads it, status included (as the Go tests write it by hand)."""
    spec: dict[str, Any] = {"selector": {"matchLabels": dict(labels)}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    status: dict[str, Any] = {"disruptionsAllowed": allowed}
    if disrupted:
        status["disruptedPods"] = dict(disrupted)
    return PodDisruptionBudget.from_dict(
        {"metadata": {"name": name, "namespace": namespace}, "spec": spec, "status": status}
    )


class CountingFilter:
    """``FakeFilterPlugin``: counts Filter calls; ``decide`` says what a node gets (default: fits)."""

    def __init__(
        self,
        name: str = "FakeFilter",
        decide: Callable[[Pod, NodeInfo], Status | None] | None = None,
    ) -> None:
        self._name = name
        self._decide = decide or (lambda pod, node_info: None)
        self.calls = 0

    def name(self) -> str:
        return self._name

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls += 1
        return self._decide(pod, node_info)


@dataclass
class Harness:
    """A framework, the plugin, and (optionally) the fake API server behind them."""

    fwk: Framework
    plugin: DefaultPreemption
    counter: CountingFilter
    clock: FakeClock
    api: APIServer | None = None
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)

    def node_infos(self, sort: bool = True) -> list[NodeInfo]:
        infos = [i for i in self.fwk.snapshot.node_infos().list() if i.node is not None]
        return sorted(infos, key=lambda i: i.name) if sort else infos

    def pre_filtered_state(self, pod: Pod) -> CycleState:
        """A CycleState after PreFilter, as the Go tests prepare it (``RunPreFilterPlugins``)."""
        state = CycleState()
        _, status, _ = self.fwk.run_pre_filter_plugins(state, pod, self.node_infos())
        assert status.is_success(), status
        return state


def priority_class_name(value: int) -> str:
    return f"priority{value}".replace("-", "minus")


def build(
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    *,
    filters: Sequence[Plugin] = (),
    pre_filters: Sequence[Plugin] = (),
    resources: bool = True,
    args: DefaultPreemptionArgs | None = None,
    pdbs: Sequence[PodDisruptionBudget] = (),
    with_api: bool = False,
    counter: CountingFilter | None = None,
    enable_async_preemption: bool = True,
    run_async: Callable[[Callable[[], None]], None] | None = None,
    seed: int = 0,
    feature_gates: FeatureGates | None = None,
) -> Harness:
    """A Framework with ``[counter, *filters, NodeResourcesFit]`` at Filter and the plugin.

    ``with_api`` stores the pods (with PriorityClasses for their priorities)
    and nodes in a fake API server, which becomes the framework's client, and
    the snapshot is built from the stored pods; otherwise there is no client.
    """
    clock = FakeClock()
    api: APIServer | None = None
    stored = list(pods)
    if with_api:
        api = APIServer(clock)
        for value in sorted({p.spec.priority for p in pods if p.spec.priority}):
            api.create(
                PriorityClass(metadata=ObjectMeta(name=priority_class_name(value)), value=value)
            )
        for node in nodes:
            api.create(node)
        stored = []
        for pod in pods:
            current = api.create(_through_admission(pod))
            if pod.status.start_time or pod.status.conditions or pod.status.nominated_node_name:
                status = dataclasses.replace(pod.status, phase=current.status.phase)
                current = api.update_status(dataclasses.replace(current, status=status))
            stored.append(current)
    recorder = EventRecorder(api, "default-scheduler", clock) if api is not None else None
    nominator = Nominator()
    fwk = Framework(
        "default-scheduler",
        clock=clock,
        client=api,
        event_recorder=recorder,
        nominator=nominator,
        rng=random.Random(seed),
        feature_gates=feature_gates,
    )
    counter = counter or CountingFilter()
    resource_fit = fit.new(None, fwk)
    plugin = DefaultPreemption(
        fwk,
        args,
        enable_async_preemption=enable_async_preemption,
        run_async=run_async,
    )
    plugin.evaluator.pdb_lister = lambda: list(pdbs)
    fit_plugins = [resource_fit] if resources else []
    fwk.set_plugins(
        {
            "preFilter": [*pre_filters, *fit_plugins],
            "filter": [counter, *filters, *fit_plugins],
            "postFilter": [plugin],
        },
        {},
    )
    fwk.snapshot = new_snapshot([p for p in stored if p.spec.node_name], nodes)
    return Harness(fwk, plugin, counter, clock, api, list(pdbs))


def _through_admission(pod: Pod) -> Pod:
    """The pod as a user writes it: a PriorityClass name instead of a bare priority, no status."""
    priority = pod.spec.priority
    spec = dataclasses.replace(
        pod.spec,
        priority=None,
        priority_class_name=priority_class_name(priority) if priority else "",
    )
    metadata = ObjectMeta(
        name=pod.metadata.name, namespace=pod.metadata.namespace, labels=pod.metadata.labels
    )
    return Pod(metadata=metadata, spec=spec)


def names(pods: Sequence[Pod]) -> list[str]:
    return [p.name for p in pods]


def by_name(candidates: Sequence[Any]) -> dict[str, tuple[list[str], int]]:
    """Candidates as ``{node: (sorted victim names, PDB violations)}``, as the Go test compares them."""
    return {
        c.name: (sorted(p.name for p in c.victims.pods), c.victims.num_pdb_violations)
        for c in candidates
    }
