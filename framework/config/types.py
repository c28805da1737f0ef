"""The shape of a kube-scheduler configuration file: ``KubeSchedulerConfiguration`` and its parts.

A configuration says how many goroutines to use (``parallelism``), how many
nodes to score, how long unschedulable pods back off, and, above all, which
*profiles* the scheduler runs. A profile is a scheduler name plus a plugin
line-up: for every extension point a :class:`PluginSet` of ``enabled`` and
``disabled`` plugins, and ``multiPoint``, which enables a plugin at every
point it implements. ``pluginConfig`` passes arguments to plugins by name.

These are the types of the versioned API ``kubescheduler.config.k8s.io/v1``,
as a file is written. Fields left out are ``None`` or empty until
:func:`framework.config.defaults.set_defaults` fills them in; a field whose
default is a plain constant carries it directly (``parallelism=16``).

Contract: every class is a frozen dataclass decoded strictly from camelCase
keys (:class:`~framework.config.strict.StrictModel`); ``to_dict()`` writes it
back. Use :func:`framework.config.load_config` rather than ``from_dict`` to
also get defaulting and validation.

Mirrors ``kubernetes/kubernetes:staging/src/k8s.io/kube-scheduler/config/v1/types.go``
and, for ``leaderElection``/``clientConnection``, ``k8s.io/component-base/config/v1alpha1``
(v1.33). Simplified: plugin ``args`` stay plain JSON (a dict) instead of a
``runtime.RawExtension`` decoded into a typed ``<Plugin>Args``; an extender's
``tlsConfig`` is kept as plain JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from framework.config.strict import StrictModel
from framework.objects.schema import json_field

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "KIND",
    "PLUGIN_INTERFACES",
    "ClientConnectionConfiguration",
    "Extender",
    "ExtenderManagedResource",
    "KubeSchedulerConfiguration",
    "KubeSchedulerProfile",
    "LeaderElectionConfiguration",
    "Plugin",
    "PluginConfig",
    "PluginSet",
    "Plugins",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
"""The profile pods get when ``spec.schedulerName`` is not set (``v1.DefaultSchedulerName``)."""

EXTENSION_POINTS: tuple[str, ...] = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)
"""The extension points, by their configuration keys, in the order a pod meets them."""

PLUGIN_INTERFACES: Mapping[str, str] = {
    point: point[0].upper() + point[1:] + "Plugin" for point in EXTENSION_POINTS
}
"""The Go interface behind each point (``filter`` → ``FilterPlugin``), as NewFramework's errors name it."""

# The field of Plugins behind each configuration key: preFilter -> pre_filter.
_ATTRIBUTES = {
    point: "".join(f"_{c.lower()}" if c.isupper() else c for c in point)
    for point in (*EXTENSION_POINTS, "multiPoint")
}


@dataclass(frozen=True, slots=True)
class Plugin(StrictModel):
    """A plugin by name; ``weight`` counts only at the Score point (unset or 0 means 1)."""

    _INT32: ClassVar[frozenset[str]] = frozenset({"weight"})

    name: str = ""
    weight: int | None = None


@dataclass(frozen=True, slots=True)
class PluginSet(StrictModel):
    """The plugins enabled and disabled at one extension point.

    ``enabled`` run in order, after the default plugins that stay; ``disabled``
    removes default plugins by name, or all of them with ``{name: "*"}``.
    """

    enabled: tuple[Plugin, ...] = ()
    disabled: tuple[Plugin, ...] = ()

    def enabled_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.enabled)

    def disabled_names(self) -> frozenset[str]:
        return frozenset(p.name for p in self.disabled)


@dataclass(frozen=True, slots=True)
class Plugins(StrictModel):
    """One :class:`PluginSet` per extension point, plus ``multiPoint``."""

    pre_enqueue: PluginSet = PluginSet()
    queue_sort: PluginSet = PluginSet()
    pre_filter: PluginSet = PluginSet()
    filter: PluginSet = PluginSet()
    post_filter: PluginSet = PluginSet()
    pre_score: PluginSet = PluginSet()
    score: PluginSet = PluginSet()
    reserve: PluginSet = PluginSet()
    permit: PluginSet = PluginSet()
    pre_bind: PluginSet = PluginSet()
    bind: PluginSet = PluginSet()
    post_bind: PluginSet = PluginSet()
    multi_point: PluginSet = PluginSet()

    def point(self, name: str) -> PluginSet:
        """The set at an extension point named by its configuration key (``"score"``, ``"multiPoint"``)."""
        try:
            plugin_set: PluginSet = getattr(self, _ATTRIBUTES[name])
        except KeyError:
            raise ValueError(
                f"unknown extension point {name!r}; use one of {', '.join(_ATTRIBUTES)}"
            ) from None
        return plugin_set

    def with_point(self, name: str, plugin_set: PluginSet) -> Plugins:
        """A copy with the set at ``name`` replaced."""
        self.point(name)  # validates the name
        return replace(self, **{_ATTRIBUTES[name]: plugin_set})

    def enabled_names(self) -> frozenset[str]:
        """Every plugin enabled anywhere, ``multiPoint`` included (``pluginsNames`` in defaults.go)."""
        return frozenset(p.name for key in _ATTRIBUTES for p in self.point(key).enabled)


@dataclass(frozen=True, slots=True)
class PluginConfig(StrictModel):
    """Arguments for one plugin, given at construction: ``{name, args}``.

    ``args`` is plain JSON. For an in-tree plugin it is decoded and defaulted
    as its ``<Name>Args`` (:mod:`framework.config.args`); for any other
    plugin it is passed through untouched.
    """

    name: str = ""
    args: Any = None


@dataclass(frozen=True, slots=True)
class KubeSchedulerProfile(StrictModel):
    """One scheduler within the scheduler: a name pods ask for and its plugin line-up.

    ``scheduler_name`` is defaulted to ``default-scheduler`` only when the
    configuration has a single profile. ``percentage_of_nodes_to_score``
    overrides the global value when set.
    """

    _INT32: ClassVar[frozenset[str]] = frozenset({"percentageOfNodesToScore"})

    scheduler_name: str | None = None
    percentage_of_nodes_to_score: int | None = None
    plugins: Plugins | None = None
    plugin_config: tuple[PluginConfig, ...] = ()

    def args_for(self, plugin: str) -> Any:
        """The ``args`` configured for ``plugin``, or ``None``."""
        for entry in self.plugin_config:
            if entry.name == plugin:
                return entry.args
        return None


@dataclass(frozen=True, slots=True)
class ExtenderManagedResource(StrictModel):
    """An extended resource an extender manages; ``ignoredByScheduler`` skips it in Fit."""

    name: str = ""
    ignored_by_scheduler: bool = False


@dataclass(frozen=True, slots=True)
class Extender(StrictModel):
    """A scheduler extender: a webhook consulted at filter, prioritize, preempt or bind.

    A verb left empty means the extender does not take part there.
    ``weight`` multiplies its 0-10 scores; ``httpTimeout`` is a Go duration
    (empty: 5s); ``tlsConfig`` stays plain JSON. The scheduler builds an
    :class:`~framework.extender.http_extender.HTTPExtender` from each entry
    (:func:`~framework.extender.build.build_extenders`).
    """

    _INT64: ClassVar[frozenset[str]] = frozenset({"weight"})
    _DURATIONS: ClassVar[frozenset[str]] = frozenset({"httpTimeout"})

    url_prefix: str = ""
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    weight: int = 0
    bind_verb: str = ""
    enable_https: bool = json_field("enableHTTPS", default=False)
    tls_config: Any = None
    http_timeout: str = ""
    node_cache_capable: bool = False
    managed_resources: tuple[ExtenderManagedResource, ...] = ()
    ignorable: bool = False


@dataclass(frozen=True, slots=True)
class LeaderElectionConfiguration(StrictModel):
    """How replicas of the scheduler agree on one leader (component-base, kept as data).

    Durations are Go duration strings (``"15s"``).
    """

    _DURATIONS: ClassVar[frozenset[str]] = frozenset(
        {"leaseDuration", "renewDeadline", "retryPeriod"}
    )

    leader_elect: bool = True
    lease_duration: str = ""
    renew_deadline: str = ""
    retry_period: str = ""
    resource_lock: str = ""
    resource_name: str = ""
    resource_namespace: str = ""


@dataclass(frozen=True, slots=True)
class ClientConnectionConfiguration(StrictModel):
    """How the scheduler talks to the API server (component-base, kept as data)."""

    _INT32: ClassVar[frozenset[str]] = frozenset({"burst"})

    kubeconfig: str = ""
    accept_content_types: str = ""
    content_type: str = ""
    qps: float = 0.0
    burst: int = 0


@dataclass(frozen=True, slots=True)
class KubeSchedulerConfiguration(StrictModel):
    """A whole kube-scheduler configuration file.

    After :func:`~framework.config.defaults.set_defaults`, ``profiles`` holds
    at least one profile, each with its merged ``plugins`` and defaulted
    ``plugin_config``.
    """

    _ALWAYS: ClassVar[frozenset[str]] = frozenset({"apiVersion", "kind"})
    _INT32: ClassVar[frozenset[str]] = frozenset({"parallelism", "percentageOfNodesToScore"})
    _INT64: ClassVar[frozenset[str]] = frozenset(
        {"podInitialBackoffSeconds", "podMaxBackoffSeconds"}
    )

    api_version: str = API_VERSION
    kind: str = KIND
    parallelism: int = 16
    leader_election: LeaderElectionConfiguration = field(
        default_factory=LeaderElectionConfiguration
    )
    client_connection: ClientConnectionConfiguration = field(
        default_factory=ClientConnectionConfiguration
    )
    enable_profiling: bool = True
    enable_contention_profiling: bool | None = None
    percentage_of_nodes_to_score: int = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    profiles: tuple[KubeSchedulerProfile, ...] = ()
    extenders: tuple[Extender, ...] = ()
    delay_cache_until_active: bool = False

    def profile(self, scheduler_name: str) -> KubeSchedulerProfile:
        """The profile pods with ``spec.schedulerName: scheduler_name`` are scheduled by."""
        for candidate in self.profiles:
            if candidate.scheduler_name == scheduler_name:
                return candidate
        names = ", ".join(repr(p.scheduler_name) for p in self.profiles) or "none"
        raise LookupError(
            f"no profile with schedulerName {scheduler_name!r}; the profiles are: {names}"
        )
