"""``replace``: ``dataclasses.replace`` for the API objects, without its per-call overhead.

Objects are immutable, so every write the API server takes in, and every
change the scheduler makes to a pod it assumes, is a copy with a few fields
changed. ``dataclasses.replace`` makes that copy by walking the class's
fields, building a keyword dictionary and calling ``__init__``: about 3 µs
for an ``ObjectMeta`` or a ``PodSpec``, and a pod's trip from creation to
binding makes some twenty of them (defaulting, admission, the strategy, the
system fields, the binding, the ``PodScheduled`` condition, the Event).

:func:`replace` gives the same object: for a frozen, slotted dataclass
whose ``__init__`` does nothing but store its arguments (the one dataclasses
wrote, every field an ``init`` field, no ``__post_init__``, no ``__new__``),
a function made once per class stores each field into a new instance
through the slot's descriptor,
the field's new value if given, else the old one, which is all that
``__init__`` would have done with a full set of arguments. Any other class,
and any call ``dataclasses.replace`` would refuse (a field that does not
exist, a non-dataclass), goes to ``dataclasses.replace`` itself, so its
errors are the ones raised.

No Kubernetes counterpart: Go copies a struct with an assignment.
"""

from __future__ import annotations

import dataclasses
import threading
import types
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["replace"]

T = TypeVar("T")

_Replacer = Callable[..., Any]
_MISSING = object()
_replacers: dict[type, _Replacer] = {}
_lock = threading.Lock()


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of ``obj`` with ``changes``: exactly what ``dataclasses.replace(obj, **changes)`` returns."""
    replacer = _replacers.get(type(obj))
    if replacer is None:
        replacer = _replacer_for(type(obj))
    try:
        result: T = replacer(obj, **changes)
    except TypeError:  # an unknown field: dataclasses.replace says so in its own words
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    return result


def _slot(cls: type, name: str) -> Any:
    """The slot descriptor that stores field ``name`` on ``cls``'s instances, or None."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            return found if isinstance(found, types.MemberDescriptorType) else None
    return None


def _replacer_for(cls: type) -> _Replacer:
    with _lock:
        found = _replacers.get(cls)
        if found is None:
            found = _replacers[cls] = _build(cls)
        return found


def _build(cls: type) -> _Replacer:
    """The fast copier of ``cls``, or ``dataclasses.replace`` when ``__init__`` may do more."""
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.init:  # type: ignore[attr-defined]
        return dataclasses.replace
    if hasattr(cls, "__post_init__") or cls.__new__ is not object.__new__:
        return dataclasses.replace
    # dataclasses leaves an __init__ written in the class body alone; its own is made by exec.
    init_code = getattr(cls.__init__, "__code__", None)
    if init_code is None or init_code.co_filename != "<string>":
        return dataclasses.replace
    declared = cls.__dataclass_fields__
    fields = dataclasses.fields(cls)
    # Anything declared that fields() leaves out must be a ClassVar (an InitVar goes to __init__).
    plain = {f.name for f in fields}
    class_var = getattr(dataclasses, "_FIELD_CLASSVAR", None)
    if any(
        getattr(f, "_field_type", None) is not class_var
        for name, f in declared.items()
        if name not in plain
    ):
        return dataclasses.replace
    setters = [_slot(cls, f.name) for f in fields]
    if (
        not all(f.init for f in fields)
        or any(s is None for s in setters)
        or any(f.name.startswith("_ksf_") for f in fields)  # the function's own names
    ):
        return dataclasses.replace
    namespace: dict[str, Any] = {
        "_ksf_cls": cls,
        "_ksf_missing": _MISSING,
        "_ksf_new": object.__new__,
    }
    params = ", ".join(f"{f.name}=_ksf_missing" for f in fields)
    lines = [f"def _ksf_replace(_ksf_obj, /, *, {params}):", "    _ksf_copy = _ksf_new(_ksf_cls)"]
    for i, (f, setter) in enumerate(zip(fields, setters, strict=True)):
        namespace[f"_ksf_set{i}"] = setter.__set__
        value = f"_ksf_obj.{f.name} if {f.name} is _ksf_missing else {f.name}"
        lines.append(f"    _ksf_set{i}(_ksf_copy, {value})")
    lines.append("    return _ksf_copy")
    exec("\n".join(lines), namespace)  # as dataclasses builds __init__: one function per class
    built: _Replacer = namespace["_ksf_replace"]
    return built
