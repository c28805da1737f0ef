"""CycleState: the scratch space the plugins of one scheduling attempt share.

A pod's attempt gets a fresh CycleState. A plugin computes something once
at PreFilter (say, the pod's total requests) and writes it under its own
key; its Filter reads it back for each node instead of recomputing. The
framework keeps its own notes there too: which plugins' Filter and Score to
skip because their PreFilter or PreScore said ``Skip``.

Everything stored must be :class:`StateData`, which knows how to clone
itself: preemption and the nominated-pods pass of Filter run plugins on a
*copy* of the state (with extra pods added through PreFilter's AddPod
extension), and must not disturb the original.

Mirrors ``CycleState`` and ``StateData`` in
``kubernetes/kubernetes:pkg/scheduler/framework/cycle_state.go`` (v1.33).
Simplified: no plugin-metrics sampling flag.
"""

from __future__ import annotations

import threading
from typing import Protocol, TypeVar, runtime_checkable

from framework.objects import Pod

__all__ = ["PODS_TO_ACTIVATE_KEY", "CycleState", "NotFound", "PodsToActivate", "StateData"]

_S = TypeVar("_S", bound="StateData")


@runtime_checkable
class StateData(Protocol):
    """A value in CycleState. ``clone`` may return ``self`` if the value is never mutated."""

    def clone(self) -> StateData: ...


class NotFound(KeyError):
    """Reading a key nobody wrote (``framework.ErrNotFound``, whose text is "not found")."""

    def __str__(self) -> str:
        return "not found"


class CycleState:
    """Per-attempt key/value store, safe to use from the parallel Filter and Score workers."""

    __slots__ = ("_lock", "_storage", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._storage: dict[str, StateData] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def read(self, key: str) -> StateData:
        """The value under ``key``; raise :class:`NotFound` if none was written.

        No lock: plugins read once per node evaluated, and one dict lookup
        is atomic in CPython (the GIL), so it sees the value before or after
        a concurrent write, never half of one. Writes, deletes and
        :meth:`clone`, which take several steps, hold the lock.
        """
        try:
            return self._storage[key]
        except KeyError:
            raise NotFound(key) from None

    def read_as(self, key: str, kind: type[_S]) -> _S:
        """Read and check the type in one step (Go code does ``c.(*preFilterState)``).

        The lookup is :meth:`read`'s, written out rather than called: plugins
        call this once per node evaluated, and a Python call costs more than
        the lookup itself.
        """
        try:
            value = self._storage[key]
        except KeyError:
            raise NotFound(key) from None
        if not isinstance(value, kind):
            raise TypeError(f"{value!r} under {key!r} is not a {kind.__name__}")
        return value

    def write(self, key: str, value: StateData) -> None:
        with self._lock:
            self._storage[key] = value

    def delete(self, key: str) -> None:
        with self._lock:
            self._storage.pop(key, None)

    def clone(self) -> CycleState:
        """A copy with every value cloned, and the skip sets copied."""
        copy = CycleState()
        with self._lock:
            copy._storage = {key: value.clone() for key, value in self._storage.items()}
        copy.skip_filter_plugins = set(self.skip_filter_plugins)
        copy.skip_score_plugins = set(self.skip_score_plugins)
        return copy


PODS_TO_ACTIVATE_KEY = "kubernetes.io/pods-to-activate"


class PodsToActivate:
    """Pods a plugin wants moved to activeQ when this attempt's cycle ends (``ns/name -> Pod``).

    Coscheduling uses it to pull a gang's siblings into the queue together.
    Cloning returns the same object: every copy of the state feeds one map.
    """

    __slots__ = ("lock", "map")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.map: dict[str, Pod] = {}

    def clone(self) -> PodsToActivate:
        return self
