"""``python -m framework exercise list|status|reset``: the book's exercises, for a learner.

* ``list`` — the exercise index: per chapter, what you write, what to read
  first, an estimated time and difficulty, and the command that checks it;
* ``status [CHAPTER...]`` — runs each chapter's tests against your
  ``chapters/NN_slug/exercise.py`` (``pytest --exercise``) and says how many
  pass;
* ``reset CHAPTER`` — puts the chapter's skeleton back as the checkout's
  last commit has it (``git show HEAD:...``), after keeping your file beside
  it as ``exercise.py.mine.N``: nothing you wrote is lost.

No Kubernetes counterpart: this is the book's, like :mod:`framework.cli.exercise_hints`,
and reads the chapters from a clone of the repository.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from framework.cli.exercise_hints import CHAPTERS, HintError, chapter_dir

__all__ = ["EXERCISES", "Exercise", "add_command", "count_results", "exercise_for", "reset"]


@dataclass(frozen=True, slots=True)
class Exercise:
    folder: str
    writes: str
    prerequisites: str
    minutes: int
    difficulty: str

    @property
    def chapter(self) -> str:
        key = self.folder.split("_")[0]  # "00b", "09"
        digits = key.rstrip("abcdefghijklmnopqrstuvwxyz")
        return f"{int(digits)}{key[len(digits) :]}"

    @property
    def command(self) -> str:
        return f"python -m pytest chapters/{self.folder} --exercise"


# The times are estimates for a reader who has just read the chapter.
EXERCISES: tuple[Exercise, ...] = (
    Exercise("00b_before_the_framework", "NodeLabelRule.filter, .score", "0", 30, "easy"),
    Exercise("01_objects", "compute_pod_qos", "1", 30, "easy"),
    Exercise("02_queue", "QOSSort.less", "1, 2", 20, "easy"),
    Exercise(
        "03_plugins", "toleration_tolerates_taint, NodeUnschedulable.filter", "3", 30, "easy"
    ),
    Exercise("04_scheduling_cycle", "combine_scores, select_host", "3, 4", 45, "medium"),
    Exercise("05_reserve_permit", "PodGroupGate.permit, .unreserve", "3, 5", 45, "medium"),
    Exercise("06_binding_cycle", "NodeSlotStamp.pre_bind, .unreserve", "5, 6", 45, "medium"),
    Exercise("07_filtering", "fits_request", "1, 7", 45, "medium"),
    Exercise("07b_volumes", "find_matching_volume", "5, 7b", 40, "medium"),
    Exercise("07c_devices", "gather_pools", "7, 7c", 25, "easy"),
    Exercise(
        "08_scoring",
        "least/most_requested_score, least/most_resource_scorer",
        "4, 8",
        40,
        "medium",
    ),
    Exercise("09_preemption", "DefaultPreemption.select_victims_on_node", "4, 7, 9", 60, "hard"),
    Exercise(
        "10_coscheduling", "PodGroupManager.permit, Coscheduling.permit", "5, 10", 60, "hard"
    ),
    Exercise("10b_gangs_in_tree", "gang_permit", "5, 10, 10b", 20, "easy"),
    Exercise("11_pending", "diagnose", "7, 11", 40, "medium"),
    Exercise("12_going_live", "request_verb", "12", 30, "easy"),
)

_SUMMARY = re.compile(r"(\d+) (passed|failed|errors?)\b")


def exercise_for(chapter: str, root: Path = CHAPTERS) -> Exercise:
    """The exercise of a chapter number (``9``, ``0b``); :class:`HintError` if it has none."""
    folder = chapter_dir(chapter, root).name
    for exercise in EXERCISES:
        if exercise.folder == folder:
            return exercise
    raise HintError(f"chapter {chapter} ({folder}) has no exercise")


def count_results(output: str) -> tuple[int, int]:
    """``(passed, run)`` from pytest's closing line; errors count as run, not passed."""
    lines = [line for line in output.strip().splitlines() if _SUMMARY.search(line)]
    if not lines:
        return 0, 0
    counts = {"passed": 0, "failed": 0, "error": 0}
    for number, word in _SUMMARY.findall(lines[-1]):
        counts["error" if word.startswith("error") else word] += int(number)
    return counts["passed"], sum(counts.values())


def status(chapters: list[str], root: Path) -> int:
    chosen = [exercise_for(c, root / "chapters") for c in chapters] if chapters else EXERCISES
    env = {**os.environ, "KSF_EXERCISE": "1"}
    env.pop("KSF_EXERCISE_FILE", None)
    for exercise in chosen:
        done = subprocess.run(
            [
                *(sys.executable, "-m", "pytest", f"chapters/{exercise.folder}", "-q"),
                *("-p", "no:cacheprovider", "--no-header", "-rN"),
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        passed, run = count_results(done.stdout)
        if run == 0:
            verdict = f"could not run: {(done.stderr or done.stdout).strip()[-200:]}"
        elif passed == run:
            verdict = f"done: all {run} pass"
        elif "NotImplementedError" in done.stdout and passed == 0:
            verdict = f"not started: 0 of {run} pass"
        else:
            verdict = f"{passed} of {run} pass"
        print(f"{exercise.folder:<26} {verdict}")
    return 0


def reset(chapter: str, root: Path = CHAPTERS.parent) -> int:
    """Restore a chapter's skeleton from the last commit, keeping the learner's file beside it."""
    try:
        folder = chapter_dir(chapter, root / "chapters")
    except HintError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    target = folder / "exercise.py"
    relative = target.relative_to(root).as_posix()
    shown = subprocess.run(
        ["git", "show", f"HEAD:{relative}"], cwd=root, capture_output=True, check=False
    )
    if shown.returncode != 0:
        print(
            f"error: cannot read {relative} from git ({shown.stderr.decode().strip()}); reset "
            "needs a git clone of the repository. Your file is unchanged.",
            file=sys.stderr,
        )
        return 2
    if target.exists():
        number = 1
        while (kept := target.with_name(f"exercise.py.mine.{number}")).exists():
            number += 1
        kept.write_bytes(target.read_bytes())
        print(f"your file is kept as {kept}")
    target.write_bytes(shown.stdout)
    print(f"{target} is the skeleton again")
    return 0


def _list() -> int:
    print(f"{'chapter':<8} {'you write':<58} {'read first':<11} {'time':<7} {'level':<7} check")
    for e in EXERCISES:
        print(
            f"{e.chapter:<8} {e.writes:<58} {e.prerequisites:<11} {e.minutes:>3} min "
            f"{e.difficulty:<7} {e.command}"
        )
    return 0


def _run(args: argparse.Namespace) -> int:
    root = CHAPTERS.parent
    try:
        if args.action == "list":
            return _list()
        if args.action == "status":
            return status(args.chapters, root)
        if len(args.chapters) != 1:
            print("error: reset takes one chapter, e.g. exercise reset 9", file=sys.stderr)
            return 2
        return reset(args.chapters[0], root)
    except HintError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "exercise",
        help="the exercises: list them, check yours (status), restore a skeleton (reset)",
    )
    parser.add_argument("action", choices=["list", "status", "reset"])
    parser.add_argument("chapters", nargs="*", help="chapter numbers, e.g. 2 9 0b")
    parser.set_defaults(run=_run)
