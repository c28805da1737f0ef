"""Chapter 1's first-fit scheduler: reproducible, in Kubernetes' words.

The FailedScheduling message is ``FitError.Error``
(``kubernetes/kubernetes:pkg/scheduler/framework/types.go``): each reason
counted over the nodes, the entries sorted as strings (so ``10 ...`` before
``2 ...``); the reasons are those of the NodeUnschedulable and
NodeResourcesFit plugins (``plugins/nodeunschedulable``,
``plugins/noderesources/fit.go``).
"""

from __future__ import annotations

import subprocess
import sys

from framework.apiserver import APIServer
from framework.cli.naive import NaiveScheduler, run_first_fit
from framework.objects import Event, Node, Pod
from framework.objects.manifest import loads


def test_first_fit_places_every_pod_that_fits_and_explains_the_one_that_does_not() -> None:
    report = run_first_fit()
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


def test_first_fit_is_the_same_every_run() -> None:
    assert run_first_fit() == run_first_fit()


def test_python_dash_m_framework_naive_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "framework.cli.naive"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.startswith("Scheduled 5 of 6 pending pods")


def test_the_message_counts_reasons_and_sorts_them_as_text() -> None:
    nodes = [
        f'kind: Node\nmetadata: {{name: n{i:02d}}}\nstatus: {{allocatable: {{cpu: "1", pods: "9"}}}}'
        for i in range(10)
    ] + [
        f"kind: Node\nmetadata: {{name: c{i}}}\nspec: {{unschedulable: true}}\n"
        'status: {allocatable: {cpu: "8", pods: "9"}}'
        for i in range(2)
    ]
    pod = (
        "kind: Pod\nmetadata: {name: big}\n"
        'spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}'
    )
    api = APIServer()
    for obj in loads("\n---\n".join([*nodes, pod])):
        api.create(obj)
    [placement] = NaiveScheduler(api).schedule_pending()
    assert placement.message == (
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
