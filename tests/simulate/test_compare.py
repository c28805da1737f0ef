"""``compare``: one workload under LeastAllocated and under MostAllocated, figures derived by hand.

Where the expectations come from (kubernetes/kubernetes, v1.33):

* ``pkg/scheduler/framework/plugins/noderesources/least_allocated.go``:
  per resource ``(allocatable - requested) * 100 / allocatable``, the node's
  score the weighted mean (cpu and memory, weight 1 each), integer division;
* ``most_allocated.go``: per resource ``requested * 100 / allocatable``;
* ``balanced_allocation.go``: every pod below asks for 1 CPU per 2 GiB and
  every node offers 1 CPU per 2 GiB, so cpu and memory fractions are equal on
  every node, the standard deviation is 0 and BalancedAllocation gives 100
  everywhere: it never decides. TaintToleration gives 100 everywhere (no
  taints), ImageLocality 0 (no images), PodTopologySpread and
  InterPodAffinity skip (no owners, no affinity): only NodeResourcesFit
  decides;
* ``pkg/scheduler/framework/preemption/preemption.go`` and
  ``pkg/scheduler/framework/types.go`` (``FitError.Error``): the message of a
  pod no node can take, with preemption finding no victim of lower priority.

The cluster: ``small`` (2 CPU, 4 GiB), ``medium`` (4 CPU, 8 GiB), ``large``
(6 CPU, 12 GiB); the pods, in file order: ``web-1``, ``web-2``, ``web-3``
(1 CPU, 2 GiB each) and ``big`` (5 CPU, 10 GiB). In percent, a node's score
is the same for cpu and memory, so one number per node:

================  =========================  =========================
pod               LeastAllocated (free %)    MostAllocated (used %)
================  =========================  =========================
web-1             small 50, medium 75,       small 50, medium 25,
                  large 83 → large           large 16 → small
web-2             small 50, medium 75,       small 100, medium 25,
                  large 66 → medium          large 16 → small
web-3             small 50, medium 50,       small full, medium 25,
                  large 66 → large           large 16 → medium
big               free 2, 3, 4 CPU: pending  free 0, 3, 6 CPU → large
================  =========================  =========================
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from framework.__main__ import main
from framework.simulator.compare import Comparison, ResourceSpread, compare, render_comparison
from framework.simulator.inputs import SimulationInputError

CLUSTER = """
kind: Node
metadata: {name: small}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
kind: Node
metadata: {name: medium}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
kind: Node
metadata: {name: large}
status: {allocatable: {cpu: "6", memory: 12Gi, pods: "110"}}
"""
WEB = """---
kind: Pod
metadata: {{name: {name}}}
spec: {{containers: [{{name: app, image: web, resources: {{requests: {{cpu: "1", memory: 2Gi}}}}}}]}}
"""
BIG = """---
kind: Pod
metadata: {name: big}
spec: {containers: [{name: app, image: big, resources: {requests: {cpu: "5", memory: 10Gi}}}]}
"""
WORKLOAD = CLUSTER + "".join(WEB.format(name=f"web-{i}") for i in (1, 2, 3)) + BIG


def scoring(strategy: str) -> str:
    """The default profile with NodeResourcesFit's scoring strategy set (config.md's example)."""
    return f"""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: {strategy}
        resources: [{{name: cpu, weight: 1}}, {{name: memory, weight: 1}}]
"""


LEAST, MOST = scoring("LeastAllocated"), scoring("MostAllocated")


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return compare(WORKLOAD, configs=[LEAST, MOST])


def test_least_allocated_spreads_and_most_allocated_packs(comparison: Comparison) -> None:
    least, most = comparison.outcomes
    assert dict(least.result.placements) == {
        "default/web-1": "large",
        "default/web-2": "medium",
        "default/web-3": "large",
        "default/big": None,
    }
    assert dict(most.result.placements) == {
        "default/web-1": "small",
        "default/web-2": "small",
        "default/web-3": "medium",
        "default/big": "large",
    }


@pytest.mark.parametrize(
    ("label", "placed", "pending", "empty_nodes"),
    [("A", 3, 1, 1), ("B", 4, 0, 0)],
    ids=["LeastAllocated leaves small empty and big pending", "MostAllocated fits all four"],
)
def test_counts_per_configuration(
    comparison: Comparison, label: str, placed: int, pending: int, empty_nodes: int
) -> None:
    outcome = {o.label: o for o in comparison.outcomes}[label]
    assert (outcome.placed, outcome.pending, outcome.preempted, outcome.empty_nodes) == (
        placed,
        pending,
        0,
        empty_nodes,
    )
    assert (comparison.nodes, comparison.pending_pods) == (3, 4)


def test_the_differences_name_each_pod_and_the_message_where_it_is_pending(
    comparison: Comparison,
) -> None:
    assert [(d.pod, d.nodes) for d in comparison.differences] == [
        ("default/web-1", ("large", "small")),
        ("default/web-2", ("medium", "small")),
        ("default/web-3", ("large", "medium")),
        ("default/big", (None, "large")),
    ]
    big = comparison.differences[-1]
    # v1.37 (the default): the two nodes too small for big in total are unresolvable, so
    # preemption only tries the large one (v1.33 said "3 No preemption victims found").
    assert big.messages == (
        "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling.",
        "",
    )


# requested / allocatable per node (small, medium, large), memory the same as cpu:
#   LeastAllocated: cpu 0, 1/4, 1/3 → mean 7/36; deviations -7/36, 2/36, 5/36 → variance
#                   (49 + 4 + 25) / 1296 / 3 = 13/648; pods 0, 1, 2 of 110 → variance 1/18150.
#   MostAllocated:  cpu 1, 1/4, 5/6 → mean 25/36; deviations 11/36, -16/36, 5/36 → variance
#                   (121 + 256 + 25) / 1296 / 3 = 67/648; pods 2, 1, 1 of 110 → mean 2/165,
#                   variance (4 + 1 + 1) / 330² / 3 = 1/54450.
F = Fraction


@pytest.mark.parametrize(
    ("label", "resource", "expected"),
    [
        ("A", "cpu", (F(7, 36), F(0), F(1, 3), F(13, 648))),
        ("A", "memory", (F(7, 36), F(0), F(1, 3), F(13, 648))),
        ("A", "pods", (F(1, 110), F(0), F(1, 55), F(1, 18150))),
        ("B", "cpu", (F(25, 36), F(1, 4), F(1), F(67, 648))),
        ("B", "memory", (F(25, 36), F(1, 4), F(1), F(67, 648))),
        ("B", "pods", (F(2, 165), F(1, 110), F(1, 55), F(1, 54450))),
    ],
    ids=["A cpu", "A memory", "A pods", "B cpu", "B memory", "B pods"],
)
def test_utilisation_spread_is_requested_over_allocatable_across_nodes(
    comparison: Comparison,
    label: str,
    resource: str,
    expected: tuple[Fraction, Fraction, Fraction, Fraction],
) -> None:
    outcome = {o.label: o for o in comparison.outcomes}[label]
    got = outcome.spread(resource)
    assert (got.mean, got.min, got.max, got.variance) == expected
    assert got.nodes == 3


def test_the_standard_deviation_is_the_population_one() -> None:
    # cpu under LeastAllocated: 0, 1/4, 1/3; mean 7/36; variance 13/648 (divided by 3, not 2).
    got = ResourceSpread.of("cpu", [F(0), F(1, 4), F(1, 3)])
    assert got.variance == F(13, 648)
    assert got.stddev == pytest.approx(0.1416394, abs=1e-7)


def test_most_allocated_packs_tighter_by_every_measure(comparison: Comparison) -> None:
    least, most = comparison.outcomes
    for resource in ("cpu", "memory"):
        assert most.spread(resource).mean > least.spread(resource).mean
        assert most.spread(resource).max == 1  # small is full
    assert least.per_node["small"]["cpu"] == 0 and most.per_node["small"]["cpu"] == 1


def test_the_same_configuration_twice_differs_nowhere() -> None:
    same = compare(WORKLOAD, configs=[LEAST, LEAST])
    assert same.differences == ()
    assert same.outcomes[0].utilisation == same.outcomes[1].utilisation
    assert "Every pod ended on the same node under both configurations." in render_comparison(same)


def test_a_running_pod_preempted_under_one_configuration_says_so() -> None:
    # preemption.go: the victim's event is "Preempted by pod <uid> on node <node>"; with
    # DefaultPreemption disabled (B) the running pod stays and the urgent one is pending.
    workload = (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
        "value: 1000\n---\n"
        'kind: Node\nmetadata: {name: only}\nstatus: {allocatable: {cpu: "1", pods: "10"}}\n'
        "---\nkind: Pod\nmetadata: {name: low}\nspec:\n  nodeName: only\n"
        '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]\n'
        "---\nkind: Pod\nmetadata: {name: urgent}\nspec:\n  priorityClassName: high\n"
        '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]\n'
    )
    no_preemption = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: DefaultPreemption}]\n"
    )
    result = compare(workload, configs=[LEAST, no_preemption])
    preempting, keeping = result.outcomes
    assert (preempting.placed, preempting.pending, preempting.preempted) == (1, 0, 1)
    assert (keeping.placed, keeping.pending, keeping.preempted) == (0, 1, 0)
    low, urgent = result.differences
    assert low.pod == "default/low" and low.nodes == (None, "only")
    assert low.messages[0].startswith("Preempted by pod ") and low.messages[0].endswith(
        " on node only"
    )
    assert urgent.nodes == ("only", None)
    # Without DefaultPreemption, DynamicResources' PostFilter reason stands alone.
    assert urgent.messages[1] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate"
    )


def test_compare_needs_exactly_two_configurations() -> None:
    with pytest.raises(SimulationInputError, match="exactly two configurations"):
        compare(WORKLOAD, configs=[LEAST])


def test_json_is_deterministic_and_names_both_configurations(comparison: Comparison) -> None:
    again = compare(WORKLOAD, configs=[LEAST, MOST])
    assert json.dumps(again.to_dict()) == json.dumps(comparison.to_dict())
    data = comparison.to_dict()
    assert [c["label"] for c in data["configs"]] == ["A", "B"]
    assert data["configs"][1]["utilisation"]["cpu"] == {
        "nodes": 3,
        "mean": 0.694444,
        "min": 0.25,
        "max": 1.0,
        "stddev": 0.321551,
    }
    assert data["differences"][-1] == {
        "pod": "default/big",
        "nodes": {"A": None, "B": "large"},
        "messages": {"A": comparison.differences[-1].messages[0]},
    }


# --- the command line ------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "workload.yaml").write_text(WORKLOAD)
    (tmp_path / "least.yaml").write_text(LEAST)
    (tmp_path / "most.yaml").write_text(MOST)
    return tmp_path


def test_compare_prints_counts_differences_and_spread(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", str(files / "workload.yaml")]
    code = main(
        [*argv, "--config", str(files / "least.yaml"), "--config", str(files / "most.yaml")]
    )
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0:3] == [
        "The same 4 pending pod(s) on 3 node(s), under two scheduler configurations (seed 0):",
        f"  A: {files / 'least.yaml'}",
        f"  B: {files / 'most.yaml'}",
    ]
    assert "  placed       3 of 4  4 of 4" in lines
    assert "  default/big    <none>  large" in lines
    assert "  cpu       B       69.4  25.0  100.0  32.2" in lines
    assert "  cpu       A       19.4  0.0   33.3   14.2" in lines


def test_compare_json_output(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "compare",
            str(files / "workload.yaml"),
            "--config",
            str(files / "least.yaml"),
            "--config",
            str(files / "most.yaml"),
            "--output",
            "json",
        ]
    )
    out, _ = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert [c["placed"] for c in data["configs"]] == [3, 4]


@pytest.mark.parametrize(
    ("configs", "error"),
    [
        (["least.yaml"], "error: compare needs exactly two configurations"),
        (
            ["least.yaml", "missing.yaml"],
            "missing.yaml",
        ),
    ],
    ids=["one config", "a config file that does not exist"],
)
def test_compare_bad_input_is_one_line_and_status_2(
    files: Path, capsys: pytest.CaptureFixture[str], configs: list[str], error: str
) -> None:
    argv = ["compare", str(files / "workload.yaml")]
    for config in configs:
        argv += ["--config", str(files / config)]
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert error in err
    assert "Traceback" not in err


def test_a_pod_terminating_at_the_start_is_not_counted_as_preempted() -> None:
    """A snapshot's pod being deleted (``deletionTimestamp``) is gone at the end of either
    run because its grace period ended, not because anything preempted it."""
    workload = (
        'kind: Node\nmetadata: {name: only}\nstatus: {allocatable: {cpu: "2", pods: "10"}}\n'
        "---\nkind: Pod\nmetadata: {name: going, deletionTimestamp: '2026-11-30T10:00:30Z',\n"
        "  deletionGracePeriodSeconds: 30}\nspec:\n  nodeName: only\n"
        '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]\n'
        "status: {phase: Running, startTime: '2026-11-30T09:00:00Z'}\n"
        "---\nkind: Pod\nmetadata: {name: new}\nspec:\n"
        '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]\n'
    )
    result = compare(workload, configs=[LEAST, MOST])
    for outcome in result.outcomes:
        assert (outcome.placed, outcome.pending, outcome.preempted) == (1, 0, 0)
    assert "preempted" not in render_comparison(result)
