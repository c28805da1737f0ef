"""A benchmark workload: ops that create nodes and pods from templates, sized by params.

The file format is scheduler_perf's: a list of test cases, each with
``ops`` (``createAny``, ``createNodes``, ``createPods``, and
``createResourceDriver``: a ResourceSlice of ``maxClaimsPerNode`` devices
for each node whose name matches ``nodes``) whose counts are
``$param`` references (a createPods count times its
``countMultiplierParam``; a createAny makes ``countParam`` objects, or
one), and ``workloads`` naming the param sets (here ``small`` and
``performance``; a workload may carry its own ``threshold`` and
``thresholdMetricSelector``). Templates are manifests read once; the
strings ``${name}`` (a node's name), ``${node}`` (for a pod, the name of
the node its index maps to, modulo the node count), ``${index}`` (the
object's index in its op), an op's ``templateParams`` and ``${a/b}`` (the
integer quotient, Go's ``DivideInt``) are filled in per object.

Mirrors ``testCase``, ``workload`` and the ``createNodesOp`` /
``createPodsOp`` / ``createAny`` ops of
``kubernetes/kubernetes:test/integration/scheduler_perf/scheduler_perf.go``
(v1.33). Simplified: Go templates become ``${...}`` substitution; the label
strategy gives values round-robin (kube's ``LabelNodePrepareStrategy``
gives each node one of the values), so a run is repeatable; a test case's
``featureGates`` apply, a workload's do not; ops for barriers, churn and
deletions are left out.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "DEFAULT_CONFIG",
    "BenchConfigError",
    "Op",
    "Workload",
    "fill_template",
    "load_workloads",
]

#: ``benchmarks/performance-config.yaml`` at the repository's root.
DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "benchmarks" / "performance-config.yaml"

_OPCODES = ("createAny", "createNodes", "createPods", "createResourceDriver")


class BenchConfigError(ValueError):
    """The benchmark configuration is wrong; the message names the file and the field."""


@dataclass(frozen=True, slots=True)
class Op:
    """One step of a workload: create objects from a template.

    ``count`` is already resolved from the size's params (1 for createAny).
    For createPods, ``collect_metrics`` marks the measured pods and
    ``skip_wait`` lets the run go on without waiting for them to be bound
    (scheduler_perf's ``skipWaitToCompletion``).
    """

    opcode: str
    template: Mapping[str, Any]
    count: int = 1
    namespace: str = "default"
    collect_metrics: bool = False
    skip_wait: bool = False
    label_key: str | None = None
    label_values: tuple[str, ...] = ()
    #: For createPods, each pod gets a volume and a claim bound to it, from these templates.
    pv_template: Mapping[str, Any] | None = None
    pvc_template: Mapping[str, Any] | None = None
    #: For createNodes, a CSINode per node with these drivers' attach limits (driver to count).
    csi_node_allocatable: Mapping[str, int] = field(default_factory=dict)
    #: For createResourceDriver, the driver, and the pattern of the nodes given its devices
    #: (``count`` of them each, as ResourceSlices).
    driver_name: str = ""
    node_pattern: str = ""
    #: An op's ``templateParams``, resolved: more ``${...}`` values for its objects.
    template_params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Workload:
    """A test case at one size: its ops, and scheduler_perf's throughput floor (pods/s)."""

    name: str
    size: str
    ops: tuple[Op, ...]
    threshold: float | None = None
    target: float | None = None
    params: Mapping[str, int] = field(default_factory=dict)
    #: The KubeSchedulerConfiguration text to run with (scheduler_perf's ``schedulerConfigPath``);
    #: None runs the default profile.
    scheduler_config: str | None = None
    scheduler_config_path: str | None = None
    #: The test case's ``featureGates``, set on top of the run's.
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    #: The metric ``threshold`` bounds when it is not SchedulingThroughput (scheduler_perf's
    #: ``thresholdMetricSelector.name``; its ``expectLower`` is taken as given for durations).
    threshold_metric: str | None = None

    @property
    def nodes(self) -> int:
        return sum(op.count for op in self.ops if op.opcode == "createNodes")

    @property
    def init_pods(self) -> int:
        return sum(
            op.count for op in self.ops if op.opcode == "createPods" and not op.collect_metrics
        )

    @property
    def measured_pods(self) -> int:
        return sum(op.count for op in self.ops if op.opcode == "createPods" and op.collect_metrics)


_QUOTIENT = re.compile(r"\$\{(\w+)/(\w+)\}")


def fill_template(template: Any, values: Mapping[str, str]) -> Any:
    """A copy of ``template`` with ``${key}`` and ``${a/b}`` replaced in every string.

    ``${a/b}`` is the integer quotient of two known values (Go's
    ``DivideInt``); unknown keys stay as they are.
    """
    if isinstance(template, str):
        if "$" not in template:
            return template

        def quotient(match: re.Match[str]) -> str:
            a, b = values.get(match[1]), values.get(match[2])
            return match[0] if a is None or b is None else str(int(a) // int(b))

        return string.Template(_QUOTIENT.sub(quotient, template)).safe_substitute(values)
    if isinstance(template, dict):
        return {k: fill_template(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [fill_template(v, values) for v in template]
    return template


def load_workloads(
    size: str, path: Path = DEFAULT_CONFIG, overrides: Mapping[str, int] | None = None
) -> dict[str, Workload]:
    """Every test case of the file at ``size``, by name, in file order.

    ``overrides`` replaces params of that size where a test case has them
    (``{"initNodes": 1000}`` runs every workload on 1,000 nodes); a param
    the test case does not use is ignored for it, as scheduler_perf ignores
    unused ones.
    """
    where = str(path)
    try:
        cases = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise BenchConfigError(f"{where}: cannot read the benchmark configuration: {exc}") from exc
    if not isinstance(cases, list):
        raise BenchConfigError(f"{where}: expected a list of test cases")
    workloads: dict[str, Workload] = {}
    for i, case in enumerate(cases):
        at = f"{where}: [{i}]"
        if not isinstance(case, dict) or not isinstance(case.get("name"), str):
            raise BenchConfigError(f"{at}.name: every test case needs a name")
        entries = {w.get("name"): w for w in case.get("workloads", [])}
        sizes = {name: w.get("params", {}) for name, w in entries.items()}
        if size not in sizes:
            known = ", ".join(str(s) for s in sizes)
            raise BenchConfigError(
                f"{at}.workloads: {case['name']} has no size {size!r} ({known})"
            )
        params = dict(sizes[size])
        for key, value in (overrides or {}).items():
            if key in params:
                params[key] = value
        ops = tuple(
            _op(op, params, path.parent, f"{at}.ops[{j}]")
            for j, op in enumerate(case.get("ops", []))
        )
        config_text, config_path = None, None
        if case.get("schedulerConfigPath") is not None:
            config_path = str(path.parent / str(case["schedulerConfigPath"]))
            try:
                config_text = Path(config_path).read_text()
            except OSError as exc:
                raise BenchConfigError(
                    f"{at}.schedulerConfigPath: cannot read {config_path}: {exc}"
                ) from exc
        entry = entries[size]
        selector = entry.get("thresholdMetricSelector") or case.get("thresholdMetricSelector")
        workloads[case["name"]] = Workload(
            name=case["name"],
            size=size,
            ops=ops,
            threshold=entry.get("threshold", case.get("threshold")),
            threshold_metric=(selector or {}).get("name"),
            target=case.get("target"),
            params=dict(params),
            scheduler_config=config_text,
            scheduler_config_path=config_path,
            feature_gates={str(k): bool(v) for k, v in (case.get("featureGates") or {}).items()},
        )
    return workloads


def _param(raw: Mapping[str, Any], key: str, params: Mapping[str, int], at: str) -> int:
    ref = raw.get(key)
    if not isinstance(ref, str) or not ref.startswith("$") or ref[1:] not in params:
        raise BenchConfigError(f"{at}.{key}: {ref!r} names no param of this size")
    return int(params[ref[1:]])


def _op(raw: Mapping[str, Any], params: Mapping[str, int], base: Path, at: str) -> Op:
    opcode = raw.get("opcode")
    if opcode not in _OPCODES:
        raise BenchConfigError(f"{at}.opcode: {opcode!r} is not one of {', '.join(_OPCODES)}")
    if opcode == "createResourceDriver":
        for key in ("driverName", "nodes"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise BenchConfigError(f"{at}.{key}: createResourceDriver needs it")
        return Op(
            opcode=opcode,
            template={},
            count=_param(raw, "maxClaimsPerNodeParam", params, at),
            driver_name=raw["driverName"],
            node_pattern=raw["nodes"],
        )
    key = {"createNodes": "nodeTemplatePath", "createPods": "podTemplatePath"}.get(
        opcode, "templatePath"
    )
    if key not in raw:
        raise BenchConfigError(f"{at}.{key}: {opcode} needs a template")
    template_path = base / raw[key]
    try:
        template = yaml.safe_load(template_path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise BenchConfigError(f"{at}.{key}: cannot read {template_path}: {exc}") from exc
    count = 1
    if opcode != "createAny" or "countParam" in raw:
        count = _param(raw, "countParam", params, at)
    if "countMultiplierParam" in raw:
        count *= _param(raw, "countMultiplierParam", params, at)
    template_params = {
        str(key): str(
            _param({"p": value}, "p", params, f"{at}.templateParams.{key}")
            if isinstance(value, str) and value.startswith("$")
            else value
        )
        for key, value in (raw.get("templateParams") or {}).items()
    }
    strategy = raw.get("labelNodePrepareStrategy") or {}
    volumes = {
        key: _template(base, raw[key], at, key)
        for key in ("persistentVolumeTemplatePath", "persistentVolumeClaimTemplatePath")
        if key in raw
    }
    allocatable = (raw.get("nodeAllocatableStrategy") or {}).get("csiNodeAllocatable") or {}
    return Op(
        opcode=opcode,
        template=template,
        count=count,
        namespace=raw.get("namespace", "default"),
        collect_metrics=bool(raw.get("collectMetrics", False)),
        skip_wait=bool(raw.get("skipWaitToCompletion", False)),
        label_key=strategy.get("labelKey"),
        label_values=tuple(strategy.get("labelValues", ())),
        pv_template=volumes.get("persistentVolumeTemplatePath"),
        pvc_template=volumes.get("persistentVolumeClaimTemplatePath"),
        csi_node_allocatable={
            str(driver): int((limit or {}).get("count", 0))
            for driver, limit in allocatable.items()
        },
        template_params=template_params,
    )


def _template(base: Path, relative: str, at: str, key: str) -> Mapping[str, Any]:
    path = base / relative
    try:
        loaded = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise BenchConfigError(f"{at}.{key}: cannot read {path}: {exc}") from exc
    if not isinstance(loaded, dict):
        raise BenchConfigError(f"{at}.{key}: {path} is not one object")
    return loaded
