"""Do two versions of the code write the same traces? Run the examples with each, compare bytes.

    # the code before, unpacked elsewhere, run with this checkout's interpreter
    git archive BASE | tar -x -C /tmp/base
    (cd /tmp/base && python /path/to/scripts/same_traces.py run /tmp/before)
    python scripts/same_traces.py run /tmp/after
    python scripts/same_traces.py compare /tmp/before /tmp/after

``run`` writes, into a directory, what ``simulate`` and ``scenario`` print
and write for the book's and the examples' clusters (the table, the v1
trace, the v2 trace with and without every table, the HTML report), for a
generated cluster with pods that spread, wait and fail
(``generate --nodes 60 --pods 1500``), and for a full cluster where every
pod fails (``scripts/trace_scale.py full``). It runs the code of the current
directory (``python -m framework``): run it from the checkout to test. Each
file is named after its case; a gzip-compressed trace is compared
decompressed (gzip stores a time stamp). A case whose file is there already
is not run again. ``compare`` names every file that
differs and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from subprocess import DEVNULL

CLUSTERS = [
    "chapters/11_pending/cluster.yaml",
    "chapters/09_preemption/cluster.yaml",
    "examples/versions/upgrade.yaml",
    "examples/versions/too-small.yaml",
    "examples/versions/pod-level.yaml",
]
OUTPUTS = {
    "table": ["--output", "table"],
    "v1.json": ["--output", "json"],
    "v2.jsonl": ["--output", "jsonl"],
    "v2-full.jsonl": ["--output", "jsonl", "--full-trace"],
    "report.html": ["--output", "html"],
}
OTHER_RUNS = {
    "versions-1.33": ["simulate", "examples/versions/upgrade.yaml", "--emulated-version", "1.33"],
    "too-small-1.34": [
        "simulate",
        "examples/versions/too-small.yaml",
        "--emulated-version",
        "1.34",
    ],
    "gangs-1.35": [
        "simulate",
        "examples/gangs/two-gangs-v1.35.yaml",
        "--emulated-version",
        "1.35",
    ],
    "gangs-1.36": [
        "simulate",
        "examples/gangs/two-gangs-v1.36.yaml",
        "--emulated-version",
        "1.36",
        "--output",
        "jsonl",
        "--full-trace",
    ],
    "gangs-preemption": [
        "simulate",
        "examples/gangs/preemption-v1.36.yaml",
        "--emulated-version",
        "1.36",
        "--output",
        "jsonl",
        "--full-trace",
    ],
    "gangs-one-zone": [
        "simulate",
        "examples/gangs/one-zone-v1.36.yaml",
        "--emulated-version",
        "1.36",
        "--output",
        "jsonl",
    ],
    "coscheduling": [
        "simulate",
        "examples/gangs/two-gangs-coscheduling.yaml",
        "--config",
        "examples/gangs/coscheduling-config.yaml",
        "--output",
        "jsonl",
        "--full-trace",
    ],
    "batch-day.table": ["scenario", "examples/scenarios/batch-day.yaml"],
    "batch-day.jsonl": ["scenario", "examples/scenarios/batch-day.yaml", "--output", "jsonl"],
    "packed.jsonl": [
        "simulate",
        "chapters/11_pending/cluster.yaml",
        "--config",
        "examples/scenarios/batch-packed.yaml",
        "--output",
        "jsonl",
        "--full-trace",
    ],
}


def _framework(args: list[str], out: Path) -> None:
    """``python -m framework ARGS``, its stdout (or ``--out``'s file) into ``out``."""
    command = [sys.executable, "-m", "framework", *args]
    if out.exists():
        return  # written by an earlier run that stopped
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    if "--output" in args and args[args.index("--output") + 1] != "table":
        command += ["--out", str(out)]
        subprocess.run(command, check=True, env=env, stdout=DEVNULL, stderr=DEVNULL)
    else:
        with out.open("w") as stream:
            subprocess.run(command, check=True, env=env, stdout=stream, stderr=DEVNULL)


def run(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        generated = Path(scratch) / "generated.json"
        full = Path(scratch) / "full.json"
        with generated.open("w") as stream:
            args = ["generate", "--nodes", "60", "--pods", "1500", "--seed", "3"]
            subprocess.run([sys.executable, "-m", "framework", *args], check=True, stdout=stream)
        with full.open("w") as stream:
            script = Path(__file__).with_name("trace_scale.py")
            args = ["full", "--nodes", "200", "--pods", "50"]
            subprocess.run([sys.executable, str(script), *args], check=True, stdout=stream)
        for cluster in [*CLUSTERS, str(generated), str(full)]:
            for name, flags in OUTPUTS.items():
                path = Path(cluster)
                stem = path.stem if path.is_absolute() else f"{path.parent.name}-{path.stem}"
                _framework(
                    ["simulate", cluster, "--no-progress", *flags], directory / f"{stem}.{name}"
                )
        for name, args in OTHER_RUNS.items():
            _framework(args, directory / name)


def _text(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def compare(before: Path, after: Path) -> int:
    names = sorted({p.name for p in before.iterdir()} | {p.name for p in after.iterdir()})
    differ = [
        name
        for name in names
        if not (before / name).exists()
        or not (after / name).exists()
        or _text(before / name) != _text(after / name)
    ]
    print(json.dumps({"compared": len(names), "differ": differ}))
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("run", help="write every case's output into DIRECTORY")
    write.add_argument("directory", type=Path)
    check = commands.add_parser("compare", help="the cases whose outputs differ")
    check.add_argument("before", type=Path)
    check.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "run":
        run(args.directory)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
