"""The command line: ``python -m framework <command>``.

* ``demo`` — schedule a small built-in cluster on the fake API server and
  print where each pod went, and why the others did not go anywhere;
* ``schedule FILE... --config CFG --plugin NAME=MODULE:ATTR`` — schedule your
  manifests with your configuration and out-of-tree plugins;
* ``hint CHAPTER [N]`` — show an exercise's hints one at a time.

Each command imports what it needs only when it runs, so ``--help`` is instant.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _demo(args: argparse.Namespace) -> int:
    from framework.demo import run_demo

    print(run_demo(), end="")
    return 0


def _schedule(args: argparse.Namespace) -> int:
    from framework.config.errors import ConfigError
    from framework.config.framework_checks import FrameworkConfigError
    from framework.objects.manifest import ManifestError
    from framework.schedule_cmd import PluginSpecError, schedule_files

    try:
        print(
            schedule_files(args.files, config=args.config, plugins=args.plugin, seed=args.seed),
            end="",
        )
    except (ConfigError, FrameworkConfigError, ManifestError, PluginSpecError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _hint(args: argparse.Namespace) -> int:
    from framework.hints import HintError, format_hint

    try:
        print(format_hint(args.chapter, args.number))
    except HintError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _not_implemented() -> frozenset[str]:
    from framework.runtime.build import NOT_IMPLEMENTED_DEFAULT_PLUGINS

    return NOT_IMPLEMENTED_DEFAULT_PLUGINS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m framework",
        description="The Kubernetes Scheduling Framework, in readable Python.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo", help="schedule a small built-in cluster and print where each pod went"
    )
    demo.set_defaults(run=_demo)

    schedule = commands.add_parser(
        "schedule",
        help="schedule the pods of your manifests with your configuration and plugins",
        description="Load Nodes, Pods, PriorityClasses and Namespaces into the fake API server "
        "and schedule the pending pods with the framework. Other kinds are skipped.",
        epilog="Not implemented yet (left out of the default profile, with a note): "
        + ", ".join(sorted(_not_implemented())),
    )
    schedule.add_argument("files", nargs="+", help="manifest files or directories (YAML or JSON)")
    schedule.add_argument(
        "--config", help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) file"
    )
    schedule.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="NAME=MODULE:ATTR",
        help="register an out-of-tree plugin factory by import path (repeatable), "
        "e.g. QOSSort=framework.plugins.qos:new",
    )
    schedule.add_argument(
        "--seed", type=int, default=0, help="seed for choosing among equal scores"
    )
    schedule.set_defaults(run=_schedule)

    hint = commands.add_parser(
        "hint", help="show the hints of a chapter's exercise, one at a time"
    )
    hint.add_argument("chapter", type=int, help="chapter number, e.g. 1")
    hint.add_argument("number", type=int, nargs="?", default=1, help="which hint (default: 1)")
    hint.set_defaults(run=_hint)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
