"""Every workload at ``small`` size, through the real scheduler: the harness works.

Correctness only, never a time (issue 8): every measured pod is bound, no
node holds more than its allocatable CPU, memory and pod slots, and
Unschedulable's large pods stay pending, as they do in scheduler_perf's
Unschedulable test case (kubernetes/kubernetes:test/integration/
scheduler_perf/config/performance-config.yaml, v1.33).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from framework.__main__ import main
from framework.bench.runner import run_workload
from framework.bench.workload import load_workloads

SMALL = load_workloads("small")


@pytest.mark.parametrize("name", list(SMALL))
def test_small_workload_binds_every_measured_pod_without_overcommitting(name: str) -> None:
    workload = SMALL[name]
    result = run_workload(workload, seed=1, timeout=90)
    assert result.bound_measured == workload.measured_pods
    assert result.overcommitted == ()
    assert result.attempts >= workload.measured_pods
    expected_pending = workload.init_pods if name == "Unschedulable" else 0
    assert result.pending_init == expected_pending


def test_preemption_basic_preempts_to_bind_its_high_priority_pods() -> None:
    result = run_workload(SMALL["PreemptionBasic"], seed=1, timeout=90)
    assert result.extension_points["PostFilter"][0] >= result.measured_pods


def test_filter_is_timed_once_per_search_not_once_per_node() -> None:
    # kube-scheduler records no extension-point duration for Filter (RunFilterPlugins in
    # pkg/scheduler/framework/runtime/framework.go has none); the harness times the search.
    result = run_workload(SMALL["SchedulingBasic"], seed=1, timeout=90)
    calls, total_ms = result.extension_points["Filter"]
    assert calls == result.attempts and total_ms > 0


def test_bench_command_prints_the_table_and_writes_the_issues_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench.json"
    assert main(["bench", "SchedulingBasic", "--size", "small", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "SchedulingBasic" in printed and "seed 0" in printed and "CPUs" in printed
    document = json.loads(out.read_text())
    figures = document["SchedulingBasic"]
    assert (figures["nodes"], figures["measuredPods"]) == (20, 100)
    assert set(figures) >= {"SchedulingThroughput", "attemptLatencyMs", "peakMemoryMiB"}
    assert figures["overcommittedNodes"] == []
    assert set(figures["attemptLatencyMs"]) == {"Average", "Perc50", "Perc90", "Perc95", "Perc99"}


def test_bench_command_rejects_an_unknown_workload(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "NoSuchWorkload"]) == 2
    assert "no workload named NoSuchWorkload" in capsys.readouterr().err


def test_gang_workload_times_each_pod_group_cycle_as_scheduler_perfs_metric() -> None:
    # scheduler_podgroup_scheduling_attempt_duration_seconds (pkg/scheduler/metrics, observed by
    # submitPodGroupAlgorithmResult in schedule_one_podgroup.go, v1.37-era copy): one sample per
    # PodGroup cycle, by result. Every gang of the small size is scheduled, so each of the three
    # groups has a "scheduled" cycle, and every member is bound in one.
    workload = SMALL["GangScheduling"]
    result = run_workload(workload, seed=1, timeout=90)
    assert result.bound_measured == workload.measured_pods
    scheduled = result.pod_group_attempts["scheduled"]
    assert scheduled["count"] == workload.params["initPodGroups"]
    assert scheduled["Average"] > 0
    # One search per member: the final cycle takes the trial's node (prepareForBindingCycle).
    assert result.extension_points["Filter"][0] == workload.measured_pods
    assert result.to_json()["podGroupAttemptMs"]["scheduled"]["count"] == 3
    from framework.cli.bench import format_results

    assert "PodGroup cycles: scheduled 3, avg " in format_results([result], seed=1)
