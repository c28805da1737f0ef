"""Building a profile's Framework from configuration: NewFramework.

Given the plugin registry and one (defaulted) profile of a
``KubeSchedulerConfiguration``, :func:`new_framework` instantiates every
plugin the profile enables anywhere — once each, with its ``pluginConfig``
args and the framework itself as handle — then asks each instance which
extension points it implements to expand ``multiPoint``, checks the
profile (one QueueSort, at least one Bind, Score weights...), and fills the
framework's per-point lists in the configured order.

Mirrors ``NewFramework`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``
(v1.33); the checks themselves live in :mod:`framework.config.framework_checks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.config.framework_checks import FrameworkConfigError, build_plugin_lists
from framework.config.types import KubeSchedulerProfile
from framework.interface import Plugin
from framework.registry import PluginFactory
from framework.runtime.framework import EXTENSION_POINTS, Framework

__all__ = ["new_framework"]


def _enabled_names(profile: KubeSchedulerProfile) -> list[str]:
    names: list[str] = []
    if profile.plugins is None:
        return names
    for point in (*EXTENSION_POINTS, "multiPoint"):
        for entry in profile.plugins.point(point).enabled:
            if entry.name not in names:
                names.append(entry.name)
    return names


def new_framework(
    registry: Mapping[str, PluginFactory],
    profile: KubeSchedulerProfile,
    **kwargs: Any,
) -> Framework:
    """The Framework of one profile; raise :class:`FrameworkConfigError` with kube's message if invalid."""
    fwk = Framework(
        profile.scheduler_name or "",
        percentage_of_nodes_to_score=profile.percentage_of_nodes_to_score,
        **kwargs,
    )
    instances: dict[str, Plugin] = {}
    for name in _enabled_names(profile):
        factory = registry.get(name)
        if factory is None:
            continue  # build_plugin_lists names the unknown plugin with kube's message
        try:
            instances[name] = factory(profile.args_for(name), fwk)
        except FrameworkConfigError:
            raise
        except Exception as error:
            raise FrameworkConfigError(f'initializing plugin "{name}": {error}') from error

    def implements(name: str, point: str) -> bool:
        plugin = instances.get(name)
        return plugin is not None and isinstance(plugin, EXTENSION_POINTS[point])

    lists = build_plugin_lists(profile, implements, registered=registry)
    plugins = {point: [instances[ref.name] for ref in refs] for point, refs in lists.items()}
    weights = {ref.name: ref.weight or 1 for ref in lists["score"]}
    fwk.set_plugins(plugins, weights)
    return fwk
