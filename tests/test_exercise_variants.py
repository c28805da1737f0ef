"""The chapters' tests tell a right answer from a wrong one.

``tests/test_exercises.py`` shows that every untouched skeleton fails its
chapter's tests. Here each filled-in variant under ``tests/exercise_variants``
runs in the skeleton's place (``--exercise`` with ``KSF_EXERCISE_FILE``):
``right.py`` must pass every test of its chapter, and each ``wrong_*.py``,
which breaks the one rule a hint warns about, must fail at least one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# NN_slug/<variant>.py for a chapter's exercise; NN_slug/checkpoint_NAME/<variant>.py for
# a checkpoint inside the chapter.
VARIANTS = sorted(
    [
        *(ROOT / "tests" / "exercise_variants").glob("[0-9][0-9]*_*/*.py"),
        *(ROOT / "tests" / "exercise_variants").glob("[0-9][0-9]*_*/checkpoint_*/*.py"),
    ]
)


def target_of(variant: Path) -> str:
    """``09_preemption`` for an exercise's variant, ``09_preemption/checkpoint_pdb`` for a checkpoint's."""
    if variant.parent.name.startswith("checkpoint_"):
        return f"{variant.parent.parent.name}/{variant.parent.name}"
    return variant.parent.name


def run_chapter_tests(variant: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KSF_EXERCISE": "1", "KSF_EXERCISE_FILE": str(variant)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *what_checks(variant),
            "-q",
            "-p",
            "no:cacheprovider",
            "--no-header",
            "-rN",
            *extra,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def what_checks(variant: Path) -> list[str]:
    """A checkpoint's own test file; or the chapter's tests but the checkpoints'."""
    target = target_of(variant)
    if "/" in target:
        chapter, checkpoint = target.split("/")
        return [str(ROOT / "chapters" / chapter / f"test_{checkpoint}.py")]
    return [str(ROOT / "chapters" / target), "--ignore-glob=*/test_checkpoint_*.py"]


# Chapters whose failures say what was expected in one line, and print no object whole.
SAYS_WHAT_WAS_EXPECTED = {"02_queue"}
OBJECT_DUMP = re.compile(r"\b(QueuedPodInfo|PodInfo|Pod|ObjectMeta)\(")


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest,
) -> Iterator[dict[Path, Future[subprocess.CompletedProcess[str]]]]:
    """The selected variants' runs, started at once two at a time (one per core)."""
    selected = [
        item.callspec.params["variant"]
        for item in request.session.items
        if item.path == Path(__file__) and hasattr(item, "callspec")
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield {
            variant: pool.submit(
                run_chapter_tests, variant, *(() if variant.stem == "right" else ("-x",))
            )
            for variant in selected
        }


def test_every_chapter_with_an_exercise_has_a_right_and_a_wrong_variant() -> None:
    chapters = {p.parent.name for p in ROOT.glob("chapters/[0-9][0-9]*_*/exercise.py")} | {
        f"{p.parent.name}/{p.stem}" for p in ROOT.glob("chapters/[0-9][0-9]*_*/checkpoint_*.py")
    }
    right = {target_of(p) for p in VARIANTS if p.stem == "right"}
    wrong = {target_of(p) for p in VARIANTS if p.stem.startswith("wrong_")}
    assert chapters - right == set(), "an exercise or checkpoint has no right.py variant"
    assert chapters - wrong == set(), "an exercise or checkpoint has no wrong_*.py variant"


# A subprocess per variant (about two minutes in all): with the slow tests, which CI runs.
@pytest.mark.slow
@pytest.mark.parametrize(
    "variant",
    [v for v in VARIANTS if v.stem == "right"],
    ids=lambda p: f"{target_of(p)}/{p.stem}",
)
def test_the_right_variant_passes(
    variant: Path, runs: dict[Path, Future[subprocess.CompletedProcess[str]]]
) -> None:
    result = runs[variant].result()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize(
    "variant",
    [v for v in VARIANTS if v.stem.startswith("wrong_")],
    ids=lambda p: f"{target_of(p)}/{p.stem}",
)
def test_a_wrong_variant_fails(
    variant: Path, runs: dict[Path, Future[subprocess.CompletedProcess[str]]]
) -> None:
    result = runs[variant].result()
    assert result.returncode == 1, (
        f"the chapter's tests do not catch {variant.name} (exit {result.returncode}); "
        f"its docstring says which rule it breaks:\n{result.stdout[-3000:]}{result.stderr[-2000:]}"
    )
    if variant.parent.name in SAYS_WHAT_WAS_EXPECTED:
        dumps = [line for line in result.stdout.splitlines() if OBJECT_DUMP.search(line)]
        assert not dumps, f"a failure of {variant.name} prints whole objects:\n" + "\n".join(
            line[:200] for line in dumps
        )
        said = [line for line in result.stdout.splitlines() if "AssertionError: " in line]
        vague = [line for line in said if "expected" not in line]
        assert not vague, "a failure does not say what was expected:\n" + "\n".join(vague)
