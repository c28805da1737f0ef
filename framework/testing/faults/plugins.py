"""Plugins that fail on purpose: a wrapper around any plugin, and a registry that wraps them all.

:class:`FaultyPlugin` wraps one plugin. It has exactly the extension points
the plugin has (so ``multiPoint`` expands it the same way and the framework
calls it at the same points), and before each call it asks the
:class:`~framework.testing.faults.plan.FaultPlan` whether to fail instead. A fault
replaces the call, except a hang, which delays it, and the score faults,
which spoil what NormalizeScore produced:

* ``RAISE`` raises :class:`~framework.testing.faults.plan.InjectedFault`;
* ``ERROR`` returns an Error status (in the point's shape: ``(None, status)``
  for PreFilter, ``(0, status)`` for Score, ``(status, 0)`` for Permit);
* ``HANG`` blocks until the test releases it, then makes the real call;
* ``UNKNOWN_CODE`` returns a status whose code is 42;
* ``WRONG_TYPE`` returns a string where a status (or a pair) is due;
* ``SCORE_OUT_OF_RANGE`` makes one score 101 (at NormalizeScore, after the
  real normalising; at Score, as the raw score);
* ``SCORE_UNKNOWN_NODE`` renames one normalised score to a node nobody asked about;
* ``SCORE_WRONG_LENGTH`` appends a score to the normalised list.

Every Score plugin gets a NormalizeScore, so that faults can strike there;
when the plugin has none, the wrapper's does nothing unless a fault says
so, which is what having none means (Go skips a nil ``ScoreExtensions``,
and a NormalizeScore that changes nothing changes nothing).

What the framework does with each is its business, not the wrapper's: see
``docs/reliability.md`` for the rules and the tests that hold them.
No Kubernetes counterpart (see :mod:`framework.testing.faults.plan`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, cast

from framework import interface
from framework.interface import MAX_NODE_SCORE, NodeScore, Plugin
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.runtime.registry import PluginFactory, Registry
from framework.status import Code, Status
from framework.testing.deadline import PLUGIN_METHODS, error_in_shape
from framework.testing.faults.plan import Fault, FaultPlan, InjectedFault, Injection

__all__ = [
    "NO_SUCH_NODE",
    "POINT_OF_METHOD",
    "UNKNOWN_CODE",
    "FaultyPlugin",
    "faulty_registry",
    "wrap_factory",
]

POINT_OF_METHOD = PLUGIN_METHODS
"""Each plugin method, and the extension point (as Kubernetes names it) it serves."""

UNKNOWN_CODE = 42
"""The code an ``UNKNOWN_CODE`` fault puts in its status: no :class:`~framework.status.Code` has it."""
NO_SUCH_NODE = "no-such-node"
"""The node name a ``SCORE_UNKNOWN_NODE`` or ``SCORE_WRONG_LENGTH`` fault scores."""


class FaultyPlugin:
    """``inner`` with faults injected as ``plan`` says; otherwise it is ``inner``.

    Only the methods ``inner`` has are reachable (through ``__getattr__``),
    so ``isinstance(wrapper, FilterPlugin)`` is true exactly when it is for
    ``inner``. Everything that is not an extension-point method
    (``events_to_register``, ``less``, a plugin's own attributes) passes through.
    """

    # interface.Plugin, not Plugin: the docs also know config.types.Plugin, a plugin's name.
    def __init__(self, inner: interface.Plugin, plan: FaultPlan) -> None:
        self._inner = inner
        self._plan = plan
        self._name = inner.name()

    def name(self) -> str:
        return self._name

    def __getattr__(self, attribute: str) -> Any:
        # Only called for what the class itself lacks: every extension-point method.
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        target = getattr(self._inner, attribute)
        if target is None:
            # A method set to None is one the plugin does not implement (DynamicResources'
            # Score before v1.35): the Protocol checks must read it as absent here too.
            return None
        if attribute == "score_extensions":
            found: Any = self._score_extensions
        elif attribute in POINT_OF_METHOD:
            found = self._wrap(attribute, target)
        else:
            return target
        # Found once, kept: the framework looks up pl.filter for every node of every pod.
        setattr(self, attribute, found)
        return found

    def __repr__(self) -> str:
        return f"FaultyPlugin({self._inner!r})"

    # --- the calls ---------------------------------------------------------------------------

    def _wrap(self, method: str, target: Callable[..., Any]) -> Callable[..., Any]:
        point = POINT_OF_METHOD[method]

        @functools.wraps(target)
        def call(*args: Any) -> Any:
            pod, detail = _pod_and_node(method, args)
            injection = self._plan.decide(point, self._name, pod, detail)
            if injection is None:
                return target(*args)
            return self._inject(injection, method, target, args)

        return call

    def _inject(
        self, injection: Injection, method: str, target: Callable[..., Any], args: tuple[Any, ...]
    ) -> Any:
        fault = injection.fault
        what = f"injected fault: {injection}"
        if fault is Fault.RAISE:
            raise InjectedFault(what)
        if fault is Fault.HANG:
            self._plan.hang(injection)
            return target(*args)
        if fault is Fault.ERROR:
            return error_in_shape(method, Status.as_error(InjectedFault(what)))
        if fault is Fault.UNKNOWN_CODE:
            return error_in_shape(method, Status(cast(Code, UNKNOWN_CODE), (what,)))
        if fault is Fault.WRONG_TYPE:
            return f"not a status: {what}"
        if fault is Fault.SCORE_OUT_OF_RANGE and method == "score":
            return MAX_NODE_SCORE + 1, None
        # The NormalizeScore faults: normalise for real, then spoil the result.
        out = target(*args)
        scores: list[NodeScore] = args[2]
        if not scores:
            return out
        if fault is Fault.SCORE_OUT_OF_RANGE:
            scores[0] = NodeScore(scores[0].name, MAX_NODE_SCORE + 1)
        elif fault is Fault.SCORE_UNKNOWN_NODE:
            scores[0] = NodeScore(NO_SUCH_NODE, scores[0].score)
        elif fault is Fault.SCORE_WRONG_LENGTH:
            scores.append(NodeScore(NO_SUCH_NODE, MAX_NODE_SCORE // 2))
        return out

    def _score_extensions(self) -> _FaultyScoreExtensions:
        inner = cast(Any, self._inner).score_extensions()
        return _FaultyScoreExtensions(self, inner)


class _FaultyScoreExtensions:
    """NormalizeScore through the wrapper: the plugin's own, or one that changes nothing."""

    def __init__(self, owner: FaultyPlugin, inner: Any) -> None:
        self._owner = owner
        self._inner = inner

    def normalize_score(self, state: Any, pod: Pod, scores: list[NodeScore]) -> Status | None:
        target = self._inner.normalize_score if self._inner is not None else _no_normalizing
        wrapped = self._owner._wrap("normalize_score", target)
        return cast(Status | None, wrapped(state, pod, scores))


def _no_normalizing(state: Any, pod: Pod, scores: list[NodeScore]) -> None:
    return None


_no_normalizing.__name__ = "normalize_score"


def _pod_and_node(method: str, args: tuple[Any, ...]) -> tuple[str, str]:
    """The pod (``namespace/name``) a call is about, and the node when it is about one."""
    # (pod) for PreEnqueue; (state, pod, ...) for every other point.
    pod = args[0] if method == "pre_enqueue" else args[1] if len(args) > 1 else None
    key = pod.key if isinstance(pod, Pod) else ""
    if method in ("filter", "score"):
        node_info = args[2]
        return key, node_info.name if isinstance(node_info, NodeInfo) else ""
    if method in ("reserve", "unreserve", "permit", "pre_bind", "bind", "post_bind"):
        return key, str(args[2])
    return key, ""


def wrap_factory(factory: PluginFactory, plan: FaultPlan) -> PluginFactory:
    """A factory that builds what ``factory`` builds, wrapped in a :class:`FaultyPlugin`."""

    def new(args: Any, handle: Any) -> Plugin:
        return FaultyPlugin(factory(args, handle), plan)

    return new


def faulty_registry(
    registry: Mapping[str, PluginFactory],
    plan: FaultPlan,
    *,
    only: frozenset[str] | None = None,
    skip: frozenset[str] = frozenset(),
) -> Registry:
    """A copy of ``registry`` whose plugins are wrapped (``only`` these, if given; never ``skip``).

    A QueueSort plugin's ``less`` passes through unchanged: it is not an
    extension point a fault can take here (a heap whose order raises is
    broken for every pod, not one).
    """
    wrapped = Registry()
    for name, factory in registry.items():
        chosen = (only is None or name in only) and name not in skip
        wrapped.register(name, wrap_factory(factory, plan) if chosen else factory)
    return wrapped
