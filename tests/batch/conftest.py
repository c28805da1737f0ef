"""Fixtures shared by the batch engine's tests."""

from __future__ import annotations

from typing import Any

import pytest

from framework.batch.engine import DifferentialSchedulingAlgorithm
from framework.simulator import run as simulator_run


@pytest.fixture
def algorithms(monkeypatch: pytest.MonkeyPatch) -> list[DifferentialSchedulingAlgorithm]:
    """The differential algorithm of each ``engine="both"`` run, kept for its stats."""
    seen: list[DifferentialSchedulingAlgorithm] = []
    original = simulator_run.check_engines_agreed

    def keep(scheduler: Any) -> None:
        seen.append(scheduler.scheduling.algorithm)
        original(scheduler)

    monkeypatch.setattr(simulator_run, "check_engines_agreed", keep)
    return seen
