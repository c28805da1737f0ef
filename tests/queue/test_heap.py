"""The keyed heap: add-or-update, delete by key, peek, pop, lookups; and against a sorted list."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from framework.queue.heap import EmptyHeapError, Heap

Item = tuple[str, int]  # (key, rank): lower rank pops first


def new_heap() -> Heap[Item]:
    return Heap(key=lambda item: item[0], less=lambda a, b: a[1] < b[1])


def drain(heap: Heap[Item]) -> list[Item]:
    return [heap.pop() for _ in range(len(heap))]


def test_pops_in_less_order() -> None:
    heap = new_heap()
    for item in [("c", 3), ("a", 1), ("d", 4), ("b", 2)]:
        heap.add_or_update(item)
    assert drain(heap) == [("a", 1), ("b", 2), ("c", 3), ("d", 4)]


def test_add_or_update_replaces_the_item_with_the_same_key_and_reorders() -> None:
    heap = new_heap()
    for item in [("a", 1), ("b", 2), ("c", 3)]:
        heap.add_or_update(item)
    heap.add_or_update(("c", 0))
    heap.add_or_update(("a", 9))
    assert len(heap) == 3
    assert heap.get("a") == ("a", 9)
    assert drain(heap) == [("c", 0), ("b", 2), ("a", 9)]


def test_delete_by_key_returns_the_item_and_keeps_the_order() -> None:
    heap = new_heap()
    for rank, key in enumerate("abcdefg"):
        heap.add_or_update((key, rank))
    assert heap.delete("b") == ("b", 1)
    assert heap.delete("b") is None
    assert "b" not in heap
    assert [key for key, _ in drain(heap)] == list("acdefg")


def test_peek_shows_the_head_without_removing_it() -> None:
    heap = new_heap()
    assert heap.peek() is None
    heap.add_or_update(("x", 5))
    heap.add_or_update(("y", 1))
    assert heap.peek() == ("y", 1)
    assert len(heap) == 2


def test_pop_on_an_empty_heap_raises_a_project_error() -> None:
    with pytest.raises(EmptyHeapError, match="heap is empty"):
        new_heap().pop()


def test_get_contains_and_list() -> None:
    heap = new_heap()
    heap.add_or_update(("a", 2))
    heap.add_or_update(("b", 1))
    assert heap.get("a") == ("a", 2)
    assert heap.get("z") is None
    assert "a" in heap and "z" not in heap
    assert sorted(heap.list()) == [("a", 2), ("b", 1)]


def test_a_copy_pops_independently_in_the_same_order() -> None:
    heap = new_heap()
    for item in [("c", 3), ("a", 1), ("b", 2)]:
        heap.add_or_update(item)
    twin = heap.copy()
    assert drain(twin) == [("a", 1), ("b", 2), ("c", 3)]
    assert len(heap) == 3


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.sampled_from("abcdefgh"), st.integers(0, 20)),
        st.tuples(st.just("delete"), st.sampled_from("abcdefgh"), st.just(0)),
        st.tuples(st.just("pop"), st.just(""), st.just(0)),
    ),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(OPERATIONS)
def test_the_heap_agrees_with_a_dict_and_a_sort(operations: list[tuple[str, str, int]]) -> None:
    """Random programs against a trivially correct model: a dict, sorted on demand."""
    heap = new_heap()
    model: dict[str, int] = {}
    for op, key, rank in operations:
        if op == "add":
            heap.add_or_update((key, rank))
            model[key] = rank
        elif op == "delete":
            assert heap.delete(key) == ((key, model.pop(key)) if key in model else None)
        elif model:
            popped_key, popped_rank = heap.pop()
            assert popped_rank == min(model.values())
            assert model.pop(popped_key) == popped_rank
        assert len(heap) == len(model)
        assert sorted(heap.list()) == sorted(model.items())
        for k in model:
            assert heap.get(k) == (k, model[k])
    assert [rank for _, rank in drain(heap)] == sorted(model.values())
