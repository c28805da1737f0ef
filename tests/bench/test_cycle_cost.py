"""``benchmarks/cycle_cost.py`` runs for every workload (a smoke test, never a time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from framework.bench.workload import load_workloads

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "cycle_cost.py"
# PreemptionBasic's measured pods fit nowhere without preemption, which
# schedule_pod alone does not run; SchedulingDaemonset's pin a node each.
WORKLOADS = [
    name
    for name in load_workloads("small")
    if name not in ("PreemptionBasic", "SchedulingDaemonset")
]


def _run(script: str, *args: str) -> str:
    """The script's output, run as a user runs it; a failure fails the test with its traceback."""
    return subprocess.run(
        [sys.executable, str(SCRIPT.with_name(script)), *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.mark.parametrize("engine", ["reference", "batch"])
@pytest.mark.parametrize("workload", WORKLOADS)
def test_cycle_cost_reports_one_cycle(workload: str, engine: str) -> None:
    # 300 nodes: room for 220 pods that each want a node of their own.
    out = _run(
        "cycle_cost.py",
        "--workload",
        workload,
        "--nodes",
        "300",
        "--init-pods",
        "20",
        "--repeat",
        "2",
        "--engine",
        engine,
    )
    assert out.startswith(f"{workload} [{engine}], 300 nodes, 144 evaluated:")
    assert "function calls per cycle" in out


def test_python_floor_reports_three_cycles() -> None:
    out = _run("python_floor.py", "--nodes", "300", "--repeat", "2")
    assert out.startswith("SchedulingBasic, 300 nodes, 144 evaluated; per node: 4 Filter plugins")
    for label in ("the language", "the framework, no-op plugins", "the default profile"):
        assert label in out
