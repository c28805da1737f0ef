"""``--emulated-version`` and ``--feature-gates``: a run's release and gates, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import framework
from framework.__main__ import main
from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.config.default_plugins import default_plugins
from framework.featuregate import new_feature_gates
from framework.plugins import names
from framework.scheduler.scheduler import Scheduler
from framework.simulator.inputs import SimulationInputError

# A sidecar (restartable init container) holds host port 9090 on the only node.
SIDECAR_PORTS = """\
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}
---
kind: Pod
metadata: {name: proxy}
spec:
  nodeName: n1
  initContainers:
  - {name: envoy, image: envoy, restartPolicy: Always, ports: [{containerPort: 9090, hostPort: 9090}]}
  containers: [{name: app, image: app}]
---
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: nginx, ports: [{containerPort: 9090, hostPort: 9090}]}]
"""


def test_a_run_records_the_gates_it_used() -> None:
    result = framework.simulate(
        SIDECAR_PORTS, emulated_version="1.35", feature_gates="PodLevelResources=false"
    )
    assert result.feature_gates is not None
    assert result.feature_gates.emulated_version == "1.35"
    assert result.feature_gates.overrides == {"PodLevelResources": False}
    trace = result.to_dict()
    assert trace["featureGates"]["gates"]["OpportunisticBatching"] is True
    assert json.loads(result.to_json())["featureGates"] == trace["featureGates"]


def test_bad_versions_and_gates_are_input_errors_naming_the_flag() -> None:
    with pytest.raises(SimulationInputError, match=r"--emulated-version: .*\[1\.33, 1\.37\]"):
        framework.simulate(SIDECAR_PORTS, emulated_version="1.30")
    with pytest.raises(SimulationInputError, match="--feature-gates: unrecognized feature gate"):
        framework.simulate(SIDECAR_PORTS, feature_gates={"Nope": True})
    with pytest.raises(SimulationInputError, match="feature is locked to true"):
        framework.simulate(
            SIDECAR_PORTS, emulated_version="1.34", feature_gates="SchedulerQueueingHints=false"
        )


def test_two_schedulers_in_one_process_hand_their_own_gates_to_their_plugins() -> None:
    old = Scheduler(
        APIServer(FakeClock()), clock=FakeClock(), feature_gates=new_feature_gates("1.33")
    )
    new = Scheduler(
        APIServer(FakeClock()), clock=FakeClock(), feature_gates=new_feature_gates("1.35")
    )
    assert not old.profiles["default-scheduler"].feature_gates.enabled("OpportunisticBatching")
    assert new.profiles["default-scheduler"].feature_gates.enabled("OpportunisticBatching")


def test_the_default_profile_follows_the_release() -> None:
    # default_plugins.go: DynamicResources joins the line-up when DynamicResourceAllocation is
    # on, which it is by default from v1.34 (GA).
    def line_up(version: str) -> list[str]:
        plugins = default_plugins(feature_gates=new_feature_gates(version))
        return [p.name for p in plugins.multi_point.enabled]

    assert names.DYNAMIC_RESOURCES not in line_up("1.33")
    at = line_up("1.34")
    assert at.index(names.DYNAMIC_RESOURCES) == at.index(names.DEFAULT_PREEMPTION) - 1
    # It is implemented: no run leaves it out, so no note names it.
    result = framework.simulate(SIDECAR_PORTS, emulated_version="1.34")
    assert not any("DynamicResources" in note for note in result.notes)
    assert not any(
        "DynamicResources" in note
        for note in framework.simulate(SIDECAR_PORTS, emulated_version="1.33").notes
    )


def test_a_sidecars_host_port_is_taken_in_every_release() -> None:
    # kubernetes#132040 (cherry-picked to v1.33 patch releases): NodePorts counts the host
    # ports of restartable init containers, on the node (NodeInfo.updateUsedPorts) and in
    # the pod (nodeports.getContainerPorts). pkg/scheduler/framework/plugins/nodeports/
    # node_ports.go and pkg/scheduler/framework/types.go as fixed there.
    for version in ("1.33", "1.37"):
        result = framework.simulate(SIDECAR_PORTS, emulated_version=version)
        assert result.placements["default/web"] is None, version
        assert "didn't have free ports" in result.attempts_of("default/web")[-1].message


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "cluster.yaml").write_text(SIDECAR_PORTS)
    return tmp_path


def test_the_cli_takes_kubes_flags_and_prints_the_gates(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "simulate",
            str(files / "cluster.yaml"),
            "--emulated-version",
            "1.35",
            "--feature-gates",
            "TaintTolerationComparisonOperators=true",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Feature gates of kube-scheduler v1.35" in out
    assert "set by --feature-gates: TaintTolerationComparisonOperators=true" in out
    code = main(
        ["explain", "default/web", str(files / "cluster.yaml"), "--emulated-version", "1.33"]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert "Feature gates of kube-scheduler v1.33" in err


def test_the_cli_refuses_a_locked_gate_with_kubes_message(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "simulate",
            str(files / "cluster.yaml"),
            "--emulated-version",
            "1.34",
            "--feature-gates",
            "SchedulerQueueingHints=false",
        ]
    )
    _, err = capsys.readouterr()
    assert code == 2
    assert (
        "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true" in err
    )


def test_compare_puts_two_releases_side_by_side(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "compare",
            str(files / "cluster.yaml"),
            "--emulated-version",
            "1.33",
            "--emulated-version",
            "1.35",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "under two Kubernetes releases" in out
    assert "A: <default configuration>, kube-scheduler v1.33" in out
    assert "OpportunisticBatching: A=false B=true" in out
    assert "DynamicResourceAllocation: A=false B=true" in out


UPGRADE = Path(__file__).parents[2] / "examples" / "versions" / "upgrade.yaml"


def test_an_upgrade_to_v1_37_moves_a_pod_that_evens_out_a_node(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # balanced_allocation.go: v1.33 scores the balance with the pod; v1.36 the change in
    # balance (kubernetes#135573). Fit's LeastAllocated scores both nodes alike here.
    for version, node in (("1.33", "mixed"), ("1.35", "mixed"), ("1.36", "cpu-busy")):
        result = framework.simulate(UPGRADE.read_text(), emulated_version=version)
        assert result.placements["default/cache"] == node, version
        assert result.placements["default/huge"] is None
    code = main(
        ["compare", str(UPGRADE), "--emulated-version", "1.33", "--emulated-version", "1.37"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Pods placed differently (1):" in out
    assert "default/cache  mixed  cpu-busy" in out


def test_both_traces_record_the_gates_and_read_them_back(tmp_path: Path) -> None:
    from framework.simulator.trace import read_trace, write_trace_v2

    result = framework.simulate(SIDECAR_PORTS, emulated_version="1.34")
    v2 = tmp_path / "trace.jsonl"
    with v2.open("w") as out:
        write_trace_v2(result, out)
    v1 = tmp_path / "trace.json"
    v1.write_text(result.to_json())
    for path in (v1, v2):
        read = read_trace(path)
        assert read.feature_gates == result.feature_gates, path.name
