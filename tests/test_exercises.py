"""Every chapter's exercise is a real exercise.

For each ``chapters/NN_slug/exercise.py``: the skeleton imports cleanly, the
chapter's tests *collect and run* against it and *fail* (exit code 1: tests
failed, not 2: an error, or 5: nothing ran), and each test it fails names the
learner's ``NotImplementedError``. That the same tests pass against the
reference is shown by the main test run itself.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from framework.cli.exercise_hints import read_hints

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = sorted(ROOT.glob("chapters/[0-9][0-9]*_*/exercise.py"))


def test_there_is_at_least_one_exercise() -> None:
    assert EXERCISES, "no chapters/NN_slug/exercise.py found"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.parent.name)
def test_skeleton_imports(exercise: Path) -> None:
    spec = importlib.util.spec_from_file_location(f"skeleton_{exercise.parent.name}", exercise)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.parent.name)
def test_chapter_tests_fail_against_the_skeleton(exercise: Path) -> None:
    env = {**os.environ, "KSF_EXERCISE": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(exercise.parent),
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "--no-header",
            "-rN",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 1, (
        f"expected the chapter's tests to fail against the skeleton (exit 1), got exit "
        f"{result.returncode}:\n{result.stdout}\n{result.stderr}"
    )
    assert "NotImplementedError" in result.stdout
    assert " passed" not in result.stdout.splitlines()[-1], (
        "some chapter tests pass against the untouched skeleton; they test nothing the learner writes:\n"
        + result.stdout[-2000:]
    )


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.parent.name)
def test_each_exercise_has_graded_hints(exercise: Path) -> None:
    chapter = exercise.parent.name.split("_")[0]
    hints = read_hints(chapter)
    assert len(hints) >= 2
    assert [h.number for h in hints] == list(range(1, len(hints) + 1))
