"""The benchmark configuration: scheduler_perf's test-case format, read and checked.

Format from kubernetes/kubernetes:test/integration/scheduler_perf/config/
performance-config.yaml and scheduler_perf.go (v1.33): ops with countParam
``$name`` references, workloads naming the params.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.bench.workload import BenchConfigError, fill_template, load_workloads

ISSUE_8_SIZES = {
    # workload: (nodes, init pods, measured pods) from issue 8's table.
    "SchedulingBasic": (5000, 1000, 10000),
    "SchedulingDaemonset": (15000, 0, 30000),
    "SchedulingNodeAffinity": (5000, 5000, 10000),
    "TopologySpreading": (5000, 5000, 5000),
    "SchedulingPodAntiAffinity": (5000, 1000, 2000),
    "SchedulingPodAffinity": (5000, 5000, 5000),
    "Unschedulable": (5000, 100, 10000),
    "PreemptionBasic": (1000, 4000, 1000),
    # Issue 19's volume workloads, at scheduler_perf's 5000Nodes size.
    "SchedulingCSIPVs": (5000, 5000, 1000),
    "SchedulingInTreePVs": (5000, 5000, 1000),
    # Issue 18's one-pod-per-node Job, the pattern opportunistic batching targets.
    "SchedulingOnePodPerNode": (5000, 0, 5000),
    # scheduler_perf's dra/performance-config.yaml, 5000pods_500nodes.
    "SchedulingWithResourceClaimTemplate": (500, 2500, 2500),
    # Issue 20: scheduler_perf's gangscheduling/performance-config.yaml, 5000Nodes_1000Gangs_3000Pods.
    "GangScheduling": (5000, 0, 3000),
}


def test_performance_size_has_the_issues_numbers() -> None:
    workloads = load_workloads("performance")
    sizes = {n: (w.nodes, w.init_pods, w.measured_pods) for n, w in workloads.items()}
    assert sizes == ISSUE_8_SIZES


def test_small_size_is_ci_sized() -> None:
    for workload in load_workloads("small").values():
        assert workload.nodes <= 100
        assert workload.measured_pods <= 100


def test_a_test_case_names_its_scheduler_configuration() -> None:
    # scheduler_perf's schedulerConfigPath, relative to the configuration file.
    workload = load_workloads("small")["SchedulingOnePodPerNode"]
    assert (
        workload.scheduler_config is not None and "PodTopologySpread" in workload.scheduler_config
    )
    assert load_workloads("small")["SchedulingBasic"].scheduler_config is None


def test_a_missing_scheduler_configuration_names_the_field(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        "- name: X\n  schedulerConfigPath: nowhere.yaml\n  workloads: [{name: small, params: {}}]\n"
    )
    with pytest.raises(BenchConfigError, match=r"\[0\]\.schedulerConfigPath: cannot read"):
        load_workloads("small", config)


def test_templates_fill_names_and_leave_other_dollars() -> None:
    template = {"a": ["${node}", "x"], "b": {"c": "${name}-$other"}, "d": 3}
    assert fill_template(template, {"node": "n1", "name": "m"}) == {
        "a": ["n1", "x"],
        "b": {"c": "m-$other"},
        "d": 3,
    }


def test_templates_divide_an_index_as_scheduler_perfs_divide_int() -> None:
    # gang-pod.yaml names its group gang-{{DivideInt .Index .podsPerGroup}}.
    values = {"index": "7", "podsPerGroup": "3"}
    assert fill_template("gang-${index/podsPerGroup}", values) == "gang-2"
    assert fill_template("${index/missing}-${index}", values) == "${index/missing}-7"


def test_the_gang_workload_is_scheduler_perfs_with_its_threshold_on_the_group_attempt() -> None:
    # kubernetes/kubernetes:test/integration/scheduler_perf/gangscheduling/performance-config.yaml
    # (index commit 16913111, v1.36-era, scheduling.k8s.io/v1alpha2): createAny of $initPodGroups
    # PodGroups gang-<i> (gang minCount 3), then $initPodGroups x $podsPerGroup pods, pod i in
    # gang-<i / podsPerGroup>; the threshold is scheduler_podgroup_scheduling_attempt_duration_
    # seconds{result=scheduled} Average, 8 ms at 5000Nodes_1000Gangs_3000Pods, lower is better.
    from framework.bench.runner import _build
    from framework.objects import Pod
    from framework.objects.workload import SchedulingPodGroup

    workload = load_workloads("performance")["GangScheduling"]
    # v1.37: GangScheduling is merged into GenericWorkload (kubernetes/website's
    # feature-gates/GangScheduling.md, index id 58218387801).
    assert workload.feature_gates == {"GenericWorkload": True}
    assert workload.threshold == 8
    assert workload.threshold_metric == "scheduler_podgroup_scheduling_attempt_duration_seconds"
    small = load_workloads("small")["GangScheduling"]
    assert small.threshold is None and small.threshold_metric is None
    nodes, groups, pods = small.ops
    made = _build(groups, 1, [])
    assert [g.metadata.name for g in made] == ["gang-0", "gang-1", "gang-2"]
    assert all(isinstance(g, SchedulingPodGroup) for g in made)
    assert made[0].metadata.namespace == "gang-0"
    members = _build(pods, 2, [f"node-{i}" for i in range(nodes.count)])
    assert len(members) == 9 and all(isinstance(p, Pod) for p in members)
    groups_of = [p.spec.scheduling_group.pod_group_name for p in members]
    assert groups_of == ["gang-0"] * 3 + ["gang-1"] * 3 + ["gang-2"] * 3


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param("{}", "expected a list of test cases", id="not a list"),
        pytest.param("- {ops: []}", r"\[0\]\.name", id="no name"),
        pytest.param(
            "- {name: A, workloads: [{name: other, params: {}}]}",
            "A has no size 'small'",
            id="no such size",
        ),
        pytest.param(
            "- {name: A, ops: [{opcode: deleteNodes}], workloads: [{name: small}]}",
            r"ops\[0\]\.opcode: 'deleteNodes'",
            id="unknown opcode",
        ),
        pytest.param(
            "- {name: A, ops: [{opcode: createPods, podTemplatePath: t.yaml, countParam: $n}],"
            " workloads: [{name: small, params: {m: 1}}]}",
            r"ops\[0\]\.countParam: '\$n' names no param",
            id="count names no param",
        ),
        pytest.param(
            "- {name: A, ops: [{opcode: createPods, podTemplatePath: none.yaml}],"
            " workloads: [{name: small}]}",
            r"ops\[0\]\.podTemplatePath: cannot read",
            id="missing template",
        ),
    ],
)
def test_bad_configuration_names_the_field(tmp_path: Path, config: str, message: str) -> None:
    (tmp_path / "t.yaml").write_text("kind: Pod\n")
    path = tmp_path / "config.yaml"
    path.write_text(config)
    with pytest.raises(BenchConfigError, match=message):
        load_workloads("small", path)


def test_overrides_replace_a_sizes_params_where_a_workload_has_them() -> None:
    # The node-count curve of issue 8: the same workload at another initNodes.
    workloads = load_workloads("performance", overrides={"initNodes": 500, "initPods": 7})
    assert (workloads["SchedulingBasic"].nodes, workloads["SchedulingBasic"].init_pods) == (500, 7)
    assert workloads["SchedulingDaemonset"].init_pods == 0, "no initPods param: left alone"


def test_the_dra_workload_gives_its_nodes_devices_and_turns_its_gate_on() -> None:
    # scheduler_perf's createResourceDriver: a ResourceSlice of maxClaimsPerNode devices for
    # each node whose name matches the pattern (the DRA nodes, named scheduler-perf-dra-<n>).
    from framework.bench.runner import _build
    from framework.objects.resource import ResourceSlice

    workload = load_workloads("small")["SchedulingWithResourceClaimTemplate"]
    assert workload.feature_gates == {"DynamicResourceAllocation": True}
    plain, dra, driver = workload.ops[:3]
    names = [n.metadata.name for n in _build(plain, 0, [])]
    names += [n.metadata.name for n in _build(dra, len(names), names)]
    assert names[0] == "node-0" and names[1] == "scheduler-perf-dra-1"
    slices = _build(driver, 2, names)
    assert all(isinstance(s, ResourceSlice) for s in slices)
    assert [s.spec.node_name for s in slices] == names[1:]
    assert len(slices[0].spec.devices) == workload.params["maxClaimsPerNode"]
    template = _build(workload.ops[4], 4, names)
    assert template[0].metadata.namespace == "init"
