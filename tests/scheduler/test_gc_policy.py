"""The collector setting a running scheduler uses (framework.scheduler.gc_policy; no Kubernetes counterpart)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from framework.scheduler.gc_policy import (
    SCHEDULER_GC_THRESHOLD0,
    relax_young_collections,
    restore_collections,
)


@pytest.fixture(autouse=True)
def default_thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_the_first_scheduler_raises_threshold0_and_the_last_restores_it() -> None:
    relax_young_collections()
    relax_young_collections()  # a second scheduler in the same process
    assert gc.get_threshold() == (SCHEDULER_GC_THRESHOLD0, 10, 10)
    restore_collections()
    assert gc.get_threshold()[0] == SCHEDULER_GC_THRESHOLD0, "one scheduler still runs"
    restore_collections()
    assert gc.get_threshold() == (700, 10, 10)


def test_a_disabled_threshold_stays_disabled() -> None:
    gc.set_threshold(0, 10, 10)
    relax_young_collections()
    assert gc.get_threshold() == (0, 10, 10)
    restore_collections()
    assert gc.get_threshold() == (0, 10, 10)


def test_restoring_without_relaxing_changes_nothing() -> None:
    restore_collections()
    assert gc.get_threshold() == (700, 10, 10)
