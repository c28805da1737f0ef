"""``framework.objects.copying.replace`` is ``dataclasses.replace``, field for field, error for error."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from dataclasses import InitVar, dataclass, field
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings

import framework.objects
from framework.objects import Event, Node, ObjectMeta, Pod
from framework.objects.copying import replace
from tests.objects.strategies import NODE, POD


def _same(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    assert a == b
    for f in dataclasses.fields(a):
        assert getattr(a, f.name) is getattr(b, f.name), f.name


def _each_field_replaced(obj: Any) -> None:
    """Every field of ``obj`` (and of the dataclasses it holds) replaced, one at a time and all at once."""
    marker = object()
    for f in dataclasses.fields(obj):
        _same(replace(obj, **{f.name: marker}), dataclasses.replace(obj, **{f.name: marker}))
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            _each_field_replaced(value)
    _same(replace(obj), dataclasses.replace(obj))
    everything = {f.name: object() for f in dataclasses.fields(obj)}
    _same(replace(obj, **everything), dataclasses.replace(obj, **everything))


@settings(max_examples=40)
@given(POD)
def test_a_pod_and_everything_in_it_copy_as_dataclasses_replace_does(
    manifest: dict[str, Any],
) -> None:
    _each_field_replaced(Pod.from_dict(manifest))


@settings(max_examples=20)
@given(NODE)
def test_a_node_copies_as_dataclasses_replace_does(manifest: dict[str, Any]) -> None:
    _each_field_replaced(Node.from_dict(manifest))


def test_every_api_dataclass_with_defaults_copies_as_dataclasses_replace_does() -> None:
    """Each dataclass of framework.objects that can be built from its defaults alone."""
    seen = 0
    for info in pkgutil.iter_modules(framework.objects.__path__):
        module = importlib.import_module(f"framework.objects.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if not dataclasses.is_dataclass(cls) or cls.__module__ != module.__name__:
                continue
            try:
                obj = cls()
            except TypeError:
                continue  # a field without a default
            _each_field_replaced(obj)
            seen += 1
    assert seen > 50


def test_an_unknown_field_is_refused_in_dataclasses_replace_s_words() -> None:
    meta = ObjectMeta(name="a")
    with pytest.raises(TypeError) as ours:
        replace(meta, nmae="b")
    with pytest.raises(TypeError) as theirs:
        dataclasses.replace(meta, nmae="b")
    assert str(ours.value) == str(theirs.value)


def test_a_non_dataclass_is_refused_as_dataclasses_replace_refuses_it() -> None:
    with pytest.raises(TypeError, match="dataclass"):
        replace(object())


@dataclass(frozen=True, slots=True)
class _Checked:
    value: int
    doubled: int = 0
    seen: ClassVar[list[int]] = []

    def __post_init__(self) -> None:
        _Checked.seen.append(self.value)


@dataclass(frozen=True)
class _NoSlots:
    value: int


@dataclass(frozen=True, slots=True)
class _Derived:
    value: int
    derived: int = field(init=False, default=7)


@dataclass
class _WithInitVar:
    value: int
    scale: InitVar[int] = 1


@dataclass(frozen=True, slots=True)
class _OwnInit:
    value: int

    def __init__(self, value: int) -> None:
        object.__setattr__(self, "value", value * 2)


@dataclass(frozen=True, slots=True)
class _ClassVarOnly:
    value: int
    KIND: ClassVar[str] = "x"


def test_classes_whose_init_does_more_go_to_dataclasses_replace() -> None:
    _Checked.seen.clear()
    assert replace(_Checked(1), value=2) == _Checked(2)
    assert _Checked.seen == [1, 2, 2]  # __post_init__ ran for the copy too
    assert replace(_NoSlots(1), value=2) == _NoSlots(2)
    copy = replace(_Derived(1), value=2)
    assert (copy.value, copy.derived) == (2, 7)
    with pytest.raises(ValueError):
        replace(_Derived(1), derived=3)
    assert replace(_WithInitVar(1), value=2) == dataclasses.replace(_WithInitVar(1), value=2)
    assert replace(_ClassVarOnly(1), value=2) == _ClassVarOnly(2)
    assert replace(_OwnInit(1), value=2).value == 4  # its own __init__ ran, as in dataclasses'


def test_an_event_stamped_by_the_server_is_the_same_as_before() -> None:
    event = Event(metadata=ObjectMeta(name="e", namespace="default"), reason="Scheduled")
    _each_field_replaced(event)
    assert event.with_metadata(resource_version="7") == dataclasses.replace(
        event, metadata=dataclasses.replace(event.metadata, resource_version="7")
    )


def test_the_objects_a_write_copies_take_the_quick_path() -> None:
    """Pods, their parts and Events get a copier of their own (else nothing was gained)."""
    from framework.objects import PodCondition, PodSpec, PodStatus
    from framework.objects.copying import _replacer_for

    for cls in (Pod, ObjectMeta, PodSpec, PodStatus, PodCondition, Event, Node):
        assert _replacer_for(cls) is not dataclasses.replace, cls
