"""``python -m framework experiment race|pools``: the experiments of chapter "Before the framework".

::

    $ python -m framework experiment race [--seed N] [--pods 16 32 48 64]
    $ python -m framework experiment pools [--seed N] [--pods 2 4 6 8]

``race`` first replays chapter 0's two pods (two schedulers, one node's
room, one kubelet rejection), then a table over loads: ``--pods`` is the
number of pods sent per run. ``pools`` prints a table over batch runs:
``--pods`` is the number of 4-CPU batch pods. The same seed gives the same
output on every machine; time is simulated.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

__all__ = ["add_command", "pools_report", "race_report"]


def _story(seed: int, settings: Any) -> list[str]:
    from framework.experiments.race import two_pods

    lines = ["Chapter 0's two pods (node-a: 2 of 4 CPUs free, node-b: 1.5 of 4):"]
    for schedulers, title in ((2, "two schedulers"), (1, "one scheduler, two profiles")):
        placed = []
        for outcome in two_pods(schedulers, seed=seed, settings=settings):
            where = f"{outcome.pod.name} -> {outcome.node_name or '(pending)'}"
            if outcome.state == "rejected":
                where += f", rejected: {outcome.reason}"
            placed.append(where)
        lines.append(f"  {title + ':':<29} " + "; ".join(placed))
    for outcome in two_pods(2, seed=seed, settings=settings):
        if outcome.state == "rejected":
            status = outcome.pod.to_dict()["status"]
            lines.append(f"  {outcome.pod.name}: phase {status['phase']}, {status['message']}")
    return lines


def race_report(
    loads: list[int] | None = None,
    *,
    seed: int = 0,
    rate: float | None = None,
    bind_latency: float | None = None,
    watch_delay: float | None = None,
    story: bool = True,
) -> str:
    """What ``experiment race`` prints."""
    import dataclasses

    from framework.experiments.race import (
        DEFAULT_LOADS,
        RaceSettings,
        format_race_table,
        race_table,
    )

    defaults = RaceSettings()
    settings = dataclasses.replace(
        defaults,
        rate=defaults.rate if rate is None else rate,
        bind_latency=defaults.bind_latency if bind_latency is None else bind_latency,
        watch_delay=defaults.watch_delay if watch_delay is None else watch_delay,
    )
    lines = [*_story(seed, settings), ""] if story else []
    rows = race_table(loads or DEFAULT_LOADS, seed=seed, settings=settings)
    return "\n".join([*lines, format_race_table(rows, settings)]) + "\n"


def pools_report(batch_sizes: list[int] | None = None, *, seed: int = 0) -> str:
    """What ``experiment pools`` prints."""
    from framework.experiments.pools import DEFAULT_BATCH_SIZES, format_pools_table, pools_table

    header = (
        "6 nodes of 8 CPUs: node-1..4 pool=general, node-5..6 pool=batch; "
        "6 web pods of 2 CPUs, then the batch pods of 4 CPUs"
    )
    rows = pools_table(batch_sizes or DEFAULT_BATCH_SIZES, seed=seed)
    return f"{header}\n\n{format_pools_table(rows)}\n"


def _run(args: argparse.Namespace) -> int:
    race_only = [
        flag
        for flag, value in (
            ("--rate", args.rate),
            ("--bind-latency", args.bind_latency),
            ("--watch-delay", args.watch_delay),
        )
        if value is not None
    ]
    if args.experiment == "pools" and race_only:
        print(
            f"error: {', '.join(race_only)}: only for 'experiment race' (pools has no race)",
            file=sys.stderr,
        )
        return 2
    # A plugin a profile names and this project lacks (none of the default profile's now) is
    # left out with a warning; keep it to the report, not once per scheduler built.
    build_logger = logging.getLogger("framework.runtime.build")
    level = build_logger.level
    build_logger.setLevel(logging.ERROR)
    try:
        if args.experiment == "race":
            report = race_report(
                args.pods,
                seed=args.seed,
                rate=args.rate,
                bind_latency=args.bind_latency,
                watch_delay=args.watch_delay,
            )
        else:
            report = pools_report(args.pods, seed=args.seed)
    finally:
        build_logger.setLevel(level)
    print(report, end="")
    return 0


def _non_negative_seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a delay cannot be negative (got {text})")
    return value


def _positive_rate(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"a rate must be more than 0 (got {text})")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {text})")
    return value


def add_command(commands: Any) -> None:
    """Add ``experiment`` to the ``python -m framework`` subparsers."""
    parser = commands.add_parser(
        "experiment",
        help="before the framework: two schedulers racing, label pools (chapter 0b)",
        description="Run one of the experiments of chapter 'Before the framework' on the "
        "in-memory cluster, in simulated time, and print its table.",
    )
    parser.add_argument("experiment", choices=("race", "pools"), help="which experiment")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument(
        "--pods",
        type=_positive_int,
        nargs="+",
        metavar="N",
        help="race: pods per run, one row each (default 16 32 48 64); "
        "pools: batch pods per run (default 2 4 6 8)",
    )
    parser.add_argument(
        "--rate", type=_positive_rate, help="race: pods arriving per second (default 100)"
    )
    parser.add_argument(
        "--bind-latency",
        type=_non_negative_seconds,
        metavar="SECONDS",
        help="race: time for a binding to be committed (default 0.02)",
    )
    parser.add_argument(
        "--watch-delay",
        type=_non_negative_seconds,
        metavar="SECONDS",
        help="race: time for a change to reach a watcher (default 0.05)",
    )
    parser.set_defaults(run=_run)
