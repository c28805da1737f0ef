"""``python -m framework simulate`` and ``explain``: outputs, files, and bad input without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from framework.__main__ import main
from tests.simulate.test_trace import CLUSTER, FILTER_AND_SCORE


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "sched.yaml").write_text(FILTER_AND_SCORE)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_prints_a_table_of_pods_and_events(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "simulate", str(files / "cluster.yaml"), "--config", str(files / "sched.yaml")
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Scheduled 2 of 3 pending pod(s) in 3 scheduling attempt(s) (seed 0)."
    assert lines[2].split() == ["POD", "PRIORITY", "QOS", "NODE", "ATTEMPTS", "RESULT"]
    assert lines[3].split() == ["default/web", "0", "Burstable", "big", "1", "Scheduled"]
    assert lines[5].split()[:6] == [
        "default/huge",
        "0",
        "Burstable",
        "<none>",
        "1",
        "Unschedulable:",
    ]
    assert "  Warning  FailedScheduling  default/huge" in out


def test_simulate_json_is_the_trace_and_out_writes_it_to_a_file(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["simulate", str(files / "cluster.yaml"), "--config", str(files / "sched.yaml")]
    code, out, _ = run(capsys, *args, "--output", "json")
    assert code == 0
    assert json.loads(out)["placements"] == {
        "default/web": "big",
        "default/batch": "big",
        "default/huge": None,
    }
    code, written, _ = run(capsys, *args, "--output", "json", "--out", str(files / "t.json"))
    assert (code, written) == (
        0,
        f"Scheduled 2 of 3 pending pod(s) in 3 scheduling attempt(s); wrote the json output to "
        f"{files / 't.json'}\n",
    )
    assert (files / "t.json").read_text() == out


def test_schedule_is_simulate_output_table(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [str(files / "cluster.yaml"), "--config", str(files / "sched.yaml")]
    assert run(capsys, "schedule", *args) == run(capsys, "simulate", *args)


EXPLAIN_WEB = """\
Pod default/web: Scheduled to node big.
Successfully assigned default/web to big
Attempt 1, profile default-scheduler.

Filter, on the 4 node(s) evaluated, in that order:
     NODE      NodeUnschedulable                          TaintToleration                                                NodeResourcesFit
     cordoned  node(s) were unschedulable (unresolvable)  -                                                              -
     gpu       ok                                         node(s) had untolerated taint {dedicated: gpu} (unresolvable)  -
     small     ok                                         ok                                                             ok
  *  big       ok                                         ok                                                             ok
  ok: passed; skip: nothing to check for this pod; -: not run (an earlier plugin rejected the node)

Score, on the feasible nodes: normalised score → times the plugin's weight:
     NODE   TaintToleration ×3  NodeResourcesFit ×2  TOTAL
  *  big    100 → 300           75 → 150             450
     small  100 → 300           62 → 124             424
  * the chosen node (the highest total; ties are broken at random)
"""  # noqa: E501


def test_explain_shows_the_message_and_the_nodes_by_plugins_tables(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ["--config", str(files / "sched.yaml")]
    code, out, _ = run(capsys, "explain", "default/web", str(files / "cluster.yaml"), *config)
    assert (code, out) == (0, EXPLAIN_WEB)
    code, out, _ = run(capsys, "explain", "huge", str(files / "cluster.yaml"), *config)
    assert out.splitlines()[:3] == [
        "Pod default/huge: pending; last attempt Unschedulable.",
        "FailedScheduling: 0/4 nodes are available: 1 node(s) had untolerated taint "
        "{dedicated: gpu}, 1 node(s) were unschedulable, 2 Insufficient cpu.",
        "Attempt 1, profile default-scheduler.",
    ]
    assert "     big       ok                                         ok                  " in out
    assert out.endswith("Score: not run; no node passed the filters.\n")
    code, out, _ = run(capsys, "explain", "batch", str(files / "cluster.yaml"), *config)
    assert out.endswith("Score: not run; big was the only feasible node.\n")


def test_explain_says_how_many_attempts_a_retried_pod_took(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.simulate.test_trace import nodes, pods, profile

    (tmp_path / "c.yaml").write_text(nodes(1) + pods(1))
    (tmp_path / "s.yaml").write_text(
        profile("{name: PrioritySort}", "{name: FailFirstAttempt}", "{name: DefaultBinder}")
    )
    code, out, _ = run(
        capsys,
        "explain",
        "pod-000",
        str(tmp_path / "c.yaml"),
        "--config",
        str(tmp_path / "s.yaml"),
        "--plugin",
        "FailFirstAttempt=tests.simulate.plugins:FailFirstAttempt",
    )
    assert code == 0
    assert out.splitlines()[2] == "Attempt 2, profile default-scheduler: the last of 2 attempts."


BAD_QUANTITY = (
    "kind: Pod\nmetadata: {name: web}\n"
    'spec: {containers: [{name: c, resources: {requests: {cpu: "1 core"}}}]}\n'
)
UNKNOWN_PLUGIN = (
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    "profiles:\n- plugins:\n    score:\n      enabled: [{name: Nope, weight: 2}]\n"
)


@pytest.mark.parametrize(
    ("command", "files", "expected"),
    [
        pytest.param(
            ["simulate", "{d}/bad.yaml"],
            {"bad.yaml": "kind: Pod\nmetadata: {name: web\n"},
            "error: {d}/bad.yaml: invalid YAML at line 3, column 1:",
            id="broken YAML",
        ),
        pytest.param(
            ["simulate", "{d}/pods.yaml"],
            {"pods.yaml": BAD_QUANTITY},
            'error: {d}/pods.yaml: Pod default/web: spec.containers[0].resources.requests.cpu: "1 '
            'core" is not a valid quantity',
            id="invalid quantity",
        ),
        pytest.param(
            ["simulate", "{d}/pods.yaml", "--config", "{d}/sched.yaml"],
            {"pods.yaml": "kind: Node\nmetadata: {name: n}\n", "sched.yaml": UNKNOWN_PLUGIN},
            "error: {d}/sched.yaml: KubeSchedulerConfiguration: "
            'profiles[0].plugins.score.enabled[0].name: plugin "Nope" does not exist',
            id="unknown plugin in the config",
        ),
        pytest.param(
            ["explain", "default/nope", "{d}/pods.yaml"],
            {"pods.yaml": "kind: Node\nmetadata: {name: n}\n"},
            "error: Pod default/nope: not found among the 0 pods simulated (the pods are none), "
            "in {d}/pods.yaml",
            id="unknown pod in explain",
        ),
        pytest.param(
            ["simulate", "{d}/missing.yaml"],
            {},
            "error: {d}/missing.yaml: cannot read file:",
            id="missing file",
        ),
        pytest.param(
            ["simulate", "{d}/pods.yaml", "--plugin", "Broken"],
            {"pods.yaml": "kind: Node\nmetadata: {name: n}\n"},
            "error: --plugin 'Broken': expected NAME=package.module:attribute",
            id="bad plugin spec",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_traceback(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    files: dict[str, str],
    expected: str,
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    code, out, err = run(capsys, *(arg.format(d=tmp_path) for arg in command))
    assert (code, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(expected.format(d=tmp_path)), line
    assert "Traceback" not in err


def test_a_skipped_kind_is_a_warning_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "c.yaml").write_text(
        "kind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
    )
    code, out, err = run(capsys, "simulate", str(tmp_path / "c.yaml"))
    assert code == 0 and out
    assert err.startswith(f"warning: {tmp_path / 'c.yaml'}: Secret default/s: kind Secret (v1)")


def test_help_says_which_kinds_are_understood_and_how_a_run_goes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    help_text = capsys.readouterr().out
    for expected in (
        "Deployment (replicas)",
        "Job (parallelism)",
        "KubeSchedulerConfiguration",
        "in file order",
        "--seed",
        "table,json",
    ):
        assert expected in help_text


def test_the_cli_runs_as_a_module_and_import_framework_stays_light() -> None:
    code = (
        "import sys, framework; assert 'framework.simulator' not in sys.modules; "
        "assert callable(framework.simulate); assert 'framework.simulator' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_explain_names_the_preemptor_of_a_running_pod_it_evicted() -> None:
    # A running pod has no attempt of its own; once preempted its node is gone,
    # so the explanation must come from the preemptor's attempt (its victims).
    import framework
    from framework.simulator.explain import explain

    result = framework.simulate(PREEMPTION)
    assert result.placements["default/batch"] is None
    assert explain(result, "default/batch") == (
        "Pod default/batch: running before the simulation (spec.nodeName); preempted: "
        "deleted to make room for default/vip, nominated to node-a.\n"
    )


PREEMPTION = """
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Pod
metadata: {name: batch}
spec:
  nodeName: node-a
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
---
kind: PriorityClass
apiVersion: scheduling.k8s.io/v1
metadata: {name: high}
value: 1000
---
kind: Pod
metadata: {name: vip}
spec:
  priorityClassName: high
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
"""


def test_the_table_lists_a_preempted_pod_as_preempted_with_its_preemptor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.yaml").write_text(PREEMPTION)
    code, out, _ = run(capsys, "simulate", str(tmp_path / "p.yaml"), "--no-progress")
    assert code == 0
    assert "in 2 scheduling attempt(s), 1 preempted (seed 0)." in out
    row = next(line for line in out.splitlines() if line.startswith("default/batch"))
    assert row.split()[3] == "<none>"
    assert row.endswith("preempted by default/vip (was on node-a)")
    code, out, _ = run(
        capsys, "simulate", str(tmp_path / "p.yaml"), "--out", str(tmp_path / "t.txt")
    )
    assert out == (
        "Scheduled 1 of 1 pending pod(s) in 2 scheduling attempt(s), 1 preempted; "
        f"wrote the table output to {tmp_path / 't.txt'}\n"
    )


def test_a_repeated_event_is_one_row_with_its_count_as_kubectl_lists_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No node at all: kube-scheduler's ErrNoNodesAvailable is an error, so the pod is retried
    # after each backoff (schedule_one.go), and each attempt records the same FailedScheduling.
    # The API server keeps one Event with a count (client-go's EventCorrelator), so
    # `kubectl get events` lists it once: the table does too, with the count.
    lonely = tmp_path / "pod.yaml"
    lonely.write_text(
        "kind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, image: i}]}\n"
    )
    code, out, _ = run(capsys, "simulate", str(lonely), "--no-progress")
    assert code == 0
    attempts = int(out.splitlines()[3].split()[4])
    assert attempts > 1
    events = out[out.index("Events (kubectl get events):") :].splitlines()
    assert events[1].split() == ["TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE"]
    (row,) = [line for line in events if "FailedScheduling" in line]
    assert row.split()[:4] == ["Warning", "FailedScheduling", "default/web", str(attempts)]
