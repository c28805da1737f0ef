"""The numbers the reliability suites report: pods, faults injected by kind, inputs tried.

A suite reports with :func:`report` (or the ``numbers`` fixture, which also
attaches the numbers to the test's JUnit record through ``record_property``).
The numbers are printed at once (``pytest -s`` shows them) and again, all
together, in the terminal summary at the end of the run, so a CI log shows
them without ``-s``. Property tests count across their examples in a
module-scoped fixture and report when the module is done.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

_REPORTED: list[tuple[str, dict[str, object]]] = []

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


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _REPORTED:
        return
    terminalreporter.section("reliability numbers")
    for title, values in _REPORTED:
        terminalreporter.write_line(title)
        for key, value in values.items():
            terminalreporter.write_line(f"    {key}: {value}")
