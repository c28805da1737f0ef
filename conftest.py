"""Shared pytest wiring: the switch between the reference code and a learner's exercise.

A chapter's tests are written once and run two ways:

* by default against the **reference** implementation in ``framework/``, so
  the suite is green and the tests are known to be right;
* with ``--exercise`` (or ``KSF_EXERCISE=1``) against the learner's
  **skeleton** ``chapters/NN_slug/exercise.py``, where they fail until the
  learner's code is right.

A chapter test file declares both sides once::

    pytestmark = pytest.mark.exercise(reference="framework.objects.qos", skeleton="exercise.py")

and its tests take the ``impl`` fixture: the module under test, whichever
side that is. The skeleton path is relative to the test file.

The marker may name what the learner writes, ``asks=["QOSSort.less"]``: in
exercise mode each of those must be code of the learner's file, not the
reference's (imported, or inherited from a reference class), or the test
fails saying so, before it runs.

``KSF_EXERCISE_FILE=path/to/variant.py`` (with ``--exercise``) runs the
tests against another file in the skeleton's place: the meta-tests in
``tests/test_exercise_variants.py`` use it to show that a deliberately wrong
answer fails.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

EXERCISE_ENV = "KSF_EXERCISE"
EXERCISE_FILE_ENV = "KSF_EXERCISE_FILE"

# Wall-clock deadlines and "too slow" health checks make property tests flaky
# on a busy machine and prove nothing here: speed is measured by benchmarks.
settings.register_profile(
    "kube-scheduling-framework", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("kube-scheduling-framework")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--exercise",
        action="store_true",
        default=False,
        help="run chapter tests against your exercise skeletons (chapters/*/exercise.py) "
        f"instead of the reference code; same as {EXERCISE_ENV}=1",
    )


def exercise_mode(config: pytest.Config) -> bool:
    return bool(config.getoption("--exercise")) or os.environ.get(EXERCISE_ENV, "") not in (
        "",
        "0",
    )


def pytest_report_header(config: pytest.Config) -> str:
    if exercise_mode(config):
        return "chapter tests: against YOUR exercise code (chapters/*/exercise.py)"
    return "chapter tests: against the reference code (framework/); use --exercise for yours"


# Where the reference code lives: an "answer" defined here is not the learner's.
REFERENCE_DIRS = tuple(Path(__file__).resolve().parent / d for d in ("framework", "examples"))


def _not_yours(module: ModuleType, asked: str) -> str | None:
    """Why ``module``'s ``asked`` (``name`` or ``Class.method``) is not the learner's code, or None."""
    obj: object = module
    for part in asked.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return f"{asked} is missing from {module.__file__}: the exercise asks you to write it"
    code = getattr(getattr(obj, "__func__", obj), "__code__", None)
    if code is None:
        return None  # not a function (a class or constant): nothing to compare
    where = Path(code.co_filename).resolve()
    if any(where.is_relative_to(d) for d in REFERENCE_DIRS):
        return (
            f"{asked} in {module.__file__} is the reference's own code ({where}), imported or "
            "inherited: write it yourself in the exercise file"
        )
    return None


def _load_skeleton(path: Path) -> ModuleType:
    name = f"ksf_exercise_{path.parent.name}_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise pytest.UsageError(f"cannot import the exercise file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def impl(request: pytest.FixtureRequest) -> ModuleType:
    """The module a chapter test exercises: the reference, or the learner's skeleton."""
    marker = request.node.get_closest_marker("exercise")
    if marker is None:
        raise pytest.UsageError(
            f"{request.node.nodeid} uses the 'impl' fixture but its file has no "
            "pytestmark = pytest.mark.exercise(reference=..., skeleton=...)"
        )
    if exercise_mode(request.config):
        override = os.environ.get(EXERCISE_FILE_ENV, "")
        if override:
            module = _load_skeleton(Path(override).resolve())
        else:
            module = _load_skeleton(Path(request.node.path).parent / marker.kwargs["skeleton"])
        for asked in marker.kwargs.get("asks", ()):
            problem = _not_yours(module, asked)
            if problem:
                pytest.fail(problem, pytrace=False)
        return module
    return importlib.import_module(marker.kwargs["reference"])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In exercise mode, a checkpoint's tests run only when its file is named.

    A long chapter has small checkpoints beside its exercise
    (``test_checkpoint_NAME.py``); ``pytest chapters/09_preemption --exercise``
    checks the chapter's exercise alone, and says how to check a checkpoint.
    """
    if not exercise_mode(config):
        return
    named = {Path(arg.split("::")[0]).resolve() for arg in config.args}
    for item in items:
        path = Path(item.path).resolve()
        if path.name.startswith("test_checkpoint_") and path not in named:
            item.add_marker(
                pytest.mark.skip(
                    reason=f"a checkpoint: python -m pytest {path.relative_to(Path.cwd())} --exercise"
                    if path.is_relative_to(Path.cwd())
                    else "a checkpoint: name its test file to check it"
                )
            )
