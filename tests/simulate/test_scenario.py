"""Scenarios: timed operations in simulated time, and what they do to the cluster over time.

Expectations from Kubernetes (v1.33):

* kube-scheduler does not watch finished pods (``pkg/scheduler/scheduler.go``,
  ``newPodInformer``: ``status.phase!=Succeeded,status.phase!=Failed``), so a
  Job's pod that completed frees its room and a pod waiting for it is placed;
* a cordoned node (``spec.unschedulable``) takes no new pods
  (``nodeunschedulable``: "node(s) were unschedulable"); ``kubectl drain``
  cordons, then evicts, and a ReplicaSet replaces the pods it lost
  (``pkg/controller/replicaset``: a terminating pod is not active);
* the pod garbage collector deletes pods bound to a node that is gone
  (``pkg/controller/podgc``, ``gcOrphaned``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest
import yaml

from framework.__main__ import main
from framework.simulator.inputs import SimulationInputError
from framework.simulator.scenario import (
    ScenarioResult,
    load_scenario,
    render_scenario_table,
    run_scenario,
    write_scenario_html,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "batch-day.yaml"


@pytest.fixture(scope="module")
def day() -> ScenarioResult:
    return run_scenario(EXAMPLE)


def at(result: ScenarioResult, clock: str):  # type: ignore[no-untyped-def]
    h, m = (int(x) for x in clock.split(":"))
    (sample,) = [s for s in result.samples if s.at == h * 3600 + m * 60]
    return sample


def test_the_example_validates_against_the_scenario_schema() -> None:
    text = files("framework.simulator").joinpath("scenario-v1alpha1.schema.json").read_text()
    schema = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = list(
        jsonschema.Draft202012Validator(schema).iter_errors(yaml.safe_load(EXAMPLE.read_text()))
    )
    assert not errors, [e.message for e in errors]


def test_a_day_of_a_batch_cluster(day: ScenarioResult) -> None:
    assert len(day.samples) == 12 * 4 + 1  # every 15 minutes, the end included
    assert [what.split()[0] for _, what in day.applied] == [
        "create", "create", "drain", "addNode", "changeConfig", "create", "create", "uncordon",
        "scale",
    ]  # fmt: skip
    # Which workload each create made, so the report's operations can be read on their own.
    assert day.applied[0][1] == "create Job batch/etl: 10 pod(s), each running 2:00:00"
    assert at(day, "0:00").running == 6 and at(day, "0:00").pending == 0  # the web Deployment
    assert at(day, "1:00").running == 16  # the ETL burst
    assert at(day, "1:45").pending > 0  # the reports wait for room...
    assert at(day, "1:45").utilisation("cpu") == 1.0
    assert at(day, "3:00").pending == 0 and at(day, "3:00").running == 6  # ...and all finished
    assert "Insufficient cpu" in day.reasons  # the reports, waiting for room
    assert max(day.latencies) >= 15 * 60 and day.percentile(50) == 0.0
    assert at(day, "10:15").running == 3  # the web Deployment scaled down for the evening


def test_after_the_restart_the_night_jobs_are_packed(day: ScenarioResult, tmp_path: Path) -> None:
    document = yaml.safe_load(EXAMPLE.read_text())
    spec = document["spec"]
    spec["operations"] = [op for op in spec["operations"] if "changeConfig" not in op]
    spec["cluster"] = [str(EXAMPLE.parent / c) for c in spec["cluster"]]
    (tmp_path / "no-restart.yaml").write_text(yaml.safe_dump(document))
    spread = run_scenario(tmp_path / "no-restart.yaml")

    def nightly(result: ScenarioResult) -> set[str | None]:
        placements = result.simulation.placements.items()
        return {node for pod, node in placements if pod.startswith("batch/nightly")}

    assert len(nightly(day)) == 2 < len(nightly(spread))  # MostAllocated fills two nodes...
    # ...and leaves whole ones free: the urgent Job preempts nobody, where spread it does.
    assert at(day, "7:30").preemptions == at(day, "7:00").preemptions
    assert at(spread, "7:30").preemptions > at(spread, "7:00").preemptions


def test_a_drained_node_keeps_no_pod_and_the_controllers_replace_theirs(
    day: ScenarioResult,
) -> None:
    placements = day.simulation.placements
    drained = [p for p, node in placements.items() if node == "worker-4"]
    running = {p for p, node in placements.items() if node}
    assert not [p for p in drained if p in running and not p.startswith("batch/")]
    web = [p for p in running if p.startswith("shop/web")]
    assert len(web) == 3  # scaled down to three at 10h, replacements included


def scenario_file(tmp_path: Path, operations: list[dict[str, object]], **spec: object) -> Path:
    cluster = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}},
    }
    document = {
        "apiVersion": "simulator.ksf.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "t"},
        "spec": {"cluster": [cluster], "duration": "3h", "sampleEvery": "30m",
                 "operations": operations, **spec},
    }  # fmt: skip
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "j"},
    "spec": {
        "parallelism": 3,
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}
                ],
            }
        },
    },
}


def test_a_pod_waits_until_a_job_pod_completes(tmp_path: Path) -> None:
    result = run_scenario(scenario_file(tmp_path, [{"at": "0s", "create": JOB, "runFor": "1h"}]))
    assert [s.running for s in result.samples] == [2, 2, 1, 1, 0, 0, 0]
    assert [s.pending for s in result.samples] == [1, 1, 0, 0, 0, 0, 0]
    assert result.latencies == (0.0, 0.0, 3600.0)  # the third waited for the first to finish


def test_removing_a_node_takes_its_pods(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, [{"at": "0s", "create": JOB}, {"at": "1h", "removeNode": "n1"}])
    result = run_scenario(path)
    last = result.samples[-1]
    assert last.running == 0 and last.allocatable.get("cpu", 0) == 0
    assert last.pending == 3  # the Job's replacements, with no node to go to


def test_the_same_scenario_and_seed_give_the_same_report(day: ScenarioResult) -> None:
    assert render_scenario_table(run_scenario(EXAMPLE)) == render_scenario_table(day)


@pytest.mark.parametrize(
    ("operation", "message"),
    [
        ({"at": "soon", "cordon": "n1"}, "spec.operations[0].at: 'soon' is not a duration"),
        ({"at": "1h", "cordon": "n1", "drain": "n1"}, "give exactly one of"),
        ({"at": "1h", "restart": "web"}, "spec.operations[0].restart: unknown field"),
        ({"at": "1h", "scale": "web"}, "spec.operations[0].scale: give kind, name"),
        ({"at": "1h", "cordon": "n1", "runFor": "1h"}, "only a create operation takes runFor"),
        ({"at": "1h", "addNode": JOB}, "spec.operations[0].addNode: one Node manifest"),
    ],
)
def test_a_bad_scenario_says_where(
    tmp_path: Path, operation: dict[str, object], message: str
) -> None:
    with pytest.raises(SimulationInputError) as error:
        load_scenario(scenario_file(tmp_path, [operation]))
    assert message in str(error.value)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.tags.append(tag)


def test_the_html_report_draws_pending_and_utilisation_over_time(
    day: ScenarioResult, tmp_path: Path
) -> None:
    page = tmp_path / "day.html"
    with page.open("w", encoding="utf-8") as out:
        write_scenario_html(day, out)
    parser = _Tags()
    parser.feed(page.read_text())
    assert parser.tags.count("svg") == 2 and parser.tags.count("polyline") == 2 + 3
    assert "http" not in page.read_text().replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert_renders(page, tmp_path / "day.png")


def assert_renders(page: Path, shot: Path) -> None:
    """Headless Chromium draws ``page`` offline (a proxy to nowhere) into a non-empty PNG."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("no Chromium to render the page in (apt-get install chromium)")
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9",
         "--window-size=900,700", f"--screenshot={shot}", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_the_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Scenario batch-day: 12:00:00 simulated (seed 0, kube-scheduler v1.37).")
    assert "Unschedulable reasons" in out


# --- a configuration change mid-run (kube-scheduler restarted with a new configuration) ---------
#
# kube-scheduler reads its configuration once, at start (cmd/kube-scheduler/app/server.go, v1.33:
# Setup → scheduler.New): a new configuration means a new process. Its queue, cache and backoffs
# are memory only; the new one lists every pod (pkg/scheduler/eventhandlers.go: an unbound pod goes
# to the active queue, addPodToSchedulingQueue), so a pod left unschedulable is tried at once.

MOST_ALLOCATED = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "pluginConfig": [
                {
                    "name": "NodeResourcesFit",
                    "args": {
                        "scoringStrategy": {
                            "type": "MostAllocated",
                            "resources": [
                                {"name": "cpu", "weight": 1},
                                {"name": "memory", "weight": 1},
                            ],
                        }
                    },
                }
            ],
        }
    ],
}


def only_zone_a() -> dict[str, object]:
    """A configuration whose NodeAffinity enforces ``zone: a`` on every pod (addedAffinity)."""
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    args = {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [term]}}}  # fmt: skip
    config: dict[str, object] = {**MOST_ALLOCATED, "profiles": [
        {"schedulerName": "default-scheduler",
         "pluginConfig": [{"name": "NodeAffinity", "args": args}]}]}  # fmt: skip
    return config


def two_nodes() -> list[dict[str, object]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"zone": "b"}},
            "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "110"}},
        }
        for name in ("n1", "n2")
    ]


def pod(name: str, cpu: str = "1", memory: str = "1Gi") -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "x",
                                 "resources": {"requests": {"cpu": cpu, "memory": memory}}}]},
    }  # fmt: skip


def write_config(tmp_path: Path, name: str, config: dict[str, object]) -> str:
    (tmp_path / name).write_text(yaml.safe_dump(config))
    return name


def test_after_a_config_change_pods_are_placed_by_the_new_configuration(tmp_path: Path) -> None:
    most = write_config(tmp_path, "most.yaml", MOST_ALLOCATED)
    ops: list[dict[str, object]] = [
        {"at": "0s", "create": [pod("a"), pod("b")]},
        {"at": "1h", "changeConfig": most},
        {"at": "2h", "create": [pod("c"), pod("d")]},
    ]
    result = run_scenario(scenario_file(tmp_path, ops, cluster=two_nodes()))
    where = result.simulation.placements
    assert where["default/a"] != where["default/b"]  # LeastAllocated spreads...
    assert where["default/c"] == where["default/d"]  # ...MostAllocated, after the restart, packs
    assert ("1:00:00", "changeConfig most.yaml (kube-scheduler restarted)") in [
        (_clock(at), what) for at, what in result.applied
    ]
    unchanged = run_scenario(scenario_file(tmp_path, [ops[0], ops[2]], cluster=two_nodes()))
    placed = unchanged.simulation.placements
    assert placed["default/c"] != placed["default/d"]


def test_the_restarted_scheduler_tries_a_pending_pod_at_once(tmp_path: Path) -> None:
    zone_a = write_config(tmp_path, "zone-a.yaml", only_zone_a())
    most = write_config(tmp_path, "most.yaml", MOST_ALLOCATED)
    ops: list[dict[str, object]] = [
        {"at": "0s", "create": pod("p")},
        {"at": "1h17m", "changeConfig": most},
    ]
    path = scenario_file(tmp_path, ops, cluster=two_nodes(), config=zone_a)
    result = run_scenario(path)
    assert result.simulation.placements["default/p"] is not None
    assert result.latencies == (77 * 60.0,)  # bound the moment the new scheduler started
    assert "node(s) didn't match scheduler-enforced node affinity" in result.reasons
    stays = run_scenario(scenario_file(tmp_path, ops[:1], cluster=two_nodes(), config=zone_a))
    assert stays.simulation.placements["default/p"] is None


def test_cluster_manifests_given_as_a_scenario_say_what_a_scenario_is(tmp_path: Path) -> None:
    # The mistake a new user makes: `scenario cluster.yaml`. Say what a Scenario is and
    # which command takes a cluster's manifests, not only what the YAML parser saw.
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: b}\n")
    with pytest.raises(SimulationInputError) as error:
        load_scenario(cluster)
    assert str(error.value) == (
        f"{cluster}: a Scenario manifest is one YAML document (apiVersion: "
        "simulator.ksf.dev/v1alpha1, kind: Scenario), and this file has several: for "
        f"a cluster's manifests use python -m framework simulate {cluster}"
    )
    node = tmp_path / "node.yaml"
    node.write_text("kind: Node\nmetadata: {name: a}\n")
    with pytest.raises(SimulationInputError) as error:
        load_scenario(node)
    assert "apiVersion/kind: must be simulator.ksf.dev/v1alpha1 / Scenario, not Node" in str(
        error.value
    )


def test_scenario_out_says_where_the_output_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As simulate --out does: a run that prints nothing leaves the user guessing.
    path, page = scenario_file(tmp_path, []), tmp_path / "day.html"
    assert main(["scenario", str(path), "--output", "html", "--out", str(page)]) == 0
    assert capsys.readouterr().out == f"wrote the html output to {page}\n"
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_a_bad_configuration_is_reported_at_load_time(tmp_path: Path) -> None:
    bad = write_config(tmp_path, "bad.yaml", {**MOST_ALLOCATED, "profiles": "no"})
    ops: list[dict[str, object]] = [{"at": "1h", "changeConfig": bad}]
    with pytest.raises(SimulationInputError) as error:
        load_scenario(scenario_file(tmp_path, ops))
    assert "bad.yaml" in str(error.value)
    with pytest.raises(SimulationInputError) as error:
        load_scenario(scenario_file(tmp_path, [{"at": "1h", "changeConfig": "missing.yaml"}]))
    assert "spec.operations[0].changeConfig" in str(error.value)
    # Valid as a file, refused by the framework (runtime/framework.go: "does not extend")
    profile = {"schedulerName": "default-scheduler",
               "plugins": {"score": {"enabled": [{"name": "NodeName", "weight": 2}]}}}  # fmt: skip
    refused = write_config(tmp_path, "refused.yaml", {**MOST_ALLOCATED, "profiles": [profile]})
    with pytest.raises(SimulationInputError) as error:
        load_scenario(scenario_file(tmp_path, [{"at": "1h", "changeConfig": refused}]))
    assert 'refused.yaml: plugin "NodeName" does not extend ScorePlugin' in str(error.value)


# --- scale: a controller's replicas (a Job's parallelism) changed at a time ----------------------
#
# pkg/controller/replicaset/replica_set.go (v1.33), manageReplicas: too few active pods → create
# the difference; too many → delete the difference, chosen by getPodsToDelete: unassigned before
# assigned, then (ActivePodsWithRanks, pkg/controller/controller_utils.go) pending before running,
# not ready before ready, more of the set's pods on the same node first, and the newest first.
# A terminating pod is not active, so the pods deleted are not replaced.


def deployment(replicas: int, name: str = "web") -> dict[str, object]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "x",
                                         "resources": {"requests": {"cpu": "1"}}}]},
            },
        },
    }  # fmt: skip


def node(cpu: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "110"}},
    }


def test_scaling_a_deployment_up_and_down(tmp_path: Path) -> None:
    ops: list[dict[str, object]] = [
        {"at": "1h", "scale": {"kind": "Deployment", "name": "web", "replicas": 3}},
        {"at": "2h", "scale": {"kind": "Deployment", "name": "web", "replicas": 1}},
    ]
    path = scenario_file(tmp_path, ops, cluster=[node("4"), deployment(1)])
    result = run_scenario(path)
    # At 2:00 the two pods scaled away are terminating: they hold their room for the 30 s of
    # their grace period (the API server's default), as on a node.
    assert [s.running for s in result.samples] == [1, 1, 3, 3, 3, 1, 1]
    assert [s.pending for s in result.samples] == [0] * 7
    assert [what for _, what in result.applied] == [
        "scale Deployment default/web to 3 replicas",
        "scale Deployment default/web to 1 replicas",
    ]
    assert sum(1 for node in result.simulation.placements.values() if node) == 1  # none replaced


def test_scaling_down_deletes_an_unassigned_pod_first(tmp_path: Path) -> None:
    ops: list[dict[str, object]] = [
        {"at": "1h", "scale": {"kind": "Deployment", "name": "web", "replicas": 2}},
    ]
    path = scenario_file(tmp_path, ops, cluster=[node("2"), deployment(3)])
    result = run_scenario(path)
    running_pending = [(s.running, s.pending) for s in result.samples]
    assert running_pending == [(2, 1), (2, 1), (2, 0), (2, 0), (2, 0), (2, 0), (2, 0)]
    pods = [p.key for p in result.simulation.pods]  # in creation order
    assert [result.simulation.placements[p] for p in pods] == ["n1", "n1", None]


def test_scaling_down_deletes_the_newer_pod(tmp_path: Path) -> None:
    ops: list[dict[str, object]] = [
        {"at": "1h", "scale": {"kind": "Deployment", "name": "web", "replicas": 2}},
        {"at": "2h", "scale": {"kind": "Deployment", "name": "web", "replicas": 1}},
    ]  # at 2h, one pod is 2 h old, the other 1 h: log2 of their ages in ns differ (42 and 41)
    path = scenario_file(tmp_path, ops, cluster=[node("4"), deployment(1)])
    result = run_scenario(path)
    older, newer = (p.key for p in result.simulation.pods)
    assert result.simulation.placements[older] == "n1"
    assert result.simulation.placements[newer] is None


def test_scaling_a_job_creates_pods_that_run_as_long(tmp_path: Path) -> None:
    job = {**JOB, "spec": {**JOB["spec"], "parallelism": 1}}  # type: ignore[dict-item]
    ops: list[dict[str, object]] = [
        {"at": "0s", "create": job, "runFor": "1h"},
        {"at": "30m", "scale": {"kind": "Job", "name": "j", "parallelism": 2}},
    ]
    result = run_scenario(scenario_file(tmp_path, ops))
    assert [s.running for s in result.samples] == [1, 2, 1, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("scale", "message"),
    [
        ({"kind": "Deployment", "name": "nope", "replicas": 2},
         "spec.operations[0].scale: no Deployment default/nope in spec.cluster or created before"),
        ({"kind": "Job", "name": "j", "replicas": 2},
         "spec.operations[0].scale.replicas: a Job is scaled by parallelism"),
        ({"kind": "Deployment", "name": "web", "replicas": -1},
         "spec.operations[0].scale.replicas: must be a non-negative integer"),
        ({"kind": "Pod", "name": "web", "replicas": 2}, "spec.operations[0].scale.kind"),
    ],
)  # fmt: skip
def test_a_bad_scale_says_where(tmp_path: Path, scale: dict[str, object], message: str) -> None:
    path = scenario_file(
        tmp_path, [{"at": "1h", "scale": scale}], cluster=[node("4"), deployment(1)]
    )
    with pytest.raises(SimulationInputError) as error:
        load_scenario(path)
    assert message in str(error.value)


# --- compare over a scenario: two configurations, one timeline ----------------------------------


def test_compare_runs_a_scenario_under_each_configuration(tmp_path: Path) -> None:
    from framework.simulator.scenario_compare import compare_scenario, render_scenario_comparison

    most = write_config(tmp_path, "most.yaml", MOST_ALLOCATED)
    least = write_config(tmp_path, "least.yaml", {**MOST_ALLOCATED, "profiles": [
        {"schedulerName": "default-scheduler"}]})  # fmt: skip
    ops: list[dict[str, object]] = [{"at": "0s", "create": [pod("a"), pod("b")]}]
    path = scenario_file(tmp_path, ops, cluster=two_nodes())
    comparison = compare_scenario(path, configs=[tmp_path / least, tmp_path / most], seed=0)
    a, b = comparison.results
    assert len({a.simulation.placements["default/a"], a.simulation.placements["default/b"]}) == 2
    assert len({b.simulation.placements["default/a"], b.simulation.placements["default/b"]}) == 1
    text = render_scenario_comparison(comparison)
    assert text == render_scenario_comparison(compare_scenario(path, [tmp_path / least,
                                                                       tmp_path / most]))  # fmt: skip
    assert "A: " in text and "B: " in text and "least.yaml" in text and "most.yaml" in text
    for row in ("pods bound", "pending at the end", "peak pending", "preemptions",
                "latency p50", "latency p99", "mean cpu"):  # fmt: skip
        assert row in text, row


def test_the_compare_command_overlays_the_curves_of_a_scenario(
    day: ScenarioResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    most = write_config(tmp_path, "most.yaml", MOST_ALLOCATED)
    page = tmp_path / "cmp.html"
    args = ["compare", str(EXAMPLE), "--config", str(tmp_path / most)]
    assert (
        main([*args, "--config", str(tmp_path / most), "--output", "html", "--out", str(page)])
        == 0
    )
    parser = _Tags()
    parser.feed(page.read_text())
    # pods pending, then requested / allocatable of each resource: a line for A and one for B
    assert parser.tags.count("svg") == 1 + len(day.resources)
    assert parser.tags.count("polyline") == 2 * (1 + len(day.resources))
    assert "http" not in page.read_text().replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert_renders(page, tmp_path / "cmp.png")
    assert main([*args, "--config", str(tmp_path / most)]) == 0
    assert "pending at the end" in capsys.readouterr().out


def test_compare_over_a_scenario_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    most = str(tmp_path / write_config(tmp_path, "most.yaml", MOST_ALLOCATED))
    path = scenario_file(tmp_path, [{"at": "0s", "create": [pod("a"), pod("b")]}],
                         cluster=two_nodes())  # fmt: skip
    assert (
        main(["compare", str(path), "--config", most, "--config", most, "--output", "json"]) == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert document["scenario"] == "t" and set(document["runs"]) == {"A", "B"}
    run = document["runs"]["A"]
    assert run["figures"]["pods bound"] == "2" and len(run["samples"]) == 7
    assert run["samples"][0]["utilisation"]["cpu"] == 0.25  # 2 of 8 CPU
    assert run["samples"][-1]["failed"] == 0  # both fit: no attempt failed


def test_compare_html_is_for_a_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "pods.yaml"
    manifest.write_text(yaml.safe_dump_all([two_nodes()[0], pod("a")]))
    most = write_config(tmp_path, "most.yaml", MOST_ALLOCATED)
    config = str(tmp_path / most)
    argv = ["compare", str(manifest), "--config", config, "--config", config, "--output", "html"]
    assert main(argv) == 2
    assert "--output html compares a Scenario" in capsys.readouterr().err


def _clock(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600:d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


@pytest.mark.parametrize(
    ("operations", "message"),
    [
        ([{"at": "1h", "drain": "n9"}],
         "spec.operations[0].drain: no Node n9 in spec.cluster or added before 1:00:00"),
        ([{"at": "1h", "cordon": "n9"}], "spec.operations[0].cordon: no Node n9"),
        ([{"at": "1h", "uncordon": "n9"}], "spec.operations[0].uncordon: no Node n9"),
        ([{"at": "1h", "removeNode": "n9"}], "spec.operations[0].removeNode: no Node n9"),
        ([{"at": "2h", "drain": "n1"}, {"at": "1h", "removeNode": "n1"}],
         "spec.operations[0].drain: Node n1 was removed at 1:00:00"),
    ],
)  # fmt: skip
def test_an_operation_on_a_node_that_is_not_there_says_where(
    tmp_path: Path, operations: list[dict[str, object]], message: str
) -> None:
    """Found when the scenario is loaded, as a scale of a missing workload is, not as a
    traceback hours into the run (kubectl would answer ``nodes "n9" not found``)."""
    with pytest.raises(SimulationInputError) as error:
        load_scenario(scenario_file(tmp_path, operations))
    assert message in str(error.value)


def test_a_node_added_by_an_operation_can_be_drained_later(tmp_path: Path) -> None:
    added = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},
             "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}  # fmt: skip
    path = scenario_file(tmp_path, [{"at": "1h", "addNode": added}, {"at": "2h", "drain": "n2"}])
    assert [op.kind for op in load_scenario(path).operations] == ["addNode", "drain"]


def test_an_operation_after_the_end_is_reported_as_not_run(tmp_path: Path) -> None:
    """A shorter ``duration`` (the morning of a day, say) leaves the later operations out:
    the report says which, rather than dropping them without a word."""
    path = scenario_file(tmp_path, [{"at": "1h", "cordon": "n1"}, {"at": "4h", "uncordon": "n1"}])
    result = run_scenario(path)  # duration 3h
    assert [what for _, what in result.applied] == ["cordon n1"]
    text = render_scenario_table(result)
    assert "Not run, after the end (3:00:00):\n  4:00:00  uncordon n1" in text
    page = tmp_path / "page.html"
    with page.open("w") as out:
        write_scenario_html(result, out)
    assert "Not run, after the end (3:00:00): 4:00:00 uncordon n1" in page.read_text()


def test_deleting_a_job_deletes_its_pods_and_replaces_none(tmp_path: Path) -> None:
    """``kubectl delete job j``: the garbage collector deletes the Job's pods (background
    propagation, each with its grace period), and with the Job gone nobody replaces them
    (``pkg/controller/garbagecollector``, v1.33). A pending pod of the Job goes too."""
    ops = [{"at": "0s", "create": JOB}, {"at": "1h", "delete": {"workload": {"kind": "Job", "name": "j"}}}]  # fmt: skip
    result = run_scenario(scenario_file(tmp_path, ops))  # n1 holds two of the three pods
    assert [(s.running, s.pending) for s in result.samples[:2]] == [(2, 1), (2, 1)]
    # At 1:00 the two running pods are terminating (30 s of grace); the pending one is gone.
    assert [(s.running, s.pending) for s in result.samples[2:]] == [(2, 0), (0, 0), (0, 0),
                                                                    (0, 0), (0, 0)]  # fmt: skip
    assert [what for _, what in result.applied] == [
        "create Job default/j: 3 pod(s)",
        "delete Job default/j",
    ]


def test_deleting_a_deployment_then_scaling_it_is_refused(tmp_path: Path) -> None:
    ops = [
        {"at": "1h", "delete": {"workload": {"kind": "Deployment", "name": "web"}}},
        {"at": "2h", "scale": {"kind": "Deployment", "name": "web", "replicas": 2}},
    ]
    path = scenario_file(tmp_path, ops, cluster=[node("4"), deployment(2)])
    with pytest.raises(SimulationInputError) as error:
        load_scenario(path)
    assert "spec.operations[1].scale: no Deployment default/web in spec.cluster or created" in str(
        error.value
    )
    missing = scenario_file(tmp_path, ops[:1], cluster=[node("4")])
    with pytest.raises(SimulationInputError) as error:
        load_scenario(missing)
    assert "spec.operations[0].delete.workload: no Deployment default/web" in str(error.value)


# --- the release a scenario emulates -------------------------------------------------------------

BURST = {**JOB, "spec": {**JOB["spec"], "parallelism": 4}}  # type: ignore[dict-item]


def _failed_messages(result: ScenarioResult) -> set[str]:
    return {e.message for e in result.simulation.events if e.reason == "FailedScheduling"}


def test_a_scenario_runs_at_the_release_it_is_told(tmp_path: Path) -> None:
    """``--emulated-version`` as for simulate: v1.33's default profile has no DynamicResources
    (``default_plugins.go``; it joins from v1.34), so its FailedScheduling lacks that plugin's
    PostFilter reason "no new claims to deallocate"."""
    path = scenario_file(tmp_path, [{"at": "0s", "create": BURST}])
    old = run_scenario(path, emulated_version="1.33")
    new = run_scenario(path)
    assert old.simulation.feature_gates is not None
    assert old.simulation.feature_gates.emulated_version == "1.33"
    assert not any("no new claims to deallocate" in m for m in _failed_messages(old))
    assert all("no new claims to deallocate" in m for m in _failed_messages(new))
    with pytest.raises(SimulationInputError) as error:
        run_scenario(path, emulated_version="1.20")
    assert "--emulated-version" in str(error.value)


def test_compare_runs_a_scenario_at_two_releases(tmp_path: Path) -> None:
    from framework.simulator.scenario_compare import compare_scenario

    path = scenario_file(tmp_path, [{"at": "0s", "create": BURST}])
    both = compare_scenario(path, [], emulated_versions=["1.33", "1.37"])
    a, b = (r.simulation.feature_gates for r in both.results)
    assert a is not None and b is not None
    assert (a.emulated_version, b.emulated_version) == ("1.33", "1.37")
    assert "v1.33" in both.configs[0] and "v1.37" in both.configs[1]
    one = compare_scenario(path, [], emulated_versions=["1.33", "1.33"])
    assert one.results[0].samples == one.results[1].samples


def test_the_commands_take_the_release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``scenario`` and ``compare`` of a scenario take ``--emulated-version`` as simulate does
    (compare took it and ran both sides at v1.37 without a word)."""
    path = scenario_file(tmp_path, [{"at": "0s", "create": BURST}])
    trace = tmp_path / "trace.jsonl"
    argv = ["scenario", str(path), "--emulated-version", "1.33", "--output", "jsonl"]
    assert main([*argv, "--out", str(trace)]) == 0
    header = json.loads(trace.read_text().splitlines()[0])
    assert header["featureGates"]["emulatedVersion"] == "1.33"
    page = tmp_path / "page.html"
    assert main([*argv[:-1], "html", "--out", str(page)]) == 0
    assert "seed 0, kube-scheduler v1.33" in page.read_text()
    capsys.readouterr()
    assert main(["compare", str(path), "--emulated-version", "1.33",
                 "--emulated-version", "1.37"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "kube-scheduler v1.33" in out and "kube-scheduler v1.37" in out


def test_failed_attempts_are_reported_over_time(day: ScenarioResult) -> None:
    """When pods were unschedulable, not only how often: each sample counts the
    FailedScheduling events so far (``schedule_one.go``'s handleSchedulingFailure records one
    per failed attempt), beside the preemptions so far."""
    assert at(day, "1:15").failed == 0  # the ETL burst fits
    assert at(day, "1:30").failed > 0  # the reports Job does not
    assert [s.failed for s in day.samples] == sorted(s.failed for s in day.samples)
    failed = sum(1 for a in day.simulation.attempts if a.result == "Unschedulable")
    assert day.samples[-1].failed == failed
    lines = render_scenario_table(day).splitlines()
    assert lines[15].split() == ["TIME", "PENDING", "RUNNING", "CPU", "MEMORY", "PODS",
                                 "PREEMPTIONS", "FAILED"]  # fmt: skip
