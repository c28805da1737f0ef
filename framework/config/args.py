"""Plugin arguments: which plugins take ``args``, their defaults, and the hook that checks them.

A profile's ``pluginConfig`` passes each plugin a JSON object of arguments.
kube-scheduler knows the argument types of its in-tree plugins
(``NodeResourcesFitArgs``, ``DefaultPreemptionArgs``, ...): it decodes their
``args`` strictly, fills in the fields left out (its ``SetDefaults_<Kind>``
functions), and appends a fully defaulted entry for every enabled in-tree
plugin that takes arguments but was given none. The ``args`` of any other
plugin (out-of-tree) pass through untouched: only that plugin can read them.

An :class:`ArgsRegistry` holds one :class:`ArgsSpec` per plugin that takes
arguments. :func:`in_tree_args` returns the specs of kube-scheduler v1.33's
in-tree argument types, with their defaults (the facts sheet's §9.3). A
plugin added to this project registers a richer spec (a typed
``<Plugin>Args`` decoder and its validation) by extending that table.

Contract: ``spec.set_defaults(args)`` returns a *new* dict with every
defaulted field present, leaving its input alone; ``spec.check(args, path)``
lists ``(path, message)`` problems, strictly (unknown fields are errors).

Mirrors the ``SetDefaults_*Args`` functions of
``kubernetes/kubernetes:pkg/scheduler/apis/config/v1/defaults.go`` and
``PluginConfig.decodeNestedObjects`` in
``staging/src/k8s.io/kube-scheduler/config/v1/types.go`` (v1.33).
Simplified: only the top-level fields of each args type are checked here;
nested objects are checked by the plugin's own args class, through the
spec's ``decode`` hook, once the plugin is ported (NodeResourcesFit,
NodeResourcesBalancedAllocation, PodTopologySpread, InterPodAffinity and
DefaultPreemption are).
``VolumeBindingArgs.shape`` is not defaulted because it only is with the
``StorageCapacityScoring`` gate, off in v1.33.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from framework.config.args_coscheduling import (
    check_coscheduling_args,
    set_defaults_coscheduling_args,
    validate_coscheduling_config,
)
from framework.config.args_defaultpreemption import (
    check_default_preemption_args,
    validate_default_preemption_config,
)
from framework.config.args_interpodaffinity import (
    check_inter_pod_affinity_args,
    validate_inter_pod_affinity_config,
)
from framework.config.args_nodeaffinity import validate_args as validate_node_affinity_config
from framework.config.args_noderesources import (
    check_node_resources_balanced_allocation_args,
    check_node_resources_fit_args,
    validate_node_resources_balanced_allocation_config,
    validate_node_resources_fit_config,
)
from framework.config.args_podtopologyspread import (
    check_pod_topology_spread_args,
    validate_pod_topology_spread_config,
)
from framework.config.types import API_VERSION
from framework.plugins import names

__all__ = [
    "ArgsRegistry",
    "ArgsSpec",
    "default_plugin_args",
    "in_tree_args",
    "out_of_tree_args",
]

Problems = list[tuple[str, str]]
"""``(field path, message)`` pairs."""


@dataclass(frozen=True, slots=True)
class ArgsSpec:
    """What kube-scheduler knows about one plugin's arguments.

    ``fields`` are the top-level keys of the args type; ``defaults`` fills in,
    in place, what is missing (a port of ``SetDefaults_<Kind>``); ``validate``,
    when a plugin provides it, returns extra problems for already-defaulted
    args (a port of ``Validate<Kind>``); ``decode``, when a plugin provides
    it, returns the problems of decoding the known fields strictly into its
    typed args (nested unknown fields, wrong types), reported with the rest.
    """

    plugin: str
    fields: frozenset[str]
    defaults: Callable[[dict[str, Any]], None]
    validate: Callable[[Mapping[str, Any], str], Problems] | None = None
    decode: Callable[[Mapping[str, Any], str], Problems] | None = None

    @property
    def kind(self) -> str:
        """The name of the Go type, the plugin's name plus ``Args`` (``NodeResourcesFitArgs``)."""
        return self.plugin + "Args"

    def set_defaults(self, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """A defaulted copy of ``args`` (``None`` means "nothing given")."""
        result = {k: copy.deepcopy(v) for k, v in (args or {}).items()}
        result.pop("apiVersion", None)
        result.pop("kind", None)
        self.defaults(result)
        return result

    def check(self, args: Any, path: str) -> Problems:
        """Problems decoding ``args`` strictly as this type: not an object, wrong kind, unknown fields."""
        if args is None:
            return []
        if not isinstance(args, Mapping):
            return [(path, f"expected an object ({self.kind}), got {type(args).__name__}")]
        problems: Problems = []
        kind = args.get("kind")
        if kind is not None and kind != self.kind:
            problems.append(
                (
                    f"{path}.kind",
                    f"args for plugin {self.plugin} were not of type {self.kind}, got {kind!r}",
                )
            )
        version = args.get("apiVersion")
        if version is not None and version != API_VERSION:
            problems.append(
                (f"{path}.apiVersion", f"must be {API_VERSION} (or left out), got {version!r}")
            )
        for key in args:
            if key not in self.fields and key not in ("kind", "apiVersion"):
                known = ", ".join(sorted(self.fields)) or "none"
                problems.append(
                    (
                        f"{path}.{key}",
                        f'unknown field "{key}" in {self.kind} (its fields are: {known})',
                    )
                )
        if self.decode is not None:
            problems += self.decode({k: v for k, v in args.items() if k in self.fields}, path)
        return problems


class ArgsRegistry:
    """Plugin name → :class:`ArgsSpec`, for the plugins whose arguments kube-scheduler understands."""

    def __init__(self, specs: tuple[ArgsSpec, ...] = ()) -> None:
        self._specs: dict[str, ArgsSpec] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ArgsSpec) -> None:
        """Add a spec; a plugin has one args type, so a second spec for it is an error."""
        if spec.plugin in self._specs:
            raise ValueError(
                f"args for plugin {spec.plugin} are already registered as {spec.kind}; "
                "replace the entry instead of registering it twice"
            )
        self._specs[spec.plugin] = spec

    def get(self, plugin: str) -> ArgsSpec | None:
        return self._specs.get(plugin)

    def __contains__(self, plugin: object) -> bool:
        return plugin in self._specs

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)


# --- the in-tree argument types and their SetDefaults_* -------------------------------


def _default_resources() -> list[dict[str, Any]]:
    return [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def _weights_at_least_one(resources: list[Any]) -> None:
    for resource in resources:
        if isinstance(resource, dict) and not resource.get("weight"):
            resource["weight"] = 1


def _fit_defaults(args: dict[str, Any]) -> None:
    strategy = args.get("scoringStrategy")
    if strategy is None:
        args["scoringStrategy"] = {"type": "LeastAllocated", "resources": _default_resources()}
        return
    if isinstance(strategy, dict):
        if not strategy.get("resources"):
            strategy["resources"] = _default_resources()
        _weights_at_least_one(strategy["resources"])


def _balanced_defaults(args: dict[str, Any]) -> None:
    if not args.get("resources"):
        args["resources"] = _default_resources()
    else:
        _weights_at_least_one(args["resources"])


def _preemption_defaults(args: dict[str, Any]) -> None:
    if args.get("minCandidateNodesPercentage") is None:
        args["minCandidateNodesPercentage"] = 10
    if args.get("minCandidateNodesAbsolute") is None:
        args["minCandidateNodesAbsolute"] = 100


def _inter_pod_affinity_defaults(args: dict[str, Any]) -> None:
    if args.get("hardPodAffinityWeight") is None:
        args["hardPodAffinityWeight"] = 1


def _spread_defaults(args: dict[str, Any]) -> None:
    if not args.get("defaultingType"):
        args["defaultingType"] = "System"


def _volume_binding_defaults(args: dict[str, Any]) -> None:
    if args.get("bindTimeoutSeconds") is None:
        args["bindTimeoutSeconds"] = 600


def _no_defaults(args: dict[str, Any]) -> None:
    pass


_IN_TREE: tuple[ArgsSpec, ...] = (
    ArgsSpec(
        names.DEFAULT_PREEMPTION,
        frozenset({"minCandidateNodesPercentage", "minCandidateNodesAbsolute"}),
        _preemption_defaults,
        validate_default_preemption_config,
        check_default_preemption_args,
    ),
    ArgsSpec(
        names.INTER_POD_AFFINITY,
        frozenset({"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"}),
        _inter_pod_affinity_defaults,
        validate_inter_pod_affinity_config,
        check_inter_pod_affinity_args,
    ),
    ArgsSpec(
        names.NODE_AFFINITY,
        frozenset({"addedAffinity"}),
        _no_defaults,
        validate_node_affinity_config,
    ),
    ArgsSpec(
        names.NODE_RESOURCES_BALANCED_ALLOCATION,
        frozenset({"resources"}),
        _balanced_defaults,
        validate_node_resources_balanced_allocation_config,
        check_node_resources_balanced_allocation_args,
    ),
    ArgsSpec(
        names.NODE_RESOURCES_FIT,
        frozenset({"ignoredResources", "ignoredResourceGroups", "scoringStrategy"}),
        _fit_defaults,
        validate_node_resources_fit_config,
        check_node_resources_fit_args,
    ),
    ArgsSpec(
        names.POD_TOPOLOGY_SPREAD,
        frozenset({"defaultConstraints", "defaultingType"}),
        _spread_defaults,
        validate_pod_topology_spread_config,
        check_pod_topology_spread_args,
    ),
    ArgsSpec(
        names.VOLUME_BINDING, frozenset({"bindTimeoutSeconds", "shape"}), _volume_binding_defaults
    ),
)


def in_tree_args() -> ArgsRegistry:
    """A fresh registry of kube-scheduler v1.33's in-tree argument types (the v1 scheme's ``*Args``)."""
    return ArgsRegistry(_IN_TREE)


# --- out-of-tree argument types (kubernetes-sigs/scheduler-plugins' scheme) -------------------


_OUT_OF_TREE: tuple[ArgsSpec, ...] = (
    ArgsSpec(
        names.COSCHEDULING,
        frozenset({"permitWaitingTimeSeconds", "podGroupBackoffSeconds"}),
        set_defaults_coscheduling_args,
        validate_coscheduling_config,
        check_coscheduling_args,
    ),
)


def out_of_tree_args() -> ArgsRegistry:
    """The argument types a scheduler built with scheduler-plugins knows: in-tree plus its own.

    scheduler-plugins' kube-scheduler registers its ``*Args`` (here
    ``CoschedulingArgs``) into the same scheme as the in-tree ones, so its
    configuration decodes, defaults and validates them strictly too. Pass it
    as ``loads_config(text, args=out_of_tree_args())``; without it, out-of-tree
    args pass through untouched and the plugin's factory checks them.
    Mirrors ``apis/config/scheme/scheme.go`` of kubernetes-sigs/scheduler-plugins (v0.33.5).
    """
    return ArgsRegistry(_IN_TREE + _OUT_OF_TREE)


def default_plugin_args(plugin: str) -> dict[str, Any] | None:
    """The arguments an in-tree plugin gets when its profile configures none; ``None`` if it takes none.

    >>> default_plugin_args("DefaultPreemption")
    {'minCandidateNodesPercentage': 10, 'minCandidateNodesAbsolute': 100}
    >>> default_plugin_args("PrioritySort") is None
    True
    """
    for spec in _IN_TREE:
        if spec.plugin == plugin:
            return spec.set_defaults(None)
    return None
