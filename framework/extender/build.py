"""From the ``extenders`` of a configuration to the extenders the scheduler consults.

:func:`build_extenders` turns each entry into an
:class:`~framework.extender.http_extender.HTTPExtender` and puts the
*ignorable* ones last, so that an extender whose failure would fail the
attempt always speaks before one whose failure is skipped.

:func:`with_ignored_extended_resources` does the other half of kube's
``buildExtenders``: an extended resource that an extender manages with
``ignoredByScheduler: true`` is left to that extender, so every profile's
NodeResourcesFit is told to ignore it (its ``ignoredResources`` are
*replaced* by these names, as kube-scheduler does).

Mirrors ``buildExtenders`` in ``kubernetes/kubernetes:pkg/scheduler/scheduler.go``
(v1.33).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from framework.config.framework_checks import FrameworkConfigError
from framework.config.types import Extender as ExtenderConfig
from framework.config.types import KubeSchedulerConfiguration, PluginConfig
from framework.extender.http_extender import HTTPExtender
from framework.plugins.names import NODE_RESOURCES_FIT

__all__ = ["build_extenders", "with_ignored_extended_resources"]


def build_extenders(configs: Sequence[ExtenderConfig]) -> list[HTTPExtender]:
    """One HTTPExtender per entry, in configuration order, the ignorable ones moved to the end."""
    extenders = [HTTPExtender(config) for config in configs]
    return [e for e in extenders if not e.is_ignorable()] + [
        e for e in extenders if e.is_ignorable()
    ]


def with_ignored_extended_resources(
    config: KubeSchedulerConfiguration,
) -> KubeSchedulerConfiguration:
    """``config`` with NodeResourcesFit ignoring the resources extenders take over.

    Unchanged when no managed resource is ``ignoredByScheduler``. Raises
    :class:`~framework.config.framework_checks.FrameworkConfigError` when a
    profile has no NodeResourcesFit configuration to change (a defaulted
    configuration always has one while the plugin is enabled).
    """
    ignored = [
        resource.name
        for extender in config.extenders
        for resource in extender.managed_resources
        if resource.ignored_by_scheduler
    ]
    if not ignored:
        return config
    profiles = []
    for profile in config.profiles:
        entries = list(profile.plugin_config)
        for i, entry in enumerate(entries):
            if entry.name == NODE_RESOURCES_FIT:
                args = dict(entry.args or {})
                args["ignoredResources"] = list(ignored)
                entries[i] = PluginConfig(entry.name, args)
                break
        else:
            raise FrameworkConfigError("can't find NodeResourcesFitArgs in plugin config")
        profiles.append(dataclasses.replace(profile, plugin_config=tuple(entries)))
    return dataclasses.replace(config, profiles=tuple(profiles))
