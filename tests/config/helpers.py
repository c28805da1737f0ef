"""Shared by the configuration tests: plugin tables and small builders."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from framework.config import IN_TREE_EXTENSION_POINTS, Plugin, Plugins, PluginSet

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


class PluginTable:
    """Which points each plugin implements: kube-scheduler v1.33's defaults plus test plugins.

    Called as ``implements(name, point)``; ``names`` plays the registry.
    """

    def __init__(self, extra: Mapping[str, Iterable[str]] | None = None) -> None:
        self.table = {**IN_TREE_EXTENSION_POINTS}
        for name, points in (extra or {}).items():
            self.table[name] = frozenset(points)

    def __call__(self, name: str, point: str) -> bool:
        return point in self.table.get(name, ())

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.table)


def plugin_set(*enabled: str | tuple[str, int], disabled: tuple[str, ...] = ()) -> PluginSet:
    """``plugin_set("A", ("B", 5), disabled=("*",))``: a PluginSet from names and (name, weight)."""
    return PluginSet(
        enabled=tuple(Plugin(e) if isinstance(e, str) else Plugin(e[0], e[1]) for e in enabled),
        disabled=tuple(Plugin(d) for d in disabled),
    )


def plugins(**points: PluginSet) -> Plugins:
    """``plugins(score=..., multiPoint=...)``, by configuration keys."""
    result = Plugins()
    for point, value in points.items():
        result = result.with_point(point, value)
    return result
