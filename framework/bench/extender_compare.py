"""``python -m framework bench extender-vs-plugin [--nodes 100,1000,5000] [--pods N]``.

The same rule twice — the example of ``examples/extender``: never a
draining node, rather a node with SSDs — once as an in-process plugin
(``NodeLabelRule``, Filter and Score) and once as a scheduler extender on
loopback (``filterVerb`` and ``prioritizeVerb``, whole Node objects sent,
as an extender without a node cache needs). Each is run on the same
cluster, with the default profile beside it and the same seed, and the
report puts them side by side per cluster size: the scheduling attempt's
latency (p50, p99) and the throughput (pods bound per second of the run).

The extender runs in a process of its own (``python -m
examples.extender.server``), as it would in a cluster; ``server="thread"``
runs it on a thread of this process instead (the CI test does, to need no
port discovery across processes).

What the difference measures: for every pod, the scheduler encodes the pod
and every feasible node as JSON twice (filter, then prioritize), sends
them over a socket, waits, and decodes the answers; the plugin reads the
same labels from the NodeInfo it already holds.

No Kubernetes counterpart: scheduler_perf has no extender workload.
Placements are compared too, and are identical below 100 nodes, where every
node is evaluated. Above, the plugin rejects draining nodes *during* the
search for feasible nodes, and the extender only after it, so the two score
different subsets of the nodes and may place pods differently.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from framework.apiserver import APIServer
from framework.bench.throughput import summarize
from framework.clock import FakeClock
from framework.config import loads_config
from framework.objects import Node, Pod
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import Framework
from framework.scheduler.schedule_one import CycleOutcome
from framework.scheduler.scheduler import Scheduler
from framework.scheduler.tracing import SchedulingTracer
from framework.types import QueuedPodInfo

__all__ = [
    "COMMAND",
    "ComparisonRow",
    "VariantResult",
    "compare",
    "format_comparison",
    "make_cluster",
    "parse_node_counts",
    "run_variant",
]

COMMAND = "extender-vs-plugin"
"""The ``bench`` workload name that runs this comparison."""

DEFAULT_NODE_COUNTS = (100, 1000, 5000)
DEFAULT_PODS = 100

_PLUGIN_CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: NodeLabelRule}]
"""

_EXTENDER_CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: %s
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 1
"""


@dataclass(frozen=True, slots=True)
class VariantResult:
    """One run: where each pod went, each attempt's latency (ms), and the pods bound per second."""

    placements: dict[str, str]
    latencies_ms: list[float] = field(repr=False)
    pods_per_second: float

    def percentile(self, name: str) -> float:
        """``Perc50`` or ``Perc99`` of the attempt latencies, in milliseconds."""
        return summarize(self.latencies_ms).get(name, 0.0)


@dataclass(frozen=True, slots=True)
class ComparisonRow:
    """One cluster size: the plugin's run and the extender's."""

    nodes: int
    pods: int
    plugin: VariantResult
    extender: VariantResult

    def same_placements(self) -> bool:
        return self.plugin.placements == self.extender.placements


def parse_node_counts(text: str) -> list[int]:
    """``"100,1000,5000"`` → ``[100, 1000, 5000]``; raises ValueError naming the bad part."""
    counts = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) == 0:
            raise ValueError(f"--nodes {text!r}: {part!r} is not a positive node count")
        counts.append(int(part))
    return counts


def make_cluster(nodes: int, pods: int) -> list[Node | Pod]:
    """``nodes`` nodes (every 10th draining, every 3rd with SSDs) and ``pods`` small pods."""
    objects: list[Node | Pod] = []
    for i in range(nodes):
        labels = {"kubernetes.io/hostname": f"node-{i}"}
        if i % 10 == 9:
            labels["example.com/draining"] = "true"
        if i % 3 == 0:
            labels["disktype"] = "ssd"
        objects.append(
            Node.from_dict(
                {
                    "metadata": {"name": f"node-{i}", "labels": labels},
                    "status": {
                        "allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"},
                        "capacity": {"cpu": "32", "memory": "128Gi", "pods": "110"},
                    },
                }
            )
        )
    for i in range(pods):
        objects.append(
            Pod.from_dict(
                {
                    "metadata": {"name": f"pod-{i}", "namespace": "default"},
                    "spec": {
                        "containers": [
                            {
                                "name": "c",
                                "image": "registry.k8s.io/pause:3.10",
                                "resources": {"requests": {"cpu": "100m", "memory": "100Mi"}},
                            }
                        ]
                    },
                }
            )
        )
    return objects


_REPO_ROOT = Path(__file__).resolve().parents[2]


def _examples_importable() -> None:
    """Make ``examples`` importable: it lives beside ``framework`` in the repository, uninstalled."""
    try:
        import examples  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(_REPO_ROOT))


@contextlib.contextmanager
def _extender_server(mode: str) -> Iterator[str]:
    """The example extender, listening on loopback; yields its URL."""
    _examples_importable()
    if mode == "thread":
        from examples.extender.server import make_server

        server = make_server()
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
        return
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "examples.extender.server", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=_REPO_ROOT,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # "extender listening on http://127.0.0.1:PORT"
        if "http://" not in line:
            raise RuntimeError(f"the example extender did not start: {line!r}")
        yield line.strip().rsplit(" ", 1)[-1]
    finally:
        process.terminate()
        process.wait(timeout=10)


def run_variant(
    variant: str, objects: Sequence[Node | Pod], seed: int, url: str = ""
) -> VariantResult:
    """Schedule ``objects`` with the rule as ``"plugin"`` or as ``"extender"`` (at ``url``)."""
    _examples_importable()
    from examples.extender.plugin import NAME, new

    clock = FakeClock()
    api = APIServer(clock)
    for obj in objects:
        api.create(obj)
    registry = in_tree_registry()
    registry.register(NAME, new)
    text = _PLUGIN_CONFIG if variant == "plugin" else _EXTENDER_CONFIG % url
    sched = Scheduler(api, loads_config(text), registry, clock=clock, seed=seed)
    sched.sync()  # informers filled before the clock starts: we time scheduling, not loading
    started: dict[str, float] = {}
    latencies: list[float] = []

    sched.add_tracer(_CycleTimer(started, latencies))
    begin = time.perf_counter()
    sched.schedule_pending()
    elapsed = time.perf_counter() - begin
    sched.stop()
    placements = {p.name: p.spec.node_name for p in api.list(Pod).items}
    bound = sum(1 for node in placements.values() if node)
    return VariantResult(placements, latencies, bound / elapsed if elapsed > 0 else 0.0)


class _CycleTimer(SchedulingTracer):
    """Each scheduling cycle's wall time, in milliseconds."""

    def __init__(self, started: dict[str, float], latencies: list[float]) -> None:
        self.started, self.latencies = started, latencies

    def cycle_started(self, fwk: Framework, queued: QueuedPodInfo) -> None:
        self.started[queued.pod.name] = time.perf_counter()

    def cycle_ended(self, queued: QueuedPodInfo, outcome: CycleOutcome) -> None:
        self.latencies.append((time.perf_counter() - self.started.pop(queued.pod.name)) * 1000.0)


def compare(
    node_counts: Sequence[int], pods: int = DEFAULT_PODS, seed: int = 0, server: str = "process"
) -> list[ComparisonRow]:
    """Run both variants at each cluster size; the extender is started once for all of them."""
    rows = []
    with _extender_server(server) as url:
        for nodes in node_counts:
            objects = make_cluster(nodes, pods)
            plugin = run_variant("plugin", objects, seed)
            extender = run_variant("extender", objects, seed, url)
            rows.append(ComparisonRow(nodes, pods, plugin, extender))
    return rows


def format_comparison(rows: Sequence[ComparisonRow], seed: int) -> str:
    """The side-by-side table, one line per cluster size."""
    lines = [
        f"the example rule as an in-process plugin vs as an extender on loopback; seed {seed}",
        "",
        f"{'nodes':>6} {'pods':>5} | {'plugin p50':>10} {'p99':>7} {'pods/s':>7} | "
        f"{'extender p50':>12} {'p99':>7} {'pods/s':>7} | {'slower':>6}  same placements",
    ]
    for row in rows:
        plugin, extender = row.plugin, row.extender
        p50, e50 = plugin.percentile("Perc50"), extender.percentile("Perc50")
        slower = f"{e50 / p50:.1f}x" if p50 > 0 else "—"
        lines.append(
            f"{row.nodes:>6} {row.pods:>5} | {p50:>10.2f} {plugin.percentile('Perc99'):>7.2f} "
            f"{plugin.pods_per_second:>7.1f} | {e50:>12.2f} "
            f"{extender.percentile('Perc99'):>7.2f} {extender.pods_per_second:>7.1f} | "
            f"{slower:>6}  {'yes' if row.same_placements() else 'no'}"
        )
    lines += [
        "",
        "p50/p99: scheduling attempt latency in ms (cycle start to cycle end); "
        "pods/s: pods bound per second of the whole run; slower: extender p50 / plugin p50. "
        "Both beside the default profile (without the volume plugins this project lacks).",
    ]
    return "\n".join(lines) + "\n"


def main(node_counts: Sequence[int] | None, pods: int, seed: int) -> int:
    """The ``bench extender-vs-plugin`` command: run, print, exit status 0."""
    # Each run builds the default profile, which warns of the volume plugins it lacks: once is
    # enough, and it is said in the report's legend.
    logging.getLogger("framework.runtime.build").setLevel(logging.ERROR)
    rows = compare(node_counts or DEFAULT_NODE_COUNTS, pods, seed)
    print(format_comparison(rows, seed), end="")
    return 0
