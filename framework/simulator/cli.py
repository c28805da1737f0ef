"""``python -m framework simulate`` and ``explain``: the simulator on the command line.

* ``simulate FILE... [--config F] [--seed N] [--output table|json] [--out PATH]
  [--plugin NAME=MODULE:ATTR]`` prints where each pod went (a table) or the
  v1 JSON trace;
* ``explain NAMESPACE/POD FILE... [--config F] [--seed N]`` prints why that
  pod went where it went, or why it is pending;
* ``schedule`` (the first version of ``simulate``) is ``simulate --output
  table``.

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
from typing import Any

__all__ = ["SEMANTICS", "add_commands", "run_explain", "run_simulate"]

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
        + "\nNot implemented yet (left out of the default profile, with a note): "
        + ", ".join(sorted(NOT_IMPLEMENTED_DEFAULT_PLUGINS))
        + "\n"
    )


def _common(parser: argparse.ArgumentParser) -> None:
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
        "e.g. QOSSort=framework.plugins.qos:new",
    )


def add_commands(commands: Any) -> None:
    """Add ``simulate``, ``explain`` and ``schedule`` to the ``python -m framework`` subparsers."""
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
        choices=("table", "json"),
        default="table",
        help="table: pods, nodes and events; json: the v1 trace (default: table)",
    )
    simulate.add_argument("--out", metavar="PATH", help="write the output to PATH, not stdout")
    simulate.set_defaults(run=run_simulate)

    explain = commands.add_parser(
        "explain",
        help="why a pod went where it went, or why it is pending",
        description="Simulate, then show one pod's last attempt: kube-scheduler's message and "
        "a table of nodes × plugins (filter verdicts, scores, total).",
        epilog=epilog,
        formatter_class=formatter,
    )
    explain.add_argument("pod", metavar="NAMESPACE/POD", help="the pod to explain")
    explain.add_argument("files", nargs="+", help="manifest files or directories (YAML or JSON)")
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


def _guarded(run: Callable[[argparse.Namespace], str], args: argparse.Namespace) -> int:
    """Run a command; bad input becomes one line per problem on stderr and status 2."""
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
        print(f"error: {', '.join(args.files)}: {error}", file=sys.stderr)
        return 2
    except PluginSpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        build_logger.setLevel(level)
    out = getattr(args, "out", None)
    if out:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as error:
            print(f"error: --out {out}: cannot write: {error.strerror or error}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0


def _simulate(args: argparse.Namespace) -> Any:
    from framework.simulator.run import simulate

    result = simulate(*args.files, config=args.config, seed=args.seed, plugins=args.plugin)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return result


def run_simulate(args: argparse.Namespace) -> int:
    """``simulate`` (and ``schedule``): the table or the JSON trace."""

    def render(args: argparse.Namespace) -> str:
        from framework.simulator.report import render_table

        result = _simulate(args)
        if args.output == "json":
            for note in result.notes:
                print(note, file=sys.stderr)
            text: str = result.to_json()
            return text
        return render_table(result)

    return _guarded(render, args)


def run_explain(args: argparse.Namespace) -> int:
    """``explain``: one pod's last attempt, explained."""

    def render(args: argparse.Namespace) -> str:
        from framework.simulator.explain import explain

        result = _simulate(args)
        text = explain(result, args.pod)
        for note in result.notes:
            print(note, file=sys.stderr)
        return text

    return _guarded(render, args)
