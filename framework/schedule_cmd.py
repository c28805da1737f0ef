"""``python -m framework schedule``: your manifests, your configuration, your plugins.

The plugin author's loop: write a plugin, point the scheduler at it by import
path (``--plugin MyPlugin=my_package.my_module:new``, the command-line
counterpart of Go's ``app.WithPlugin``), enable it in a
``KubeSchedulerConfiguration``, and schedule a few manifests on the fake API
server to see where the pods go and why the others did not.

Manifests are loaded in file order: Namespaces they need are created first
(the real API server would refuse a pod in a missing namespace; here that
would only get in the way), then everything else, then the scheduler runs on
a fake clock until no pod can move.

Without ``--config`` the v1 default profile runs; its plugins that this
project does not implement yet are left out and named in a note at the top
of the report.

The full simulator with its explanation, JSON trace and HTML report is the
subject of a later chapter; this command is its first step.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.config import load_config
from framework.demo import render_cluster
from framework.objects import KubeObject, Namespace, ObjectMeta, Unstructured
from framework.objects.manifest import load_manifests
from framework.registry import (
    RegistryError,
    build_registry,
    in_tree_registry,
    load_factory,
    with_plugin,
)
from framework.scheduler.scheduler import Scheduler

__all__ = ["PluginSpecError", "parse_plugin_spec", "schedule_files"]


class PluginSpecError(ValueError):
    """A ``--plugin`` value that is not ``NAME=module:attribute``."""


def parse_plugin_spec(spec: str) -> tuple[str, str]:
    """Split ``NAME=package.module:attribute`` into its name and import path."""
    name, sep, path = spec.partition("=")
    if not sep or not name or ":" not in path:
        raise PluginSpecError(
            f"--plugin {spec!r}: expected NAME=package.module:attribute, "
            "e.g. --plugin QOSSort=framework.plugins.qos:new"
        )
    return name, path


def _namespaces_needed(objects: Sequence[KubeObject], existing: set[str]) -> list[Namespace]:
    needed = []
    for obj in objects:
        ns = obj.metadata.namespace
        if obj.NAMESPACED and ns and ns not in existing:
            existing.add(ns)
            needed.append(Namespace(metadata=ObjectMeta(name=ns)))
    return needed


def schedule_files(
    paths: Sequence[str | Path],
    *,
    config: str | Path | None = None,
    plugins: Sequence[str] = (),
    seed: int = 0,
) -> str:
    """Load, schedule, and return the report as text."""
    try:
        options = []
        for spec in plugins:
            name, path = parse_plugin_spec(spec)
            options.append(with_plugin(name, load_factory(path)))
        registry = build_registry(in_tree_registry(), *options)
    except RegistryError as error:
        raise PluginSpecError(str(error)) from None
    cfg = load_config(config) if config is not None else None

    objects = [o for o in load_manifests(*paths) if not isinstance(o, Unstructured)]
    clock = FakeClock()
    uids = itertools.count(1)
    api = APIServer(clock, uid_factory=lambda: f"00000000-0000-0000-0000-{next(uids):012d}")
    existing = {ns.name for ns in api.list(Namespace).items}
    for obj in [*_namespaces_needed(objects, existing), *objects]:
        api.create(obj)

    scheduler = Scheduler(api, cfg, registry, clock=clock, seed=seed)
    try:
        attempts = scheduler.schedule_pending()
    finally:
        scheduler.stop()
    notes = [
        f"note: profile {name!r} left out plugins not implemented in this project yet: "
        + ", ".join(fwk.skipped_plugins)
        for name, fwk in scheduler.profiles.items()
        if fwk.skipped_plugins
    ]
    header = "".join(note + "\n" for note in notes)
    return header + f"{attempts} scheduling attempt(s).\n\n" + render_cluster(api)
