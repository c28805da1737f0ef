"""Building a profile's Framework from configuration: NewFramework.

Given the plugin registry and one (defaulted) profile of a
``KubeSchedulerConfiguration``, :func:`new_framework` instantiates every
plugin the profile enables anywhere — once each, with its ``pluginConfig``
args and the framework itself as handle — then asks each instance which
extension points it implements to expand ``multiPoint``, checks the
profile (one QueueSort, at least one Bind, Score weights...), and fills the
framework's per-point lists in the configured order.

Every plugin of Kubernetes' default profile is implemented now
(:data:`NOT_IMPLEMENTED_DEFAULT_PLUGINS` is empty: DynamicResources, the
last, joined with v1.34's profile). The mechanism stays for the next one:
when a profile enables a plugin listed there and the registry has no such plugin, it
is left out of that profile *and said so*: the framework lists it in
``skipped_plugins`` and a warning is logged, so that the default profile
works — and tells you what it lacks — instead of refusing to start. Any
other unknown plugin name is still an error, with kube-scheduler's message.

Mirrors ``NewFramework`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``
(v1.33); the checks themselves live in :mod:`framework.config.framework_checks`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Collection, Mapping
from typing import Any

from framework.config.framework_checks import FrameworkConfigError, build_plugin_lists
from framework.config.types import KubeSchedulerProfile, Plugins
from framework.interface import Plugin
from framework.runtime.framework import EXTENSION_POINTS, Framework
from framework.runtime.registry import PluginFactory

__all__ = ["NOT_IMPLEMENTED_DEFAULT_PLUGINS", "new_framework"]

logger = logging.getLogger(__name__)

NOT_IMPLEMENTED_DEFAULT_PLUGINS: frozenset[str] = frozenset()
"""The plugins of kube's default profile this project lacks, left out with a note (none now)."""


def _enabled_names(profile: KubeSchedulerProfile) -> list[str]:
    names: list[str] = []
    if profile.plugins is None:
        return names
    for point in (*EXTENSION_POINTS, "multiPoint"):
        for entry in profile.plugins.point(point).enabled:
            if entry.name not in names:
                names.append(entry.name)
    return names


def _without(plugins: Plugins, names: Collection[str]) -> Plugins:
    """The same plugin sets with ``names`` removed from every ``enabled`` list."""
    changes = {}
    for field in dataclasses.fields(plugins):
        if field.name == "extra":
            continue
        plugin_set = getattr(plugins, field.name)
        kept = tuple(p for p in plugin_set.enabled if p.name not in names)
        if len(kept) != len(plugin_set.enabled):
            changes[field.name] = dataclasses.replace(plugin_set, enabled=kept)
    return dataclasses.replace(plugins, **changes)


def new_framework(
    registry: Mapping[str, PluginFactory],
    profile: KubeSchedulerProfile,
    *,
    not_implemented: Collection[str] = NOT_IMPLEMENTED_DEFAULT_PLUGINS,
    **kwargs: Any,
) -> Framework:
    """The Framework of one profile; raise :class:`FrameworkConfigError` with kube's message if invalid.

    Plugins named in ``not_implemented`` and absent from the registry are
    left out, listed in the framework's ``skipped_plugins``, and logged.
    """
    skipped = [
        name
        for name in _enabled_names(profile)
        if name not in registry and name in not_implemented
    ]
    if skipped and profile.plugins is not None:
        profile = dataclasses.replace(profile, plugins=_without(profile.plugins, skipped))
        logger.warning(
            "profile %r: plugins not implemented in this project yet, left out: %s",
            profile.scheduler_name,
            ", ".join(skipped),
        )
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
    fwk.skipped_plugins = skipped
    return fwk
