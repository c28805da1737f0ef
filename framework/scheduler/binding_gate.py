"""The binding gate: where a binding cycle may be held after WaitOnPermit returns.

kube-scheduler runs each binding cycle on a goroutine of its own, and the
order in which goroutines released at the same moment reach the API server
is the operating system's choice. A simulation that must repeat exactly
holds each binding thread at a gate, right after WaitOnPermit returns, and
lets them through in an order of its own
(:class:`~framework.simulator.turnstile.BindingTurnstile`). The gate is not
a tracer: a tracer is told what happened and must not block; a gate
blocks, and that is all it does.

No Kubernetes counterpart: the live scheduler has no gate (``None``).
"""

from __future__ import annotations

from typing import Protocol

from framework.types import QueuedPodInfo

__all__ = ["BindingGate"]


class BindingGate(Protocol):
    """Holds a binding thread until it is this pod's turn to go on."""

    def wait_turn(self, assumed: QueuedPodInfo) -> None:
        """Called on the binding thread once WaitOnPermit returned; returns when it may go on."""
        ...

    def settle(self) -> None:
        """Let the held binding cycles through until each has finished or is parked at Permit.

        The driver calls it where a scheduler without a gate would wait for
        its binding cycles (a cycle parked at Permit waits for another pod
        or for time, so it is not waited for).
        """
        ...
