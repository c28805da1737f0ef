"""The numbers the reliability suites report: pods, faults injected by kind, inputs tried.

A suite reports with :func:`report` (or the ``numbers`` fixture, which also
attaches the numbers to the test's JUnit record through ``record_property``).
The numbers are printed at once (``pytest -s`` shows them) and again, all
together, in the terminal summary at the end of the run, so a CI log shows
them without ``-s``. Property tests count across their examples in a
module-scoped fixture and report when the module is done. The summary also
counts the cases each reliability module ran (every row of a fault table is
one case), and suites elsewhere (the HTTP load test) may :func:`report` too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

_REPORTED: list[tuple[str, dict[str, object]]] = []
_CASES: dict[str, Counter[str]] = {}

Numbers = Callable[[str, Mapping[str, object]], None]


def report(title: str, values: Mapping[str, object]) -> None:
    """Print ``values`` under ``title`` now, and again in the run's terminal summary."""
    shown = dict(values)
    _REPORTED.append((title, shown))
    print(f"\n{title}: " + ", ".join(f"{k} {v}" for k, v in shown.items()))


@pytest.fixture
def numbers(record_property: Callable[[str, object], None]) -> Numbers:
    def numbers(title: str, values: Mapping[str, object]) -> None:
        for key, value in values.items():
            record_property(f"{title}: {key}", value)
        report(title, values)

    return numbers


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # Called for the tests under this directory only (a conftest's runtest hooks are scoped).
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        module = Path(report.location[0]).stem
        _CASES.setdefault(module, Counter())[report.outcome] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _REPORTED and not _CASES:
        return
    terminalreporter.section("reliability numbers")
    if _CASES:
        terminalreporter.write_line("cases run, by suite")
        for module, outcomes in sorted(_CASES.items()):
            counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items()))
            terminalreporter.write_line(f"    {module}: {counts}")
    for title, values in _REPORTED:
        terminalreporter.write_line(title)
        for key, value in values.items():
            terminalreporter.write_line(f"    {key}: {value}")
