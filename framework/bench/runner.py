"""Run one benchmark workload through the real scheduler, and measure it.

The path is the one ``python -m framework serve`` runs: objects are created
in the fake API server; the :class:`~framework.scheduler.scheduler.Scheduler`
(default profile, every default plugin) receives them through its
informers' watches, queues them, schedules them on its own loop thread
(:meth:`~framework.scheduler.scheduler.Scheduler.run`, on real time), binds
each through ``pods/binding`` (inline, on the scheduling thread, when the
binding cannot block: ``Scheduling.binds_inline``), and sees the bound pod
come back through its pod informer. That last step is where a pod counts
as scheduled: like scheduler_perf, which shares the scheduler's informer,
we wrap the informer's handler, so no second watch adds work.

Measured while the measured pods are scheduled (scheduler_perf starts its
collectors before it creates them):

* SchedulingThroughput (:mod:`.throughput`);
* each scheduling attempt's duration (the tracer's ``cycle_started`` to
  ``cycle_ended``, kube's ``scheduling_attempt_duration_seconds``);
* the time spent in each extension point's runner, by wrapping the
  profile's Framework runners on this one instance (nothing changes for a
  scheduler that is not benchmarked; the wrapper costs two clock reads a
  call). Score is timed as a phase too, once per scoring
  (``SchedulingAlgorithm.prioritize_nodes``, PreScore included), as the
  batch engine calls no Score runner. Filter is timed as a phase, once per search
  (``SchedulingAlgorithm.find_nodes_that_pass_filters``), not once per node:
  kube-scheduler records no extension-point duration for Filter either
  (``RunFilterPlugins`` has none; its per-plugin Filter metrics are sampled
  in a tenth of the cycles), and a wrapper around each node's Filter
  added about 0.2 ms of CPU to a cycle of 500 nodes, which the pods per
  CPU-second then charged to the scheduler;
* the process's CPU time over the same window (``time.process_time``), so
  that a run on a machine shared with other work still gives a per-pod
  cost: measured pods per CPU-second;
* peak memory: the process's peak resident set (``getrusage`` ``ru_maxrss``),
  which covers the API server's store too, and is the peak so far in this
  process (run one workload per process for a figure of its own).

Mirrors ``runWorkload`` in
``kubernetes/kubernetes:test/integration/scheduler_perf/scheduler_perf.go``
(v1.33). Simplified: no etcd, no real API server; pods are built from their
templates before the clock starts, so what is measured is create-and-schedule
through the fake API server, not YAML decoding.
"""

from __future__ import annotations

import copy
import fnmatch
import itertools
import os
import platform
import random
import resource
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from framework.apiserver import APIServer
from framework.bench.throughput import scheduling_throughput, summarize
from framework.bench.workload import Op, Workload, fill_template
from framework.clock import RealClock
from framework.config import loads_config
from framework.config.defaults import set_defaults
from framework.config.types import EXTENSION_POINTS, KubeSchedulerConfiguration
from framework.featuregate import FeatureGates, new_feature_gates
from framework.objects import Namespace, Node, ObjectMeta, Pod
from framework.objects.manifest import loads
from framework.objects.resources import pod_requests, resource_amount
from framework.runtime.framework import Framework
from framework.scheduler.algorithm import SchedulingAlgorithm
from framework.scheduler.engine import default_engine
from framework.scheduler.schedule_one import CycleOutcome
from framework.scheduler.scheduler import Scheduler
from framework.scheduler.tracing import SchedulingTracer
from framework.types import QueuedPodInfo

__all__ = [
    "EXTENSION_POINT_RUNNERS",
    "FILTER_PHASE",
    "BenchError",
    "BenchResult",
    "machine_description",
    "overcommitted_nodes",
    "run_workload",
]

#: The Framework runner timed for each extension point but Filter (see FILTER_PHASE).
EXTENSION_POINT_RUNNERS = {
    "PreFilter": "run_pre_filter_plugins",
    "PostFilter": "run_post_filter_plugins",
    "PreScore": "run_pre_score_plugins",
    "Reserve": "run_reserve_plugins_reserve",
    "Permit": "run_permit_plugins",
    "PreBind": "run_pre_bind_plugins",
    "Bind": "run_bind_plugins",
    "PostBind": "run_post_bind_plugins",
}
#: The SchedulingAlgorithm method timed as Filter, once for each search of the nodes.
FILTER_PHASE = "find_nodes_that_pass_filters"
#: The SchedulingAlgorithm method timed as Score: PreScore, Score, NormalizeScore and the
#: weighted sums of the feasible nodes (the batch engine calls no Score runner).
SCORE_PHASE = "prioritize_nodes"
_BINDING_CYCLE = {"PreBind", "Bind", "PostBind"}  # run on binding threads, concurrently
# The order the report lists the extension points in: the pipeline's (the configuration's).
_POINTS: tuple[str, ...] = tuple(
    point
    for point in (p[0].upper() + p[1:] for p in EXTENSION_POINTS)
    if point in EXTENSION_POINT_RUNNERS or point in ("Filter", "Score")
)


class BenchError(RuntimeError):
    """A workload did not complete: which one, and how far it got."""


def machine_description() -> dict[str, Any]:
    """What a figure was measured on: CPUs, Python, platform."""
    return {
        "cpus": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
    }


@dataclass(frozen=True, slots=True)
class BenchResult:
    """One workload's figures, and the facts that make them reproducible."""

    workload: str
    size: str
    seed: int
    nodes: int
    init_pods: int
    measured_pods: int
    threshold: float | None
    target: float | None
    throughput: dict[str, float]
    throughput_samples: int
    attempt_latency_ms: dict[str, float]
    attempts: int
    extension_points: dict[str, tuple[int, float]]  # point -> (calls, total ms)
    peak_memory_mib: float
    measured_seconds: float
    bound_measured: int
    pending_init: int
    overcommitted: tuple[str, ...] = ()
    cpu_seconds: float = 0.0
    percentage_of_nodes_to_score: int | None = None
    engine: str = "reference"
    #: Searches and scorings the batch engine did with arrays, and the cycles it handed to the
    #: reference engine, with why (empty for the reference engine).
    engine_stats: dict[str, Any] = field(default_factory=dict)
    #: PodGroup scheduling cycles by result (``scheduled``, ``unschedulable``, ...): their count
    #: and duration summary in ms (kube's scheduler_podgroup_scheduling_attempt_duration_seconds).
    pod_group_attempts: dict[str, dict[str, float]] = field(default_factory=dict)
    #: The metric ``threshold`` bounds, when it is not SchedulingThroughput (lower is better).
    threshold_metric: str | None = None
    machine: dict[str, Any] = field(default_factory=machine_description)

    @property
    def cpu_rate(self) -> float | None:
        """Measured pods per second of this process's CPU time (robust to a shared machine)."""
        if self.cpu_seconds <= 0:
            return None
        return self.bound_measured / self.cpu_seconds

    @property
    def overall_rate(self) -> float | None:
        """Measured pods over the seconds from their first create to their last bind."""
        if self.measured_seconds <= 0:
            return None
        return self.bound_measured / self.measured_seconds

    def to_json(self) -> dict[str, Any]:
        """The issue's JSON shape for this workload (plus what makes it reproducible)."""
        return {
            "nodes": self.nodes,
            "initPods": self.init_pods,
            "measuredPods": self.measured_pods,
            "SchedulingThroughput": self.throughput,
            "attemptLatencyMs": self.attempt_latency_ms,
            "extensionPointMs": {
                point: {"calls": calls, "totalMs": total}
                for point, (calls, total) in self.extension_points.items()
            },
            "peakMemoryMiB": self.peak_memory_mib,
            "overcommittedNodes": list(self.overcommitted),
            "measuredSeconds": self.measured_seconds,
            "overallPodsPerSecond": self.overall_rate,
            "cpuSeconds": self.cpu_seconds,
            "podsPerCpuSecond": self.cpu_rate,
            "threshold": self.threshold,
            "size": self.size,
            "seed": self.seed,
            "percentageOfNodesToScore": self.percentage_of_nodes_to_score,
            "engine": self.engine,
            "engineStats": self.engine_stats,
            "podGroupAttemptMs": self.pod_group_attempts,
            "thresholdMetric": self.threshold_metric,
            "machine": self.machine,
        }


class _Probe(SchedulingTracer):
    """What the scheduler tells us while the measured pods are scheduled."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.bound_at: dict[str, list[float]] = defaultdict(list)
        self.measuring = False
        self.latencies: list[float] = []
        self.points: dict[str, list[float]] = {p: [0, 0.0] for p in _POINTS}
        self._points_lock = threading.Lock()
        self._cycle_start = 0.0
        #: PodGroup cycle durations (s) by result (scheduler_podgroup_scheduling_attempt_...).
        self.group_attempts: dict[str, list[float]] = defaultdict(list)
        self._group_start = 0.0

    def watch_bindings(self, scheduler: Scheduler) -> None:
        handler = scheduler.pod_informer.handler

        def handle(change: str, old: Pod | None, new: Pod | None) -> None:
            handler(change, old, new)
            if new is not None and new.spec.node_name and (old is None or not old.spec.node_name):
                now = time.perf_counter()
                with self.cond:
                    self.bound_at[new.metadata.namespace].append(now)
                    self.cond.notify_all()

        scheduler.pod_informer.handler = handle

    def cycle_started(self, fwk: Framework, queued: QueuedPodInfo) -> None:
        # Both hooks run on the scheduling thread, one attempt at a time.
        self._cycle_start = time.perf_counter()

    def cycle_ended(self, queued: QueuedPodInfo, outcome: CycleOutcome) -> None:
        if self.measuring:
            self.latencies.append(time.perf_counter() - self._cycle_start)

    def pod_group_cycle_started(self, fwk: Framework, namespace: str, name: str) -> None:
        self._group_start = time.perf_counter()  # on the scheduling thread, one group at a time

    def pod_group_cycle_ended(
        self, fwk: Framework, namespace: str, name: str, result: str
    ) -> None:
        if self.measuring:
            self.group_attempts[result].append(time.perf_counter() - self._group_start)

    def time_extension_points(self, fwk: Framework) -> None:
        for point, method in EXTENSION_POINT_RUNNERS.items():
            setattr(fwk, method, self._timed(point, getattr(fwk, method)))

    def time_filter_phase(self, algorithm: SchedulingAlgorithm) -> None:
        setattr(algorithm, FILTER_PHASE, self._timed("Filter", getattr(algorithm, FILTER_PHASE)))
        setattr(algorithm, SCORE_PHASE, self._timed("Score", getattr(algorithm, SCORE_PHASE)))

    def _timed(self, point: str, run: Callable[..., Any]) -> Callable[..., Any]:
        acc = self.points[point]
        clock = time.perf_counter
        if point in _BINDING_CYCLE:
            lock = self._points_lock

            def timed_locked(*args: Any, **kwargs: Any) -> Any:
                start = clock()
                try:
                    return run(*args, **kwargs)
                finally:
                    with lock:
                        acc[0] += 1
                        acc[1] += clock() - start

            return timed_locked

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return run(*args, **kwargs)
            finally:
                acc[0] += 1
                acc[1] += clock() - start

        return timed

    def start_measuring(self) -> None:
        self.latencies.clear()
        self.group_attempts.clear()
        with self._points_lock:
            for acc in self.points.values():
                acc[0], acc[1] = 0, 0.0
        self.measuring = True

    def wait_bound(self, namespace: str, count: int, deadline: float) -> int:
        with self.cond:
            self.cond.wait_for(
                lambda: len(self.bound_at[namespace]) >= count,
                timeout=max(0.0, deadline - time.perf_counter()),
            )
            return len(self.bound_at[namespace])


def _build(op: Op, first_index: int, node_names: list[str]) -> list[Any]:
    """The op's objects, ready to create (built before any clock starts)."""
    if op.opcode == "createAny":
        text = yaml.safe_dump(dict(op.template))
        made = []
        for i in range(op.count):  # scheduler_perf's createAny with countParam: ${index} each
            data = fill_template(op.template, {"index": str(i), **op.template_params})
            made += list(loads(yaml.safe_dump(data) if "$" in text else text, "createAny"))
        if op.namespace != "default":  # createAny's namespace, for a namespaced object
            made = [
                o.with_metadata(namespace=o.metadata.namespace or op.namespace)
                if o.NAMESPACED
                else o
                for o in made
            ]
        return made
    if op.opcode == "createResourceDriver":
        return _resource_driver(op, node_names)
    if op.opcode == "createNodes":
        nodes = []
        prefix = str((op.template.get("metadata") or {}).get("generateName") or "node-")
        for i in range(op.count):
            name = f"{prefix}{first_index + i}"
            data = fill_template(op.template, {"name": name})
            meta = dict(data.get("metadata") or {})
            labels = dict(meta.get("labels") or {})
            if op.label_key and op.label_values:
                labels[op.label_key] = op.label_values[i % len(op.label_values)]
            data["metadata"] = {**meta, "name": name, "labels": labels}
            nodes.append(Node.from_dict(data))
            if op.csi_node_allocatable:
                nodes.append(_csi_node(name, op.csi_node_allocatable))
        return nodes
    templated = "$" in yaml.safe_dump(dict(op.template))
    pods = []
    for i in range(op.count):
        data = dict(op.template)
        if templated:
            values = {"index": str(i), **op.template_params}
            if node_names:
                values["node"] = node_names[i % len(node_names)]
            data = fill_template(op.template, values)
        meta = dict(data.get("metadata") or {})
        name = f"{op.namespace}-{first_index}-{i}"
        data["metadata"] = {**meta, "name": name, "namespace": op.namespace}
        if op.pv_template is not None and op.pvc_template is not None:
            pods += _bound_volume(op, name)
            volume = {"name": "vol", "persistentVolumeClaim": {"claimName": name}}
            data["spec"] = {**data.get("spec", {}), "volumes": [volume]}
        pods.append(Pod.from_dict(data))
    return pods


def _resource_driver(op: Op, node_names: list[str]) -> list[Any]:
    """A ResourceSlice of ``op.count`` devices per matching node (``createResourceDriverOp``)."""
    from framework.objects.resource import ResourceSlice

    slices = []
    for name in node_names:
        if not fnmatch.fnmatchcase(name, op.node_pattern):
            continue
        devices = [{"name": f"instance-{i}"} for i in range(op.count)]
        slices.append(
            ResourceSlice.from_dict(
                {
                    "metadata": {"name": f"{name}-{op.driver_name}"},
                    "spec": {
                        "driver": op.driver_name,
                        "nodeName": name,
                        "pool": {"name": name, "resourceSliceCount": 1},
                        "devices": devices,
                    },
                }
            )
        )
    return slices


def _csi_node(name: str, allocatable: Mapping[str, int]) -> Any:
    """The node's CSINode (``nodeAllocatableStrategy.csiNodeAllocatable``)."""
    from framework.objects.storage import CSINode

    drivers = [
        {"name": driver, "nodeID": name, "allocatable": {"count": count}}
        for driver, count in allocatable.items()
    ]
    return CSINode.from_dict({"metadata": {"name": name}, "spec": {"drivers": drivers}})


def _bound_volume(op: Op, name: str) -> list[Any]:
    """A volume and a claim bound to each other for pod ``name`` (``createPodWithPersistentVolume``)."""
    from framework.objects.storage import PersistentVolume, PersistentVolumeClaim

    pv = copy.deepcopy(dict(op.pv_template or {}))
    spec = pv.setdefault("spec", {})
    for source, key in (("csi", "volumeHandle"), ("awsElasticBlockStore", "volumeID")):
        if isinstance(spec.get(source), dict):
            spec[source][key] = name
    spec["claimRef"] = {"namespace": op.namespace, "name": name}
    pv["metadata"] = {**pv.get("metadata", {}), "name": name}
    pv["status"] = {"phase": "Bound"}
    pvc = copy.deepcopy(dict(op.pvc_template or {}))
    pvc["metadata"] = {**pvc.get("metadata", {}), "name": name, "namespace": op.namespace}
    pvc["spec"] = {**pvc.get("spec", {}), "volumeName": name}
    pvc["status"] = {"phase": "Bound"}
    return [PersistentVolume.from_dict(pv), PersistentVolumeClaim.from_dict(pvc)]


def _peak_memory_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports kibibytes, macOS bytes.
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def overcommitted_nodes(api: APIServer) -> tuple[str, ...]:
    """Nodes whose bound pods ask for more CPU, memory or pod slots than allocatable."""
    used: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for pod in api.list(Pod).items:
        if pod.spec.node_name:
            requests = pod_requests(pod)
            row = used[pod.spec.node_name]
            row[0] += requests.get("cpu", 0)
            row[1] += requests.get("memory", 0)
            row[2] += 1
    over = []
    for node in api.list(Node).items:
        cpu, memory, count = used.get(node.metadata.name, (0, 0, 0))
        allocatable = node.status.allocatable
        if (
            cpu > resource_amount("cpu", allocatable)
            or memory > resource_amount("memory", allocatable)
            or count > resource_amount("pods", allocatable)
        ):
            over.append(node.metadata.name)
    return tuple(over)


def _with_case_gates(gates: FeatureGates, case: Mapping[str, bool]) -> FeatureGates:
    """The run's gates with the test case's ``featureGates`` set on top."""
    if not case:
        return gates
    defaults = new_feature_gates(gates.emulated_version)
    overrides = {name: on for name, on in gates if defaults.enabled(name) != on}
    return new_feature_gates(gates.emulated_version, {**overrides, **case})


def run_workload(
    workload: Workload,
    *,
    seed: int = 0,
    percentage_of_nodes_to_score: int | None = None,
    time_extension_points: bool = True,
    timeout: float = 3600.0,
    engine: str | None = None,
    feature_gates: FeatureGates | None = None,
) -> BenchResult:
    """Run ``workload`` on a fresh API server and Scheduler; return its figures.

    ``engine`` runs the Filter and Score loops (:mod:`framework.scheduler.engine`);
    with ``both``, a difference between the engines is a :class:`BenchError`.
    Raises :class:`BenchError` if pods the workload waits for are not all
    bound within ``timeout`` seconds of real time. ``feature_gates`` picks
    the emulated release and gates (default: the default emulated version's).
    """
    engine = engine or default_engine()
    gates = _with_case_gates(feature_gates or new_feature_gates(), workload.feature_gates)
    uids = itertools.count()
    api = APIServer(RealClock(), uid_factory=lambda: f"uid-{next(uids)}", rng=random.Random(seed))
    config = (
        loads_config(
            workload.scheduler_config,
            workload.scheduler_config_path or workload.name,
            feature_gates=gates,
        )
        if workload.scheduler_config is not None
        else set_defaults(KubeSchedulerConfiguration(), feature_gates=gates)
    )
    if percentage_of_nodes_to_score is not None:
        config = replace(config, percentage_of_nodes_to_score=percentage_of_nodes_to_score)
    for namespace in sorted({op.namespace for op in workload.ops} - {"default"}):
        api.create(Namespace(metadata=ObjectMeta(name=namespace)))

    scheduler: Scheduler | None = None
    probe = _Probe()
    node_names: list[str] = []
    deadline = time.perf_counter() + timeout
    start = end = 0.0
    cpu_start = cpu_end = 0.0
    measured_namespace = ""
    try:
        for index, op in enumerate(workload.ops):
            objects = _build(
                op, len(node_names) if op.opcode == "createNodes" else index, node_names
            )
            if op.opcode != "createPods":
                for obj in objects:
                    api.create(obj)
                node_names.extend(o.metadata.name for o in objects if isinstance(o, Node))
                continue
            if scheduler is None:  # nodes first, then the scheduler lists them as it starts
                scheduler = Scheduler(
                    api,
                    config,
                    clock=RealClock(),
                    seed=seed,
                    engine=engine,
                    inline_binding=True,
                    feature_gates=gates,
                )
                probe.watch_bindings(scheduler)
                scheduler.add_tracer(probe)
                if time_extension_points:
                    for fwk in scheduler.profiles.values():
                        probe.time_extension_points(fwk)
                    probe.time_filter_phase(scheduler.scheduling.algorithm)
                scheduler.run()
            if op.collect_metrics:
                measured_namespace = op.namespace
                probe.start_measuring()
                start = time.perf_counter()
                cpu_start = time.process_time()
            for obj in objects:
                api.create(obj)
            if op.skip_wait:
                continue
            wanted = op.count
            got = probe.wait_bound(op.namespace, wanted, deadline)
            if got < wanted:
                raise BenchError(
                    f"{workload.name} ({workload.size}): only {got} of {wanted} pods in "
                    f"namespace {op.namespace} were bound within {timeout:g}s"
                )
            if op.collect_metrics:
                end = time.perf_counter()
                cpu_end = time.process_time()
                probe.measuring = False
    finally:
        if scheduler is not None:
            scheduler.stop()
    algorithm = scheduler.scheduling.algorithm if scheduler is not None else None
    mismatches = getattr(algorithm, "mismatches", None)
    if mismatches:
        raise BenchError(f"{workload.name}: the engines disagreed: {mismatches[0]}")
    stats = getattr(algorithm, "stats", None)

    bound_times = probe.bound_at[measured_namespace]
    samples = scheduling_throughput(start, bound_times, end)
    latencies_ms = [s * 1000 for s in probe.latencies]
    pending_init = sum(
        1
        for pod in api.list(Pod).items
        if not pod.spec.node_name and pod.metadata.namespace != measured_namespace
    )
    return BenchResult(
        workload=workload.name,
        size=workload.size,
        seed=seed,
        nodes=workload.nodes,
        init_pods=workload.init_pods,
        measured_pods=workload.measured_pods,
        threshold=workload.threshold,
        target=workload.target,
        throughput=summarize(samples),
        throughput_samples=len(samples),
        attempt_latency_ms=summarize(latencies_ms),
        attempts=len(latencies_ms),
        extension_points={
            point: (int(calls), total * 1000)
            for point, (calls, total) in probe.points.items()
            if calls
        },
        peak_memory_mib=_peak_memory_mib(),
        measured_seconds=end - start,
        bound_measured=len(bound_times),
        cpu_seconds=cpu_end - cpu_start,
        pending_init=pending_init,
        overcommitted=overcommitted_nodes(api),
        percentage_of_nodes_to_score=percentage_of_nodes_to_score,
        engine=engine,
        pod_group_attempts={
            result: {"count": len(seconds), **summarize([s * 1000 for s in seconds])}
            for result, seconds in sorted(probe.group_attempts.items())
        },
        threshold_metric=workload.threshold_metric,
        engine_stats={}
        if stats is None
        else {
            "batchFilters": stats.batch_filters,
            "batchScores": stats.batch_scores,
            "reference": dict(stats.reference),
        },
    )
