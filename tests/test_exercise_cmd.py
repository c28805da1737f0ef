"""``python -m framework exercise list|status|reset``: the exercises at a glance, checked, restored."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from framework.__main__ import main
from framework.cli import exercise as exercise_cmd
from framework.cli.exercise_hints import HintError

ROOT = Path(__file__).resolve().parent.parent


def test_every_chapter_with_an_exercise_is_in_the_index_and_nothing_else() -> None:
    folders = {p.parent.name for p in ROOT.glob("chapters/[0-9][0-9]*_*/exercise.py")}
    assert {e.folder for e in exercise_cmd.EXERCISES} == folders


def test_list_prints_what_to_write_and_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exercise", "list"]) == 0
    out = capsys.readouterr().out
    assert "QOSSort.less" in out
    assert "python -m pytest chapters/09_preemption --exercise" in out
    assert out.count("\n") >= len(exercise_cmd.EXERCISES)


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        ("3 failed in 1.2s", (0, 3)),
        ("1 failed, 33 passed in 7.85s", (33, 34)),
        ("34 passed in 5.8s", (34, 34)),
        ("17 errors in 1.69s", (0, 17)),
        ("2 failed, 15 passed, 1 error in 3s", (15, 18)),
    ],
)
def test_a_pytest_summary_line_is_counted(summary: str, expected: tuple[int, int]) -> None:
    assert exercise_cmd.count_results(f"....\n{summary}\n") == expected


def test_status_of_an_untouched_skeleton_is_not_started(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["exercise", "status", "2"]) == 0
    out = capsys.readouterr().out
    assert "02_queue" in out
    assert "0 of 17 pass" in out


def test_an_unknown_chapter_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exercise", "status", "99"]) == 2
    assert "no chapter 99" in capsys.readouterr().err
    with pytest.raises(HintError):
        exercise_cmd.exercise_for("0")  # chapter 0 has no exercise


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_reset_restores_the_committed_skeleton_and_keeps_the_learners_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chapter = tmp_path / "chapters" / "01_objects"
    chapter.mkdir(parents=True)
    skeleton = chapter / "exercise.py"
    skeleton.write_text("# the skeleton\n", encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "s")
    skeleton.write_text("# my answer\n", encoding="utf-8")

    assert exercise_cmd.reset("1", root=tmp_path) == 0
    assert skeleton.read_text(encoding="utf-8") == "# the skeleton\n"
    [kept] = list(chapter.glob("exercise.py.mine.*"))
    assert kept.read_text(encoding="utf-8") == "# my answer\n"
    assert str(kept) in capsys.readouterr().out

    # A second reset keeps the first copy too: nothing is ever overwritten.
    skeleton.write_text("# my second answer\n", encoding="utf-8")
    assert exercise_cmd.reset("1", root=tmp_path) == 0
    assert len(list(chapter.glob("exercise.py.mine.*"))) == 2


def test_reset_outside_a_git_checkout_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chapter = tmp_path / "chapters" / "01_objects"
    chapter.mkdir(parents=True)
    (chapter / "exercise.py").write_text("# mine\n", encoding="utf-8")
    assert exercise_cmd.reset("1", root=tmp_path) == 2
    assert "git" in capsys.readouterr().err
    assert (chapter / "exercise.py").read_text(encoding="utf-8") == "# mine\n"
