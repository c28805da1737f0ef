"""scheduler-plugins' QOSSort and Coscheduling run under their names, as in its own kube-scheduler.

scheduler-plugins builds a kube-scheduler binary (``cmd/scheduler/main.go``,
v0.31) that registers every one of its plugins with ``app.WithPlugin``, so
a configuration enabling ``Coscheduling`` or ``QOSSort`` runs as written.
Coscheduling reads a pod's group from the label
``scheduling.x-k8s.io/pod-group`` (``apis/scheduling/v1alpha1``,
``PodGroupLabel``); the older ``pod-group.scheduling.sigs.k8s.io`` is no
longer read, which leaves such a pod out of its gang without a word, so
the simulator warns, naming the new label.
"""

from __future__ import annotations

import pytest

from framework.__main__ import main
from framework.simulator.inputs import load_inputs, plugin_registry

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    queueSort:
      enabled: [{name: QOSSort}]
      disabled: [{name: "*"}]
    multiPoint:
      enabled: [{name: Coscheduling}]
"""

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: n}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {pod-group.scheduling.sigs.k8s.io: train}}
spec: {containers: [{name: app, image: nginx}]}
"""


def test_qossort_and_coscheduling_are_registered_by_default() -> None:
    registry = plugin_registry()
    assert "QOSSort" in registry and "Coscheduling" in registry
    # Naming one with --plugin still works: the given factory takes the name.
    assert "QOSSort" in plugin_registry(["QOSSort=framework.plugins.qos:new"])


def test_a_scheduler_plugins_configuration_runs_as_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["simulate", CLUSTER, "--config", CONFIG, "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "default/web" in out


def test_the_old_pod_group_label_warns_naming_the_new_one() -> None:
    inputs = load_inputs([CLUSTER])
    assert any(
        "pod-group.scheduling.sigs.k8s.io" in w and "scheduling.x-k8s.io/pod-group" in w
        for w in inputs.warnings
    ), inputs.warnings


def test_help_says_which_plugins_are_bundled(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    assert "QOSSort and Coscheduling" in " ".join(capsys.readouterr().out.split())
