"""``simulate --output html``, gzip-compressed ``--out``, the progress bar's switch, ``generate``.

No Kubernetes counterpart: the simulator's own command line.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from framework.__main__ import main
from tests.simulate.test_cli import files, run  # noqa: F401  (files is a fixture)


def test_html_goes_to_the_file_named_or_to_stdout(
    files: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    cluster, config = str(files / "cluster.yaml"), str(files / "sched.yaml")
    report = files / "report.html"
    code, out, _ = run(
        capsys, "simulate", cluster, "--config", config, "--output", "html", "--out", str(report)
    )
    assert (code, out) == (
        0,
        f"Scheduled 2 of 3 pending pod(s) in 3 scheduling attempt(s); wrote the html output to {report}\n",
    )
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    assert all(pod in page for pod in ("default/web", "default/batch", "default/huge"))
    code, out, _ = run(capsys, "simulate", cluster, "--config", config, "--output", "html")
    assert (code, out) == (0, page)


def test_an_out_path_ending_in_gz_is_compressed_and_the_same_every_run(
    files: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    cluster = str(files / "cluster.yaml")
    _, plain, _ = run(capsys, "simulate", cluster, "--output", "json")
    packed = []
    for name in ("a.json.gz", "b.json.gz"):
        code, _, _ = run(
            capsys, "simulate", cluster, "--output", "json", "--out", str(files / name)
        )
        assert code == 0
        packed.append((files / name).read_bytes())
    assert packed[0] == packed[1]  # no time stamp, no file name in the gzip header
    assert gzip.decompress(packed[0]).decode("utf-8") == plain
    assert json.loads(plain)["version"] == "v1"


def test_no_progress_bar_when_stderr_is_not_a_terminal(
    files: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    for flags in ([], ["--no-progress"]):
        code, _, err = run(capsys, "simulate", str(files / "cluster.yaml"), *flags)
        assert code == 0 and "pods bound" not in err


def test_generate_writes_a_list_the_simulator_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "generate", "--nodes", "4", "--pods", "9", "--seed", "2")
    assert code == 0
    document = json.loads(out)
    assert document["kind"] == "List"
    assert [i["kind"] for i in document["items"]].count("Node") == 4
    (tmp_path / "big.json").write_text(out)
    code, out, _ = run(capsys, "simulate", str(tmp_path / "big.json"), "--output", "json")
    assert code == 0
    assert len(json.loads(out)["placements"]) == 4 + 9  # the agents and the pending pods


def test_generate_refuses_an_empty_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["generate", "--nodes", "0"])
    assert code == 2
    assert capsys.readouterr().err == (
        "error: generate: need nodes >= 1 and pods >= 0, got 0 and 5000\n"
    )
