"""Stopping a long-running command on SIGINT or SIGTERM.

Mirrors ``SetupSignalContext`` in
``k8s.io/apiserver/pkg/server/signal.go``, which kube-scheduler's
``NewSchedulerCommand`` uses: the first SIGINT or SIGTERM cancels a context
the command waits on, and the command then shuts down in order. Here the
context is a :class:`threading.Event`. Simplified: a second signal does not
exit at once, as Go's does.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

__all__ = ["setup_signal_event"]


def setup_signal_event() -> threading.Event:
    """An Event set by the first SIGINT or SIGTERM (call from the main thread)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    return stop
