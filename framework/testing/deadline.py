"""An opt-in deadline on every call of a plugin: this project's, not kube-scheduler's.

**What Kubernetes does.** kube-scheduler puts no deadline on a plugin. The
scheduling cycle runs its plugins one pod at a time, so a Filter that never
returns stops all scheduling until it does; a binding-cycle plugin (PreBind,
Bind) that never returns holds only its own pod, assumed on its node, for
ever. Only two things time out: a pod waiting at Permit (each plugin's
timeout, at most 15 minutes) and, in Bind, the request to the API server
(its own request timeout). A Go plugin that may block is expected to bound
itself, by honouring the context it is given or by setting timeouts on what
it calls. The default here is the same: nothing is bounded.

**What this adds, when asked.** :func:`with_deadlines` wraps every plugin of
a registry in a :class:`DeadlinePlugin`: each extension-point call runs on a
worker thread, and if it has not returned after ``seconds`` of the
framework's clock, the caller stops waiting and the call counts as an
``Error`` status naming the plugin, the point and the deadline. The pod's
attempt fails with reason ``SchedulerError``, it is requeued with backoff,
and the scheduler goes on. It suits the simulator and tests, where a hung
plugin should cost one attempt, not the run.

Its price, said plainly: every call of a wrapped plugin pays a thread
hand-off, and a call that runs past its deadline is *abandoned*, not stopped
(Python cannot stop a thread). It goes on in the background and whatever it
returns is ignored; if it changes the plugin's own state meanwhile, the
plugin must cope. An abandoned Reserve may still be running when the
framework calls Unreserve. Use it for plugins whose calls may be abandoned.

No Kubernetes counterpart.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from typing import Any

from framework import interface
from framework.clock import Clock
from framework.interface import Plugin
from framework.runtime.registry import PluginFactory, Registry
from framework.status import Status

__all__ = [
    "PLUGIN_METHODS",
    "DeadlineExceeded",
    "DeadlinePlugin",
    "error_in_shape",
    "with_deadlines",
]

PLUGIN_METHODS: dict[str, str] = {
    "pre_enqueue": "PreEnqueue",
    "pre_filter": "PreFilter",
    "filter": "Filter",
    "post_filter": "PostFilter",
    "pre_score": "PreScore",
    "score": "Score",
    "normalize_score": "NormalizeScore",
    "reserve": "Reserve",
    "unreserve": "Unreserve",
    "permit": "Permit",
    "pre_bind": "PreBind",
    "bind": "Bind",
    "post_bind": "PostBind",
}
"""Each extension-point method of a plugin, and the point it serves as Kubernetes names it."""


class DeadlineExceeded(RuntimeError):
    """A plugin call ran past its deadline and was abandoned."""


def error_in_shape(method: str, status: Status) -> Any:
    """An Error ``status`` in the shape ``method`` returns it (``(None, status)`` for PreFilter...)."""
    if method in ("pre_filter", "post_filter"):
        return None, status
    if method == "score":
        return 0, status
    if method == "permit":
        return status, 0.0
    if method in ("unreserve", "post_bind"):
        return None
    return status


class DeadlinePlugin:
    """``inner``, each extension-point call bounded by ``seconds`` of ``clock``.

    Like :class:`~framework.testing.faults.FaultyPlugin`, it has exactly the
    extension points ``inner`` has. ``score_extensions`` and
    ``pre_filter_extensions`` come back with their methods bounded too.
    """

    # interface.Plugin, not Plugin: the docs also know config.types.Plugin, a plugin's name.
    def __init__(self, inner: interface.Plugin, seconds: float, clock: Clock) -> None:
        if seconds <= 0:
            raise ValueError(f"a plugin deadline must be positive, got {seconds}")
        self._inner = inner
        self._seconds = seconds
        self._clock = clock
        self._name = inner.name()

    def name(self) -> str:
        return self._name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        target = getattr(self._inner, attribute)
        if target is None:
            return None  # a method the plugin blocks with None (no such point): absent here too
        if attribute in ("score_extensions", "pre_filter_extensions"):
            return functools.partial(self._extensions, target)
        if attribute in PLUGIN_METHODS:
            return self.bounded(attribute, target)
        return target

    def __repr__(self) -> str:
        return f"DeadlinePlugin({self._inner!r}, {self._seconds}s)"

    def _extensions(self, getter: Callable[[], Any]) -> Any:
        extensions = getter()
        return None if extensions is None else _BoundedExtensions(self, extensions)

    def bounded(self, method: str, target: Callable[..., Any]) -> Callable[..., Any]:
        """``target`` run on a worker thread, given up on after the deadline."""

        @functools.wraps(target)
        def call(*args: Any) -> Any:
            done = threading.Event()
            outcome: list[Any] = []

            def run() -> None:
                try:
                    outcome.append((True, target(*args)))
                except BaseException as exc:  # carried to the caller, raised there
                    outcome.append((False, exc))
                done.set()
                _wake(self._clock)

            worker = threading.Thread(
                target=run, name=f"deadline-{self._name}-{method}", daemon=True
            )
            worker.start()
            if not self._clock.wait(done, self._seconds) and not done.is_set():
                point = PLUGIN_METHODS.get(method, method)
                error = DeadlineExceeded(
                    f'plugin "{self._name}" did not return from {point} within '
                    f"{self._seconds:g}s; the call was abandoned (a deadline of this project's "
                    "simulator and tests: kube-scheduler has none)"
                )
                return error_in_shape(method, Status.as_error(error))
            ok, value = outcome[0]
            if not ok:
                raise value
            return value

        return call


class _BoundedExtensions:
    """A plugin's PreFilterExtensions or ScoreExtensions with each method bounded."""

    def __init__(self, owner: DeadlinePlugin, inner: Any) -> None:
        self._owner = owner
        self._inner = inner

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        target = getattr(self._inner, attribute)
        if attribute in ("normalize_score", "add_pod", "remove_pod"):
            return self._owner.bounded(attribute, target)
        return target


def _wake(clock: Clock) -> None:
    """Tell a fake clock's waiters to look again (its wait polls events it cannot see set)."""
    advance = getattr(clock, "advance", None)
    if callable(advance):
        advance(0)


def with_deadlines(
    registry: Mapping[str, PluginFactory],
    seconds: float,
    *,
    only: frozenset[str] | None = None,
) -> Registry:
    """A copy of ``registry`` whose plugins (``only`` these, if given) are :class:`DeadlinePlugin`.

    The clock is the framework's (``handle.clock()``), so a fake clock moves
    the deadlines too.
    """
    if seconds <= 0:
        raise ValueError(f"a plugin deadline must be positive, got {seconds}")
    bounded = Registry()
    for name, factory in registry.items():
        if only is not None and name not in only:
            bounded.register(name, factory)
            continue

        def new(args: Any, handle: Any, factory: PluginFactory = factory) -> Plugin:
            return DeadlinePlugin(factory(args, handle), seconds, handle.clock())

        bounded.register(name, new)
    return bounded
