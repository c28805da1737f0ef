"""``python -m framework bench [WORKLOAD...] [--size small|performance] [--json PATH] [--seed N]``.

Runs the named workloads of ``benchmarks/performance-config.yaml`` (all of
them if none is named) one after another, each on a fresh API server and
Scheduler (:func:`~framework.bench.runner.run_workload`), and prints one
table: our SchedulingThroughput next to scheduler_perf's floor, the
attempt latency, the time per extension point and the peak memory, with
the machine and the seed that produced them. ``--json PATH`` writes the
same figures keyed by workload name.

No Kubernetes counterpart as a command: scheduler_perf runs as
``go test -bench`` and writes a JSON ``DataItems`` file per test.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from framework.bench.workload import DEFAULT_CONFIG, BenchConfigError, load_workloads

if TYPE_CHECKING:  # the runner imports the whole scheduler: only when a run starts
    from framework.bench.runner import BenchResult

__all__ = ["add_command", "format_results", "run_bench"]


def _fmt(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def format_results(results: Sequence[BenchResult], seed: int) -> str:
    """The results as a plain-text report: throughput table, then latency and points."""
    from framework.bench.runner import machine_description

    machine = machine_description()
    lines = [
        f"machine: {machine['cpus']} CPUs, {machine['python']}, {machine['platform']}; "
        f"seed {seed}",
        "",
        f"{'workload':<26} {'size':<11} {'nodes':>6} {'init':>6} {'measured':>8} "
        f"{'floor':>6} {'Average':>8} {'Perc50':>7} {'Perc90':>7} {'Perc99':>7} {'overall':>8} "
        f"{'MiB':>6}",
    ]
    for r in results:
        t = r.throughput
        name = r.workload
        if r.percentage_of_nodes_to_score is not None:
            name += f" (pct {r.percentage_of_nodes_to_score})"
        lines.append(
            f"{name:<26} {r.size:<11} {r.nodes:>6} {r.init_pods:>6} {r.measured_pods:>8} "
            f"{_fmt(r.threshold):>6} {_fmt(t.get('Average'), 1):>8} {_fmt(t.get('Perc50'), 1):>7} "
            f"{_fmt(t.get('Perc90'), 1):>7} {_fmt(t.get('Perc99'), 1):>7} "
            f"{_fmt(r.overall_rate, 1):>8} {r.peak_memory_mib:>6.0f}"
        )
    lines += ["", "scheduling attempt latency (ms) and time per extension point (ms, total):"]
    for r in results:
        lat = r.attempt_latency_ms
        lines.append(
            f"  {r.workload}: {r.attempts} attempts in {r.measured_seconds:.1f}s; latency "
            f"avg {_fmt(lat.get('Average'), 2)} p50 {_fmt(lat.get('Perc50'), 2)} "
            f"p90 {_fmt(lat.get('Perc90'), 2)} p99 {_fmt(lat.get('Perc99'), 2)}"
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
        "from the first create to the last bind; MiB: peak RSS (ru_maxrss) of this process so "
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
) -> list[BenchResult]:
    """Run the named workloads (all if none) at ``size``; return their results in order."""
    from framework.bench.runner import run_workload

    workloads = load_workloads(size, config)
    unknown = [n for n in names if n not in workloads]
    if unknown:
        raise BenchConfigError(
            f"no workload named {', '.join(unknown)} in {config}; known: {', '.join(workloads)}"
        )
    chosen = [workloads[n] for n in names] if names else list(workloads.values())
    return [
        run_workload(
            w,
            seed=seed,
            percentage_of_nodes_to_score=percentage_of_nodes_to_score,
            time_extension_points=time_extension_points,
            timeout=timeout,
        )
        for w in chosen
    ]


def _bench(args: argparse.Namespace) -> int:
    from framework.bench.runner import BenchError

    try:
        results = run_bench(
            args.workloads,
            args.size,
            args.seed,
            config=Path(args.config),
            percentage_of_nodes_to_score=args.percentage_of_nodes_to_score,
            time_extension_points=args.extension_points,
            timeout=args.timeout,
        )
    except (BenchConfigError, BenchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_results(results, args.seed), end="")
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
    parser.add_argument("workloads", nargs="*", metavar="WORKLOAD", help="default: all")
    parser.add_argument("--size", default="small", help="small (default) or performance")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--seed", type=int, default=0, help="seed for ties and names (default 0)")
    parser.add_argument("--config", default=str(DEFAULT_CONFIG), help=argparse.SUPPRESS)
    parser.add_argument(
        "--percentage-of-nodes-to-score",
        type=int,
        metavar="N",
        help="override the configuration's percentageOfNodesToScore (e.g. 100)",
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
