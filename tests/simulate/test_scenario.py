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
        "create", "create", "drain", "addNode", "create", "create", "uncordon"
    ]  # fmt: skip
    assert at(day, "0:00").running == 6 and at(day, "0:00").pending == 0  # the web Deployment
    assert at(day, "1:00").running == 16  # the ETL burst
    assert at(day, "1:45").pending > 0  # the reports wait for room...
    assert at(day, "1:45").utilisation("cpu") == 1.0
    assert at(day, "3:00").pending == 0 and at(day, "3:00").running == 6  # ...and all finished
    assert at(day, "7:30").preemptions > at(day, "7:00").preemptions  # urgent preempts batch
    assert "node(s) were unschedulable" in day.reasons  # the drained node, cordoned
    assert max(day.latencies) >= 15 * 60 and day.percentile(50) == 0.0


def test_a_drained_node_keeps_no_pod_and_the_controllers_replace_theirs(
    day: ScenarioResult,
) -> None:
    placements = day.simulation.placements
    drained = [p for p, node in placements.items() if node == "worker-4"]
    running = {p for p, node in placements.items() if node}
    assert not [p for p in drained if p in running and not p.startswith("batch/")]
    web = [p for p in running if p.startswith("shop/web")]
    assert len(web) == 6  # the Deployment's six, replacements included


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
        ({"at": "1h", "scale": "web"}, "spec.operations[0].scale: unknown field"),
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
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("no Chromium to render the page in (apt-get install chromium)")
    shot = tmp_path / "day.png"
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9",
         "--window-size=900,700", f"--screenshot={shot}", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_the_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Scenario batch-day: 12:00:00 simulated.")
    assert "Unschedulable reasons" in out
