"""How often CPython's cyclic garbage collector runs while the scheduler runs.

A scheduling cycle allocates a few objects per node it scores (each
plugin's ``NodeScore``, each node's ``NodePluginScores`` and their
``PluginScore`` entries): about 5,000 for SchedulingBasic's 500 nodes
evaluated, all alive at once until the cycle ends, all garbage right after.
CPython's collector counts container objects allocated and not yet freed,
and collects the youngest generation whenever that count passes
``threshold0`` (700 by default). So a collection runs in the middle of
every Score phase, finds the cycle's objects alive, and promotes them to
the older generations; once the promoted objects reach a quarter of the
heap, a *full* collection walks every object the process holds (every node,
pod and NodeInfo, a million objects at 5,000 nodes): hundreds of
milliseconds, every few dozen pods.

With ``threshold0`` above what one cycle holds at once, the cycle's objects
are freed by reference counting before any collection sees them, and the
old generations stop growing. Nothing else changes: the collector still runs,
only less often, and a cycle of garbage still gets collected.

No Kubernetes counterpart: Go's collector is concurrent and paced by
``GOGC``, and kube-scheduler leaves it alone. This is the CPython analogue
of choosing ``GOGC`` for a process that allocates in bursts (chapter 13).
"""

from __future__ import annotations

import gc
import threading

__all__ = ["SCHEDULER_GC_THRESHOLD0", "relax_young_collections", "restore_collections"]

SCHEDULER_GC_THRESHOLD0 = 100_000
"""Container objects allocated (net of frees) between young collections while a scheduler runs.

Above what one cycle holds at once even at ``percentageOfNodesToScore: 100``
on 5,000 nodes (about 30,000 objects); a young collection of that many
objects takes a few milliseconds.
"""

_lock = threading.Lock()
_running = 0  # schedulers started and not yet stopped in this process
_saved: tuple[int, int, int] | None = None


def relax_young_collections() -> None:
    """Raise ``threshold0`` while at least one scheduler runs (the first to start raises it)."""
    global _running, _saved
    with _lock:
        _running += 1
        if _running > 1:
            return
        _saved = gc.get_threshold()
        if 0 < _saved[0] < SCHEDULER_GC_THRESHOLD0:  # 0 means collection is off: leave it off
            gc.set_threshold(SCHEDULER_GC_THRESHOLD0, *_saved[1:])


def restore_collections() -> None:
    """Undo :func:`relax_young_collections` (the last scheduler to stop restores the thresholds)."""
    global _running, _saved
    with _lock:
        if _running == 0:
            return
        _running -= 1
        if _running == 0 and _saved is not None:
            gc.set_threshold(*_saved)
            _saved = None
