"""Every chapter's exercise is a real exercise.

For each ``chapters/NN_slug/exercise.py``: the skeleton imports cleanly, the
chapter's tests *collect and run* against it and *fail* (exit code 1: tests
failed, not 2: an error, or 5: nothing ran), and each test it fails names the
learner's ``NotImplementedError``. That the same tests pass against the
reference is shown by the main test run itself.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from framework.cli.exercise_hints import read_hints

ROOT = Path(__file__).resolve().parent.parent
# Each chapter's exercise, and the small checkpoints inside the long chapters
# (``checkpoint_NAME.py``, checked by ``test_checkpoint_NAME.py`` beside it).
EXERCISES = sorted(
    [
        *ROOT.glob("chapters/[0-9][0-9]*_*/exercise.py"),
        *ROOT.glob("chapters/[0-9][0-9]*_*/checkpoint_*.py"),
    ]
)


def exercise_id(exercise: Path) -> str:
    """``09_preemption`` for an exercise, ``09_preemption/checkpoint_pdb`` for a checkpoint."""
    if exercise.stem == "exercise":
        return exercise.parent.name
    return f"{exercise.parent.name}/{exercise.stem}"


def checked_by(exercise: Path) -> Path:
    """What checks a skeleton: the chapter's folder, or a checkpoint's own test file."""
    if exercise.stem == "exercise":
        return exercise.parent
    return exercise.parent / f"test_{exercise.stem}.py"


def load(exercise: Path) -> ModuleType:
    """The skeleton as a module of its own (registered, as dataclasses need)."""
    name = f"skeleton_{exercise.parent.name}_{exercise.stem}"
    spec = importlib.util.spec_from_file_location(name, exercise)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_there_is_at_least_one_exercise() -> None:
    assert EXERCISES, "no chapters/NN_slug/exercise.py found"


@pytest.mark.parametrize("exercise", EXERCISES, ids=exercise_id)
def test_skeleton_imports(exercise: Path) -> None:
    load(exercise)


@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES, ids=exercise_id)
def test_chapter_tests_fail_against_the_skeleton(exercise: Path) -> None:
    env = {**os.environ, "KSF_EXERCISE": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(checked_by(exercise)),
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


@pytest.mark.parametrize(
    "exercise", [e for e in EXERCISES if e.stem == "exercise"], ids=exercise_id
)
def test_each_exercise_has_graded_hints(exercise: Path) -> None:
    chapter = exercise.parent.name.split("_")[0]
    hints = read_hints(chapter)
    assert len(hints) >= 2
    assert [h.number for h in hints] == list(range(1, len(hints) + 1))


# --- a skeleton stands alone -----------------------------------------------------------------------

_MARKER = re.compile(
    r'pytest\.mark\.exercise\(\s*reference="(?P<reference>[\w.]+)",\s*skeleton="(?P<skeleton>[\w.]+)"'
)

# Modules under a reference package that a skeleton may still import, and why. Anything else
# under the package it exercises is the answer or a helper of it: the skeleton carries its own.
MAY_IMPORT = {
    # The plugins' arguments: Go keeps them apart from the plugins, in the config API
    # (pkg/scheduler/apis/config; scheduler-plugins' apis/config).
    "framework.config.args_defaultpreemption": "DefaultPreemptionArgs, as the config API",
    "framework.config.args_coscheduling": "CoschedulingArgs, as the config API",
    # apimachinery's resource.Quantity, which the PodGroup's resource-gap message prints.
    "framework.plugins.coscheduling.quantity": "resource.Quantity, from apimachinery",
}


def reference_of(exercise: Path) -> str:
    """The module the chapter's tests exercise (their ``pytest.mark.exercise(reference=...)``)."""
    for test in sorted(exercise.parent.glob("test_*.py")):
        found = _MARKER.search(test.read_text(encoding="utf-8"))
        if found and found["skeleton"] == exercise.name:
            return found["reference"]
    raise AssertionError(f"no test beside {exercise} names its reference module")


def imported_modules(exercise: Path) -> set[str]:
    tree = ast.parse(exercise.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("exercise", EXERCISES, ids=exercise_id)
def test_the_skeleton_imports_nothing_from_the_module_it_exercises(exercise: Path) -> None:
    reference = reference_of(exercise)
    wrong = sorted(
        name
        for name in imported_modules(exercise)
        if (name == reference or name.startswith(f"{reference}."))
        and not any(name == m or name.startswith(f"{m}.") for m in MAY_IMPORT)
    )
    assert not wrong, (
        f"{exercise.relative_to(ROOT)} imports {', '.join(wrong)} from {reference}, the code it "
        "asks for: a skeleton carries what it gives, so importing the answer cannot pass"
    )


@pytest.mark.parametrize("exercise", EXERCISES, ids=exercise_id)
def test_no_skeleton_class_inherits_from_the_reference(exercise: Path) -> None:
    reference = reference_of(exercise)
    module = load(exercise)
    for value in vars(module).values():
        if isinstance(value, type) and value.__module__ == module.__name__:
            inherited = [
                f"{base.__module__}.{base.__qualname__}"
                for base in value.__mro__[1:]
                if base.__module__ == reference or base.__module__.startswith(f"{reference}.")
            ]
            assert not inherited, (
                f"{exercise.relative_to(ROOT)}: {value.__name__} inherits from {inherited}, "
                "the reference: deleting the learner's method would inherit the answer"
            )
