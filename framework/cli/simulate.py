"""``python -m framework simulate``, ``explain`` and ``compare``: the simulator on the command line.

* ``simulate FILE... [--config F] [--seed N] [--output table|json|html] [--out PATH]
  [--plugin NAME=MODULE:ATTR] [--no-progress]`` prints where each pod went (a
  table), the v1 JSON trace, or the HTML report
  (:mod:`framework.simulator.report_html`); a run of more than a moment shows
  a progress bar on stderr when it is a terminal
  (:mod:`framework.simulator.progress`);
* ``simulate ... --output jsonl [--explain POD]... [--full-trace]`` writes
  the v2 trace (:mod:`framework.simulator.trace`) as the run goes: a summary
  per attempt, the tables only for failed attempts, the pods named, or all,
  each line written once its attempt is over and not kept in memory after;
* ``explain NAMESPACE/POD FILE... [--config F] [--seed N]`` prints why that
  pod went where it went, or why it is pending; ``explain NAMESPACE/POD
  --trace FILE`` reads it from a saved trace instead of simulating;
* ``schedule`` (the first version of ``simulate``) is ``simulate --output
  table``;
* ``compare FILE... --config A --config B [--seed N] [--output table|json]``
  runs the same manifests under two configurations and puts the outcomes
  side by side (:mod:`framework.simulator.compare`); given one Scenario
  manifest, it runs the scenario from each configuration and compares the
  figures, ``--output html`` overlaying the curves
  (:mod:`framework.simulator.scenario_compare`);
  ``--emulated-version 1.33 --emulated-version 1.37`` compares two releases;
* every command that simulates takes ``--emulated-version`` (the release whose
  feature-gate defaults and default plugins to emulate) and ``--feature-gates
  Name=true,...`` (:mod:`framework.featuregate`); ``simulate`` and ``explain``
  print the gates the run used;
* ``scenario FILE [--seed N] [--output table|html|jsonl]`` runs a Scenario
  manifest: timed operations in simulated time (:mod:`framework.simulator.scenario`);
* ``generate --nodes N --pods P [--seed S]`` writes a cluster and workload
  of that size to try the others on (:mod:`framework.simulator.generate`).

Bad input — a broken YAML file, an invalid quantity, a configuration that
enables a plugin nobody registered, a pod that is not in the files — exits
with status 2 and one line per problem on stderr, naming the file, the
object and the field; never a traceback. Inputs skipped (kinds not
simulated) are warned about on stderr.

No Kubernetes counterpart; kube-scheduler-simulator offers the same through
a web UI.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

__all__ = [
    "SEMANTICS",
    "add_commands",
    "add_version_arguments",
    "run_compare",
    "run_explain",
    "run_generate",
    "run_scenario_cmd",
    "run_simulate",
]

Writer = Callable[[TextIO], None]
"""Output written straight to its stream (a trace or report too large to build as one string)."""

SEMANTICS = """\
how a run goes (the same for every command and for framework.simulate):
  Nodes and running pods (spec.nodeName set) are created first, in file order;
  then every pending pod, in file order, one simulated millisecond apart (queue
  timestamps follow the file), all before the first scheduling cycle. The
  scheduler then runs until every pod is bound or nothing can change any more.
  Time is simulated: when no pod is ready the clock jumps to the next backoff
  end or Permit timeout. --seed (default 0) fixes the choice among equally
  scored nodes: the same input and seed give the same output, byte for byte.
"""


def _kinds_epilog() -> str:
    from framework.runtime.build import NOT_IMPLEMENTED_DEFAULT_PLUGINS
    from framework.simulator.controllers import CONTROLLER_KINDS
    from framework.simulator.inputs import simulated_kinds

    return (
        SEMANTICS
        + "\nkinds understood:\n  simulated as they are: "
        + ", ".join(simulated_kinds())
        + "\n  expanded into their pods: "
        + ", ".join(
            f"{k} (replicas)" if k != "Job" else "Job (parallelism)" for k in CONTROLLER_KINDS
        )
        + "\n  the scheduler's configuration: KubeSchedulerConfiguration"
        + "\n  anything else is skipped with a warning.\n"
        + (
            "\nNot implemented yet (left out of a profile that enables it, with a note): "
            + ", ".join(sorted(NOT_IMPLEMENTED_DEFAULT_PLUGINS))
            + "\n"
            if NOT_IMPLEMENTED_DEFAULT_PLUGINS
            else ""
        )
    )


def add_version_arguments(parser: argparse.ArgumentParser, *, repeat: bool = False) -> None:
    """``--emulated-version`` and ``--feature-gates``, as kube-scheduler spells them.

    With ``repeat``, each may be given twice, A then B (``compare``).
    """
    from framework.featuregate import DEFAULT_EMULATED_VERSION, SUPPORTED_VERSIONS

    versions = ", ".join(SUPPORTED_VERSIONS)
    parser.add_argument(
        "--emulated-version",
        action="append" if repeat else "store",
        metavar="VERSION",
        help=(
            f"the Kubernetes release whose feature-gate defaults and default plugins to "
            f"emulate: {versions} (default {DEFAULT_EMULATED_VERSION})"
            + ("; give it twice to compare two releases" if repeat else "")
        ),
    )
    parser.add_argument(
        "--feature-gates",
        action="append" if repeat else "store",
        metavar="NAME=BOOL,...",
        help="override feature gates, kube's format: --feature-gates "
        "SchedulerPopFromBackoffQ=false,TaintTolerationComparisonOperators=true"
        + ("; give it twice to compare A's gates with B's" if repeat else ""),
    )


def _common(parser: argparse.ArgumentParser) -> None:
    from framework.scheduler.engine import add_engine_argument

    parser.add_argument(
        "--config", help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) file"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed for choosing among equal scores (default 0)"
    )
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="NAME=MODULE:ATTR",
        help="register an out-of-tree plugin factory by import path (repeatable), "
        "e.g. MyPlugin=my_plugins:new; QOSSort and Coscheduling (scheduler-plugins) are "
        "registered under their names already, as in scheduler-plugins' own kube-scheduler",
    )
    add_engine_argument(parser)
    add_version_arguments(parser)
    parser.add_argument(
        "--field-validation",
        choices=("Strict", "Warn", "Ignore"),
        default="Strict",
        help="what an unknown field in a manifest is, as kubectl's --validate: Strict, an error "
        "naming the file, object and field (default); Warn, dropped with a warning; Ignore, "
        "dropped",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar on stderr (there is none anyway when stderr is not a terminal)",
    )


def add_commands(commands: Any) -> None:
    """Add ``simulate``, ``explain`` and ``schedule`` to the ``python -m framework`` subparsers."""
    from framework.scheduler.engine import add_engine_argument

    epilog = _kinds_epilog()
    formatter = argparse.RawDescriptionHelpFormatter
    simulate = commands.add_parser(
        "simulate",
        help="where each pod of your manifests goes, and why (table or JSON trace)",
        description="Create your Nodes and Pods in the fake API server and schedule the "
        "pending pods with the framework, on simulated time.",
        epilog=epilog,
        formatter_class=formatter,
    )
    simulate.add_argument("files", nargs="+", help="manifest files or directories (YAML or JSON)")
    _common(simulate)
    simulate.add_argument(
        "--output",
        choices=("table", "json", "jsonl", "html"),
        default="table",
        help="table: pods, nodes and events; json: the v1 trace (every table of every "
        "attempt); jsonl: the v2 trace, JSON Lines (a summary per attempt, the tables of "
        "failed attempts and of --explain pods); html: a self-contained report with every "
        "pod's tables and the nodes' utilisation (default: table)",
    )
    simulate.add_argument(
        "--explain",
        action="append",
        default=[],
        metavar="NAMESPACE/POD",
        dest="explain_pods",
        help="keep this pod's node × plugin tables in the v2 trace (repeatable)",
    )
    simulate.add_argument(
        "--full-trace",
        action="store_true",
        help="keep every attempt's node × plugin tables in the v2 trace",
    )
    simulate.add_argument(
        "--out",
        metavar="PATH",
        help="write the output to PATH, not stdout (gzip-compressed if PATH ends in .gz)",
    )
    simulate.set_defaults(run=run_simulate)

    explain = commands.add_parser(
        "explain",
        help="why a pod went where it went, or why it is pending",
        description="Simulate, then show one pod's last attempt: kube-scheduler's message and "
        "a table of nodes × plugins (filter verdicts, scores, total).",
        epilog=epilog,
        formatter_class=formatter,
    )
    explain.add_argument(
        "pod",
        metavar="NAMESPACE/POD",
        help="the pod to explain, or a gang: podgroup/NAMESPACE/NAME (v1.36+) or "
        "workload/NAMESPACE/WORKLOAD/GROUP (v1.35)",
    )
    explain.add_argument(
        "files", nargs="*", help="manifest files or directories (YAML or JSON) to simulate"
    )
    explain.add_argument(
        "--trace",
        metavar="FILE",
        help="explain from a saved trace (v2 JSON Lines or v1 JSON, .gz or not) instead of "
        "simulating FILE...",
    )
    _common(explain)
    explain.set_defaults(run=run_explain)

    schedule = commands.add_parser(
        "schedule",
        help="schedule the pods of your manifests with your configuration and plugins "
        "(simulate --output table)",
        description="Load Nodes, Pods, PriorityClasses and Namespaces into the fake API server "
        "and schedule the pending pods with the framework; the same as simulate --output table.",
        epilog=epilog,
        formatter_class=formatter,
    )
    schedule.add_argument("files", nargs="+", help="manifest files or directories (YAML or JSON)")
    _common(schedule)
    schedule.set_defaults(run=run_simulate, output="table", out=None)

    compare = commands.add_parser(
        "compare",
        help="the same manifests under two scheduler configurations, side by side",
        description="Simulate your manifests under configuration A and under configuration B "
        "(same seed), then compare: pods placed and pending, the pods placed differently "
        "(with kube-scheduler's message where one is pending), and the spread of "
        "requested / allocatable across the nodes. Given one Scenario manifest instead, run "
        "the scenario from each configuration and compare its figures over time (--output "
        "html overlays the curves).",
        epilog=epilog,
        formatter_class=formatter,
    )
    compare.add_argument("files", nargs="+", help="manifest files or directories (YAML or JSON)")
    compare.add_argument(
        "--config",
        action="append",
        metavar="CONFIG",
        help="a KubeSchedulerConfiguration file; give it twice: --config A --config B "
        "(or once, or not at all, with two --emulated-version)",
    )
    compare.add_argument(
        "--seed", type=int, default=0, help="seed for choosing among equal scores (default 0)"
    )
    compare.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="NAME=MODULE:ATTR",
        help="register an out-of-tree plugin factory by import path (repeatable)",
    )
    add_engine_argument(compare)
    add_version_arguments(compare, repeat=True)
    compare.add_argument(
        "--output",
        choices=("table", "json", "html"),
        default="table",
        help="table: the comparison as text; json: the same as data; html: for a Scenario, "
        "one page with A's and B's curves overlaid (default: table)",
    )
    compare.add_argument("--out", metavar="PATH", help="write the output to PATH, not stdout")
    compare.set_defaults(run=run_compare)

    scenario = commands.add_parser(
        "scenario",
        help="what if? a cluster and timed operations on it, in simulated time",
        description="Run a Scenario manifest (simulator.ksf.dev/v1alpha1): its cluster, then "
        "its operations (create pods and Jobs that run for a while, scale a workload, cordon, "
        "drain, add or remove nodes, delete pods or workloads, restart the scheduler with another "
        "configuration) at their times, and report pending pods, utilisation, "
        "preemptions, latencies and unschedulable reasons over time.",
        formatter_class=formatter,
    )
    scenario.add_argument("file", help="the Scenario manifest (YAML)")
    scenario.add_argument(
        "--seed", type=int, default=None, help="seed for choosing among equal scores "
        "(default: the scenario's spec.seed, else 0)",
    )  # fmt: skip
    scenario.add_argument(
        "--output",
        choices=("table", "html", "jsonl"),
        default="table",
        help="table: the operations, the samples, latencies and reasons; html: the same with "
        "the curves drawn; jsonl: the run's v2 trace (default: table)",
    )
    scenario.add_argument(
        "--out",
        metavar="PATH",
        help="write to PATH, not stdout (gzip-compressed if it ends in .gz)",
    )
    add_version_arguments(scenario)
    scenario.set_defaults(run=run_scenario_cmd)

    generate = commands.add_parser(
        "generate",
        help="write a generated cluster and workload of any size (to try simulate at scale)",
        description="Write Nodes (three zones, four pools, one with GPUs), a running pod per "
        "node and Deployments for exactly --pods pending pods, as one JSON List, the same for "
        "the same arguments.",
    )
    generate.add_argument("--nodes", type=int, default=1000, help="how many nodes (default 1000)")
    generate.add_argument(
        "--pods", type=int, default=5000, help="how many pending pods (default 5000)"
    )
    generate.add_argument("--seed", type=int, default=0, help="seed of the workload (default 0)")
    generate.set_defaults(run=run_generate)


def _guarded(
    run: Callable[[argparse.Namespace], str | Writer | None], args: argparse.Namespace
) -> int:
    """Run a command; bad input becomes one line per problem on stderr and status 2.

    ``run`` returns the output, or None when it wrote it itself (a streamed trace).
    """
    from framework.simulator.explain import ExplainError
    from framework.simulator.inputs import PluginSpecError, SimulationInputError

    # The report's notes already say which plugins a profile left out: no log line too.
    build_logger = logging.getLogger("framework.runtime.build")
    level = build_logger.level
    build_logger.setLevel(logging.ERROR)
    try:
        text = run(args)
    except SimulationInputError as error:
        for problem in error.problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    except ExplainError as error:
        where = f"--trace {args.trace}" if getattr(args, "trace", None) else ", ".join(args.files)
        print(f"error: {error}, in {where}", file=sys.stderr)
        return 2
    except PluginSpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        build_logger.setLevel(level)
    out = getattr(args, "out", None)
    if out:
        if text is not None:  # else it was written as the run went
            try:
                _write_file(text, Path(out))
            except OSError as error:
                print(
                    f"error: --out {out}: cannot write: {error.strerror or error}",
                    file=sys.stderr,
                )
                return 2
        summary = getattr(args, "summary", None)
        output = getattr(args, "output", "")
        where = f"wrote the {output} output to {out}" if output else f"wrote {out}"
        # The output went to a file: say where it is (and, for simulate, what happened).
        print(f"{summary}; {where}" if summary else where)
    elif text is not None:
        _write(text, sys.stdout)
    return 0


def _write_file(text: str | Writer, path: Path) -> None:
    """Write to ``path``; gzip-compressed when it ends in ``.gz`` (a large trace shrinks ~40×)."""
    from framework.simulator.trace import open_trace_for_writing

    with open_trace_for_writing(path) as stream:
        _write(text, stream)


def _write(text: str | Writer, stream: TextIO) -> None:
    if isinstance(text, str):
        stream.write(text)
    else:
        text(stream)


def _simulate(args: argparse.Namespace, trace: TextIO | Path | None = None) -> Any:
    """The run the arguments ask for; with ``trace``, the v2 trace streamed there as it goes."""
    from framework.simulator.inputs import SimulationInputError
    from framework.simulator.progress import ProgressBar
    from framework.simulator.run import simulate

    bar = ProgressBar(sys.stderr, enabled=not getattr(args, "no_progress", False))
    try:
        result = simulate(
            *args.files,
            config=args.config,
            seed=args.seed,
            plugins=args.plugin,
            progress=bar.update if bar.enabled else None,
            engine=args.engine,
            keep_table=_keep_table(args),
            field_validation=getattr(args, "field_validation", "Strict"),
            emulated_version=args.emulated_version,
            feature_gates=args.feature_gates,
            trace=trace,
            # The table needs each pod's last attempt only: a large run keeps no more.
            keep_attempts=False if getattr(args, "output", "") == "table" else None,
        )
    except OSError as error:
        if trace is None or not isinstance(trace, Path) or error.filename != str(trace):
            raise
        raise SimulationInputError(
            [f"--out {trace}: cannot write: {error.strerror or error}"]
        ) from None
    finally:
        bar.close()
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if getattr(args, "output", "table") != "table" and result.feature_gates is not None:
        print(result.feature_gates.describe(), file=sys.stderr)
    return result


def _keep_table(args: argparse.Namespace) -> Any:
    """All tables for the outputs that show them (v1, HTML, explain); else only those asked for."""
    from framework.simulator.trace import keep_tables_for

    if getattr(args, "output", "") not in ("table", "jsonl") or getattr(args, "full_trace", False):
        return None
    return keep_tables_for(getattr(args, "explain_pods", ()))


def run_simulate(args: argparse.Namespace) -> int:
    """``simulate`` (and ``schedule``): the table, the JSON trace or the HTML report."""

    def render(args: argparse.Namespace) -> str | Writer | None:
        from framework.simulator.report import render_table, summary_line
        from framework.simulator.report_html import write_html

        if args.output == "jsonl":  # streamed: each attempt's line written as it ends
            result = _simulate(args, trace=Path(args.out) if args.out else sys.stdout)
            args.summary = summary_line(result)
            return None
        result = _simulate(args)
        args.summary = summary_line(result)
        if args.output in ("json", "html"):
            for note in result.notes:
                print(note, file=sys.stderr)
        if args.output == "json":
            writer: Writer = result.write_json
            return writer
        if args.output == "html":
            return lambda stream: write_html(result, stream)
        return render_table(result)

    return _guarded(render, args)


def run_explain(args: argparse.Namespace) -> int:
    """``explain``: one pod's last attempt, explained."""

    def render(args: argparse.Namespace) -> str:
        from framework.objects.manifest import load_manifests
        from framework.simulator.explain import explain, pod_key
        from framework.simulator.explain_group import explain_group, is_group_ref
        from framework.simulator.inputs import SimulationInputError
        from framework.simulator.trace import read_trace

        if args.trace and args.files:
            raise SimulationInputError(
                ["give the manifests to simulate or --trace FILE, not both"]
            )
        if is_group_ref(args.pod) and not args.files:
            raise SimulationInputError(["explaining a group needs its manifests (FILE...)"])
        if args.trace:
            try:
                # Each pod in brief, the tables of this one only: a trace of any size fits.
                result = read_trace(args.trace, pods=[pod_key(args.pod)])
            except (OSError, ValueError) as error:
                raise SimulationInputError([f"--trace {args.trace}: {error}"]) from None
        elif args.files:
            result = _simulate(args)
        else:
            raise SimulationInputError(
                ["give the manifests to simulate (FILE...) or a saved trace (--trace FILE)"]
            )
        if is_group_ref(args.pod):
            text = explain_group(result, load_manifests(*args.files), args.pod)
        else:
            text = explain(result, args.pod)
        for note in result.notes:
            print(note, file=sys.stderr)
        if result.feature_gates is not None:
            print(result.feature_gates.describe(), file=sys.stderr)
        return text

    return _guarded(render, args)


def run_compare(args: argparse.Namespace) -> int:
    """``compare``: the manifests under two configurations (``--config`` given twice)."""

    def render(args: argparse.Namespace) -> str | Writer:
        import json

        from framework.simulator.compare import compare, render_comparison
        from framework.simulator.inputs import SimulationInputError

        if len(args.files) == 1 and _is_scenario(args.files[0]):
            return _compare_scenario(args)
        if args.output == "html":
            raise SimulationInputError(
                ["--output html compares a Scenario (one Scenario manifest as the file); "
                 "for manifests use --output table or json"]
            )  # fmt: skip
        comparison = compare(
            *args.files,
            configs=args.config or [],
            seed=args.seed,
            plugins=args.plugin,
            engine=args.engine,
            emulated_versions=args.emulated_version or [],
            feature_gates=args.feature_gates,
        )
        for warning in comparison.outcomes[0].result.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if args.output == "json":
            for outcome in comparison.outcomes:
                for note in outcome.result.notes:
                    print(f"{outcome.label}: {note}", file=sys.stderr)
            return json.dumps(comparison.to_dict(), indent=2) + "\n"
        return render_comparison(comparison)

    return _guarded(render, args)


def _is_scenario(path: str) -> bool:
    """Whether ``path`` is a Scenario manifest (then ``compare`` runs it under each config)."""
    import yaml

    from framework.simulator.scenario import API_VERSION, KIND

    file = Path(path)
    if file.suffix not in (".yaml", ".yml", ".json") or not file.is_file():
        return False
    try:
        document = next(yaml.safe_load_all(file.read_text(encoding="utf-8")), None)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False  # the manifest loader reports it
    return (
        isinstance(document, dict)
        and document.get("kind") == KIND
        and document.get("apiVersion") == API_VERSION
    )


def _compare_scenario(args: argparse.Namespace) -> str | Writer:
    """``compare SCENARIO --config A --config B``: the scenario from each configuration."""
    import json

    from framework.simulator.scenario_compare import (
        compare_scenario,
        render_scenario_comparison,
        summary_figures,
        write_scenario_comparison_html,
    )

    comparison = compare_scenario(
        args.files[0],
        args.config or [],
        seed=args.seed,
        emulated_versions=args.emulated_version or [],
        feature_gates=args.feature_gates,
    )
    for warning in comparison.results[0].simulation.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.output == "html":
        return lambda stream: write_scenario_comparison_html(comparison, stream)
    if args.output == "json":
        runs = {}
        for label, source, result in zip(
            "AB", comparison.configs, comparison.results, strict=True
        ):
            runs[label] = {
                "config": source,
                "figures": dict(summary_figures(result, result.resources)),
                "samples": [
                    {"at": s.at, "pending": s.pending, "running": s.running,
                     "utilisation": {r: s.utilisation(r) for r in result.resources},
                     "preemptions": s.preemptions, "failed": s.failed}
                    for s in result.samples
                ],
            }  # fmt: skip
        document = {"scenario": comparison.scenario.name, "seed": comparison.seed, "runs": runs}
        return json.dumps(document, indent=2) + "\n"
    return render_scenario_comparison(comparison)


def run_scenario_cmd(args: argparse.Namespace) -> int:
    """``scenario``: a Scenario manifest run, as a table, an HTML page or the v2 trace."""

    def render(args: argparse.Namespace) -> str | Writer:
        from framework.simulator.scenario import (
            render_scenario_table,
            run_scenario,
            write_scenario_html,
        )
        from framework.simulator.trace import write_trace_v2

        result = run_scenario(
            args.file,
            seed=args.seed,
            emulated_version=args.emulated_version,
            feature_gates=args.feature_gates,
        )
        for warning in result.simulation.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if args.output == "html":
            return lambda stream: write_scenario_html(result, stream)
        if args.output == "jsonl":
            return lambda stream: write_trace_v2(result.simulation, stream)
        return render_scenario_table(result)

    return _guarded(render, args)


def run_generate(args: argparse.Namespace) -> int:
    """``generate``: the manifests of a generated cluster and workload, on stdout."""
    from framework.simulator.generate import generate

    try:
        text = generate(args.nodes, args.pods, seed=args.seed)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0
