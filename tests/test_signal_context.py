"""SIGINT and SIGTERM set the commands' stop Event (SetupSignalContext, k8s.io/apiserver signal.go)."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from framework.cli.signal_context import setup_signal_event


@pytest.fixture
def restored_handlers() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_first_signal_sets_the_event(restored_handlers: None, signum: int) -> None:
    stop = setup_signal_event()
    assert not stop.is_set()
    signal.raise_signal(signum)  # the handler runs in the main thread before this returns
    assert stop.is_set()
