"""The guard around every plugin call: what happens when a plugin raises or answers junk.

Go plugins cannot throw, and Go's types decide what each extension point may
return. Python checks neither, so every runner of
:class:`~framework.runtime.framework.Framework` calls its plugins through
:func:`call`, which turns

* an exception into an ``Error`` status that names the plugin and keeps the
  exception as its cause (:func:`raised`), and
* an answer of the wrong shape (something that is not a Status or None where
  a Status is due, a score that is not an integer, a status whose code is not
  a :class:`~framework.status.Code`) into an ``Error`` status that says what
  came back and what was wanted (:func:`malformed`).

Either fails that pod's attempt only: it goes back to the queue with
backoff, as after a plugin that returned an error in Go.
:func:`check_normalized` does the same for a NormalizeScore that changed the
length of its list or left a non-integer score in it.

No Go counterpart: the Python-only part of
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``'s
contract (v1.33), kept apart so that module maps onto ``framework.go``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from framework.interface import NodeScore, Plugin, PostFilterResult, PreFilterResult
from framework.status import Code, Status

__all__ = ["PluginRaised", "call", "check_normalized", "checked_status", "malformed", "raised"]


class PluginRaised(RuntimeError):
    """A plugin raised an exception; carried in the Error status of the pod's attempt."""


def call(plugin: Plugin, method: str, *args: Any, on: Any = None) -> Any:
    """``plugin.<method>(*args)`` (or ``on.<method>``); an exception or a malformed result is an Error.

    The method is named, not passed bound, so that its answer is checked
    against what that extension point must return (:func:`malformed`),
    whatever the function behind it is called.
    """
    target = plugin if on is None else on
    try:
        out = getattr(target, method)(*args)
    except Exception as exc:  # a plugin's bug must fail one attempt, not the scheduler
        return raised(plugin.name(), exc)
    return malformed(plugin.name(), method, out)


def raised(plugin: str, exc: Exception) -> Status:
    """The Error status for a plugin that raised: it names the plugin and keeps the exception."""
    raised = PluginRaised(f'plugin "{plugin}" raised {type(exc).__name__}: {exc}')
    raised.__cause__ = exc
    return Status.as_error(raised)


# What each plugin method must return, by the method's name; Go's types enforce it there.
_RETURNS_STATUS = frozenset(
    {"pre_enqueue", "filter", "pre_score", "reserve", "pre_bind", "bind"}
    | {"normalize_score", "add_pod", "remove_pod"}
)
_RETURNS_PAIR = {
    "pre_filter": (PreFilterResult, "a (PreFilterResult or None, Status or None) pair"),
    "post_filter": (PostFilterResult, "a (PostFilterResult or None, Status or None) pair"),
    "score": (int, "an (int score, Status or None) pair"),
    "permit": (float, "a (Status or None, timeout in seconds) pair"),
}


def malformed(plugin: str, method: str, out: Any) -> Any:
    """``out`` if it has the shape ``method`` must return (codes as :class:`Code`), else an Error status."""
    if method in _RETURNS_STATUS:
        status = checked_status(out)
        if status is not None or out is None:
            return status
        return _bad_result(plugin, method, out, "a Status or None")
    if method not in _RETURNS_PAIR:
        return out  # Unreserve and PostBind return nothing; extension getters are not checked
    wanted, shape = _RETURNS_PAIR[method]
    if not isinstance(out, tuple) or len(out) != 2:
        return _bad_result(plugin, method, out, shape)
    # The value beside the status: first, except for Permit's (status, timeout).
    value, raw_status = (out[1], out[0]) if method == "permit" else out
    if wanted is int or wanted is float:
        number = int if wanted is int else (int, float)
        ok = isinstance(value, number) and not isinstance(value, bool)
    else:
        ok = value is None or isinstance(value, wanted)
    status = checked_status(raw_status)
    if not ok or (status is None and raw_status is not None):
        return _bad_result(plugin, method, out, shape)
    return (status, value) if method == "permit" else (value, status)


def checked_status(value: Any) -> Status | None:
    """A Status whose code is a :class:`Code` (an int code is converted); None if it cannot be."""
    if not isinstance(value, Status):
        return None
    code: Any = value.code  # typed Code, but a plugin may have built Status(code=7)
    if isinstance(code, Code):
        return value
    try:
        return dataclasses.replace(value, code=Code(code))
    except (ValueError, TypeError):
        return None


def _bad_result(plugin: str, method: str, out: Any, wanted: str) -> Status:
    got = repr(out)
    if len(got) > 80:
        got = got[:77] + "..."
    parts = out if isinstance(out, tuple) else (out,)
    unknown = [p for p in parts if isinstance(p, Status) and checked_status(p) is None]
    why = (
        f"a status with unknown code {unknown[0].code!r}"
        if unknown
        else f"{type(out).__name__} {got}"
    )
    return Status.as_error(
        PluginRaised(f'plugin "{plugin}" returned {why} from {method}; want {wanted}')
    )


def check_normalized(plugin: Plugin, scores: list[NodeScore], nodes: int) -> Status:
    """NormalizeScore rescales the list in place: one ``NodeScore`` with an int score per node.

    Go's NormalizeScore cannot change the length of the slice it is given,
    and its scores are ``int64``; a Python one could do either, so both are
    checked here. A renamed entry is not: as in Go, the i-th score is the
    i-th node's, whatever name it carries.
    """
    if len(scores) != nodes:
        why = f"NormalizeScore left {len(scores)} scores for {nodes} nodes"
    else:
        bad = [
            s
            for s in scores
            if not isinstance(s, NodeScore)
            or not isinstance(s.score, int)
            or isinstance(s.score, bool)
        ]
        if not bad:
            return Status.success()
        why = f"NormalizeScore left {bad[0]!r} in the list; want NodeScore(name, int score)"
    return Status.as_error(PluginRaised(f'plugin "{plugin.name()}" {why}'))
