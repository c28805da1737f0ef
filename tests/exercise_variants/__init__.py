"""Filled-in exercises, right and deliberately wrong, for the meta-tests.

Each ``NN_slug/<variant>.py`` is what a learner could hand in for chapter
NN's exercise: it takes the chapter's skeleton as it is
(:func:`skeleton_namespace`) and writes only the part the exercise asks for.
``right.py`` must pass the chapter's tests; every ``wrong_*.py`` breaks the
one rule its docstring names (the rule a hint warns about) and must fail
them. ``tests/test_exercise_variants.py`` runs them.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

CHAPTERS = Path(__file__).resolve().parent.parent.parent / "chapters"


def skeleton_namespace(chapter_folder: str, skeleton: str = "exercise.py") -> dict[str, Any]:
    """The public names of ``chapters/<chapter_folder>/exercise.py`` (or a checkpoint), untouched."""
    return _namespace(CHAPTERS / chapter_folder / skeleton)


def variant_namespace(chapter_folder: str, variant: str) -> dict[str, Any]:
    """The public names of another variant of the same chapter (a wrong one starts from right)."""
    return _namespace(Path(__file__).resolve().parent / chapter_folder / f"{variant}.py")


def _namespace(path: Path) -> dict[str, Any]:
    name = f"ksf_variant_{path.parent.parent.name}_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: a dataclass looks its module up while it is being defined.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return {name: value for name, value in vars(module).items() if not name.startswith("__")}
