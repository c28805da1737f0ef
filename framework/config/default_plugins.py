"""The default plugin line-up of kube-scheduler per release, and how a user's plugin sets merge into it.

Every profile starts from one ordered ``multiPoint`` list: each plugin in it
is enabled at every extension point it implements, and the order of the list
becomes the order in which plugins run at each point. The order is not
cosmetic. ``SchedulingGates`` comes first so gated pods never reach the
queue's heap; cheap filters (``NodeUnschedulable``, ``NodeName``) run before
expensive ones (``InterPodAffinity``); ``DefaultPreemption`` is the only
PostFilter; ``DefaultBinder`` the only Bind. The weights are those of the
Score point: ``TaintToleration`` counts three times as much as
``ImageLocality``; a plugin listed without one that scores gets 1
(``DynamicResources``, a Score plugin from v1.35).

The user's ``plugins`` are then merged into these defaults point by point
(:func:`merge_plugin_set`): defaults keep their place unless disabled
(``"*"`` disables them all); a user entry with a default's name replaces the
default *in place*, taking the user's weight; every other user entry is
appended, in the user's order. The disabled names are kept, because the
framework later reads them to stop ``multiPoint`` from re-adding a plugin at
a point where the user turned it off.

**The line-up follows the emulated release.** kube-scheduler inserts
``DynamicResources`` just before ``DefaultPreemption`` when the
``DynamicResourceAllocation`` feature gate is on. That gate was beta but
*off by default* in v1.32 and v1.33 and turned on by default at GA in v1.34
(``pkg/features/kube_features.go``: ``{1.26 alpha off, 1.32 beta off, 1.34 GA
on}``), so the v1.33 line-up does not contain it and v1.34 to v1.37 (the
default) do. Pass ``dynamic_resource_allocation=True`` to force it.
Not modelled: newer releases' ``applyFeatureGates`` also adds the
``NodeDeclaredFeatures`` plugin while its gate is on (v1.36 on) and the gang
plugins behind their alpha gates; this project has none of these plugins,
and the position of the first in Go's list is not in the sources read.

Mirrors ``getDefaultPlugins``, ``applyFeatureGates``, ``mergePlugins`` and
``mergePluginSet`` in ``kubernetes/kubernetes:pkg/scheduler/apis/config/v1/default_plugins.go``
(v1.33). Simplified: feature gates are a keyword argument, not a process-wide registry.
"""

from __future__ import annotations

from collections.abc import Mapping

from framework.config.types import EXTENSION_POINTS, Plugin, Plugins, PluginSet
from framework.featuregate import FeatureGates, new_feature_gates
from framework.plugins import names

__all__ = [
    "DEFAULT_MULTI_POINT",
    "IN_TREE_EXTENSION_POINTS",
    "default_plugins",
    "merge_plugin_set",
    "merge_plugins",
]

DEFAULT_MULTI_POINT: tuple[Plugin, ...] = (
    Plugin(names.SCHEDULING_GATES),
    Plugin(names.PRIORITY_SORT),
    Plugin(names.NODE_UNSCHEDULABLE),
    Plugin(names.NODE_NAME),
    Plugin(names.TAINT_TOLERATION, weight=3),
    Plugin(names.NODE_AFFINITY, weight=2),
    Plugin(names.NODE_PORTS),
    Plugin(names.NODE_RESOURCES_FIT, weight=1),
    Plugin(names.VOLUME_RESTRICTIONS),
    Plugin(names.NODE_VOLUME_LIMITS),
    Plugin(names.VOLUME_BINDING),
    Plugin(names.VOLUME_ZONE),
    Plugin(names.POD_TOPOLOGY_SPREAD, weight=2),
    Plugin(names.INTER_POD_AFFINITY, weight=2),
    Plugin(names.DEFAULT_PREEMPTION),
    Plugin(names.NODE_RESOURCES_BALANCED_ALLOCATION, weight=1),
    Plugin(names.IMAGE_LOCALITY, weight=1),
    Plugin(names.DEFAULT_BINDER),
)
"""kube-scheduler's default ``multiPoint`` list before the gates are applied (v1.33's whole list)."""

_FILTERS = frozenset({"preFilter", "filter"})
_SCORERS = frozenset({"preScore", "score"})

IN_TREE_EXTENSION_POINTS: Mapping[str, frozenset[str]] = {
    names.SCHEDULING_GATES: frozenset({"preEnqueue"}),
    names.PRIORITY_SORT: frozenset({"queueSort"}),
    names.NODE_UNSCHEDULABLE: frozenset({"filter"}),
    names.NODE_NAME: frozenset({"filter"}),
    names.TAINT_TOLERATION: frozenset({"filter"}) | _SCORERS,
    names.NODE_AFFINITY: _FILTERS | _SCORERS,
    names.NODE_PORTS: _FILTERS,
    names.NODE_RESOURCES_FIT: _FILTERS | _SCORERS,
    names.VOLUME_RESTRICTIONS: _FILTERS,
    names.NODE_VOLUME_LIMITS: _FILTERS,
    names.VOLUME_BINDING: _FILTERS | _SCORERS | {"reserve", "preBind"},
    names.VOLUME_ZONE: _FILTERS,
    names.POD_TOPOLOGY_SPREAD: _FILTERS | _SCORERS,
    names.INTER_POD_AFFINITY: _FILTERS | _SCORERS,
    # PreEnqueue too since v1.32: with async preemption it holds back a pod still evicting.
    names.DEFAULT_PREEMPTION: frozenset({"preEnqueue", "postFilter"}),
    names.NODE_RESOURCES_BALANCED_ALLOCATION: _SCORERS,
    names.IMAGE_LOCALITY: frozenset({"score"}),
    names.DEFAULT_BINDER: frozenset({"bind"}),
    # v1.34+, with DynamicResourceAllocation (GA); Score from v1.35 (kubernetes#134711),
    # with weight 1 as every multiPoint plugin without one.
    names.DYNAMIC_RESOURCES: _FILTERS
    | {"preEnqueue", "postFilter", "score", "reserve", "preBind"},
    # v1.35+, with the GangScheduling gate (KEP-4671).
    names.GANG_SCHEDULING: frozenset({"preEnqueue", "reserve", "permit"}),
}
"""Which extension points each default plugin implements in v1.33.

Reference data: it is what makes the default ``multiPoint`` list expand to
the per-point lists of the kube-scheduler documentation, and a plugin ported
to this project should implement exactly these points.
"""


def default_plugins(
    *, dynamic_resource_allocation: bool = False, feature_gates: FeatureGates | None = None
) -> Plugins:
    """A fresh copy of the default :class:`~framework.config.types.Plugins` (all in ``multiPoint``).

    ``feature_gates`` picks the release (default: the default emulated
    version). With ``DynamicResourceAllocation`` on (or
    ``dynamic_resource_allocation``), ``DynamicResources`` goes just before
    ``DefaultPreemption``, because freeing an idle ResourceClaim is better
    than evicting a pod that does useful work.
    """
    gates = feature_gates if feature_gates is not None else new_feature_gates()
    enabled = list(DEFAULT_MULTI_POINT)
    if dynamic_resource_allocation or gates.enabled("DynamicResourceAllocation"):
        at = [p.name for p in enabled].index(names.DEFAULT_PREEMPTION)
        enabled.insert(at, Plugin(names.DYNAMIC_RESOURCES))
    if gates.enabled("GangScheduling"):
        # applyGangScheduling (v1.35+): appended to multiPoint, after DefaultBinder.
        enabled.append(Plugin(names.GANG_SCHEDULING))
    return Plugins(multi_point=PluginSet(enabled=tuple(enabled)))


def merge_plugin_set(defaults: PluginSet, custom: PluginSet) -> PluginSet:
    """The user's ``custom`` set merged into ``defaults`` at one extension point.

    * Disabled names (the user's, then the defaults' own) are kept, weights dropped.
    * Unless ``"*"`` is disabled, each default that is not disabled stays in
      its place; if the user enabled a plugin of the same name, the user's
      entry takes that place (with its weight).
    * Every other user entry is appended in order, duplicates included:
      the framework, not the merge, rejects a plugin enabled twice.
    """
    disabled = tuple(Plugin(p.name) for p in (*custom.disabled, *defaults.disabled))
    disabled_names = {p.name for p in disabled}
    # A name enabled twice by the user replaces the default with its *last* entry.
    custom_by_name = {p.name: (i, p) for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[Plugin] = []
    if "*" not in disabled_names:
        for plugin in defaults.enabled:
            if plugin.name in disabled_names:
                continue
            if plugin.name in custom_by_name:
                index, plugin = custom_by_name[plugin.name]
                replaced.add(index)
            enabled.append(plugin)
    enabled += [p for i, p in enumerate(custom.enabled) if i not in replaced]
    return PluginSet(enabled=tuple(enabled), disabled=disabled)


def merge_plugins(defaults: Plugins, custom: Plugins | None) -> Plugins:
    """:func:`merge_plugin_set` at every extension point and at ``multiPoint``; ``None`` keeps the defaults."""
    if custom is None:
        return defaults
    merged = defaults
    for point in ("multiPoint", *EXTENSION_POINTS):
        merged = merged.with_point(
            point, merge_plugin_set(defaults.point(point), custom.point(point))
        )
    return merged
