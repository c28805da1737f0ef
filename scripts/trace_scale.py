"""The simulator at scale: a cluster that is already full, and one run measured.

    .venv/bin/python scripts/trace_scale.py full --nodes 5000 --pods 200 > full.json
    .venv/bin/python scripts/trace_scale.py basic --nodes 5000 --pods 11000 > basic.json
    .venv/bin/python scripts/trace_scale.py measure big.json --out trace.jsonl.gz

``full`` writes ``generate``'s nodes (and their log agents), each node
filled by a running pod to 0.6 CPU short of its allocatable, and ``--pods``
pending pods of 1 CPU, half of them pinned to the ``general`` pool: no pod
fits, each fails once, Filter says ``Insufficient cpu`` (Unschedulable) on
every node it may use, and preemption finds no victim, since every pod is
as important as the preemptor. That is what most of the attempts of a
150,000-pod run on 5,000 nodes are, once the cluster is full.

``basic`` writes the cluster and pods of the ``SchedulingBasic`` benchmark
(``benchmarks/performance-config.yaml``: nodes of 4 CPU and 32 GiB, pods of
100m and 500 MiB, no spreading, no affinity) as manifests for ``simulate``:
the same pods through both paths, so that what ``simulate`` costs beyond the
benchmark's ``bench`` run is the simulator's own, not the workload's.

``measure`` runs ``framework.simulate(FILE, trace=OUT)`` (what
``simulate FILE --output jsonl --out OUT`` does) and prints one line: the
CPU time in all and from the first attempt on (the cluster built and
cached before it), the wall time, the attempts by how each pod's last one
ended, the pods with more than one attempt, the victims, the peak resident
set and the trace's size as written. Wrap it in ``/usr/bin/time -v`` for
the same figures from outside, and note the load average it prints: on a
shared machine the CPU times are the figures to compare.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import sys
import time
from typing import Any

import framework
from framework.simulator.generate import generate


def full(nodes: int, pods: int) -> dict[str, Any]:
    """The manifests of a full cluster and ``pods`` pending pods that fit nowhere."""
    document: dict[str, Any] = json.loads(generate(nodes, 0))
    fillers = []
    for item in document["items"]:
        if item["kind"] != "Node":
            continue
        name = item["metadata"]["name"]
        cpu = float(item["status"]["allocatable"]["cpu"]) - 0.6
        container = {"name": "c", "image": "x", "resources": {"requests": {"cpu": f"{cpu:.1f}"}}}
        spec = {
            "nodeName": name,
            "tolerations": [{"operator": "Exists"}],
            "containers": [container],
        }
        metadata = {"name": f"fill-{name}", "namespace": "default"}
        fillers.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
    document["items"] += fillers
    for index in range(pods):
        container = {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}
        pending: dict[str, Any] = {"containers": [container]}
        if index % 2:
            pending["nodeSelector"] = {"pool": "general"}
        metadata = {"name": f"p-{index:05d}", "namespace": "default"}
        document["items"].append(
            {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pending}
        )
    return document


def basic(nodes: int, pods: int) -> dict[str, Any]:
    """SchedulingBasic's nodes and pods (its templates), all pods pending, as one List."""
    items: list[dict[str, Any]] = []
    for index in range(nodes):
        name = f"node-{index:05d}"
        allocatable = {"cpu": "4", "memory": "32Gi", "pods": "110"}
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                "status": {
                    "capacity": dict(allocatable),
                    "allocatable": allocatable,
                    "conditions": [{"type": "Ready", "status": "True"}],
                },
            }
        )
    amounts = {"cpu": "100m", "memory": "500Mi"}
    for index in range(pods):
        container = {
            "name": "pause",
            "image": "registry.k8s.io/pause:3.10",
            "ports": [{"containerPort": 80}],
            "resources": {"limits": dict(amounts), "requests": dict(amounts)},
        }
        metadata = {"name": f"pod-{index:06d}", "namespace": "sched-test"}
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": metadata,
                "spec": {"containers": [container]},
            }
        )
    return {"apiVersion": "v1", "kind": "List", "items": items}


def measure(source: str, out: str) -> str:
    """One streamed run of ``source`` with its v2 trace written to ``out``, as one line."""
    cpu, wall = time.process_time(), time.time()
    first: list[float] = []

    def progress(bound: int, pending: int) -> None:
        if not first:
            first.append(time.process_time())

    result = framework.simulate(source, trace=out, progress=progress)
    records = result.attempt_records or {}
    ended = collections.Counter(record.last.result for record in records.values())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_mib = peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
    since = time.process_time() - first[0] if first else 0.0
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"load average {load}; CPU {time.process_time() - cpu:.1f} s "
        f"({since:.1f} s from the first attempt); wall {time.time() - wall:.1f} s; "
        f"{result.attempt_count} attempts, last ended {dict(ended)}; "
        f"{sum(1 for r in records.values() if r.count > 1)} pods tried more than once; "
        f"{len(result.preemptions())} preempted; peak {peak_mib:.0f} MiB; "
        f"trace {os.path.getsize(out):,} bytes"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("full", help="a full cluster and pods that fit nowhere (stdout)")
    make.add_argument("--nodes", type=int, default=5000)
    make.add_argument("--pods", type=int, default=200)
    same = commands.add_parser("basic", help="SchedulingBasic's nodes and pods (stdout)")
    same.add_argument("--nodes", type=int, default=5000)
    same.add_argument("--pods", type=int, default=11000)
    run = commands.add_parser("measure", help="one streamed run, measured")
    run.add_argument("file")
    run.add_argument("--out", required=True, help="the v2 trace (.gz: compressed)")
    args = parser.parse_args()
    if args.command in ("full", "basic"):
        make_document = full if args.command == "full" else basic
        json.dump(make_document(args.nodes, args.pods), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(measure(args.file, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
