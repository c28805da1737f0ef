"""``python -m framework bench [WORKLOAD...] [--size small|performance] [--json PATH] [--seed N]``.

Runs the named workloads of ``benchmarks/performance-config.yaml`` (all of
them if none is named) one after another, each on a fresh API server and
Scheduler (:func:`~framework.bench.runner.run_workload`), and prints one
table: our SchedulingThroughput next to scheduler_perf's floor, the
attempt latency, the time per extension point and the peak memory, with
the machine and the seed that produced them. ``--json PATH`` writes the
same figures keyed by workload name. ``bench serve-load [--clients N]
[--requests M]`` is not a workload but the HTTP load test of ``serve``
(:mod:`framework.bench.serve_load`).

No Kubernetes counterpart as a command: scheduler_perf runs as
``go test -bench`` and writes a JSON ``DataItems`` file per test.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from framework.bench.workload import DEFAULT_CONFIG, BenchConfigError, load_workloads

if TYPE_CHECKING:  # the runner imports the whole scheduler: only when a run starts
    from framework.bench.runner import BenchResult

__all__ = ["add_command", "format_results", "run_bench"]


def _fmt(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def format_results(results: Sequence[BenchResult], seed: int, command: str | None = None) -> str:
    """The results as a plain-text report: throughput table, then latency and points.

    ``command``, when given, is printed first, so the figures carry what made them.
    """
    from framework.bench.runner import machine_description

    machine = machine_description()
    lines = [f"command: {command}"] if command else []
    lines += [
        f"machine: {machine['cpus']} CPUs, {machine['python']}, {machine['platform']}; "
        f"seed {seed}",
        "",
        f"{'workload':<26} {'size':<11} {'nodes':>6} {'init':>6} {'measured':>8} "
        f"{'floor':>6} {'Average':>8} {'Perc50':>7} {'Perc90':>7} {'Perc99':>7} {'overall':>8} "
        f"{'per-CPU-s':>9} {'MiB':>6}",
    ]
    for r in results:
        t = r.throughput
        name = r.workload
        if r.engine != "batch":
            name += f" [{r.engine}]"
        if r.percentage_of_nodes_to_score is not None:
            name += f" (pct {r.percentage_of_nodes_to_score})"
        lines.append(
            f"{name:<26} {r.size:<11} {r.nodes:>6} {r.init_pods:>6} {r.measured_pods:>8} "
            f"{_fmt(None if r.threshold_metric else r.threshold):>6} "
            f"{_fmt(t.get('Average'), 1):>8} {_fmt(t.get('Perc50'), 1):>7} "
            f"{_fmt(t.get('Perc90'), 1):>7} {_fmt(t.get('Perc99'), 1):>7} "
            f"{_fmt(r.overall_rate, 1):>8} {_fmt(r.cpu_rate, 1):>9} {r.peak_memory_mib:>6.0f}"
        )
    lines += ["", "scheduling attempt latency (ms) and time per extension point (ms, total):"]
    for r in results:
        lat = r.attempt_latency_ms
        lines.append(
            f"  {r.workload}: {r.attempts} attempts in {r.measured_seconds:.1f}s; latency "
            f"avg {_fmt(lat.get('Average'), 2)} p50 {_fmt(lat.get('Perc50'), 2)} "
            f"p90 {_fmt(lat.get('Perc90'), 2)} p99 {_fmt(lat.get('Perc99'), 2)}"
        )
        if r.engine_stats:
            handed = r.engine_stats.get("reference") or {}
            lines.append(
                f"    engine {r.engine}: {r.engine_stats.get('batchFilters', 0)} searches and "
                f"{r.engine_stats.get('batchScores', 0)} scorings with arrays; to the reference: "
                + (", ".join(f"{why} ({n})" for why, n in handed.items()) or "none")
            )
        if r.pod_group_attempts:
            groups = "; ".join(
                f"{result} {int(s['count'])}, avg {_fmt(s.get('Average'), 2)} ms, "
                f"p90 {_fmt(s.get('Perc90'), 2)} ms"
                for result, s in r.pod_group_attempts.items()
            )
            lines.append(f"    PodGroup cycles: {groups}")
        if r.threshold_metric and r.threshold is not None:
            lines.append(
                f"    upstream threshold: {r.threshold_metric} Average <= {r.threshold:g} ms "
                "(for the scheduled groups; the floor column is for throughput only)"
            )
        if r.overcommitted:
            lines.append(f"    OVER-COMMITTED: {', '.join(r.overcommitted)}")
        if r.extension_points:
            points = ", ".join(
                f"{point} {total:.0f} ({calls})"
                for point, (calls, total) in r.extension_points.items()
            )
            lines.append(f"    {points}")
    lines.append("")
    lines.append(
        "floor: scheduler_perf's threshold (pods/s, Average); Average..Perc99: pods bound per "
        "1-second window (none if the run took under two); overall: measured pods / seconds "
        "from the first create to the last bind; per-CPU-s: measured pods per second of this "
        "process's CPU time (what one free core would give); MiB: peak RSS (ru_maxrss) of this process so "
        "far."
    )
    return "\n".join(lines) + "\n"


def run_bench(
    names: Sequence[str],
    size: str,
    seed: int,
    *,
    config: Path = DEFAULT_CONFIG,
    percentage_of_nodes_to_score: int | None = None,
    time_extension_points: bool = True,
    timeout: float = 3600.0,
    params: Mapping[str, int] | None = None,
    engines: Sequence[str] | None = None,
    feature_gates: Any = None,
) -> list[BenchResult]:
    """Run the named workloads (all if none) at ``size``; return their results in order.

    ``params`` overrides the size's params (``initNodes``, ``measurePods``...);
    each workload runs once per engine in ``engines``, one after the other.
    """
    from framework.bench.runner import run_workload
    from framework.scheduler.engine import default_engine

    workloads = load_workloads(size, config, params)
    unknown = [n for n in names if n not in workloads]
    if unknown:
        raise BenchConfigError(
            f"no workload named {', '.join(unknown)} in {config}; known: {', '.join(workloads)} "
            "(and, not workloads: serve-load, extender-vs-plugin)"
        )
    chosen = [workloads[n] for n in names] if names else list(workloads.values())
    return [
        run_workload(
            w,
            seed=seed,
            percentage_of_nodes_to_score=percentage_of_nodes_to_score,
            time_extension_points=time_extension_points,
            timeout=timeout,
            engine=engine,
            feature_gates=feature_gates,
        )
        for w in chosen
        for engine in (engines or [default_engine()])
    ]


def _params(args: argparse.Namespace) -> dict[str, int]:
    params: dict[str, int] = {}
    for item in args.param:
        key, sep, value = item.partition("=")
        if not sep or not key or not value.isdigit():
            raise BenchConfigError(f"--param {item!r}: want NAME=COUNT, e.g. initNodes=1000")
        params[key] = int(value)
    if args.nodes is not None:
        if len(args.nodes) != 1:
            raise BenchConfigError(
                "--nodes: one count for workloads (a list is for extender-vs-plugin)"
            )
        params["initNodes"] = args.nodes[0]
    return params


def _node_counts(text: str) -> list[int]:
    counts = [part.strip() for part in text.split(",")]
    if not all(c.isdigit() and int(c) > 0 for c in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: want N or N,N,... (positive node counts)")
    return [int(c) for c in counts]


def _engines(text: str) -> list[str]:
    from framework.scheduler.engine import ENGINES

    engines = [part.strip() for part in text.split(",")]
    if not all(e in ENGINES for e in engines):
        raise argparse.ArgumentTypeError(f"{text!r}: want one or more of {', '.join(ENGINES)}")
    return engines


def _bench(args: argparse.Namespace) -> int:
    if args.engine is None:
        from framework.scheduler.engine import default_engine

        args.engine = [default_engine()]
    if args.workloads[:1] == ["extender-vs-plugin"]:  # not a workload: the extender's cost
        from framework.bench.extender_compare import main as compare_extender

        return compare_extender(args.nodes, args.pods, args.seed)
    from framework.bench.runner import BenchError

    if args.workloads[:1] == ["serve-load"]:  # not a workload: the HTTP load test
        from framework.bench.serve_load import main

        return main(args.clients, args.requests, args.seed, args.json)

    from framework.featuregate import FeatureGateError, new_feature_gates

    try:
        gates = new_feature_gates(args.emulated_version, args.feature_gates)
    except FeatureGateError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        results = run_bench(
            args.workloads,
            args.size,
            args.seed,
            config=Path(args.config),
            percentage_of_nodes_to_score=args.percentage_of_nodes_to_score,
            time_extension_points=args.extension_points,
            timeout=args.timeout,
            params=_params(args),
            engines=args.engine,
            feature_gates=gates,
        )
    except (BenchConfigError, BenchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    command = "python -m framework " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    print(format_results(results, args.seed, command), end="")
    if args.json:
        document: dict[str, Any] = {r.workload: r.to_json() for r in results}
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n")
    return 0


def add_command(commands: Any) -> None:
    """Add ``bench`` to the ``python -m framework`` subparsers."""
    parser = commands.add_parser(
        "bench",
        help="scheduler_perf's workloads through the real scheduler: throughput, latency, memory",
        description="Run benchmark workloads (benchmarks/performance-config.yaml) on the fake "
        "API server with the default-profile Scheduler, and report SchedulingThroughput as "
        "kube's scheduler_perf does.",
    )
    parser.add_argument(
        "workloads",
        nargs="*",
        metavar="WORKLOAD",
        help="default: all; 'serve-load' runs the HTTP load test instead (--clients, "
        "--requests), 'extender-vs-plugin' one rule as an extender and as a plugin (--nodes, "
        "--pods)",
    )
    parser.add_argument(
        "--clients", type=int, default=16, help="serve-load: client threads (default 16)"
    )
    parser.add_argument(
        "--requests", type=int, default=2000, help="serve-load: requests in all (default 2000)"
    )
    parser.add_argument("--size", default="small", help="small (default) or performance")
    parser.add_argument(
        "--engine",
        type=_engines,
        default=None,
        help="reference, batch or both (compared each cycle), or a comma list run one after "
        "the other, e.g. reference,batch (default: batch, or $KSF_ENGINE)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    from framework.cli.simulate import add_version_arguments

    add_version_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed for ties and names (default 0)")
    parser.add_argument("--config", default=str(DEFAULT_CONFIG), help=argparse.SUPPRESS)
    parser.add_argument(
        "--percentage-of-nodes-to-score",
        type=int,
        metavar="N",
        help="override the configuration's percentageOfNodesToScore (e.g. 100)",
    )
    parser.add_argument(
        "--nodes",
        type=_node_counts,
        metavar="N",
        help="override the size's node count (the initNodes param), for the node-count curve; "
        "extender-vs-plugin takes a list (default 100,1000,5000)",
    )
    parser.add_argument(
        "--pods", type=int, default=100, help="extender-vs-plugin: pods per run (default 100)"
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=COUNT",
        help="override one of the size's params (e.g. measurePods=2000); repeatable",
    )
    parser.add_argument(
        "--no-extension-points",
        dest="extension_points",
        action="store_false",
        help="do not time the extension points (saves two clock reads per runner call)",
    )
    parser.add_argument(
        "--timeout", type=float, default=3600.0, help="seconds per workload before giving up"
    )
    parser.set_defaults(run=_bench)
