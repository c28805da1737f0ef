"""``demo/kind.sh``: where kind or a Docker engine is missing, it says what and how to get on, and fails.

Neither kind nor a Docker engine is on the machines the tests run on, so the
script is run with a ``PATH`` of stand-ins: none at all, or small scripts
called ``kind``, ``docker`` and ``kubectl``. kind runs its nodes as Docker
containers (``sigs.k8s.io/kind``, "Quick Start"), so a docker client whose
``docker info`` fails (no engine) is as missing as no client.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "demo" / "kind.sh"
BASH = shutil.which("bash") or "/bin/bash"


def stand_ins(tmp_path: Path, **tools: int) -> Path:
    """A directory of executables named after ``tools``, each exiting with its code."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, code in tools.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\nexit {code}\n")
        tool.chmod(0o755)
    return bin_dir


def run_script(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(path), "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}
    return subprocess.run(
        [BASH, str(SCRIPT), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("tools", "missing", "present"),
    [
        pytest.param({}, ["kind: not found", "docker: not found", "kubectl: not found"], [],
                     id="nothing installed"),
        pytest.param({"kind": 0, "kubectl": 0}, ["docker: not found"], ["kind:", "kubectl:"],
                     id="no docker client"),
        pytest.param({"kind": 0, "kubectl": 0, "docker": 1}, ["Docker engine: not running"],
                     ["kind:", "docker: not found"], id="docker client but no engine"),
        pytest.param({"docker": 0, "kubectl": 0}, ["kind: not found"], ["Docker engine"],
                     id="no kind"),
    ],
)  # fmt: skip
def test_what_is_missing_is_named_and_the_script_fails(
    tmp_path: Path, tools: dict[str, int], missing: list[str], present: list[str]
) -> None:
    done = run_script(stand_ins(tmp_path, **tools))
    assert done.returncode == 3
    assert done.stdout == ""
    assert "demo/kind.sh cannot run the kind demo; missing:" in done.stderr
    for text in missing:
        assert text in done.stderr
    for text in present:
        assert text not in done.stderr


def test_without_docker_it_offers_the_fake_api_server_instead(tmp_path: Path) -> None:
    done = run_script(stand_ins(tmp_path, kind=0, kubectl=0))
    assert "python -m framework serve demo/nodes.yaml --config deploy/scheduler-config.yaml" in (
        done.stderr
    )
    assert "kubectl apply -f deploy/examples/pods.yaml" in done.stderr


def test_the_check_passes_when_everything_is_there(tmp_path: Path) -> None:
    done = run_script(stand_ins(tmp_path, kind=0, kubectl=0, docker=0), "--check")
    assert done.returncode == 0, done.stderr
    assert "all there" in done.stdout


def test_an_unknown_argument_is_refused(tmp_path: Path) -> None:
    done = run_script(stand_ins(tmp_path), "--frobnicate")
    assert done.returncode == 2
    assert "unknown argument: --frobnicate" in done.stderr


def test_the_files_the_no_docker_path_names_exist() -> None:
    for path in ("demo/nodes.yaml", "deploy/scheduler-config.yaml", "deploy/examples/pods.yaml"):
        assert (ROOT / path).is_file(), path


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_the_script_is_shellcheck_clean() -> None:
    done = subprocess.run(
        ["shellcheck", str(SCRIPT)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stdout
