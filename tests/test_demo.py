"""The README's demo: the built-in cluster scheduled, reproducibly, with Kubernetes' messages."""

from __future__ import annotations

import subprocess
import sys

from framework.apiserver import APIServer
from framework.demo import run_demo
from framework.naive import NaiveScheduler, fit_error_message
from framework.objects import Event, Node, Pod
from framework.objects.manifest import loads


def test_demo_places_every_pod_that_fits_and_explains_the_one_that_does_not() -> None:
    report = run_demo()
    lines = report.splitlines()
    assert lines[0].startswith("Scheduled 5 of 6 pending pods")
    placed = {line.split()[0]: line.split()[3] for line in lines[3:9]}
    assert placed == {
        "default/batch": "node-a",
        "default/cache": "node-b",
        "default/db": "node-a",
        "default/trainer": "<none>",
        "default/web-1": "node-a",
        "default/web-2": "node-a",
    }
    assert (
        "FailedScheduling  pod/trainer  0/3 nodes are available: "
        "1 node(s) were unschedulable, 2 Insufficient cpu." in report
    )
    assert "Scheduled         pod/db       Successfully assigned default/db to node-a" in report


def test_demo_output_is_the_same_every_run() -> None:
    assert run_demo() == run_demo()


def test_python_dash_m_framework_demo_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "framework", "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "Scheduled 5 of 6 pending pods" in result.stdout


def test_fit_error_message_counts_reasons_and_sorts_them_as_text() -> None:
    reasons = [["Insufficient cpu"]] * 10 + [["node(s) were unschedulable"]] * 2
    assert fit_error_message(12, reasons) == (
        "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were unschedulable."
    )


def test_naive_scheduler_respects_allocatable_pod_count_and_higher_priority_first() -> None:
    api = APIServer()
    for obj in loads(
        """
kind: Node
metadata: {name: tiny}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "1"}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 10
---
kind: Pod
metadata: {name: low}
spec: {containers: [{name: c, image: busybox}]}
---
kind: Pod
metadata: {name: high}
spec: {priorityClassName: high, containers: [{name: c, image: busybox}]}
"""
    ):
        api.create(obj)
    placements = NaiveScheduler(api).schedule_pending()
    assert [(p.pod, p.node) for p in placements] == [
        ("default/high", "tiny"),
        ("default/low", None),
    ]
    assert placements[1].message == "0/1 nodes are available: 1 Too many pods."
    assert api.get(Pod, "high", namespace="default").spec.node_name == "tiny"
    assert {e.reason for e in api.list(Event).items} == {"Scheduled", "FailedScheduling"}
    assert api.get(Node, "tiny").name == "tiny"
