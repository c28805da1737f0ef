"""From a profile's plugin sets to the ordered plugin list at each extension point, with its checks.

A defaulted profile still says little about what runs where: most plugins
sit in ``multiPoint``, which means "at every point this plugin implements",
and only the plugins themselves know which points those are. When
kube-scheduler builds a framework for a profile it resolves that, point by
point, and refuses a profile that cannot work. These functions do the same
on names alone; the runtime passes ``implements(name, point)``, which
answers from the plugin objects, and the registry's names.

**Order at a point after expansion** (:func:`expand_multi_point`):

1. plugins listed both in ``multiPoint`` and explicitly at that point, in
   the explicit list's order (the explicit entry wins: "re-configuring" a
   default plugin, e.g. to change its weight, is not a double registration);
2. plugins only in ``multiPoint``, in ``multiPoint`` order, minus those
   disabled at that point;
3. the remaining explicitly listed plugins, in their order.

``disabled: [{name: "*"}]`` at a point stops ``multiPoint`` from adding
anything there; disabling one name stops just that plugin.

**Score weights** (:func:`score_weights`): the explicit ``score`` entry
decides, else the ``multiPoint`` entry; unset or 0 means 1. Note the
consequence: ``score: {enabled: [{name: TaintToleration}]}`` resets its
weight from 3 to 1.

The errors are kube-scheduler's, word for word (the ``MSG_*`` constants),
and come in the order NewFramework raises them, one at a time:
``repeated config for plugin X``; then, per point in NewFramework's
internal order (PreFilter, Filter, PostFilter, Reserve, PreScore, Score,
PreBind, Bind, PostBind, Permit, PreEnqueue, QueueSort), an unknown plugin,
a plugin at a point it does not implement, a plugin twice at one point;
then the queue-sort count, the bind count, and the weights.

Mirrors ``NewFramework``, ``updatePluginList``, ``expandMultiPointPlugins``
and ``getScoreWeights`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go`` and
``cfgValidator`` in ``pkg/scheduler/profile/profile.go`` (v1.33).
Simplified: plugins are not instantiated here, so a factory's own error
(``initializing plugin "X": ...``) is the runtime's to raise.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from framework.config.types import (
    EXTENSION_POINTS,
    PLUGIN_INTERFACES,
    KubeSchedulerProfile,
    Plugins,
)

__all__ = [
    "MAX_NODE_SCORE",
    "MAX_TOTAL_SCORE",
    "MSG_ALREADY_REGISTERED",
    "MSG_CREATING_PROFILE",
    "MSG_DIFFERENT_QUEUE_SORT",
    "MSG_DIFFERENT_QUEUE_SORT_ARGS",
    "MSG_DOES_NOT_EXIST",
    "MSG_DOES_NOT_EXTEND",
    "MSG_NO_BIND_PLUGIN",
    "MSG_NO_WEIGHT",
    "MSG_ONE_QUEUE_SORT",
    "MSG_PLUGINS_REQUIRED",
    "MSG_REPEATED_CONFIG",
    "MSG_SCORE_OVERFLOW",
    "FrameworkConfigError",
    "Implements",
    "PluginRef",
    "build_plugin_lists",
    "check_plugin_config",
    "check_profiles_share_queue_sort",
    "check_score_weights",
    "expand_multi_point",
    "score_weights",
]

MSG_REPEATED_CONFIG = "repeated config for plugin {name}"
MSG_DOES_NOT_EXIST = '{interface} "{name}" does not exist'
MSG_DOES_NOT_EXTEND = 'plugin "{name}" does not extend {interface} plugin'
MSG_ALREADY_REGISTERED = 'plugin "{name}" already registered as "{interface}"'
MSG_ONE_QUEUE_SORT = 'only one queue sort plugin required for profile with scheduler name "{profile}", but got {count}'
MSG_NO_BIND_PLUGIN = (
    'at least one bind plugin is needed for profile with scheduler name "{profile}"'
)
MSG_SCORE_OVERFLOW = "total score of Score plugins could overflow"
MSG_NO_WEIGHT = 'score plugin "{name}" is not configured with weight'
MSG_PLUGINS_REQUIRED = 'plugins required for profile with scheduler name "{profile}"'
MSG_DIFFERENT_QUEUE_SORT = (
    'different queue sort plugins for profile "{profile}": "{plugin}", first: "{first}"'
)
MSG_DIFFERENT_QUEUE_SORT_ARGS = 'different queue sort plugin args for profile "{profile}"'
MSG_CREATING_PROFILE = "creating profile for scheduler name {profile}: {error}"
"""How kube-scheduler wraps any of the errors above when it builds its profiles."""

MAX_NODE_SCORE = 100
MAX_TOTAL_SCORE = 2**63 - 1

_NEW_FRAMEWORK_ORDER = (
    "preFilter",
    "filter",
    "postFilter",
    "reserve",
    "preScore",
    "score",
    "preBind",
    "bind",
    "postBind",
    "permit",
    "preEnqueue",
    "queueSort",
)

Implements = Callable[[str, str], bool]
"""``implements(plugin_name, point)``: does that plugin have that extension point's methods?"""


class FrameworkConfigError(ValueError):
    """A profile the framework cannot be built from; the message is kube-scheduler's."""


@dataclass(frozen=True, slots=True)
class PluginRef:
    """A plugin at one extension point; ``weight`` is its final Score weight, at the score point only."""

    name: str
    weight: int | None = None


def check_plugin_config(profile: KubeSchedulerProfile) -> None:
    """Raise if a plugin has two ``pluginConfig`` entries (validation also reports it, as a Duplicate)."""
    seen: set[str] = set()
    for entry in profile.plugin_config:
        if entry.name in seen:
            raise FrameworkConfigError(MSG_REPEATED_CONFIG.format(name=entry.name))
        seen.add(entry.name)


def _missing(name: str, point: str) -> FrameworkConfigError:
    return FrameworkConfigError(
        MSG_DOES_NOT_EXIST.format(interface=PLUGIN_INTERFACES[point], name=name)
    )


def _explicit_list(
    plugins: Plugins, point: str, implements: Implements, registered: Container[str] | None
) -> list[str]:
    names: list[str] = []
    for plugin in plugins.point(point).enabled:
        interface = PLUGIN_INTERFACES[point]
        if registered is not None and plugin.name not in registered:
            raise _missing(plugin.name, point)
        if not implements(plugin.name, point):
            raise FrameworkConfigError(
                MSG_DOES_NOT_EXTEND.format(name=plugin.name, interface=interface)
            )
        if plugin.name in names:
            raise FrameworkConfigError(
                MSG_ALREADY_REGISTERED.format(name=plugin.name, interface=interface)
            )
        names.append(plugin.name)
    return names


def _expand_point(
    plugins: Plugins,
    point: str,
    explicit: list[str],
    implements: Implements,
    registered: Container[str] | None,
) -> list[str]:
    disabled = plugins.point(point).disabled_names()
    if "*" in disabled:
        return explicit
    overrides: set[str] = set()
    from_multi_point: list[str] = []
    for plugin in plugins.multi_point.enabled:
        if registered is not None and plugin.name not in registered:
            raise _missing(plugin.name, point)
        if not implements(plugin.name, point) or plugin.name in disabled:
            continue
        if plugin.name in explicit:
            overrides.add(plugin.name)
            continue
        if plugin.name in from_multi_point:
            interface = PLUGIN_INTERFACES[point]
            raise FrameworkConfigError(
                MSG_ALREADY_REGISTERED.format(name=plugin.name, interface=interface)
            )
        from_multi_point.append(plugin.name)
    return (
        [n for n in explicit if n in overrides]
        + from_multi_point
        + [n for n in explicit if n not in overrides]
    )


def score_weights(plugins: Plugins, implements: Implements) -> dict[str, int]:
    """The Score weight of every score plugin named in ``score`` or ``multiPoint``: explicit first, 0 → 1."""
    weights: dict[str, int] = {}
    for plugin in (*plugins.score.enabled, *plugins.multi_point.enabled):
        if plugin.name in weights or not implements(plugin.name, "score"):
            continue
        weights[plugin.name] = plugin.weight or 1
    return weights


def expand_multi_point(
    plugins: Plugins,
    implements: Implements,
    registered: Container[str] | None = None,
) -> dict[str, list[PluginRef]]:
    """The ordered plugins at every extension point (pipeline order), ``multiPoint`` expanded.

    ``registered``, when given, is the registry's names: a plugin not in it
    is an error, as in kube-scheduler. Raises :class:`FrameworkConfigError`
    on the first problem, in NewFramework's order.
    """
    lists = {
        point: _explicit_list(plugins, point, implements, registered)
        for point in _NEW_FRAMEWORK_ORDER
    }
    if plugins.multi_point.enabled:
        for point in _NEW_FRAMEWORK_ORDER:
            lists[point] = _expand_point(plugins, point, lists[point], implements, registered)
    weights = score_weights(plugins, implements)
    return {
        point: [PluginRef(n, weights.get(n) if point == "score" else None) for n in lists[point]]
        for point in EXTENSION_POINTS
    }


def check_score_weights(weights: Mapping[str, int], score_plugins: Iterable[str]) -> None:
    """Raise unless the Score weights fit in int64 and every score plugin (by its ``name()``) has one.

    The runtime calls this with the names the plugin objects report, which
    is how kube-scheduler catches a plugin whose ``name()`` differs from the
    name it was configured under.
    """
    total = 0
    for weight in weights.values():
        if weight * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
            raise FrameworkConfigError(MSG_SCORE_OVERFLOW)
        total += weight * MAX_NODE_SCORE
    for name in score_plugins:
        if not weights.get(name):
            raise FrameworkConfigError(MSG_NO_WEIGHT.format(name=name))


def build_plugin_lists(
    profile: KubeSchedulerProfile,
    implements: Implements,
    registered: Container[str] | None = None,
) -> dict[str, list[PluginRef]]:
    """Every NewFramework check on a defaulted profile, in its order; the expanded lists if all pass."""
    check_plugin_config(profile)
    plugins = profile.plugins
    if plugins is None:
        # kube-scheduler builds an empty framework here; the profile map then refuses it.
        return {point: [] for point in EXTENSION_POINTS}
    lists = expand_multi_point(plugins, implements, registered)
    name = profile.scheduler_name or ""
    if len(lists["queueSort"]) != 1:
        raise FrameworkConfigError(
            MSG_ONE_QUEUE_SORT.format(profile=name, count=len(lists["queueSort"]))
        )
    if not lists["bind"]:
        raise FrameworkConfigError(MSG_NO_BIND_PLUGIN.format(profile=name))
    weights = score_weights(plugins, implements)
    check_score_weights(weights, (ref.name for ref in lists["score"]))
    return lists


def check_profiles_share_queue_sort(
    profiles: Sequence[tuple[KubeSchedulerProfile, Sequence[PluginRef]]],
) -> None:
    """Raise unless all profiles (each with its expanded ``queueSort`` list) sort the queue alike.

    Validation compares the configured ``queueSort`` sets; this compares
    what they expand to, which also catches a queue sort enabled through
    ``multiPoint`` in one profile only.
    """
    first: tuple[str, Any] | None = None
    for profile, queue_sort in profiles:
        name = profile.scheduler_name or ""
        if profile.plugins is None:
            raise FrameworkConfigError(MSG_PLUGINS_REQUIRED.format(profile=name))
        plugin = queue_sort[0].name if queue_sort else ""
        args = profile.args_for(plugin)
        if first is None:
            first = (plugin, args)
        elif plugin != first[0]:
            raise FrameworkConfigError(
                MSG_DIFFERENT_QUEUE_SORT.format(profile=name, plugin=plugin, first=first[0])
            )
        elif args != first[1]:
            raise FrameworkConfigError(MSG_DIFFERENT_QUEUE_SORT_ARGS.format(profile=name))
