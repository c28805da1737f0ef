"""The same input and seed give the same trace, byte for byte, though binding cycles run on threads.

kube-scheduler's only randomness is the choice among equally scored nodes
(``selectHost`` in ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``,
v1.33); the simulator seeds it. Everything else that could vary — which
binding thread writes first, the order of Events, Python's hash seed — must
not show in the trace.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import framework
from tests.simulate.plugins import PLUGINS
from tests.simulate.test_trace import nodes, pods, profile

# Identical nodes (every score ties) and groups released at Permit all at once (their
# binding cycles run concurrently).
CONFIG = profile(
    "{name: PrioritySort}",
    "{name: NodeResourcesFit}",
    "{name: NodeResourcesBalancedAllocation}",
    "{name: WaitForGroup}",
    "{name: DefaultBinder}",
    extra="  pluginConfig:\n  - name: WaitForGroup\n    args: {size: 4, timeoutSeconds: 5}\n",
)
MANIFESTS = (
    nodes(6)
    + pods(8, prefix="solo")
    + pods(4, labels="{test.example/group: a}", prefix="a")
    + pods(4, labels="{test.example/group: b}", prefix="b")
    + pods(3, labels="{test.example/group: c}", prefix="short")  # never complete: time out
)


def run(seed: int) -> str:
    return framework.simulate(MANIFESTS, config=CONFIG, seed=seed, plugins=PLUGINS).to_json()


def test_five_runs_give_byte_identical_traces() -> None:
    first = run(seed=7)
    assert all(run(seed=7) == first for _ in range(4))
    assert '"PermitRejected"' in first  # the timeouts are part of it
    assert first.count('"reason":"Scheduled"') == 16


def test_the_seed_decides_among_ties() -> None:
    placements = {
        seed: framework.simulate(MANIFESTS, config=CONFIG, seed=seed, plugins=PLUGINS).placements[
            "default/solo-000"
        ]
        for seed in range(8)
    }
    assert len(set(placements.values())) > 1  # six equal nodes: the seed picks


def test_the_cli_gives_the_same_bytes_under_different_hash_seeds(tmp_path: Path) -> None:
    manifests = tmp_path / "cluster.yaml"
    manifests.write_text(
        nodes(4) + pods(6) + pods(2, labels="{app: web, tier: front}", prefix="web")
    )
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-m", "framework", "simulate", str(manifests), "--output", "json"],
            capture_output=True,
            env=env,
            check=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].startswith(b'{"version":"v1"')
