"""Filling in what a configuration file leaves out, exactly as kube-scheduler does.

A two-line file (``apiVersion`` and ``kind``) is a complete configuration:
kube-scheduler adds one ``default-scheduler`` profile, gives every profile
the default plugin line-up merged with whatever the user wrote
(:mod:`framework.config.default_plugins`), and gives every enabled in-tree
plugin that takes arguments its default arguments
(:mod:`framework.config.args`). Operational settings get kube-scheduler's
opinions: leases for leader election, 50 QPS and a burst of 100 towards the
API server, profiling on.

Two rules surprise people. The scheduler name is defaulted *only* when
there is exactly one profile: with two profiles, each must be named, and
validation says so. And a user's ``pluginConfig`` for an in-tree plugin is
completed field by field, not replaced: ``scoringStrategy: {type:
MostAllocated}`` still gets the default ``cpu`` and ``memory`` resources.

Contract: :func:`set_defaults` is pure (it returns a new configuration) and
idempotent. Plugin configs come out in this order: the user's, in the user's
order, then the defaults that were missing, sorted by plugin name.

Mirrors ``SetDefaults_KubeSchedulerConfiguration`` and
``setDefaults_KubeSchedulerProfile`` in
``kubernetes/kubernetes:pkg/scheduler/apis/config/v1/defaults.go`` and
``RecommendedDefaultLeaderElectionConfiguration`` in
``k8s.io/component-base/config/v1alpha1/defaults.go`` (v1.33).
"""

from __future__ import annotations

from dataclasses import replace

from framework.config.args import ArgsRegistry, in_tree_args
from framework.config.default_plugins import default_plugins, merge_plugins
from framework.config.strict import parse_duration
from framework.config.types import (
    DEFAULT_SCHEDULER_NAME,
    ClientConnectionConfiguration,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    LeaderElectionConfiguration,
    PluginConfig,
)
from framework.featuregate import FeatureGates

__all__ = [
    "DEFAULT_CONTENT_TYPE",
    "DEFAULT_LEASE_DURATION",
    "DEFAULT_LOCK_NAME",
    "DEFAULT_LOCK_NAMESPACE",
    "DEFAULT_RENEW_DEADLINE",
    "DEFAULT_RETRY_PERIOD",
    "set_defaults",
    "set_profile_defaults",
]

DEFAULT_LOCK_NAMESPACE = "kube-system"
DEFAULT_LOCK_NAME = "kube-scheduler"
DEFAULT_LEASE_DURATION = "15s"
DEFAULT_RENEW_DEADLINE = "10s"
DEFAULT_RETRY_PERIOD = "2s"
DEFAULT_CONTENT_TYPE = "application/vnd.kubernetes.protobuf"


def set_profile_defaults(
    profile: KubeSchedulerProfile,
    args: ArgsRegistry | None = None,
    *,
    dynamic_resource_allocation: bool = False,
    feature_gates: FeatureGates | None = None,
) -> KubeSchedulerProfile:
    """One profile with the default plugins merged in and every known plugin's args defaulted."""
    registry = args if args is not None else in_tree_args()
    plugins = merge_plugins(
        default_plugins(
            dynamic_resource_allocation=dynamic_resource_allocation, feature_gates=feature_gates
        ),
        profile.plugins,
    )
    configs: list[PluginConfig] = []
    for entry in profile.plugin_config:
        spec = registry.get(entry.name)
        if spec is not None and (entry.args is None or isinstance(entry.args, dict)):
            entry = replace(entry, args=spec.set_defaults(entry.args))
        configs.append(entry)
    configured = {entry.name for entry in profile.plugin_config}
    for name in sorted(plugins.enabled_names() - configured):
        spec = registry.get(name)
        if spec is not None:
            configs.append(PluginConfig(name, spec.set_defaults(None)))
    return replace(profile, plugins=plugins, plugin_config=tuple(configs))


def _zero(duration: str) -> bool:
    try:
        return parse_duration(duration) == 0 if duration else True
    except ValueError:
        return False  # left for validation to report


def _leader_election(le: LeaderElectionConfiguration) -> LeaderElectionConfiguration:
    return replace(
        le,
        resource_lock=le.resource_lock or "leases",
        resource_namespace=le.resource_namespace or DEFAULT_LOCK_NAMESPACE,
        resource_name=le.resource_name or DEFAULT_LOCK_NAME,
        lease_duration=DEFAULT_LEASE_DURATION if _zero(le.lease_duration) else le.lease_duration,
        renew_deadline=DEFAULT_RENEW_DEADLINE if _zero(le.renew_deadline) else le.renew_deadline,
        retry_period=DEFAULT_RETRY_PERIOD if _zero(le.retry_period) else le.retry_period,
    )


def _client_connection(cc: ClientConnectionConfiguration) -> ClientConnectionConfiguration:
    return replace(
        cc,
        content_type=cc.content_type or DEFAULT_CONTENT_TYPE,
        qps=cc.qps or 50.0,
        burst=cc.burst or 100,
    )


def set_defaults(
    config: KubeSchedulerConfiguration,
    args: ArgsRegistry | None = None,
    *,
    dynamic_resource_allocation: bool = False,
    feature_gates: FeatureGates | None = None,
) -> KubeSchedulerConfiguration:
    """The configuration kube-scheduler would run with, before validation.

    ``args`` is the registry of known plugin argument types (default: the
    in-tree ones); ``feature_gates`` picks the release whose default plugins
    are merged in (``dynamic_resource_allocation`` forces that one gate on).
    """
    profiles = config.profiles or (KubeSchedulerProfile(),)
    if len(profiles) == 1 and profiles[0].scheduler_name is None:
        profiles = (replace(profiles[0], scheduler_name=DEFAULT_SCHEDULER_NAME),)
    registry = args if args is not None else in_tree_args()
    profiles = tuple(
        set_profile_defaults(
            p,
            registry,
            dynamic_resource_allocation=dynamic_resource_allocation,
            feature_gates=feature_gates,
        )
        for p in profiles
    )
    contention = config.enable_contention_profiling
    if contention is None:
        # Contention profiling follows profiling when it is not set.
        contention = config.enable_profiling
    return replace(
        config,
        profiles=profiles,
        leader_election=_leader_election(config.leader_election),
        client_connection=_client_connection(config.client_connection),
        enable_contention_profiling=contention,
    )
