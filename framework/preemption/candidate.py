"""A preemption candidate: a node, and the pods that would have to go for the preemptor to fit.

The dry run of preemption turns each node it tries into either a status
("no victims here", "still does not fit") or a :class:`Candidate`: the node
name and its :class:`~framework.extender.types.Victims`, listed most important first, with the
number of them whose eviction would take a PodDisruptionBudget below zero.

:class:`CandidateList` is the dry run's bounded list: it holds at most
``size`` candidates and silently drops the rest, but still counts every
addition, so ``len()`` never exceeds the bound.

Mirrors ``Candidate``, ``candidate`` and ``candidateList`` in
``kubernetes/kubernetes:pkg/scheduler/framework/preemption/preemption.go``
(v1.33); ``Victims`` is the extender API's, :class:`framework.extender.types.Victims`.
Simplified: the list is filled by one thread, so it needs no atomics.
"""

from __future__ import annotations

from dataclasses import dataclass

from framework.extender.types import Victims

__all__ = ["Candidate", "CandidateList", "Victims"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node where the preemptor fits once ``victims`` are gone."""

    name: str
    victims: Victims


class CandidateList:
    """At most ``size`` candidates, in the order they were added; extra ones are dropped."""

    __slots__ = ("_added", "_items", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: list[Candidate] = []
        self._added = 0

    def add(self, candidate: Candidate) -> None:
        self._added += 1
        if len(self._items) < self._size:
            self._items.append(candidate)

    def __len__(self) -> int:
        return min(self._added, self._size)

    def get(self) -> list[Candidate]:
        return list(self._items)
