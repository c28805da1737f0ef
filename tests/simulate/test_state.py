"""A cluster's state survives loading: start times, phases, conditions, nominations, terminations.

Expectations from Kubernetes (v1.33):

* ``pickOneNodeForPreemption``
  (``kubernetes/kubernetes:pkg/scheduler/framework/preemption/preemption.go``) breaks a tie on
  the victims with ``GetEarliestPodStartTime``
  (``pkg/scheduler/util/utils.go``): the node whose most important victims started *latest*
  wins, compared with ``metav1.Time.Before``, to the nanosecond;
* ``SelectVictimsOnNode`` (``pkg/scheduler/framework/plugins/defaultpreemption``) reprieves
  victims most important first (``MoreImportantPod``: priority, then the earlier start);
* PodTopologySpread counts no pod that has a ``deletionTimestamp``
  (``pkg/scheduler/framework/plugins/podtopologyspread/common.go``, ``countPodsMatchSelector``);
* ``deletionTimestamp`` is the graceful delete's moment plus its grace period
  (``staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go``, ``BeforeDelete``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import framework
from framework.apiserver import APIServer
from framework.clock import FakeClock, parse_rfc3339
from framework.objects import Pod, PodDisruptionBudget
from framework.objects.manifest import loads
from framework.simulator.inputs import SimulationInputError
from framework.simulator.state import load_state, state_clock

LATE = "2026-11-30T10:00:00Z"


def node(name: str, zone: str = "a", cpu: str = "1") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
        "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "110"}},
    }


def pod(
    name: str,
    node_name: str = "",
    cpu: str = "1",
    *,
    start: str | None = None,
    priority_class: str = "",
    labels: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]
    }
    if node_name:
        spec["nodeName"] = node_name
    if priority_class:
        spec["priorityClassName"] = priority_class
    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": spec,
    }
    if start is not None:
        document["status"] = {"phase": "Running", "startTime": start}
    for key, value in extra.items():
        document.setdefault(key, {}).update(value)
    return document


HIGH = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "high"},
    "value": 1000,
}


def preemption_cluster(start_a: str, start_b: str) -> list[dict[str, Any]]:
    """Two full nodes, one victim each: only the start times tell the nodes apart."""
    return [
        HIGH,
        node("n1"),
        node("n2"),
        pod("a", "n1", start=start_a),
        pod("b", "n2", start=start_b),
        pod("preemptor", priority_class="high"),
    ]


@pytest.mark.parametrize(
    ("early", "late"),
    [
        ("2026-11-30T09:00:00Z", LATE),
        ("2026-11-30T10:00:00.000000001Z", "2026-11-30T10:00:00.000000002Z"),  # 1 ns apart
    ],
)
@pytest.mark.parametrize("late_on", ["n1", "n2"])
def test_preemption_picks_the_node_whose_victim_started_latest(
    early: str, late: str, late_on: str
) -> None:
    # Either way round: with the start times lost, the tie would go to the same node both times.
    starts = (late, early) if late_on == "n1" else (early, late)
    result = framework.simulate(*preemption_cluster(*starts))
    victim, kept = ("a", "b") if late_on == "n1" else ("b", "a")
    assert result.placements[f"default/{victim}"] is None  # it has run the shortest
    assert result.placements[f"default/{kept}"] is not None
    assert result.placements["default/preemptor"] == late_on


def test_the_victim_on_a_node_is_the_pod_that_started_last() -> None:
    documents = [
        HIGH,
        node("n1", cpu="2"),
        pod("late", "n1", start=LATE),  # first in the file: a tie would keep it
        pod("early", "n1", start="2026-11-30T08:00:00Z"),
        pod("preemptor", priority_class="high"),
    ]
    result = framework.simulate(*documents)
    assert result.placements["default/late"] is None
    assert result.placements["default/early"] == "n1"


def terminating(document: dict[str, Any], at: str, grace: int = 30) -> dict[str, Any]:
    document["metadata"]["deletionTimestamp"] = at
    document["metadata"]["deletionGracePeriodSeconds"] = grace
    return document


SPREAD = {
    "topologySpreadConstraints": [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]
}


def test_a_terminating_pod_is_not_counted_by_topology_spread() -> None:
    web = {"app": "web"}
    documents = [
        node("a1", "a", cpu="4"),
        node("b1", "b", cpu="4"),
        # Counted, zone a would have 1 like zone b and the emptier b1 would win on resources;
        # not counted, zone a has 0 and a pod in b would make the skew 2.
        terminating(pod("old", "a1", "2", labels=web, start=LATE), "2026-11-30T10:00:30Z"),
        pod("web-b", "b1", "100m", labels=web, start=LATE),
        pod("new", cpu="100m", labels=web, spec=SPREAD),
    ]
    result = framework.simulate(*documents)
    assert result.placements["default/new"] == "a1"


def loaded(documents: list[dict[str, Any]]) -> tuple[APIServer, FakeClock]:
    objects = [obj for d in documents for obj in loads(yaml.safe_dump(d))]
    clock = state_clock(objects)
    api = APIServer(clock, rng=random.Random(0))
    load_state(api, clock, objects)
    return api, clock


def test_each_state_field_survives_loading() -> None:
    conditions = [
        {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-30T09:00:05.25Z"},
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-30T09:00:00Z"},
    ]
    running = pod("web", "n1", start="2026-11-30T09:00:01.123456789Z", labels={"app": "web"})
    running["status"]["conditions"] = conditions
    going = terminating(pod("going", "n1", "100m", start=LATE), "2026-11-30T10:01:00Z", grace=90)
    nominated = pod("waiting", status={"nominatedNodeName": "n1", "phase": "Pending"})
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"minAvailable": 0, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"disruptedPods": {"web": "2026-11-30T09:59:30Z"}},
    }
    api, clock = loaded([node("n1", cpu="4"), budget, running, going, nominated])
    web = api.get(Pod, "web")
    assert web.status.phase == "Running"
    assert web.status.start_time == "2026-11-30T09:00:01.123456789Z"
    assert [c.to_dict() for c in web.status.conditions] == conditions
    assert web.status.qos_class == "Burstable"  # the server's, kept
    gone = api.get(Pod, "going")
    assert gone.metadata.deletion_timestamp == "2026-11-30T10:01:00Z"
    assert gone.metadata.deletion_grace_period_seconds == 90
    assert api.get(Pod, "waiting").status.nominated_node_name == "n1"
    status = api.get(PodDisruptionBudget, "web").status
    assert status.disrupted_pods == {"web": "2026-11-30T09:59:30Z"}
    assert status.current_healthy == 0  # the evicted pod is not counted healthy
    # The simulation goes on from the latest moment the state records, not from 2025.
    assert clock.now() == parse_rfc3339(LATE)


def test_a_snapshot_with_no_state_starts_when_it_always_did() -> None:
    api, clock = loaded([node("n1"), pod("p")])
    assert clock.now() == FakeClock().now()
    assert api.get(Pod, "p").status.phase == "Pending"


def test_a_status_the_server_refuses_is_a_clear_error() -> None:
    bad = pod("p", "n1", start="yesterday")
    with pytest.raises(SimulationInputError) as error:
        framework.simulate(node("n1"), bad)
    assert "Pod default/p" in str(error.value) and "startTime" in str(error.value)


def test_a_pod_terminating_at_the_start_is_reported_as_such() -> None:
    """It was on its node when the run began; its grace period ended during the run.

    Not "running on node None": the table, ``explain`` and the HTML page name the node it
    was on and say it was being deleted (kube's ``rest.BeforeDelete``: it stays, marked,
    until its grace period ends).
    """
    from io import StringIO

    from framework.simulator.explain import explain
    from framework.simulator.report import render_table
    from framework.simulator.report_html import write_html

    going = terminating(pod("going", "n1", "100m", start=LATE), "2026-11-30T10:01:00Z")
    result = framework.simulate(node("n1"), pod("stays", "n1", "100m", start=LATE), going)
    assert result.placements["default/going"] is None  # deleted when its grace period ended
    (row,) = [line for line in render_table(result).splitlines() if "default/going" in line]
    assert "terminating before the simulation" in row and "(was on n1)" in row
    (stays,) = [line for line in render_table(result).splitlines() if "default/stays" in line]
    assert stays.split()[3] == "n1" and "running before the simulation" in stays
    text = explain(result, "default/going")
    assert "None" not in text
    assert "terminating on node n1 before the simulation" in text
    assert "deleted when its grace period ended" in text
    page = StringIO()
    write_html(result, page)
    assert "on None" not in page.getvalue()
    assert "Terminating on n1 before the simulation" in page.getvalue()
    assert '<span class="badge Deleted">Deleted</span> <code>default/going</code>' in (
        page.getvalue()
    )


def test_a_v2_trace_keeps_what_a_pod_terminating_at_the_start_was(tmp_path: Path) -> None:
    """``explain --trace`` reads back the node it was on and that it was being deleted."""
    from framework.simulator.explain import explain
    from framework.simulator.trace import read_trace, trace_v2_schema, write_trace_v2

    going = terminating(pod("going", "n1", "100m", start=LATE), "2026-11-30T10:01:00Z")
    result = framework.simulate(node("n1"), pod("stays", "n1", "100m", start=LATE), going)
    path = tmp_path / "trace.jsonl"
    with path.open("w") as out:
        write_trace_v2(result, out)
    validator = jsonschema.Draft202012Validator(trace_v2_schema())
    for line in path.read_text().splitlines():
        validator.validate(json.loads(line))
    back = read_trace(path)
    assert explain(back, "default/going") == explain(result, "default/going")
    assert explain(back, "default/stays") == explain(result, "default/stays")


def test_a_claims_phase_survives_loading_and_volume_binding_reads_it() -> None:
    """A claim snapshotted ``Lost`` (its volume deleted) stops its pod in the replay as in the
    cluster: VolumeBinding's PreFilter (``podHasPVCs``, ``volume_binding.go``, v1.33) refuses a
    pod whose claim is ``Lost``, UnschedulableAndUnresolvable."""
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "volumeName": "pv-gone",
        },
        "status": {"phase": "Lost"},
    }
    db = pod(
        "db", spec={"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}
    )
    api, _ = loaded([node("n1"), claim])
    from framework.objects.storage import PersistentVolumeClaim

    assert api.get(PersistentVolumeClaim, "data").status.phase == "Lost"
    result = framework.simulate(node("n1"), claim, db)
    assert result.placements["default/db"] is None
    message = result.last_attempt("default/db").message  # type: ignore[union-attr]
    assert 'persistentvolumeclaim "data" bound to non-existent persistentvolume "pv-gone"' in (
        message
    )
