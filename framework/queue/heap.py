"""A keyed binary heap ordered by a ``less`` function: the data structure under activeQ and backoffQ.

The scheduling queue needs more than the standard ``heapq`` offers. It must find a
pod by its key (``namespace/name``) to update or delete it in place, and it
must order pods by a *function* (the QueueSort plugin's ``less``) rather
than by comparing the items themselves. So each item is stored with its key,
and a dictionary maps every key to the item's current position in the heap
array; every swap keeps that index up to date.

The head of the heap is an item for which ``less(head, other)`` is true
against every other item, **provided** ``less`` is a strict weak ordering:
never true both ways (``less(a, b)`` and ``less(b, a)``), transitive, and
with "neither is less" an equivalence. The heap never checks that. Given a
``less`` that answers true both ways for some pair, it still returns *an*
item, but which one depends on the order the items arrived in and on the
heap's internal layout: that is the QOSSort story of chapter 2.

The sift-up and sift-down steps follow Go's ``container/heap`` exactly
(``up``, ``down``, ``Fix``, ``Remove``), so that for the same ``less`` and
the same operations our heap holds its items in the same order as
kube-scheduler's, including for a ``less`` that is not a strict weak
ordering.

>>> h = Heap(key=lambda word: word[0], less=lambda a, b: len(a) < len(b))
>>> for word in ["pear", "fig", "banana"]:
...     h.add_or_update(word)
>>> h.peek(), len(h), "b" in h
('fig', 3, True)
>>> h.add_or_update("be")  # same key as "banana": replaced, and moved to the head
>>> [h.pop() for _ in range(len(h))]
['be', 'fig', 'pear']

Mirrors ``Heap`` in ``kubernetes/kubernetes:pkg/scheduler/backend/heap/heap.go``
(v1.33). Simplified: no metrics recorder, and ``delete``/``get`` take the key
itself rather than an object to compute it from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["EmptyHeapError", "Heap"]

T = TypeVar("T")


class EmptyHeapError(LookupError):
    """``pop`` on an empty heap (Go's ``heap is empty`` error)."""


class Heap(Generic[T]):
    """Items ordered by ``less`` and found by ``key``; one item per key.

    ``less(a, b)`` is true when ``a`` must come out before ``b``. Not
    thread-safe: the scheduling queue holds its lock around every call.
    """

    def __init__(self, key: Callable[[T], str], less: Callable[[T, T], bool]) -> None:
        self._key = key
        self._less = less
        self._items: list[T] = []
        self._keys: list[str] = []
        self._index: dict[str, int] = {}

    # --- the public operations -------------------------------------------------------------

    def add_or_update(self, item: T) -> None:
        """Insert ``item``, or replace the item with the same key and restore the order."""
        key = self._key(item)
        position = self._index.get(key)
        if position is not None:
            self._items[position] = item
            self._fix(position)
            return
        self._index[key] = len(self._items)
        self._items.append(item)
        self._keys.append(key)
        self._up(len(self._items) - 1)

    def delete(self, key: str) -> T | None:
        """Remove the item with this key and return it, or return None if there is none."""
        position = self._index.get(key)
        if position is None:
            return None
        last = len(self._items) - 1
        if position != last:
            self._swap(position, last)
            if not self._down(position, last):
                self._up(position)
        return self._remove_last()

    def peek(self) -> T | None:
        """The head (the item ``pop`` would return), or None when empty."""
        return self._items[0] if self._items else None

    def pop(self) -> T:
        """Remove and return the head; raise :class:`EmptyHeapError` when empty."""
        if not self._items:
            raise EmptyHeapError("heap is empty")
        last = len(self._items) - 1
        self._swap(0, last)
        self._down(0, last)
        return self._remove_last()

    def get(self, key: str) -> T | None:
        """The item with this key, or None."""
        position = self._index.get(key)
        return None if position is None else self._items[position]

    def list(self) -> list[T]:
        """Every item, in the heap's internal (array) order, not in pop order."""
        return list(self._items)

    def copy(self) -> Heap[T]:
        """An independent heap with the same items in the same layout (it pops the same way)."""
        twin: Heap[T] = Heap(self._key, self._less)
        twin._items = list(self._items)
        twin._keys = list(self._keys)
        twin._index = dict(self._index)
        return twin

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Heap({len(self)} items)"

    # --- Go's container/heap, step for step ------------------------------------------------

    def _less_at(self, i: int, j: int) -> bool:
        return self._less(self._items[i], self._items[j])

    def _swap(self, i: int, j: int) -> None:
        items, keys = self._items, self._keys
        items[i], items[j] = items[j], items[i]
        keys[i], keys[j] = keys[j], keys[i]
        self._index[keys[i]] = i
        self._index[keys[j]] = j

    def _up(self, j: int) -> None:
        while j > 0:
            parent = (j - 1) // 2
            if not self._less_at(j, parent):
                break
            self._swap(parent, j)
            j = parent

    def _down(self, start: int, n: int) -> bool:
        """Sift down within the first ``n`` items; return whether the item moved."""
        i = start
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            right = child + 1
            if right < n and self._less_at(right, child):
                child = right
            if not self._less_at(child, i):
                break
            self._swap(i, child)
            i = child
        return i > start

    def _fix(self, i: int) -> None:
        if not self._down(i, len(self._items)):
            self._up(i)

    def _remove_last(self) -> T:
        item = self._items.pop()
        del self._index[self._keys.pop()]
        return item
