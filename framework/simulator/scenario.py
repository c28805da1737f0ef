"""What if? A ``Scenario``: a cluster, and timed operations on it, run in simulated time.

``simulate`` answers "where do these pods go?" once. A practitioner's
questions are about a day: a Job burst at nine, a node drained at noon, a
new node in the afternoon. A **Scenario** manifest says that, in our own
versioned kind (``simulator.ksf.dev/v1alpha1``, JSON Schema
``scenario-v1alpha1.schema.json`` beside this module)::

    apiVersion: simulator.ksf.dev/v1alpha1
    kind: Scenario
    metadata: {name: batch-day}
    spec:
      cluster: [cluster.yaml]      # nodes, running pods, PriorityClasses... (paths beside this file)
      config: scheduler.yaml       # optional: the KubeSchedulerConfiguration
      duration: 12h                # when the scenario ends
      sampleEvery: 15m             # how often the curves are sampled
      operations:
      - at: 1h
        create: [{kind: Job, ...}] # manifests: Pods, Deployments, ReplicaSets, StatefulSets, Jobs
        runFor: 2h                 # their pods complete this long after they start
      - {at: 4h, cordon: worker-3}
      - {at: 4h, drain: worker-3}  # cordon, then delete its pods; a controller's are replaced
      - {at: 6h, uncordon: worker-3}
      - {at: 8h, addNode: {kind: Node, ...}}
      - {at: 9h, removeNode: worker-2}
      - {at: 10h, delete: {pods: [default/web-0]}}  # or {labelSelector: {matchLabels: ...}}
      - {at: 10h, delete: {workload: {kind: Job, name: etl, namespace: batch}}}
      - {at: 10h, scale: {kind: Deployment, name: web, namespace: shop, replicas: 8}}
      - {at: 11h, changeConfig: packed.yaml}  # kube-scheduler restarted with this configuration

Times are Go durations (``90s``, ``15m``, ``1h30m``) from the start. A
node an operation names must be there at its time (in ``spec.cluster`` or
added before, and not removed): the scenario is refused when it is loaded
otherwise. Operations after ``duration`` are not run, and the report lists
them. The run
is :func:`framework.simulate`'s (the same order, scheduler, recorder and
clock, :mod:`framework.simulator.run`), with the operations applied when
the simulated clock reaches them and the kubelet's part played for pods
given ``runFor``: such a pod's phase becomes ``Succeeded`` ``runFor`` after
it was bound, and kube-scheduler, which does not watch finished pods,
frees its room. The same scenario and ``--seed`` give the same report.
It runs at the release ``--emulated-version`` names (v1.37 unless told),
with the gates ``--feature-gates`` overrides, as ``simulate`` does.

**Reported over time**, every ``sampleEvery`` (and at the end): pending
pods, running pods, requested / allocatable per resource (cpu, memory,
pods, extended resources) over the nodes that exist, and preemptions and
failed scheduling attempts (FailedScheduling events) so far; at the end,
the scheduling latency (from creation to binding, in simulated time)
percentiles, and how often each unschedulable reason was given.
:func:`render_scenario_table` prints it; :func:`write_scenario_html` draws
the curves as SVG in one self-contained page.

**Controllers.** A controller's pod (one with ``ownerReferences``) deleted
before it finished, by a drain, a node's removal, a ``delete`` or
preemption, is replaced at once by an unbound copy with a name of its own
(``runFor`` kept), as a ReplicaSet or a Job would; a bare pod is not.

**Delete.** ``delete`` takes pods by name or label selector (a
controller's are replaced), or one ``workload``: as ``kubectl delete``
with its default background propagation, the garbage collector deletes the
workload's pods, each with its grace period (one on no node at once), and
nobody replaces them; a later ``scale`` of it is refused.

**Scale.** ``scale`` changes a Deployment's, ReplicaSet's or StatefulSet's
``replicas``, or a Job's ``parallelism``, as ``kubectl scale`` (or a patch)
would, and its controller acts at once (``manageReplicas`` in
``pkg/controller/replicaset``, ``manageJob`` in ``pkg/controller/job``,
v1.33). Too few active pods (not finished, not terminating): it creates
the difference from the template, with new names of the same form (and
the ``runFor`` of the operation that created the workload). A Job creates
none beyond ``completions`` minus the pods that succeeded, and none once a
pod has succeeded when it has no ``completions``. Too many: it deletes
the difference, with the grace period, in the order of
``deletion_order`` (unassigned pods first, then the most doubled-up
and the newest; a StatefulSet its highest ordinals), and replaces none of
them. The workload must be in ``spec.cluster`` or created by an earlier
operation.

**A configuration change is a restart.** kube-scheduler reads its
``KubeSchedulerConfiguration`` once, when it starts
(``cmd/kube-scheduler/app/server.go``: ``Setup``, then ``scheduler.New``),
so ``changeConfig`` does what changing it on a cluster does: the
scheduler stops and a new one starts with the file given (a path beside
the scenario, checked when the scenario is loaded). Everything the old
process kept in memory is gone: its scheduling queue (active, backoff and
unschedulable pods, their attempt counts and backoffs), its cache's
assumed pods, its plugins' state. Everything in the API server stays:
bindings, pods' ``status.nominatedNodeName`` and conditions. Here:

* binding cycles under way finish first (API calls take no time here, so
  a binding already sent lands);
* a pod waiting at Permit loses its place: it is rejected ("kube-scheduler
  restarted") and its reservation undone. A killed process would write
  nothing; here the old scheduler records that failure in the trace and
  the pod's condition, the one liberty taken;
* the new scheduler takes over at the same simulated instant (no
  leader-election wait: the old one gives up its lease as it stops). Its
  informers list every node and pod, so each unbound pod enters the active
  queue at once, with no backoff and a queue timestamp of that instant:
  among pods of equal priority, the order they were created in no longer
  counts (it is the heap's, the same on every run). A pod with
  ``status.nominatedNodeName`` is nominated again. A pod left unschedulable under the old configuration is tried
  under the new one at the moment of the change.

The trace holds the attempts of both schedulers, one after the other (a
pod's attempt numbers start again at 1 after the restart, as the new
process counts afresh); its header's Score weights are the last
configuration's.
:mod:`framework.simulator.scenario_compare` runs one scenario from two
starting configurations and compares the runs.

No Kubernetes counterpart: kube-scheduler-simulator's scenario runner
(``kubernetes-sigs/kube-scheduler-simulator``, issue #140) was designed but
never built; ``scheduler_perf`` runs timed workloads but reports only
throughput.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any, TextIO

import yaml

from framework.apiserver import ADDED, DELETED, MODIFIED, APIServer, NotFound
from framework.clock import FakeClock
from framework.config.framework_checks import FrameworkConfigError
from framework.config.types import KubeSchedulerConfiguration
from framework.featuregate import FeatureGates
from framework.objects import (
    KubeObject,
    Namespace,
    Node,
    ObjectMeta,
    Pod,
    PodStatus,
    PriorityClass,
    Unstructured,
)
from framework.objects.labels import SelectorError, label_selector_as_selector
from framework.objects.meta import LabelSelector
from framework.objects.resources import PODS, pod_requests, resource_amount
from framework.scheduler.engine import default_engine
from framework.scheduler.scheduler import Scheduler
from framework.simulator.controllers import (
    CONTROLLER_KINDS,
    deletion_order,
    expand_controller,
    template_hash,
)
from framework.simulator.inputs import (
    Inputs,
    SimulationInputError,
    SourcedObject,
    load_inputs,
    plugin_registry,
)
from framework.simulator.result import UNSCHEDULABLE, SimulationResult
from framework.simulator.run import _Simulation, check_engines_agreed, gates_for
from framework.simulator.trace import keep_tables_for

__all__ = [
    "API_VERSION",
    "KIND",
    "Operation",
    "Sample",
    "Scenario",
    "ScenarioResult",
    "load_scenario",
    "parse_duration",
    "render_scenario_table",
    "run_scenario",
    "write_operations",
    "write_scenario_html",
]

API_VERSION = "simulator.ksf.dev/v1alpha1"
KIND = "Scenario"
OPERATIONS = (
    "create",
    "delete",
    "scale",
    "cordon",
    "uncordon",
    "drain",
    "addNode",
    "removeNode",
    "changeConfig",
)
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(text: object, field_path: str) -> float:
    """A Go duration (``1h30m``, ``90s``, ``0s``) in seconds; ``ValueError`` names the field.

    >>> parse_duration("1h30m", "at"), parse_duration("250ms", "at")
    (5400.0, 0.25)
    """
    if isinstance(text, str) and text and _DURATION.sub("", text) == "":
        return sum(float(n) * _UNITS[unit] for n, unit in _DURATION.findall(text))
    raise ValueError(f"{field_path}: {text!r} is not a duration; write it like 90s, 15m or 1h30m")


@dataclass(frozen=True, slots=True)
class Operation:
    """One timed operation: ``at`` seconds from the start, its kind and what it needs."""

    at: float
    kind: str
    objects: tuple[SourcedObject, ...] = ()  # create, addNode
    target: str = ""  # cordon, uncordon, drain, removeNode
    pods: tuple[str, ...] = ()  # delete
    selector: LabelSelector | None = None  # delete
    run_for: float | None = None  # create
    controllers: tuple[Unstructured, ...] = ()  # create: the workloads, for a later scale
    replicas: int = 0  # scale: the new spec.replicas (a Job's spec.parallelism)
    config: KubeSchedulerConfiguration | None = None  # changeConfig

    def describe(self) -> str:
        if self.kind == "scale":
            count = "parallelism" if self.target.startswith("Job ") else "replicas"
            if count == "parallelism":
                return f"scale {self.target} to parallelism {self.replicas}"
            return f"scale {self.target} to {self.replicas} {count}"
        if self.kind == "changeConfig":
            return f"changeConfig {self.target} (kube-scheduler restarted)"
        if self.kind == "create":
            made = ", ".join(_controller_key(c) for c in self.controllers)
            return f"create {made + ': ' if made else ''}{len(self.objects)} pod(s)" + (
                f", each running {_clock(self.run_for)}" if self.run_for is not None else ""
            )
        if self.kind == "addNode":
            return f"addNode {self.objects[0].obj.metadata.name}"
        if self.kind == "delete":
            if self.target:
                return f"delete {self.target}"
            return "delete " + (", ".join(self.pods) if self.pods else "pods matching a selector")
        return f"{self.kind} {self.target}"


@dataclass(frozen=True, slots=True)
class Scenario:
    """A loaded Scenario: the cluster's inputs, the operations in time order, and its timing."""

    name: str
    inputs: Inputs
    duration: float
    sample_every: float
    operations: tuple[Operation, ...]
    seed: int = 0
    #: The release and gates it runs with (``--emulated-version``, ``--feature-gates``).
    feature_gates: FeatureGates | None = None


def _load_document(path: Path) -> Mapping[str, Any]:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.composer.ComposerError:
        # Most likely a cluster's manifests, given to `scenario` instead of `simulate`.
        raise SimulationInputError(
            [
                f"{path}: a Scenario manifest is one YAML document (apiVersion: {API_VERSION}, "
                f"kind: {KIND}), and this file has several: for a cluster's manifests use "
                f"python -m framework simulate {path}"
            ]
        ) from None
    except (OSError, yaml.YAMLError) as error:
        raise SimulationInputError([f"{path}: cannot read the scenario: {error}"]) from None
    if not isinstance(document, Mapping):
        raise SimulationInputError([f"{path}: a Scenario manifest must be a YAML mapping"])
    return document


def load_scenario(
    path: str | Path,
    *,
    emulated_version: str | None = None,
    feature_gates: Mapping[str, bool] | str | FeatureGates | None = None,
) -> Scenario:
    """Read a Scenario manifest; :class:`SimulationInputError` lists every problem, by field.

    ``emulated_version`` and ``feature_gates`` are :func:`~framework.simulate`'s: the release
    whose defaults the run takes (v1.37 unless told), and single gates overridden.
    """
    gates = gates_for(emulated_version, feature_gates)
    path = Path(path)
    document = _load_document(path)
    problems: list[str] = []

    def problem(field_path: str, message: str) -> None:
        problems.append(f"{path}: Scenario: {field_path}: {message}")

    if document.get("apiVersion") != API_VERSION or document.get("kind") != KIND:
        given = document.get("kind")
        problem(
            "apiVersion/kind",
            f"must be {API_VERSION} / {KIND}"
            + (f", not {given}" if given not in (None, KIND) else ""),
        )
    spec = document.get("spec")
    if not isinstance(spec, Mapping):
        raise SimulationInputError([*problems, f"{path}: Scenario: spec: is required"])
    known = {"cluster", "config", "duration", "sampleEvery", "operations", "seed"}
    for key in sorted(set(spec) - known):
        problem(f"spec.{key}", f"unknown field (known: {', '.join(sorted(known))})")
    here = path.parent
    cluster = spec.get("cluster") or []
    if not isinstance(cluster, list) or not all(isinstance(c, str | dict) for c in cluster):
        problem("spec.cluster", "must be a list of paths (beside the scenario) or manifests")
        cluster = []
    sources = tuple(str(here / c) if isinstance(c, str) else c for c in cluster)
    config = spec.get("config")
    if config is not None and not isinstance(config, str):
        problem("spec.config", "must be the path of a KubeSchedulerConfiguration file")
        config = None
    timing: dict[str, float] = {}
    for key, default in (("duration", None), ("sampleEvery", "5m")):
        value = spec.get(key, default)
        try:
            timing[key] = parse_duration(value, f"spec.{key}")
        except ValueError as error:
            problems.append(f"{path}: Scenario: {error}")
            timing[key] = 1.0
    if timing["sampleEvery"] <= 0:
        problem("spec.sampleEvery", "must be more than 0s")
    seed = spec.get("seed", 0)
    if not isinstance(seed, int):
        problem("spec.seed", "must be an integer")
        seed = 0
    try:
        inputs = load_inputs(
            sources, str(here / config) if config else None, plugin_registry(), feature_gates=gates
        )
    except SimulationInputError as error:
        raise SimulationInputError([*problems, *error.problems]) from None
    classes = tuple(o.obj for o in inputs.objects if isinstance(o.obj, PriorityClass))
    operations: list[tuple[str, Operation]] = []
    written = spec.get("operations") or []
    if not isinstance(written, list):
        problem("spec.operations", "must be a list")
        written = []
    for index, op in enumerate(written):
        where = f"spec.operations[{index}]"
        try:
            operations.append((where, _operation(op, where, f"{path} {where}", classes, here)))
        except ValueError as error:
            problems.append(f"{path}: Scenario: {error}")
        except SimulationInputError as error:
            problems += error.problems
    operations.sort(key=lambda o: o[1].at)  # stable: operations at one time run in file order
    known = {_controller_key(c.obj) for c in inputs.controllers if isinstance(c.obj, Unstructured)}
    nodes = {o.obj.metadata.name for o in inputs.objects if isinstance(o.obj, Node)}
    removed: dict[str, float] = {}
    for where, op in operations:
        known |= {_controller_key(c) for c in op.controllers}
        if op.kind == "scale" and op.target not in known:
            problem(
                f"{where}.scale",
                f"no {op.target} in spec.cluster or created before {_clock(op.at)}",
            )
        if op.kind == "delete" and op.target:
            if op.target not in known:
                problem(
                    f"{where}.delete.workload",
                    f"no {op.target} in spec.cluster or created before {_clock(op.at)}",
                )
            known.discard(op.target)
        if op.kind == "addNode":
            nodes.add(op.objects[0].obj.metadata.name)
            removed.pop(op.objects[0].obj.metadata.name, None)
        elif op.kind in _NODE_OPERATIONS and op.target not in nodes:
            problem(
                f"{where}.{op.kind}",
                f"Node {op.target} was removed at {_clock(removed[op.target])}"
                if op.target in removed
                else f"no Node {op.target} in spec.cluster or added before {_clock(op.at)}",
            )
        elif op.kind == "removeNode":
            nodes.discard(op.target)
            removed[op.target] = op.at
    if problems:
        raise SimulationInputError(problems)
    return Scenario(
        name=str((document.get("metadata") or {}).get("name", path.stem)),
        inputs=inputs,
        duration=timing["duration"],
        sample_every=timing["sampleEvery"],
        operations=tuple(op for _, op in operations),
        seed=seed,
        feature_gates=gates,
    )


_NODE_OPERATIONS = ("cordon", "uncordon", "drain", "removeNode")
"""The operations whose target is a node that must be there when they run."""


def _operation(
    op: object, where: str, source: str, classes: Sequence[PriorityClass], here: Path
) -> Operation:
    if not isinstance(op, Mapping):
        raise ValueError(f"{where}: must be a mapping with at and one operation")
    kinds = [k for k in OPERATIONS if k in op]
    unknown = sorted(set(op) - {*OPERATIONS, "at", "runFor"})
    if unknown:
        raise ValueError(
            f"{where}.{unknown[0]}: unknown field (operations: {', '.join(OPERATIONS)})"
        )
    if len(kinds) != 1:
        raise ValueError(f"{where}: give exactly one of {', '.join(OPERATIONS)}")
    kind = kinds[0]
    at = parse_duration(op.get("at"), f"{where}.at")
    value = op[kind]
    run_for = parse_duration(op["runFor"], f"{where}.runFor") if "runFor" in op else None
    if run_for is not None and kind != "create":
        raise ValueError(f"{where}.runFor: only a create operation takes runFor")
    if kind in ("create", "addNode"):
        manifests = value if isinstance(value, list) else [value]
        inputs = load_inputs([*classes, *manifests])  # the cluster's classes, for the check
        objects = tuple(
            SourcedObject(o.obj, source)
            for o in inputs.objects
            if not isinstance(o.obj, PriorityClass)
        )
        wanted = Node if kind == "addNode" else Pod
        if not objects or not all(isinstance(o.obj, wanted) for o in objects):
            raise ValueError(
                f"{where}.{kind}: "
                + ("one Node manifest" if kind == "addNode" else "Pods or workload controllers")
            )
        if kind == "addNode" and len(objects) != 1:
            raise ValueError(f"{where}.addNode: one Node manifest")
        controllers = tuple(c.obj for c in inputs.controllers if isinstance(c.obj, Unstructured))
        return Operation(at, kind, objects=objects, run_for=run_for, controllers=controllers)
    if kind == "scale":
        return _scale_operation(at, value, f"{where}.scale")
    if kind == "changeConfig":
        return _config_operation(at, value, f"{where}.changeConfig", here)
    if kind == "delete":
        if isinstance(value, Mapping) and "workload" in value:
            if len(value) != 1:
                raise ValueError(f"{where}.delete: a workload alone, or pods and labelSelector")
            target = _workload_target(value["workload"], f"{where}.delete.workload")
            return Operation(at, kind, target=target)
        if not isinstance(value, Mapping) or not ({"pods", "labelSelector"} & set(value)):
            raise ValueError(
                f"{where}.delete: give pods: [namespace/name, ...], labelSelector, or workload"
            )
        selector = None
        if "labelSelector" in value:
            selector = LabelSelector.from_dict(value["labelSelector"])
            try:
                label_selector_as_selector(selector)
            except SelectorError as error:
                raise ValueError(f"{where}.delete.labelSelector: {error}") from None
        pods = tuple(p if "/" in p else f"default/{p}" for p in value.get("pods", ()))
        return Operation(at, kind, pods=pods, selector=selector)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}.{kind}: the node's name")
    return Operation(at, kind, target=value)


def _controller_key(controller: KubeObject) -> str:
    """``Deployment shop/web``: how a scale operation names its workload."""
    namespace = controller.metadata.namespace or "default"
    return f"{controller.kind_name()} {namespace}/{controller.metadata.name}"


def _workload_target(value: object, where: str, counted: str = "") -> str:
    """``Job batch/etl``, from ``{kind: Job, name: etl, namespace: batch}`` (and ``counted``,
    the field a scale gives besides, checked by the caller)."""
    if not isinstance(value, Mapping):
        raise ValueError(
            f"{where}: give kind, name (and namespace)" + (" and replicas" if counted else "")
        )
    kind = value.get("kind")
    if kind not in CONTROLLER_KINDS:
        raise ValueError(f"{where}.kind: one of {', '.join(CONTROLLER_KINDS)}, not {kind!r}")
    name, namespace = value.get("name"), value.get("namespace", "default")
    if not isinstance(name, str) or not name or not isinstance(namespace, str):
        raise ValueError(f"{where}.name: the {kind}'s name (namespace: default unless given)")
    if counted:
        other = "replicas" if counted == "parallelism" else "parallelism"
        if other in value:
            raise ValueError(f"{where}.{other}: a {kind} is scaled by {counted}")
    unknown = sorted(set(value) - {"kind", "name", "namespace", *([counted] if counted else [])})
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown field")
    return f"{kind} {namespace}/{name}"


def _scale_operation(at: float, value: object, where: str) -> Operation:
    kind = value.get("kind") if isinstance(value, Mapping) else None
    field_name = "parallelism" if kind == "Job" else "replicas"  # kubectl scale sets replicas
    target = _workload_target(value, where, field_name)
    assert isinstance(value, Mapping)
    count = value.get(field_name)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"{where}.{field_name}: must be a non-negative integer, got {count!r}")
    return Operation(at, "scale", target=target, replicas=count)


def _config_operation(at: float, value: object, where: str, here: Path) -> Operation:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: the path of a KubeSchedulerConfiguration file, beside the "
                         "scenario")  # fmt: skip
    file = here / value
    if not file.is_file():
        raise ValueError(f"{where}: no file {file}")
    config = load_inputs([], str(file), plugin_registry()).config
    # What only building the profiles finds (a plugin at an extension point it lacks, bad
    # plugin arguments) is found now, not hours into the run: a scheduler built and dropped.
    build_log = logging.getLogger("framework.runtime.build")
    level, clock = build_log.level, FakeClock()
    build_log.setLevel(logging.ERROR)  # the run says which plugins a profile leaves out
    try:
        Scheduler(APIServer(clock), config, plugin_registry(), clock=clock).stop()
    except FrameworkConfigError as error:
        raise ValueError(f"{where}: {file}: {error}") from None
    finally:
        build_log.setLevel(level)
    return Operation(at, "changeConfig", target=value, config=config)


# --- the run ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sample:
    """The cluster at one moment: pods pending and running, requested / allocatable, preemptions."""

    at: float
    pending: int
    running: int
    requested: Mapping[str, int]
    allocatable: Mapping[str, int]
    preemptions: int
    #: How many FailedScheduling events so far (the scheduling attempts that found no node).
    failed: int = 0

    def utilisation(self, resource: str) -> float:
        whole = self.allocatable.get(resource, 0)
        return self.requested.get(resource, 0) / whole if whole else 0.0


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    """The samples over time, the operations as applied, latencies and reasons, and the run."""

    scenario: Scenario
    samples: tuple[Sample, ...]
    applied: tuple[tuple[float, str], ...]
    latencies: tuple[float, ...]  # seconds, per pod bound during the scenario, sorted
    reasons: Mapping[str, int]  # unschedulable reason → in how many failed attempts
    simulation: SimulationResult
    resources: tuple[str, ...] = field(default=("cpu", "memory", "pods"))

    def percentile(self, p: float) -> float | None:
        """The ``p``-th percentile (nearest rank) of the scheduling latencies, in seconds."""
        if not self.latencies:
            return None
        rank = max(1, math.ceil(p / 100 * len(self.latencies)))
        return self.latencies[rank - 1]


class _ScenarioRun(_Simulation):
    """The simulation with timed operations: due work is done where the kubelet's is."""

    def __init__(self, scenario: Scenario, seed: int) -> None:
        super().__init__(
            scenario.inputs,
            plugin_registry(),
            seed,
            None,
            engine=default_engine(),
            keep_table=keep_tables_for(()),
            feature_gates=scenario.feature_gates,
        )
        self.scenario = scenario
        self.start = self.clock.now()
        self.end = self.start + scenario.duration
        self.ops = list(scenario.operations)
        self.added: list[SourcedObject] = []
        self.applied: list[tuple[float, str]] = []
        self.created_at: dict[str, float] = {}
        self.bound_at: dict[str, float] = {}
        self.run_for: dict[str, float] = {}
        self.completions: list[tuple[float, str]] = []
        self.samples: list[Sample] = []
        times = [self.start + k * scenario.sample_every for k in range(
            int(scenario.duration // scenario.sample_every) + 1)]  # fmt: skip
        self.sample_times = sorted({*times, self.end})
        self.pod_watch = self.api.watch(Pod, resource_version=self.api.current_resource_version())
        self.replacements = 0
        self.gone: set[str] = set()
        self.controllers: dict[str, tuple[Unstructured, float | None]] = {}
        for item in scenario.inputs.controllers:
            if isinstance(item.obj, Unstructured):
                self.controllers[_controller_key(item.obj)] = (item.obj, None)

    # --- the hooks of the driving loop ------------------------------------------------------------

    def _create(self, item: SourcedObject) -> KubeObject:
        created = super()._create(item)
        if isinstance(created, Pod) and not created.spec.node_name:
            self.created_at.setdefault(created.key, self.clock.now())
        return created

    def _next_deadline(self, last_progress: float) -> float | None:
        now = self.clock.now()
        if self._observe():
            return now  # replacements to schedule before the clock moves on
        op_due = bool(self.ops) and self.start + self.ops[0].at <= now
        if op_due or (self.completions and self.completions[0][0] <= now):
            return now  # a sample shows the moment after its operations, once scheduled
        while self.sample_times and self.sample_times[0] <= now:
            self.samples.append(self._sample(self.sample_times.pop(0)))
        due = [self.sample_times[0]] if self.sample_times else []
        if self.ops:
            due.append(self.start + self.ops[0].at)
        if self.completions:
            due.append(self.completions[0][0])
        base = super()._next_deadline(last_progress)
        if base is not None:
            due.append(base)
        due = [t for t in due if t <= self.end]
        return min(due) if due else None

    def _finish_terminated_pods(self) -> None:
        super()._finish_terminated_pods()
        now = self.clock.now()
        while self.completions and self.completions[0][0] <= now:
            _, key = heapq.heappop(self.completions)
            self._complete(key)
        while self.ops and self.start + self.ops[0].at <= now:
            op = self.ops.pop(0)
            self.applied.append((op.at, op.describe()))
            self._apply(op)

    # --- what happens -------------------------------------------------------------------------

    def _observe(self) -> bool:
        """Bindings and deletions since the last look; they happened at this moment (the clock
        moves only after). A controller's pod being deleted before it finished is replaced at
        once, as a ReplicaSet or a Job counts a terminating pod as gone. Returns whether a pod
        was created."""
        now = self.clock.now()
        replaced = False
        for change in self.pod_watch.drain():
            pod = change.object
            if not isinstance(pod, Pod):
                continue
            key = pod.key
            bound = change.type in (ADDED, MODIFIED) and bool(pod.spec.node_name)
            if bound and key not in self.bound_at and key in self.created_at:
                self.bound_at[key] = now
                if key in self.run_for:
                    heapq.heappush(self.completions, (now + self.run_for[key], key))
            going = change.type == DELETED or pod.metadata.deletion_timestamp is not None
            finished = pod.status.phase in ("Succeeded", "Failed")
            if going and not finished and pod.metadata.owner_references and key not in self.gone:
                self.gone.add(key)
                self._replace(pod)
                replaced = True
        return replaced

    def _complete(self, key: str) -> None:
        namespace, _, name = key.partition("/")
        try:
            pod = self.api.get(Pod, name, namespace=namespace)
        except NotFound:
            return
        if pod.metadata.deletion_timestamp is not None:
            return
        status = dataclasses.replace(pod.status, phase="Succeeded")
        self.api.update_status(dataclasses.replace(pod, status=status))

    def _add(self, item: SourcedObject, run_for: float | None) -> None:
        namespace = item.obj.metadata.namespace
        if item.obj.NAMESPACED and namespace:
            try:
                self.api.get(Namespace, namespace)
            except NotFound:
                self.api.create(Namespace(metadata=ObjectMeta(name=namespace)))
        self.added.append(item)
        created = self._create(item)
        if run_for is not None:
            self.run_for[created.key] = run_for

    def _apply(self, op: Operation) -> None:
        if op.kind in ("create", "addNode"):
            for controller in op.controllers:
                self.controllers[_controller_key(controller)] = (controller, op.run_for)
            for item in op.objects:
                self._add(item, op.run_for)
        elif op.kind == "scale":
            self._scale(op.target, op.replicas)
        elif op.kind == "changeConfig":
            self._restart(op.config, op.target)
        elif op.kind in ("cordon", "uncordon", "drain"):
            node = self.api.get(Node, op.target)
            unschedulable = op.kind != "uncordon"
            spec = dataclasses.replace(node.spec, unschedulable=unschedulable)
            self.api.update(dataclasses.replace(node, spec=spec))
            if op.kind == "drain":
                self._evict(self._pods_on(op.target), graceful=True)
        elif op.kind == "removeNode":
            self.api.delete(Node, op.target)
            # The pod garbage collector deletes pods bound to a node that is gone, at once.
            self._evict(self._pods_on(op.target), graceful=False)
        elif op.kind == "delete" and op.target:
            self._delete_workload(op.target)
        elif op.kind == "delete":
            chosen = set(op.pods)
            if op.selector is not None:
                selector = label_selector_as_selector(op.selector)
                chosen |= {
                    p.key for p in self.api.list(Pod).items if selector.matches(p.metadata.labels)
                }
            for key in sorted(chosen):
                namespace, _, name = key.partition("/")
                try:
                    self.api.delete(Pod, name, namespace, grace_period_seconds=None)
                except NotFound:
                    continue

    def _restart(self, config: KubeSchedulerConfiguration | None, source: str) -> None:
        """kube-scheduler stops and starts again with ``config``; see the module docstring."""
        old = self.scheduler
        self.turnstile.settle()  # binding cycles under way finish: their API calls are sent
        for fwk in old.profiles.values():
            fwk.iterate_over_waiting_pods(
                lambda waiting: waiting.reject("", "kube-scheduler restarted")
            )
        self.turnstile.settle()
        old.stop()
        check_engines_agreed(old)
        self.scheduler = self._start_scheduler(config, source)
        self._watch(self.scheduler)
        self.scheduler.sync()  # its informers list every node and pod: the queue is rebuilt

    def _owned(self, controller: Unstructured) -> list[Pod]:
        """The pods a workload owns (a Deployment's: its ReplicaSet's, of the template's hash)."""
        kind, name = controller.kind, controller.metadata.name
        spec = dict(controller.to_dict().get("spec") or {})
        owner = (kind, name)
        if kind == "Deployment":
            owner = ("ReplicaSet", f"{name}-{template_hash(spec.get('template') or {})}")
        return [
            p
            for p in self.api.list(Pod, namespace=controller.metadata.namespace or "default").items
            if p.metadata.owner_references
            and (p.metadata.owner_references[0].get("kind"),
                 p.metadata.owner_references[0].get("name")) == owner
        ]  # fmt: skip

    def _delete_workload(self, target: str) -> None:
        """``kubectl delete``: the garbage collector deletes the pods, which nobody replaces.

        Background propagation (kubectl's default, ``pkg/controller/garbagecollector``): each
        pod is deleted with its grace period, a pod on no node at once (``CheckGracefulDelete``).
        """
        controller, _ = self.controllers.pop(target)
        pods = self._owned(controller)
        self.gone.update(p.key for p in pods)
        self._evict(pods, graceful=True)

    def _scale(self, target: str, replicas: int) -> None:
        """A workload controller's ``manageReplicas`` (``manageJob``) after its count changed."""
        controller, run_for = self.controllers[target]
        kind, namespace = controller.kind, controller.metadata.namespace or "default"
        spec = dict(controller.to_dict().get("spec") or {})
        owned = self._owned(controller)
        active = [
            p
            for p in owned
            if p.status.phase not in ("Succeeded", "Failed")
            and p.metadata.deletion_timestamp is None
        ]
        wanted = replicas
        if kind == "Job":
            succeeded = sum(1 for p in owned if p.status.phase == "Succeeded")
            completions = spec.get("completions")
            if spec.get("suspend") is True:
                wanted = 0
            elif completions is not None:
                wanted = min(wanted, max(0, int(completions) - succeeded))
            elif succeeded:
                wanted = min(wanted, len(active))  # complete once a pod succeeded: no new pods
        if len(active) > wanted:
            for pod in deletion_order(active, kind, self.clock.now())[: len(active) - wanted]:
                self.gone.add(pod.key)  # a controller does not replace what it scaled away
                with contextlib.suppress(NotFound):
                    self.api.delete(Pod, pod.name, pod.namespace, grace_period_seconds=None)
            return
        missing = wanted - len(active)
        if not missing:
            return
        taken = {p.name for p in owned} | {k.partition("/")[2] for k in self.created_at
                                           if k.startswith(f"{namespace}/")}  # fmt: skip
        count = "parallelism" if kind == "Job" else "replicas"
        spec = {k: v for k, v in spec.items() if k not in ("completions", "suspend")}
        spec[count] = len(taken) + missing  # enough names that some are new
        document = {**controller.to_dict(), "spec": spec}
        fresh = [
            pod
            for pod in expand_controller(Unstructured.from_dict(document))
            if pod.name not in taken
        ]
        for pod in fresh[:missing]:
            self._add(SourcedObject(pod, f"<scale of {target}>"), run_for)

    def _pods_on(self, node: str) -> list[Pod]:
        return [
            p
            for p in self.api.list(Pod).items
            if p.spec.node_name == node and p.status.phase not in ("Succeeded", "Failed")
        ]

    def _evict(self, pods: Sequence[Pod], *, graceful: bool) -> None:
        for pod in pods:
            with contextlib.suppress(NotFound):
                grace = None if graceful else 0
                self.api.delete(Pod, pod.name, pod.namespace, grace_period_seconds=grace)

    def _replace(self, pod: Pod) -> None:
        """The controller's new pod for one going: same template, a name of its own, unbound."""
        self.replacements += 1
        owner = str(pod.metadata.owner_references[0].get("name", pod.name))
        meta = ObjectMeta(
            name=f"{owner}-r{self.replacements}",
            namespace=pod.namespace,
            labels=dict(pod.metadata.labels),
            annotations=dict(pod.metadata.annotations),
            owner_references=pod.metadata.owner_references,
        )
        spec = dataclasses.replace(pod.spec, node_name="")
        replacement = Pod(metadata=meta, spec=spec, status=PodStatus())
        self._add(
            SourcedObject(replacement, f"<replacement of {pod.key}>"), self.run_for.get(pod.key)
        )

    def _sample(self, at: float) -> Sample:
        requested: dict[str, int] = {}
        allocatable: dict[str, int] = {}
        for node in self.api.list(Node).items:
            for name in node.status.allocatable:
                allocatable[name] = allocatable.get(name, 0) + resource_amount(
                    name, node.status.allocatable
                )
        pending = running = 0
        for pod in self.api.list(Pod).items:
            if pod.status.phase in ("Succeeded", "Failed"):
                continue
            if not pod.spec.node_name:
                pending += 1 if pod.metadata.deletion_timestamp is None else 0
                continue
            running += 1
            for name, amount in pod_requests(pod).items():
                requested[name] = requested.get(name, 0) + amount
            requested[PODS] = requested.get(PODS, 0) + 1
        reasons = [e.reason for e in self.recorder.events()]
        return Sample(
            at - self.start,
            pending,
            running,
            requested,
            allocatable,
            preemptions=reasons.count("Preempted"),
            failed=reasons.count("FailedScheduling"),
        )

    def run_scenario(self) -> ScenarioResult:
        simulation = self.run()
        self.inputs = dataclasses.replace(
            self.inputs, objects=self.inputs.objects + tuple(self.added)
        )
        simulation = self._result()
        self.pod_watch.stop()
        reasons: dict[str, int] = {}
        for attempt in simulation.attempts:
            if attempt.result == UNSCHEDULABLE:
                for reason in attempt.summary().reasons:
                    reasons[reason] = reasons.get(reason, 0) + 1
        latencies = sorted(self.bound_at[k] - self.created_at[k] for k in self.bound_at)
        names = sorted({n for s in self.samples for n in s.allocatable})
        resources = [r for r in ("cpu", "memory", "pods") if r in names] + [
            n for n in names if n not in ("cpu", "memory", "pods", "ephemeral-storage")
            and any(s.allocatable.get(n) for s in self.samples)
        ]  # fmt: skip
        return ScenarioResult(
            scenario=self.scenario,
            samples=tuple(self.samples),
            applied=tuple(self.applied),
            latencies=tuple(latencies),
            reasons=dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0]))),
            simulation=simulation,
            resources=tuple(resources),
        )


def run_scenario(
    scenario: Scenario | str | Path,
    seed: int | None = None,
    *,
    emulated_version: str | None = None,
    feature_gates: Mapping[str, bool] | str | FeatureGates | None = None,
) -> ScenarioResult:
    """Run ``scenario`` (loaded, or the path of its manifest); ``seed`` overrides ``spec.seed``.

    ``emulated_version`` and ``feature_gates`` as for :func:`load_scenario`; given with a
    loaded scenario, they replace the release it was loaded for.
    """
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(
            scenario, emulated_version=emulated_version, feature_gates=feature_gates
        )
    elif emulated_version is not None or feature_gates is not None:
        scenario = dataclasses.replace(
            scenario, feature_gates=gates_for(emulated_version, feature_gates)
        )
    return _ScenarioRun(scenario, scenario.seed if seed is None else seed).run_scenario()


# --- the reports --------------------------------------------------------------------------------


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    whole = round(seconds)
    return f"{whole // 3600:d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def _latency_line(result: ScenarioResult) -> str:
    percentiles = ", ".join(f"p{p} {_clock(result.percentile(p))}" for p in (50, 90, 99))
    return f"{percentiles}, max {_clock(result.latencies[-1] if result.latencies else None)}"


def _not_run(result: ScenarioResult) -> list[tuple[float, str]]:
    """The operations after the end of the run (a shorter ``duration``), which it did not apply."""
    return [(op.at, op.describe()) for op in result.scenario.operations[len(result.applied) :]]


def _run_of(result: ScenarioResult) -> str:
    """``seed 0, kube-scheduler v1.37``: what makes the run the one it is."""
    gates = result.simulation.feature_gates
    release = f", kube-scheduler v{gates.emulated_version}" if gates is not None else ""
    return f"seed {result.simulation.seed}{release}"


def render_scenario_table(result: ScenarioResult) -> str:
    """The scenario's report as text: operations, the samples, latencies and reasons."""
    from framework.simulator.report import table

    lines = [
        f"Scenario {result.scenario.name}: {_clock(result.scenario.duration)} simulated "
        f"({_run_of(result)})."
    ]
    lines += ["", "Operations:"]
    lines += table(
        [["AT", "OPERATION"], *([_clock(at), what] for at, what in result.applied)], "  "
    )
    if skipped := _not_run(result):
        lines += ["", f"Not run, after the end ({_clock(result.scenario.duration)}):"]
        lines += table([[_clock(at), what] for at, what in skipped], "  ")
    header = ["TIME", "PENDING", "RUNNING", *(r.upper() for r in result.resources), "PREEMPTIONS",
              "FAILED"]  # fmt: skip
    rows = [header]
    for s in result.samples:
        shares = [_percent(s.utilisation(r)) for r in result.resources]
        rows.append(
            [_clock(s.at), str(s.pending), str(s.running), *shares, str(s.preemptions),
             str(s.failed)]
        )  # fmt: skip
    lines += ["", "Over time (requested / allocatable of the nodes that exist):"]
    lines += table(rows, "  ")
    lines += ["", f"Scheduling latency (creation to binding) of {len(result.latencies)} pod(s):"]
    lines.append("  " + _latency_line(result))
    lines += ["", "Unschedulable reasons (in how many failed attempts):"]
    lines += [f"  {n:>6}  {reason}" for reason, n in result.reasons.items()] or ["  none"]
    return "\n".join(lines) + "\n"


_WIDTH, _HEIGHT, _LEFT, _TOP = 720, 220, 48, 16
_OPERATION_LINES = "grey dashed lines are the operations, numbered as in the table below."
_COLOURS = ("#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280")


def _plot(title: str, series: Mapping[str, Sequence[float]], result: ScenarioResult,
          top: float, unit: str, dashed: Sequence[str] = ()) -> str:  # fmt: skip
    """A line plot of ``series`` over the samples' times, operations marked, as inline SVG.

    The series named in ``dashed`` are drawn dashed, so that one lying on another shows.
    """
    times = [s.at for s in result.samples]
    span = max(result.scenario.duration, 1.0)
    inner_w, inner_h = _WIDTH - _LEFT - 40, _HEIGHT - _TOP - 32
    top = top or 1.0

    def x(t: float) -> float:
        return _LEFT + inner_w * t / span

    def y(v: float) -> float:
        return _TOP + inner_h * (1 - v / top)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'role="img" aria-label="{escape(title)}">',
        f'<rect x="{_LEFT}" y="{_TOP}" width="{inner_w}" height="{inner_h}" fill="#f7fafc" '
        'stroke="#cbd5e0"/>',
    ]
    for fraction in (0.0, 0.5, 1.0):
        value = top * fraction
        label = f"{value:.0f}{unit}" if unit != "%" else f"{100 * value:.0f}%"
        parts.append(
            f'<text x="{_LEFT - 4}" y="{y(value) + 4:.1f}" font-size="11" '
            f'text-anchor="end">{label}</text>'
        )
    ticks = sorted({0.0, span / 2, span})
    for t in ticks:
        parts.append(
            f'<text x="{x(t):.1f}" y="{_HEIGHT - 14}" font-size="11" '
            f'text-anchor="middle">{_clock(t)}</text>'
        )
    numbers: dict[float, list[str]] = {}  # the operations table's numbers, over each line
    for number, (at, what) in enumerate(result.applied, start=1):
        numbers.setdefault(at, []).append(str(number))
        parts.append(
            f'<line x1="{x(at):.1f}" y1="{_TOP}" x2="{x(at):.1f}" y2="{_TOP + inner_h}" '
            f'stroke="#a0aec0" stroke-dasharray="3,3"><title>{escape(what)}</title></line>'
        )
    for at, labels in numbers.items():
        parts.append(
            f'<text x="{x(at):.1f}" y="{_TOP - 4}" font-size="10" fill="#4a5568" '
            f'text-anchor="middle">{",".join(labels)}</text>'
        )
    for index, (name, values) in enumerate(series.items()):
        colour = _COLOURS[index % len(_COLOURS)]
        points = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in zip(times, values, strict=True))
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"'
            + (' stroke-dasharray="7,4"/>' if name in dashed else "/>")
        )
        parts.append(
            f'<text x="{_LEFT + 8 + 110 * index}" y="{_HEIGHT - 2}" font-size="11" '
            f'fill="{colour}">■ {escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def write_operations(result: ScenarioResult, out: TextIO) -> None:
    """The operations as applied, numbered as over the plots' dashed lines, as an HTML table."""
    out.write("<table><tr><th>#</th><th>at</th><th>operation</th></tr>")
    for number, (at, what) in enumerate(result.applied, start=1):
        out.write(f'<tr><td>{number}</td><td>{_clock(at)}</td><td style="text-align:left">'
                  f"{escape(what)}</td></tr>")  # fmt: skip
    out.write("</table>\n")
    if skipped := _not_run(result):
        listed = "; ".join(f"{_clock(at)} {what}" for at, what in skipped)
        end = _clock(result.scenario.duration)
        out.write(f"<p>Not run, after the end ({end}): {escape(listed)}</p>\n")


def write_scenario_html(result: ScenarioResult, out: TextIO) -> None:
    """The scenario's report as one self-contained HTML page: curves, operations, tables."""
    name = escape(result.scenario.name)
    samples = result.samples
    pending = [float(s.pending) for s in samples]
    utilisation = {r: [s.utilisation(r) for s in samples] for r in result.resources}
    most = max([*pending, *(s.running for s in samples), 1.0])
    out.write(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Scenario {name}</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em;color:#1a202c}"
        "table{border-collapse:collapse;font-size:13px}td,th{padding:2px 10px;text-align:right}"
        "th{border-bottom:1px solid #cbd5e0}td:first-child,th:first-child{text-align:left}"
        "td:last-child{text-align:left}"
        "</style></head><body>\n"
    )
    out.write(f"<h1>Scenario {name}</h1>\n<p>{_clock(result.scenario.duration)} simulated "
              f"({escape(_run_of(result))}); {_OPERATION_LINES}</p>\n")  # fmt: skip
    out.write("<h2>Pods pending and running</h2>\n")
    running = [float(s.running) for s in samples]
    out.write(_plot("pods over time", {"pending": pending, "running": running}, result, most, ""))
    out.write("\n<h2>Requested / allocatable</h2>\n")
    top = max([1.0, *(v for values in utilisation.values() for v in values)])
    out.write(_plot("utilisation over time", utilisation, result, top, "%"))
    out.write("\n<h2>Operations</h2>\n")
    write_operations(result, out)
    out.write("<h2>Scheduling latency</h2>\n<p>")
    out.write(escape(_latency_line(result)))
    out.write(f" ({len(result.latencies)} pods, creation to binding)</p>\n")
    out.write("<h2>Unschedulable reasons</h2>\n<table><tr><th>attempts</th><th>reason</th></tr>")
    for reason, count in result.reasons.items():
        out.write(f'<tr><td>{count}</td><td style="text-align:left">{escape(reason)}</td></tr>')
    out.write("</table>\n<h2>Samples</h2>\n<table><tr><th>time</th><th>pending</th>"
              "<th>running</th>" + "".join(f"<th>{escape(r)}</th>" for r in result.resources)
              + "<th>preemptions</th><th>failed</th></tr>")  # fmt: skip
    for s in samples:
        cells = "".join(f"<td>{_percent(s.utilisation(r))}</td>" for r in result.resources)
        out.write(f"<tr><td>{_clock(s.at)}</td><td>{s.pending}</td><td>{s.running}</td>{cells}"
                  f"<td>{s.preemptions}</td><td>{s.failed}</td></tr>")  # fmt: skip
    out.write("</table>\n</body></html>\n")
