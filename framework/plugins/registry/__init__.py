"""The plugins this project has, by name: kube-scheduler's in-tree registry, and the out-of-tree ones.

A literal table, one line per plugin, from its registered name to its
factory, so that a reader (and an editor) can jump from a name to the code,
and a misspelt module is an import error, not a plugin silently left out.
The order is the in-tree registry's; it is the order in which
:meth:`~framework.runtime.registry.Registry.names` lists them.

Mirrors ``NewInTreeRegistry`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/registry.go`` (v1.33).
Simplified: only the plugins this project implements; feature-gated
factories take no feature set (the gates of v1.33's defaults are fixed).
The out-of-tree table holds ports from kubernetes-sigs/scheduler-plugins.
"""

from __future__ import annotations

from framework.plugins import (
    coscheduling,
    defaultbinder,
    defaultpreemption,
    dynamicresources,
    gangscheduling,
    imagelocality,
    interpodaffinity,
    names,
    nodeaffinity,
    nodename,
    nodeports,
    nodeunschedulable,
    nodevolumelimits,
    podtopologyspread,
    qos,
    queuesort,
    schedulinggates,
    tainttoleration,
    volumebinding,
    volumerestrictions,
    volumezone,
)
from framework.plugins.noderesources import balanced_allocation, fit
from framework.runtime.registry import Registry

__all__ = ["in_tree_registry", "out_of_tree_registry"]


def in_tree_registry() -> Registry:
    """kube-scheduler's in-tree plugins that this project implements so far."""
    return Registry(
        {
            names.SCHEDULING_GATES: schedulinggates.new,
            names.PRIORITY_SORT: queuesort.new,
            names.NODE_UNSCHEDULABLE: nodeunschedulable.new,
            names.NODE_NAME: nodename.new,
            names.TAINT_TOLERATION: tainttoleration.new,
            names.NODE_AFFINITY: nodeaffinity.new,
            names.NODE_PORTS: nodeports.new,
            names.NODE_RESOURCES_FIT: fit.new,
            names.VOLUME_RESTRICTIONS: volumerestrictions.new,
            names.NODE_VOLUME_LIMITS: nodevolumelimits.new,
            names.VOLUME_BINDING: volumebinding.new,
            names.VOLUME_ZONE: volumezone.new,
            names.NODE_RESOURCES_BALANCED_ALLOCATION: balanced_allocation.new,
            names.IMAGE_LOCALITY: imagelocality.new,
            names.POD_TOPOLOGY_SPREAD: podtopologyspread.new,
            names.INTER_POD_AFFINITY: interpodaffinity.new,
            names.DYNAMIC_RESOURCES: dynamicresources.new,
            names.DEFAULT_PREEMPTION: defaultpreemption.new,
            names.DEFAULT_BINDER: defaultbinder.new,
            # v1.35+: registered always, in the default profile when the GangScheduling gate is on.
            names.GANG_SCHEDULING: gangscheduling.new,
        }
    )


def out_of_tree_registry() -> Registry:
    """This project's ports of out-of-tree plugins (kubernetes-sigs/scheduler-plugins).

    Not in kube-scheduler's registry; add them with
    ``build_registry(in_tree_registry(), *(with_plugin(n, f) for n, f in out_of_tree_registry().items()))``.
    """
    return Registry({names.QOS_SORT: qos.new, names.COSCHEDULING: coscheduling.new})
