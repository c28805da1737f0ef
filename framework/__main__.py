"""The command line: ``python -m framework <command>``.

* ``demo`` — the book's story in one run: a built-in scenario simulated with
  the framework and narrated step by step from its result (:mod:`framework.cli.demo`);
* ``simulate FILE... [--config CFG] [--seed N] [--output table|json] [--out PATH]
  [--plugin NAME=MODULE:ATTR]`` — where each pod of your manifests goes, as a
  table or the JSON trace; ``schedule`` is ``simulate --output table``;
* ``explain NAMESPACE/POD FILE...`` — why that pod went where it went, or why
  it is pending (:mod:`framework.cli.simulate`);
* ``compare FILE... --config A --config B`` — the same manifests under two
  scheduler configurations, side by side;
* ``serve [FILE...] [--port N] [--host H] [--token T] [--no-scheduler]`` — the
  fake API server over HTTP with the scheduler on it, for ``kubectl``
  (:mod:`framework.cli.serve`);
* ``bench [WORKLOAD...] [--size small|performance] [--json PATH] [--seed N]`` —
  scheduler_perf's workloads through the real scheduler: throughput, latency,
  time per extension point, memory (:mod:`framework.cli.bench`);
* ``run [--kubeconfig PATH] [--config CFG] [--plugin NAME=MODULE:ATTR]`` — the
  scheduler on a real cluster, through the official client (:mod:`framework.cli.run`);
* ``snapshot [--kubeconfig PATH] [--context C] [--namespace NS] [-o FILE]`` — a live
  cluster's Nodes, Pods, PriorityClasses and PodDisruptionBudgets as manifests that
  ``simulate``, ``explain`` and ``compare`` take (:mod:`framework.cli.snapshot`);
* ``experiment race|pools [--seed N] [--pods N...]`` — chapter 0b's experiments: two
  schedulers racing for one node's room, label pools (:mod:`framework.cli.experiment`);
* ``hint CHAPTER [N]`` — show an exercise's hints one at a time;
* ``exercise list|status|reset [CHAPTER...]`` — the exercise index, which of
  your exercises pass, a skeleton restored (:mod:`framework.cli.exercise`).

Each command imports what it needs only when it runs, so ``--help`` is instant.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def _demo(args: argparse.Namespace) -> int:
    from framework.cli.demo import run_demo

    print(run_demo(), end="")
    return 0


def _hint(args: argparse.Namespace) -> int:
    from framework.cli.exercise_hints import HintError, format_hint

    try:
        print(format_hint(args.chapter, args.number))
    except HintError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m framework",
        description="The Kubernetes Scheduling Framework, in readable Python.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo",
        help="the book's story in one run: queue order, a filter, scores, a preemption, a gang",
    )
    demo.set_defaults(run=_demo)

    from framework.cli.simulate import add_commands

    add_commands(commands)  # simulate, explain, and schedule (simulate's first version)

    from framework.cli.serve import add_command as add_serve

    add_serve(commands)

    from framework.cli.run import add_command as add_run

    add_run(commands)

    from framework.cli.snapshot import add_command as add_snapshot

    add_snapshot(commands)

    from framework.cli.bench import add_command as add_bench

    add_bench(commands)

    from framework.cli.experiment import add_command as add_experiment

    add_experiment(commands)

    hint = commands.add_parser(
        "hint", help="show the hints of a chapter's exercise, one at a time"
    )
    hint.add_argument("chapter", help="chapter number, e.g. 1 or 0b")
    hint.add_argument("number", type=int, nargs="?", default=1, help="which hint (default: 1)")
    hint.set_defaults(run=_hint)

    from framework.cli.exercise import add_command as add_exercise

    add_exercise(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result: int = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as the Python documentation's
        # note on SIGPIPE says, pointing stdout at /dev/null so that the flush at exit
        # does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
