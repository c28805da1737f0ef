"""Two scheduler configurations, one workload: where the pods go under each, side by side.

"Does MostAllocated pack tighter than LeastAllocated?" is a question about a
whole workload, not one pod, and kube-scheduler can only answer it on a
cluster, one configuration at a time. :func:`compare` answers it offline: it
runs :func:`~framework.simulator.run.simulate` twice on the same manifests
and seed, once per configuration, and puts the outcomes side by side:

* per configuration, how many of the pending pods were **placed** and how
  many stayed **pending** (and how many running pods were preempted);
* the **differences**, pod by pod: its node under A and under B, and, where
  it stayed pending (or was preempted) under one of them, kube-scheduler's
  message for it there;
* the **utilisation spread** across the nodes at the end of each run: for
  cpu, memory and pods (and every extended resource a node offers), each
  node's requested / allocatable, and over the nodes the mean, the minimum,
  the maximum and the standard deviation. Packing shows as a wider spread
  and more empty nodes; spreading as a narrow one.

"Requested" is what NodeResourcesFit's Filter counts: the effective requests
of the pods bound to the node when the run ends, and ``pods`` counts them
against the node's pod slots — the "after" of
:mod:`~framework.simulator.utilisation`, which also picks the resources. A
node that does not offer a resource (allocatable 0) takes no part in that
resource's figures. The standard deviation is the population one: the nodes
of the cluster are all the nodes there are.

The same seed is used for both runs, so a difference is the configurations'
doing, not the tie-breaker's.

No Kubernetes counterpart: kube-scheduler-simulator runs one configuration at
a time; scheduler-plugins' and kube-scheduler's own integration tests compare
placements by hand.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from framework.objects.resources import PODS
from framework.runtime.registry import PluginFactory
from framework.simulator import utilisation
from framework.simulator.inputs import ConfigSource, SimulationInputError, Source
from framework.simulator.report import table
from framework.simulator.result import SCHEDULED, SimulationResult
from framework.simulator.run import simulate

__all__ = [
    "LABELS",
    "Comparison",
    "ConfigOutcome",
    "PodDifference",
    "ResourceSpread",
    "compare",
    "render_comparison",
]

LABELS = ("A", "B")
"""How the two configurations are named in the output, in the order given."""


@dataclass(frozen=True, slots=True)
class ResourceSpread:
    """One resource's requested / allocatable over the nodes: exact mean, min, max and variance."""

    resource: str
    nodes: int
    mean: Fraction
    min: Fraction
    max: Fraction
    variance: Fraction

    @property
    def stddev(self) -> float:
        """The population standard deviation (the square root of :attr:`variance`)."""
        return math.sqrt(self.variance)

    @classmethod
    def of(cls, resource: str, fractions: Sequence[Fraction]) -> ResourceSpread:
        """The spread of ``fractions`` (one per node); all zero when there are none."""
        if not fractions:
            zero = Fraction(0)
            return cls(resource, 0, zero, zero, zero, zero)
        mean = sum(fractions, Fraction(0)) / len(fractions)
        variance = sum(((f - mean) ** 2 for f in fractions), Fraction(0)) / len(fractions)
        return cls(resource, len(fractions), mean, min(fractions), max(fractions), variance)

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "mean": _rounded(self.mean),
            "min": _rounded(self.min),
            "max": _rounded(self.max),
            "stddev": round(self.stddev, 6),
        }


@dataclass(frozen=True, slots=True)
class ConfigOutcome:
    """One configuration's run: its result, its counts and its utilisation at the end."""

    label: str
    source: str
    result: SimulationResult
    placed: int
    pending: int
    preempted: int
    empty_nodes: int
    utilisation: tuple[ResourceSpread, ...]
    per_node: Mapping[str, Mapping[str, Fraction]]

    def spread(self, resource: str) -> ResourceSpread:
        """The spread of one resource (``cpu``, ``memory``, ``pods``, an extended resource)."""
        for spread in self.utilisation:
            if spread.resource == resource:
                return spread
        raise KeyError(f"no node offers resource {resource!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "config": self.source,
            **(
                {"featureGates": self.result.feature_gates.to_dict()}
                if self.result.feature_gates is not None
                else {}
            ),
            "placed": self.placed,
            "pending": self.pending,
            "preempted": self.preempted,
            "emptyNodes": self.empty_nodes,
            "placements": dict(self.result.placements),
            "utilisation": {s.resource: s.to_dict() for s in self.utilisation},
        }


@dataclass(frozen=True, slots=True)
class PodDifference:
    """A pod that ended on different nodes (or on none) under the two configurations."""

    pod: str
    nodes: tuple[str | None, ...]
    messages: tuple[str, ...]
    """Per configuration, why the pod has no node there ("" where it has one)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "nodes": dict(zip(LABELS, self.nodes, strict=True)),
            "messages": {
                label: message
                for label, message in zip(LABELS, self.messages, strict=True)
                if message
            },
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """The two outcomes and the pods on which they differ."""

    outcomes: tuple[ConfigOutcome, ConfigOutcome]
    differences: tuple[PodDifference, ...]
    nodes: int
    pending_pods: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """The comparison as JSON-ready data (``compare --output json``)."""
        return {
            "seed": self.seed,
            "nodes": self.nodes,
            "pendingPods": self.pending_pods,
            "configs": [outcome.to_dict() for outcome in self.outcomes],
            "differences": [difference.to_dict() for difference in self.differences],
        }


def compare(
    *sources: Source,
    configs: Sequence[ConfigSource],
    seed: int = 0,
    plugins: Mapping[str, PluginFactory | str] | Sequence[str] = (),
    engine: str | None = None,
    emulated_versions: Sequence[str] = (),
    feature_gates: Mapping[str, bool] | str | Sequence[str] | None = None,
) -> Comparison:
    """Simulate ``sources`` under each of two configurations (same seed) and compare the outcomes.

    ``sources``, ``seed`` and ``plugins`` are those of
    :func:`~framework.simulator.run.simulate`; ``configs`` holds exactly two
    configurations (paths, text, dicts or loaded ones), A then B; the
    manifests must not carry a ``KubeSchedulerConfiguration`` of their own.
    ``emulated_versions`` holds none, one (both sides) or two releases (A then
    B): comparing two releases shows what an upgrade changes for a cluster;
    with two releases, one configuration (or none: the default profile of
    each release) serves both sides. ``feature_gates`` (a mapping or kube's
    flag text) applies to both; a list of two flag texts sets A's and B's,
    which shows what one gate changes, and then, as with two releases, one
    configuration or none serves both sides.
    Raises :class:`~framework.simulator.inputs.SimulationInputError` for
    inputs that cannot be simulated.
    """
    gates = _side_gates(feature_gates)
    sides = _sides(configs, emulated_versions, per_side_gates=gates[0] != gates[1])
    outcomes = tuple(
        _outcome(
            label,
            _side_name(config, version, len(set(emulated_versions)) == 2, side_gates, gates),
            simulate(
                *sources,
                config=config,
                seed=seed,
                plugins=plugins,
                engine=engine,
                emulated_version=version,
                feature_gates=side_gates,
            ),
        )
        for label, (config, version), side_gates in zip(LABELS, sides, gates, strict=True)
    )
    first, second = outcomes
    return Comparison(
        outcomes=(first, second),
        differences=_differences(first.result, second.result),
        nodes=len(first.result.nodes),
        pending_pods=sum(1 for pod in first.result.pods if not pod.running_at_start),
        seed=seed,
    )


_Gates = Mapping[str, bool] | str | None


def _side_gates(feature_gates: Mapping[str, bool] | str | Sequence[str] | None) -> list[_Gates]:
    """A's and B's ``--feature-gates``: the same for both, or a list of one or two."""
    if feature_gates is None or isinstance(feature_gates, str | Mapping):
        return [feature_gates, feature_gates]
    texts = list(feature_gates)
    if len(texts) > len(LABELS):
        raise SimulationInputError(
            [f"compare takes at most two --feature-gates (A then B), got {len(texts)}"]
        )
    return [texts[0], texts[0]] if len(texts) == 1 else [texts[0], texts[1]]


def _sides(
    configs: Sequence[ConfigSource], versions: Sequence[str], *, per_side_gates: bool = False
) -> list[tuple[ConfigSource | None, str | None]]:
    """A's and B's (configuration, emulated version); a clear error for any other count."""
    if len(versions) > len(LABELS):
        raise SimulationInputError(
            [f"compare takes at most two --emulated-version, got {len(versions)}"]
        )
    if len(versions) == len(LABELS) or per_side_gates:
        if len(configs) > len(LABELS):
            raise SimulationInputError(
                [f"compare takes at most two configurations, got {len(configs)}"]
            )
        both: list[ConfigSource | None] = list(configs) if len(configs) == 2 else [None, None]
        if len(configs) == 1:
            both = [configs[0], configs[0]]
        pair = list(versions) if len(versions) == 2 else [versions[0] if versions else None] * 2
        return [(both[0], pair[0]), (both[1], pair[1])]
    if len(configs) != len(LABELS):
        raise SimulationInputError(
            [
                "compare needs exactly two configurations (--config A --config B), two "
                "releases (--emulated-version 1.33 --emulated-version 1.37) or two sets of "
                f"feature gates (--feature-gates A --feature-gates B), got {len(configs)} "
                "configuration(s)"
            ]
        )
    version = versions[0] if versions else None
    return [(configs[0], version), (configs[1], version)]


def _side_name(
    config: ConfigSource | None,
    version: str | None,
    by_version: bool,
    side_gates: _Gates = None,
    gates: Sequence[_Gates] = (),
) -> str:
    name = "<default configuration>" if config is None else _config_name(config)
    if by_version and version:
        name = f"{name}, kube-scheduler v{version.lstrip('v')}"
    if len(gates) == 2 and gates[0] != gates[1] and side_gates:
        name = f"{name}, --feature-gates {side_gates}"
    return name


def _config_name(config: ConfigSource) -> str:
    if isinstance(config, str | os.PathLike) and not _is_text(os.fspath(config)):
        return os.fspath(config)
    return "<configuration>"


def _is_text(source: str) -> bool:
    return "\n" in source or source.lstrip().startswith(("{", "["))


def _outcome(label: str, source: str, result: SimulationResult) -> ConfigOutcome:
    per_node: dict[str, dict[str, Fraction]] = {node.name: {} for node in result.nodes}
    spreads = []
    for resource in utilisation.resources(result):
        loads = utilisation.loads(result, resource)  # the nodes that offer the resource
        for load in loads:
            per_node[load.node][resource] = Fraction(load.after, load.allocatable)
        spreads.append(ResourceSpread.of(resource, [per_node[n.node][resource] for n in loads]))
    started = {p.key for p in result.pods if p.running_at_start}
    # Gone because its grace period ended, not preempted: neither placed nor pending either.
    terminating = {p.key for p in result.pods if p.terminating_at_start}
    placements = result.placements.items()
    return ConfigOutcome(
        label=label,
        source=source,
        result=result,
        placed=sum(1 for key, node in placements if node and key not in started),
        pending=sum(1 for key, node in placements if not node and key not in started),
        preempted=sum(1 for key, node in placements if not node and key in started - terminating),
        empty_nodes=sum(1 for node in result.nodes if not node.requested_after.get(PODS, 0)),
        utilisation=tuple(spreads),
        per_node=per_node,
    )


def _why_not_placed(result: SimulationResult, pod: str, preempted: Mapping[str, str]) -> str:
    last = result.last_attempt(pod)
    if last is not None and last.result != SCHEDULED:
        return last.message
    # Bound once (before the run, or by an attempt) and then evicted for a preemptor.
    if pod in preempted:
        return preempted[pod]
    return "never attempted" if last is None else last.message


def _preempted_messages(result: SimulationResult) -> dict[str, str]:
    """Each preempted pod's last ``Preempted`` message: one pass, not one per pod."""
    return {e.object: e.message for e in result.events if e.reason == "Preempted"}


def _differences(a: SimulationResult, b: SimulationResult) -> tuple[PodDifference, ...]:
    differences = []
    preempted = {id(a): _preempted_messages(a), id(b): _preempted_messages(b)}
    for pod, node_a in a.placements.items():
        node_b = b.placements.get(pod)
        if node_a == node_b:
            continue
        differences.append(
            PodDifference(
                pod=pod,
                nodes=(node_a, node_b),
                messages=tuple(
                    "" if node else _why_not_placed(result, pod, preempted[id(result)])
                    for node, result in ((node_a, a), (node_b, b))
                ),
            )
        )
    return tuple(differences)


def _rounded(value: Fraction) -> float:
    return round(float(value), 6)


def _percent(value: float | Fraction) -> str:
    return f"{float(value) * 100:.1f}"


def _what_differs(a: SimulationResult, b: SimulationResult) -> str:
    gates_a, gates_b = a.feature_gates, b.feature_gates
    if gates_a and gates_b and gates_a.emulated_version != gates_b.emulated_version:
        return "Kubernetes releases"
    if gates_a and gates_b and gates_a.values != gates_b.values:
        return "sets of feature gates"
    return "scheduler configurations"


def _gate_differences(a: SimulationResult, b: SimulationResult) -> list[str]:
    """The feature gates whose value differs between the two runs, one line each."""
    if a.feature_gates is None or b.feature_gates is None:
        return []
    gates_a, gates_b = dict(a.feature_gates.values), dict(b.feature_gates.values)
    differ = sorted(n for n in gates_a.keys() | gates_b.keys() if gates_a.get(n) != gates_b.get(n))
    if not differ:
        return []
    lines = ["  feature gates that differ:"]
    for name in differ:
        values = (str(g.get(name, False)).lower() for g in (gates_a, gates_b))
        lines.append(f"    {name}: A={next(values)} B={next(values)}")
    return lines


def render_comparison(comparison: Comparison) -> str:
    """The comparison as text: counts, the pods placed differently, the utilisation spread."""
    a, b = comparison.outcomes
    if a.result.notes == b.result.notes:
        notes = list(a.result.notes)
    else:
        notes = [f"{o.label}: {note}" for o in (a, b) for note in o.result.notes]
    lines = [
        *notes,
        f"The same {comparison.pending_pods} pending pod(s) on {comparison.nodes} node(s), "
        f"under two {_what_differs(a.result, b.result)} (seed {comparison.seed}):",
        f"  A: {a.source}",
        f"  B: {b.source}",
        *_gate_differences(a.result, b.result),
        "",
    ]
    rows = [["", "A", "B"]]
    rows.append(["placed", *(f"{o.placed} of {comparison.pending_pods}" for o in (a, b))])
    rows.append(["pending", *(str(o.pending) for o in (a, b))])
    if a.preempted or b.preempted:
        rows.append(["preempted (running before)", *(str(o.preempted) for o in (a, b))])
    rows.append(["empty nodes", *(f"{o.empty_nodes} of {comparison.nodes}" for o in (a, b))])
    lines += table(rows, indent="  ")
    lines.append("")
    if comparison.differences:
        lines.append(f"Pods placed differently ({len(comparison.differences)}):")
        diff_rows = [["POD", "A", "B"]]
        for difference in comparison.differences:
            diff_rows.append([difference.pod, *(node or "<none>" for node in difference.nodes)])
        lines += table(diff_rows, indent="  ")
        for difference in comparison.differences:
            for label, message in zip(LABELS, difference.messages, strict=True):
                if message:
                    lines.append(f"  {difference.pod} under {label}: {message}")
    else:
        lines.append("Every pod ended on the same node under both configurations.")
    lines.append("")
    lines.append("Utilisation at the end, requested / allocatable across the nodes (percent):")
    spread_rows = [["RESOURCE", "CONFIG", "MEAN", "MIN", "MAX", "STDDEV"]]
    for spread_a, spread_b in zip(a.utilisation, b.utilisation, strict=True):
        for label, spread in (("A", spread_a), ("B", spread_b)):
            spread_rows.append(
                [
                    spread.resource,
                    label,
                    _percent(spread.mean),
                    _percent(spread.min),
                    _percent(spread.max),
                    _percent(spread.stddev),
                ]
            )
    lines += table(spread_rows, indent="  ")
    return "\n".join(lines) + "\n"
