"""Two scheduler configurations over one scenario: the curves overlaid, the figures side by side.

:func:`~framework.simulator.compare.compare` asks "where do these pods go
under A, and under B?" once. Over a day the question is "what does B do
to the pending pods, the latency and the packing *over time*?".
:func:`compare_scenario` runs one Scenario twice with the same seed, once
with each configuration as its starting configuration (in place of
``spec.config``; a ``changeConfig`` operation still changes it at its
time, in both runs), or at two releases (``emulated_versions``, as
``compare --emulated-version 1.33 --emulated-version 1.37``: the same day
before and after an upgrade), and puts the two runs side by side:

* :func:`render_scenario_comparison`: a table of the summary figures of
  each run — pods bound, pending at the end and at the peak, preemptions,
  failed attempts, the scheduling latency percentiles, and each resource's
  requested / allocatable, its mean over the samples and its peak;
* :func:`write_scenario_comparison_html`: one self-contained page whose
  plots overlay A's curve and B's, B's dashed (pods pending; requested /
  allocatable of each resource), the operations marked, then the same table.

The same scenario, configurations and seed give the same output. No
Kubernetes counterpart (see :mod:`framework.simulator.scenario`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TextIO

from framework.simulator.compare import LABELS, _config_name, _sides
from framework.simulator.inputs import (
    ConfigSource,
    load_inputs,
    plugin_registry,
)
from framework.simulator.report import table
from framework.simulator.result import UNSCHEDULABLE
from framework.simulator.run import gates_for
from framework.simulator.scenario import (
    _OPERATION_LINES,
    Scenario,
    ScenarioResult,
    _clock,
    _percent,
    _plot,
    load_scenario,
    run_scenario,
    write_operations,
)

__all__ = [
    "ScenarioComparison",
    "compare_scenario",
    "render_scenario_comparison",
    "summary_figures",
    "write_scenario_comparison_html",
]


@dataclass(frozen=True, slots=True)
class ScenarioComparison:
    """One scenario run under configuration A and under B: where each came from, and the runs."""

    scenario: Scenario
    configs: tuple[str, str]
    results: tuple[ScenarioResult, ScenarioResult]
    seed: int


def compare_scenario(
    scenario: Scenario | str | Path,
    configs: Sequence[ConfigSource],
    seed: int | None = None,
    *,
    emulated_versions: Sequence[str] = (),
    feature_gates: Mapping[str, bool] | str | None = None,
) -> ScenarioComparison:
    """Run ``scenario`` from each of two configurations (A then B) with the same seed.

    ``seed`` overrides the scenario's ``spec.seed``. As for
    :func:`~framework.simulator.compare.compare`, ``emulated_versions`` holds
    none, one (both runs) or two releases (A then B: the day before and after
    an upgrade; then the configurations may be left out, for the scenario's
    own, or given once, for both). Raises
    :class:`~framework.simulator.inputs.SimulationInputError` for a bad
    scenario, configuration or release.
    """
    sides = _sides(configs, emulated_versions)
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    seed = scenario.seed if seed is None else seed
    runs, names = [], []
    for config, version in sides:
        inputs = scenario.inputs
        if config is not None:
            loaded = load_inputs([], config, plugin_registry())
            inputs = dataclasses.replace(
                inputs, config=loaded.config, config_source=loaded.config_source
            )
        gates = gates_for(version, feature_gates)
        side = dataclasses.replace(scenario, inputs=inputs, feature_gates=gates)
        runs.append(run_scenario(side, seed=seed))
        name = _config_name(config) if config is not None else "<the scenario's configuration>"
        names.append(f"{name}, kube-scheduler v{gates.emulated_version}" if emulated_versions
                     else name)  # fmt: skip
    first, second = runs
    return ScenarioComparison(
        scenario=scenario,
        configs=(names[0], names[1]),
        results=(first, second),
        seed=seed,
    )


def _resources(comparison: ScenarioComparison) -> list[str]:
    a, b = comparison.results
    return [*a.resources, *(r for r in b.resources if r not in a.resources)]


def summary_figures(result: ScenarioResult, resources: Sequence[str]) -> list[tuple[str, str]]:
    """One run's figures, as (name, value) rows in the order of the table."""
    samples = result.samples
    peak = max(samples, key=lambda s: s.pending)  # the first sample at the peak
    failed = sum(1 for a in result.simulation.attempts if a.result == UNSCHEDULABLE)
    rows = [
        ("pods bound", str(len(result.latencies))),
        ("pending at the end", str(samples[-1].pending)),
        ("peak pending", f"{peak.pending} at {_clock(peak.at)}"),
        ("preemptions", str(samples[-1].preemptions)),
        ("failed attempts", str(failed)),
    ]
    for p in (50, 90, 99):
        rows.append((f"latency p{p}", _clock(result.percentile(p))))
    rows.append(("latency max", _clock(result.latencies[-1] if result.latencies else None)))
    for resource in resources:
        shares = [s.utilisation(resource) for s in samples]
        rows.append((f"mean {resource}", _percent(sum(shares) / len(shares))))
        rows.append((f"peak {resource}", _percent(max(shares))))
    return rows


def _rows(comparison: ScenarioComparison) -> list[list[str]]:
    resources = _resources(comparison)
    a, b = (summary_figures(r, resources) for r in comparison.results)
    return [["", *LABELS]] + [[name, x, y] for (name, x), (_, y) in zip(a, b, strict=True)]


def render_scenario_comparison(comparison: ScenarioComparison) -> str:
    """The comparison as text: which configuration is A and B, then the figures side by side."""
    scenario = comparison.scenario
    lines = [
        f"Scenario {scenario.name}: {_clock(scenario.duration)} simulated under two scheduler "
        f"configurations (seed {comparison.seed}):",
        *(
            f"  {label}: {source}"
            for label, source in zip(LABELS, comparison.configs, strict=True)
        ),
        "",
    ]
    lines += table(_rows(comparison), "  ")
    lines += ["", "(mean: requested / allocatable averaged over the samples; latency: creation "
              "to binding, simulated time)"]  # fmt: skip
    return "\n".join(lines) + "\n"


def write_scenario_comparison_html(comparison: ScenarioComparison, out: TextIO) -> None:
    """The comparison as one self-contained HTML page: A's and B's curves overlaid, the table."""
    a, b = comparison.results
    name = escape(comparison.scenario.name)
    out.write(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Scenario {name}: A and B</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em;color:#1a202c}"
        "table{border-collapse:collapse;font-size:13px}td,th{padding:2px 10px;text-align:right}"
        "th{border-bottom:1px solid #cbd5e0}td:first-child,th:first-child{text-align:left}"
        "</style></head><body>\n"
    )
    out.write(f"<h1>Scenario {name}: two configurations</h1>\n<p>")
    for label, source in zip(LABELS, comparison.configs, strict=True):
        out.write(f"<b>{label}</b>: {escape(source)}<br>")
    duration = _clock(comparison.scenario.duration)
    out.write(f"{duration} simulated, seed {comparison.seed}; {_OPERATION_LINES}</p>\n")
    pending = {
        label: [float(s.pending) for s in r.samples]
        for label, r in zip(LABELS, (a, b), strict=True)
    }
    most = max([1.0, *(v for values in pending.values() for v in values)])
    out.write("<h2>Pods pending</h2>\n")
    out.write(_plot("pods pending, A and B", pending, a, most, "", dashed=LABELS[1:]))
    for resource in _resources(comparison):
        shares = {
            label: [s.utilisation(resource) for s in r.samples]
            for label, r in zip(LABELS, (a, b), strict=True)
        }
        top = max([1.0, *(v for values in shares.values() for v in values)])
        out.write(f"\n<h2>Requested / allocatable: {escape(resource)}</h2>\n")
        out.write(_plot(f"{resource} over time, A and B", shares, a, top, "%", LABELS[1:]))
    out.write("\n<h2>Figures</h2>\n<table>")
    header, *rows = _rows(comparison)
    out.write("<tr>" + "".join(f"<th>{escape(cell)}</th>" for cell in header) + "</tr>")
    for row in rows:
        out.write("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>")
    out.write("</table>\n<h2>Operations</h2>\n")
    write_operations(a, out)
    out.write("</body></html>\n")
