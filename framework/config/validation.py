"""Checking a defaulted configuration, with kube-scheduler's rules and words, all problems at once.

Validation runs after defaulting, so it sees what the scheduler would run
with: merged plugin sets, defaulted arguments, a name for the lone profile.
It checks the numbers (``parallelism``, the backoffs, the percentage of
nodes to score), the profiles (present, named, uniquely named, no plugin
configured twice, no plugin that v1 removed), that all profiles share one
queue sort (there is a single scheduling queue, so there can be one order),
leader election and the extenders. Plugin arguments are checked by the hook
of their :class:`~framework.config.args.ArgsSpec`.

What validation does *not* check is anything that needs the plugins
themselves: whether a name exists, which points it implements, the final
weights. Those checks happen when the framework is built
(:mod:`framework.config.framework_checks`).

Note what kube-scheduler does not reject either: a negative score weight.
The ``MaxWeight`` bound of the configuration package belonged to the
legacy Policy API; v1 validation has no weight rule, and the framework
only replaces a zero weight by one. We accept what kube-scheduler accepts.

Contract: :func:`validate` returns a list of ``(field path, message)``; empty
means valid. Messages are ``field.Error`` bodies; the details are exported
constants.

Mirrors ``ValidateKubeSchedulerConfiguration`` in
``kubernetes/kubernetes:pkg/scheduler/apis/config/validation/validation.go``
and ``ValidateLeaderElectionConfiguration`` /
``ValidateClientConnectionConfiguration`` in
``k8s.io/component-base/config/validation`` (v1.33). Simplified: the
per-plugin ``Validate<Kind>Args`` functions arrive with the plugins, through
``ArgsSpec.validate``.
"""

from __future__ import annotations

import json
from typing import Any

from framework.apiserver.errors import FieldCause
from framework.config.args import ArgsRegistry, in_tree_args
from framework.config.strict import parse_duration
from framework.config.types import (
    API_VERSION,
    EXTENSION_POINTS,
    Extender,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    LeaderElectionConfiguration,
    PluginSet,
)
from framework.objects.labels import validate_label_key
from framework.objects.resource_names import is_extended_resource_name

__all__ = [
    "MSG_BINDERS",
    "MSG_EXTENDER_WEIGHT",
    "MSG_GREATER_THAN_ZERO",
    "MSG_INITIAL_BACKOFF",
    "MSG_INVALID_EXTENDED_RESOURCE",
    "MSG_MAX_BACKOFF",
    "MSG_ONLY_ONE_QUEUE_SORT",
    "MSG_PARALLELISM",
    "MSG_PERCENTAGE",
    "MSG_QUEUE_SORT_ARGS",
    "MSG_QUEUE_SORT_SAME",
    "MSG_REMOVED_PLUGIN",
    "MSG_RESOURCE_LOCK",
    "REMOVED_PLUGINS",
    "validate",
]

MSG_PARALLELISM = "should be an integer value greater than zero"
MSG_PERCENTAGE = "not in valid range [0-100]"
MSG_INITIAL_BACKOFF = "must be greater than 0"
MSG_MAX_BACKOFF = "must be greater than or equal to PodInitialBackoffSeconds"
MSG_QUEUE_SORT_SAME = "must be the same for all profiles"
MSG_QUEUE_SORT_ARGS = "queueSort must be the same for all profiles"
MSG_ONLY_ONE_QUEUE_SORT = "only one queue sort plugin can be enabled"
MSG_REMOVED_PLUGIN = (
    'was invalid in version "{removed_in}" (KubeSchedulerConfiguration is version "{version}")'
)
MSG_RESOURCE_LOCK = 'resourceLock value must be "leases"'
MSG_GREATER_THAN_ZERO = "must be greater than zero"
MSG_LEASE_AFTER_RENEW = "LeaseDuration must be greater than RenewDeadline"
MSG_BURST = "must be non-negative"
MSG_EXTENDER_WEIGHT = "must have a positive weight applied to it"
MSG_BINDERS = "only one extender can implement bind"
MSG_DUPLICATE_MANAGED_RESOURCE = "duplicate extender managed resource name"
MSG_INVALID_EXTENDED_RESOURCE = "is an invalid extended resource name"

REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
"""Plugins that v1 no longer accepts; they were deprecated in v1.31 and removed in v1.32 (use NodeVolumeLimits)."""

Problems = list[tuple[str, str]]


def _add(problems: Problems, cause: FieldCause) -> None:
    problems.append((cause.field, cause.body()))


def _compact(value: Any) -> str:
    to_dict = getattr(value, "to_dict", None)
    return json.dumps(to_dict() if to_dict else value, separators=(",", ":"), sort_keys=False)


def _percentage(problems: Problems, path: str, value: int | None) -> None:
    if value is not None and not 0 <= value <= 100:
        _add(problems, FieldCause.invalid(path, value, MSG_PERCENTAGE))


def _removed_plugin(name: str) -> str:
    return MSG_REMOVED_PLUGIN.format(removed_in=API_VERSION, version=API_VERSION)


def _profile(path: str, profile: KubeSchedulerProfile, args: ArgsRegistry) -> Problems:
    problems: Problems = []
    if not profile.scheduler_name:
        _add(problems, FieldCause.required(f"{path}.schedulerName"))
    _percentage(problems, f"{path}.percentageOfNodesToScore", profile.percentage_of_nodes_to_score)
    if profile.plugins is not None:
        # multiPoint is not checked here, as in kube-scheduler; the framework
        # rejects a removed plugin there because no registry has it.
        for point in EXTENSION_POINTS:
            for i, plugin in enumerate(profile.plugins.point(point).enabled):
                if plugin.name in REMOVED_PLUGINS:
                    where = f"{path}.plugins.{point}.enabled[{i}]"
                    _add(
                        problems,
                        FieldCause.invalid(where, plugin.name, _removed_plugin(plugin.name)),
                    )
    seen: set[str] = set()
    for i, entry in enumerate(profile.plugin_config):
        where = f"{path}.pluginConfig[{i}]"
        if entry.name in seen:
            _add(problems, FieldCause.duplicate(where, entry.name))
        seen.add(entry.name)
        spec = args.get(entry.name)
        if entry.name in REMOVED_PLUGINS:
            _add(problems, FieldCause.invalid(where, entry.name, _removed_plugin(entry.name)))
        elif spec is not None and spec.validate is not None and isinstance(entry.args, dict):
            problems += spec.validate(entry.args, f"{where}.args")
    return problems


def _common_queue_sort(profiles: tuple[KubeSchedulerProfile, ...]) -> Problems:
    problems: Problems = []
    first = profiles[0]
    canon = first.plugins.queue_sort if first.plugins else PluginSet()
    name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        # "Enabled" with a capital E: kube-scheduler's path, kept so it can be searched for.
        where = "profiles[0].plugins.queueSort.Enabled"
        _add(problems, FieldCause.invalid(where, len(canon.enabled), MSG_ONLY_ONE_QUEUE_SORT))
    canon_args = first.args_for(name) if name else None
    for i, profile in enumerate(profiles[1:], start=1):
        current = profile.plugins.queue_sort if profile.plugins else PluginSet()
        if current != canon:
            where = f"profiles[{i}].plugins.queueSort"
            problems.append((where, f"Invalid value: {_compact(current)}: {MSG_QUEUE_SORT_SAME}"))
        for entry in profile.plugin_config:
            if entry.name == name and entry.args != canon_args:
                where = f"profiles[{i}].pluginConfig.args"
                problems.append(
                    (where, f"Invalid value: {_compact(entry.args)}: {MSG_QUEUE_SORT_ARGS}")
                )
    return problems


def _seconds(duration: str) -> float:
    try:
        return parse_duration(duration) if duration else 0.0
    except ValueError:
        return 0.0


def _leader_election(le: LeaderElectionConfiguration) -> Problems:
    problems: Problems = []
    if not le.leader_elect:
        return problems
    lease, renew, retry = (
        _seconds(d) for d in (le.lease_duration, le.renew_deadline, le.retry_period)
    )
    for key, value, seconds in (
        ("leaseDuration", le.lease_duration, lease),
        ("renewDeadline", le.renew_deadline, renew),
        ("retryPeriod", le.retry_period, retry),
    ):
        if seconds <= 0:
            _add(
                problems, FieldCause.invalid(f"leaderElection.{key}", value, MSG_GREATER_THAN_ZERO)
            )
    if lease <= renew:
        where = "leaderElection.leaseDuration"
        _add(problems, FieldCause.invalid(where, le.renew_deadline, MSG_LEASE_AFTER_RENEW))
    if le.resource_lock != "leases":
        where = "leaderElection.resourceLock"
        _add(problems, FieldCause.invalid(where, le.resource_lock, MSG_RESOURCE_LOCK))
    return problems


def _extenders(extenders: tuple[Extender, ...]) -> Problems:
    problems: Problems = []
    binders = 0
    managed: set[str] = set()
    for i, extender in enumerate(extenders):
        path = f"extenders[{i}]"
        if extender.prioritize_verb and extender.weight <= 0:
            _add(
                problems,
                FieldCause.invalid(f"{path}.weight", extender.weight, MSG_EXTENDER_WEIGHT),
            )
        if extender.bind_verb:
            binders += 1
        for j, resource in enumerate(extender.managed_resources):
            where = f"{path}.managedResources[{j}].name"
            messages = validate_label_key(resource.name)
            for message in messages:
                _add(problems, FieldCause.invalid(where, resource.name, message))
            if not messages and not is_extended_resource_name(resource.name):
                # validateExtendedResourceName: cpu or kubernetes.io/... is no extended resource.
                _add(
                    problems,
                    FieldCause.invalid(where, resource.name, MSG_INVALID_EXTENDED_RESOURCE),
                )
            if resource.name in managed:
                _add(
                    problems,
                    FieldCause.invalid(where, resource.name, MSG_DUPLICATE_MANAGED_RESOURCE),
                )
            managed.add(resource.name)
    if binders > 1:
        _add(
            problems,
            FieldCause.invalid(
                "extenders", f"found {binders} extenders implementing bind", MSG_BINDERS
            ),
        )
    return problems


def validate(config: KubeSchedulerConfiguration, args: ArgsRegistry | None = None) -> Problems:
    """Every problem of a *defaulted* configuration, as ``(field path, message)``, in Go's order."""
    registry = args if args is not None else in_tree_args()
    problems: Problems = []
    if config.client_connection.burst < 0:
        cause = FieldCause.invalid(
            "clientConnection.burst", config.client_connection.burst, MSG_BURST
        )
        _add(problems, cause)
    problems += _leader_election(config.leader_election)
    if config.parallelism <= 0:
        _add(problems, FieldCause.invalid("parallelism", config.parallelism, MSG_PARALLELISM))
    if not config.profiles:
        _add(problems, FieldCause.required("profiles"))
    else:
        # Like kube-scheduler's map, this remembers the *latest* profile with each name.
        seen: dict[str | None, int] = {}
        for i, profile in enumerate(config.profiles):
            problems += _profile(f"profiles[{i}]", profile, registry)
            name = profile.scheduler_name
            if name in seen:
                cause = FieldCause.duplicate(f"profiles[{i}].schedulerName", name or "")
                other = f"profiles[{seen[name]}].schedulerName"
                problems.append((cause.field, f"{cause.body()} (already used by {other})"))
            seen[name] = i
        problems += _common_queue_sort(config.profiles)
    _percentage(problems, "percentageOfNodesToScore", config.percentage_of_nodes_to_score)
    if config.pod_initial_backoff_seconds <= 0:
        cause = FieldCause.invalid(
            "podInitialBackoffSeconds", config.pod_initial_backoff_seconds, MSG_INITIAL_BACKOFF
        )
        _add(problems, cause)
    if config.pod_max_backoff_seconds < config.pod_initial_backoff_seconds:
        cause = FieldCause.invalid(
            "podMaxBackoffSeconds", config.pod_max_backoff_seconds, MSG_MAX_BACKOFF
        )
        _add(problems, cause)
    problems += _extenders(config.extenders)
    return problems
