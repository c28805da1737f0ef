"""YAML the loaders cannot read is one clear line naming the file, never a traceback.

go-yaml (``resolve.go``, under ``sigs.k8s.io/yaml``, which kubectl and
kube-scheduler read files with) refuses a scalar its tag cannot hold
(``cannot decode !!str `abc` as a !!int``); PyYAML raised ValueError or
IndexError there, which escaped the loaders as a crash. The simulator's
command answers such input, as any bad input, with exit code 2 and one line
per problem; and it refuses a file far larger than a cluster's objects
before reading it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.__main__ import main
from framework.config import ConfigError, loads_config
from framework.objects.manifest import ManifestError, loads
from framework.simulator import inputs

POD = "kind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, image: i}]\n"
CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

TAGS = [
    pytest.param("!!int abc", id="!!int abc"),
    pytest.param("!!float abc", id="!!float abc"),
    pytest.param("!!int ", id="an empty !!int"),
    pytest.param("!!bool maybe", id="!!bool maybe"),
    pytest.param("!!timestamp never", id="!!timestamp never"),
    pytest.param("9" * 4301, id="an integer of 4301 digits"),
]


@pytest.mark.parametrize("scalar", TAGS)
def test_a_scalar_its_tag_cannot_hold_is_one_manifest_error(scalar: str) -> None:
    with pytest.raises(ManifestError) as caught:
        loads(POD + f"  priority: {scalar}\n", "pods.yaml")
    (problem,) = caught.value.problems
    assert str(problem).startswith("pods.yaml: invalid YAML at line 5")
    assert "cannot decode" in str(problem)


@pytest.mark.parametrize("scalar", TAGS)
def test_a_scalar_its_tag_cannot_hold_is_one_config_error(scalar: str) -> None:
    with pytest.raises(ConfigError) as caught:
        loads_config(CONFIG + f"percentageOfNodesToScore: {scalar}\n", "sched.yaml")
    assert "cannot decode" in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1


@pytest.mark.parametrize("scalar", TAGS)
def test_simulate_answers_such_a_file_with_exit_2_and_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scalar: str
) -> None:
    (tmp_path / "pods.yaml").write_text(POD + f"  priority: {scalar}\n")
    (tmp_path / "sched.yaml").write_text(CONFIG + f"percentageOfNodesToScore: {scalar}\n")
    for argv in (
        ["simulate", str(tmp_path / "pods.yaml")],
        ["simulate", str(tmp_path / "cluster.yaml"), "--config", str(tmp_path / "sched.yaml")],
    ):
        (tmp_path / "cluster.yaml").write_text(POD)
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert "cannot decode" in err


def test_a_file_far_larger_than_a_cluster_is_refused_before_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inputs, "MAX_MANIFEST_BYTES", 1024 * 1024)
    big = tmp_path / "big.yaml"
    big.write_text(POD + "---\n" + "#" * (3 * 1024 * 1024) + "\n")
    assert main(["simulate", str(big)]) == 2
    err = capsys.readouterr().err
    assert f"{big}: is 3 MiB, more than the 1 MiB a manifest file may be" in err
