"""Where plugin names meet code: the registry of plugin factories, in-tree and out-of-tree.

Configuration names plugins (``NodeResourcesFit``, ``QOSSort``); the
registry turns a name into a *factory*, ``factory(args, handle) -> plugin``,
that the framework calls once per profile for every plugin the profile
enables, passing the plugin's ``pluginConfig`` args and a handle on the
framework. A name the registry does not have cannot be enabled.

kube-scheduler builds its registry from two parts. The in-tree registry
holds the plugins compiled into the binary. Out-of-tree plugins are added
by whoever builds a custom scheduler: ``app.NewSchedulerCommand(
app.WithPlugin(name, New))``. Each ``WithPlugin`` is an *option* that
registers into a separate out-of-tree registry, which is then merged into
the in-tree one; a name used by both is an error, so an out-of-tree plugin
cannot silently replace an in-tree one. Here the same shape is
:func:`with_plugin` and :func:`build_registry`, and because Python can import
by name, an out-of-tree plugin can also be given on a command line as
``"package.module:attribute"`` (:func:`load_factory`).

Contract: a :class:`Registry` is a mapping from name to factory, in
registration order. Registering a taken name, unregistering or looking up
an unknown one raise :class:`RegistryError` with kube-scheduler's wording.

Mirrors ``Registry``, ``Register``, ``Unregister`` and ``Merge`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/registry.go``,
``NewInTreeRegistry`` in ``pkg/scheduler/framework/plugins/registry.go``,
and ``WithPlugin`` in ``cmd/kube-scheduler/app/server.go`` (v1.33).
Simplified: a factory returns its plugin or raises, where Go returns
``(Plugin, error)``; the framework handle is typed ``Any`` until the
runtime defines it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any

from framework.interface import Plugin

__all__ = [
    "MSG_ALREADY_EXISTS",
    "MSG_NO_SUCH_PLUGIN",
    "PluginFactory",
    "Registry",
    "RegistryError",
    "RegistryOption",
    "build_registry",
    "in_tree_registry",
    "load_factory",
    "out_of_tree_registry",
    "with_plugin",
]

PluginFactory = Callable[[Any, Any], Plugin]
"""``factory(args, handle) -> plugin``: builds one plugin for one profile."""

RegistryOption = Callable[["Registry"], None]
"""Something that registers plugins into the out-of-tree registry (see :func:`with_plugin`)."""

MSG_ALREADY_EXISTS = "a plugin named {name} already exists"
MSG_NO_SUCH_PLUGIN = "no plugin named {name} exists"

# The plugin modules of this project, one line each. Each module has the
# plugin's NAME and a new(args, handle) factory. kube-scheduler's own plugins
# are in-tree; plugins from kubernetes-sigs/scheduler-plugins are out-of-tree.
_IN_TREE_MODULES = (
    "framework.plugins.schedulinggates",
    "framework.plugins.queuesort",
    "framework.plugins.nodeunschedulable",
    "framework.plugins.nodename",
    "framework.plugins.tainttoleration",
    "framework.plugins.nodeaffinity",
    "framework.plugins.nodeports",
    "framework.plugins.noderesources.fit",
    "framework.plugins.volumerestrictions",
    "framework.plugins.nodevolumelimits",
    "framework.plugins.volumebinding",
    "framework.plugins.volumezone",
    "framework.plugins.noderesources.balanced_allocation",
    "framework.plugins.imagelocality",
    "framework.plugins.podtopologyspread",
    "framework.plugins.interpodaffinity",
    "framework.plugins.defaultpreemption",
    "framework.plugins.defaultbinder",
)
_OUT_OF_TREE_MODULES = ("framework.plugins.qos", "framework.plugins.coscheduling")


class RegistryError(LookupError):
    """A name registered twice, or a name the registry does not have."""


class Registry(Mapping[str, PluginFactory]):
    """Plugin name → factory, in registration order.

    >>> r = Registry()
    >>> r.register("Noop", lambda args, handle: None)
    >>> r.names()
    ('Noop',)
    >>> r.register("Noop", lambda args, handle: None)
    Traceback (most recent call last):
    ...
    framework.registry.RegistryError: a plugin named Noop already exists
    """

    def __init__(self, factories: Mapping[str, PluginFactory] | None = None) -> None:
        self._factories: dict[str, PluginFactory] = {}
        for name, factory in (factories or {}).items():
            self.register(name, factory)

    def register(self, name: str, factory: PluginFactory) -> None:
        """Add a factory under ``name``; a name can be registered once."""
        if not name:
            raise RegistryError("a plugin needs a non-empty name to be registered")
        if not callable(factory):
            raise RegistryError(
                f"the factory for plugin {name} is {factory!r}, which is not callable; "
                "register a function factory(args, handle) -> plugin"
            )
        if name in self._factories:
            raise RegistryError(MSG_ALREADY_EXISTS.format(name=name))
        self._factories[name] = factory

    def unregister(self, name: str) -> None:
        """Remove ``name``; it must be registered."""
        if name not in self._factories:
            raise RegistryError(MSG_NO_SUCH_PLUGIN.format(name=name))
        del self._factories[name]

    def merge(self, other: Mapping[str, PluginFactory]) -> None:
        """Register every factory of ``other``; a name both have is an error (nothing is replaced)."""
        for name in other:
            if name in self._factories:
                raise RegistryError(MSG_ALREADY_EXISTS.format(name=name))
        for name, factory in other.items():
            self.register(name, factory)

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self._factories)

    def copy(self) -> Registry:
        return Registry(self._factories)

    def __getitem__(self, name: str) -> PluginFactory:
        try:
            return self._factories[name]
        except KeyError:
            raise RegistryError(MSG_NO_SUCH_PLUGIN.format(name=name)) from None

    def get(self, name: str, default: Any = None) -> Any:
        """The factory for ``name``, or ``default`` (``None``) when there is none."""
        return self._factories.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(self._factories)

    def __len__(self) -> int:
        return len(self._factories)

    def __repr__(self) -> str:
        return f"Registry({list(self._factories)})"


def with_plugin(name: str, factory: PluginFactory) -> RegistryOption:
    """An option that registers an out-of-tree plugin: the counterpart of ``app.WithPlugin(name, New)``."""

    def register(registry: Registry) -> None:
        registry.register(name, factory)

    return register


def build_registry(in_tree: Mapping[str, PluginFactory], *options: RegistryOption) -> Registry:
    """The scheduler's registry: ``in_tree`` plus what the options register, with no name in both.

    As kube-scheduler does it: the options fill a separate out-of-tree
    registry, which is then merged into a copy of the in-tree one.
    """
    out_of_tree = Registry()
    for option in options:
        option(out_of_tree)
    registry = Registry(in_tree)
    registry.merge(out_of_tree)
    return registry


_SPEC_FORM = 'write it as "package.module:attribute", e.g. "framework.plugins.qos:new"'


def load_factory(spec: str) -> PluginFactory:
    """The factory named by ``"package.module:attribute"`` (an out-of-tree plugin from the command line).

    The attribute may be dotted (``"pkg.mod:Plugin.new"``). Errors say what
    is wrong with the spec and what it should look like.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name.strip() or not attribute.strip():
        raise RegistryError(f"cannot load a plugin factory from {spec!r}: {_SPEC_FORM}")
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise RegistryError(
            f"cannot load a plugin factory from {spec!r}: no module named {exc.name!r} "
            "(is the package installed, or on PYTHONPATH?)"
        ) from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise RegistryError(
                f"cannot load a plugin factory from {spec!r}: {target.__name__} has no "
                f"attribute {part!r}"
            )
        target = getattr(target, part)
    if not callable(target):
        raise RegistryError(
            f"cannot load a plugin factory from {spec!r}: {attribute} is {type(target).__name__}, "
            "not a callable factory(args, handle) -> plugin"
        )
    return target  # type: ignore[no-any-return]


def _import_plugin_module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:  # not written yet; any other missing import is a real error
            return None
        raise


def _registry_of(modules: tuple[str, ...]) -> Registry:
    registry = Registry()
    for module_name in modules:
        module = _import_plugin_module(module_name)
        if module is not None:
            registry.register(module.NAME, module.new)
    return registry


def in_tree_registry() -> Registry:
    """kube-scheduler's in-tree plugins that this project implements so far."""
    return _registry_of(_IN_TREE_MODULES)


def out_of_tree_registry() -> Registry:
    """This project's ports of out-of-tree plugins (kubernetes-sigs/scheduler-plugins).

    Not in kube-scheduler's registry; add them with
    ``build_registry(in_tree_registry(), *(with_plugin(n, f) for n, f in out_of_tree_registry().items()))``.
    """
    return _registry_of(_OUT_OF_TREE_MODULES)
