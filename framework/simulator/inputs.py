"""The simulator's inputs: ordinary manifests in, the objects to create and the configuration out.

:func:`load_inputs` reads what a user already has: files or directories of
YAML or JSON (many documents each, ``kind: List`` included), YAML text, parsed
dictionaries or objects, in any mix. Each object is kept with the file it
came from, in file order (a directory is read recursively, in sorted path
order), and sorted into:

* the **kinds simulated** (:func:`simulated_kinds`): Namespaces, Nodes, Pods,
  PriorityClasses, and the other kinds the fake API server serves
  (PodDisruptionBudgets, PodGroups, once the project models them);
* **workload controllers** — Deployments, ReplicaSets, StatefulSets,
  DaemonSets, ReplicationControllers and Jobs — expanded into the pods they
  would create (:mod:`framework.simulator.controllers`; a DaemonSet's, one
  per node of the manifests it should run on), the ReplicaSets, StatefulSets
  and ReplicationControllers kept beside them (a Deployment as its
  ReplicaSet) for the scheduler's default spreading to read;
* at most one ``KubeSchedulerConfiguration`` (or give it apart, as
  ``config``; giving both is an error);
* anything else, which is skipped with a warning naming the file and the
  object.

Loading is all or nothing: every problem is collected and
:class:`SimulationInputError` lists them, one line each, naming the file,
the object and the field — ``cluster.yaml: Pod default/web:
spec.containers[0].resources.requests.cpu: "1 core" is not a valid
quantity`` — in the same words as ``kubectl apply`` and ``kube-scheduler
--config`` would use.

No Kubernetes counterpart: this is the simulator's own front door, built on
:func:`framework.objects.manifest.loads` and
:func:`framework.config.config_from_dict`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias, cast

from framework.apiserver.store import SERVED_KINDS
from framework.apiserver.validation import SYSTEM_PRIORITY_CLASSES
from framework.config import config_from_dict, load_config
from framework.config.errors import ConfigError, ConfigProblem
from framework.config.load import decode_config
from framework.config.types import KIND as CONFIG_KIND
from framework.config.types import KubeSchedulerConfiguration
from framework.featuregate import FeatureGates
from framework.objects import Binding, Event, KubeObject, Node, Pod, PriorityClass, Unstructured
from framework.objects.manifest import KINDS, ManifestError, ManifestProblem, loads
from framework.plugins.registry import in_tree_registry, out_of_tree_registry
from framework.runtime.build import NOT_IMPLEMENTED_DEFAULT_PLUGINS
from framework.runtime.framework import EXTENSION_POINTS
from framework.runtime.registry import (
    PluginFactory,
    Registry,
    RegistryError,
    build_registry,
    load_factory,
    with_plugin,
)
from framework.simulator.controllers import (
    CONTROLLER_KINDS,
    ControllerError,
    controller_objects,
    expand_controller,
)

__all__ = [
    "FIELD_VALIDATION_HINT",
    "MAX_MANIFEST_BYTES",
    "ConfigSource",
    "Inputs",
    "PluginSpecError",
    "SimulationInputError",
    "Source",
    "SourcedObject",
    "describe",
    "load_inputs",
    "parse_plugin_spec",
    "plugin_registry",
    "simulated_kinds",
]

Source: TypeAlias = "str | os.PathLike[str] | Mapping[str, Any] | KubeObject"
"""A path (file or directory), YAML/JSON text (it spans lines or starts with ``{``/``[``),
one parsed manifest, or an object."""

ConfigSource: TypeAlias = "str | os.PathLike[str] | Mapping[str, Any] | KubeSchedulerConfiguration"
"""A configuration file's path, its text, its parsed document, or a loaded configuration."""

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
_NOT_SIMULATED: tuple[type[KubeObject], ...] = (Event, Binding)


class SimulationInputError(ValueError):
    """Inputs that cannot be simulated; ``problems`` holds one line per problem."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class PluginSpecError(ValueError):
    """A ``--plugin`` value that is not ``NAME=module:attribute``."""


@dataclass(frozen=True, slots=True)
class SourcedObject:
    """An object to create, and where it came from (a file name, ``<string 1>``, ``<object 2>``)."""

    obj: KubeObject
    source: str


@dataclass(frozen=True, slots=True)
class Inputs:
    """What :func:`load_inputs` found: the objects in file order, the configuration, the warnings."""

    objects: tuple[SourcedObject, ...]
    config: KubeSchedulerConfiguration | None
    config_source: str
    warnings: tuple[str, ...]
    controllers: tuple[SourcedObject, ...] = ()  # the workloads expanded into pods, as written


def simulated_kinds() -> tuple[str, ...]:
    """The kinds created in the fake API server as they are (the others are expanded or skipped)."""
    return tuple(
        kind
        for kind, cls in KINDS.items()
        if cls in SERVED_KINDS and not issubclass(cls, _NOT_SIMULATED)
    )


def parse_plugin_spec(spec: str) -> tuple[str, str]:
    """Split ``NAME=package.module:attribute`` into its name and import path."""
    name, sep, path = spec.partition("=")
    if not sep or not name or ":" not in path:
        raise PluginSpecError(
            f"--plugin {spec!r}: expected NAME=package.module:attribute, "
            "e.g. --plugin MyPlugin=my_plugins:new"
        )
    return name, path


def plugin_registry(
    plugins: Mapping[str, PluginFactory | str] | Sequence[str] = (),
) -> Registry:
    """The in-tree registry, the bundled scheduler-plugins ports and out-of-tree plugins, by factory or import path.

    QOSSort and Coscheduling are registered under their names, as
    scheduler-plugins' kube-scheduler image registers them
    (``cmd/scheduler/main.go``: ``app.WithPlugin``); one given in ``plugins``
    under the same name replaces the bundled one.

    ``plugins`` maps names to factories or to ``"module:attribute"`` paths,
    or is a list of ``NAME=module:attribute`` specs (the ``--plugin`` form).
    """
    pairs: list[tuple[str, PluginFactory | str]] = (
        list(plugins.items())
        if isinstance(plugins, Mapping)
        else [parse_plugin_spec(spec) for spec in plugins]
    )
    try:
        options = [
            with_plugin(name, load_factory(factory) if isinstance(factory, str) else factory)
            for name, factory in pairs
        ]
        # Bundled as scheduler-plugins' own kube-scheduler registers them; a plugin given by
        # name takes the name instead.
        given = {name for name, _ in pairs}
        options += [
            with_plugin(name, factory)
            for name, factory in out_of_tree_registry().items()
            if name not in given
        ]
        return build_registry(in_tree_registry(), *options)
    except RegistryError as error:
        raise PluginSpecError(str(error)) from None


# --- reading -----------------------------------------------------------------------------


MAX_MANIFEST_BYTES = 128 * 1024 * 1024
"""The largest manifest file read, in bytes.

Some 500,000 pods' worth: over three times what a cluster at Kubernetes'
scalability limits (5,000 nodes, 150,000 pods) holds, and minutes of loading.
"""


def _is_text(source: str) -> bool:
    return "\n" in source or source.lstrip().startswith(("{", "["))


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in MANIFEST_SUFFIXES and p.is_file())
    return [path]


def _read(
    sources: Sequence[Source],
    field_validation: str | None = None,
    warnings: list[str] | None = None,
) -> tuple[list[SourcedObject], list[ManifestProblem]]:
    read: list[SourcedObject] = []
    problems: list[ManifestProblem] = []
    for index, given in enumerate(sources, 1):
        source = cast(object, given)  # a caller may pass anything, and is told so
        if isinstance(source, KubeObject):
            read.append(SourcedObject(source, f"<object {index}>"))
            continue
        texts: list[tuple[str, str]] = []
        if isinstance(source, Mapping):
            texts.append((json.dumps(source), f"<object {index}>"))
        elif isinstance(source, str) and _is_text(source):
            texts.append((source, f"<string {index}>"))
        elif isinstance(source, str | os.PathLike):
            for path in _files(Path(source)):
                try:
                    if (size := path.stat().st_size) > MAX_MANIFEST_BYTES:
                        problems.append(_too_large(path, size))
                        continue
                    texts.append((path.read_text(encoding="utf-8"), str(path)))
                except (OSError, UnicodeDecodeError) as exc:
                    problems.append(ManifestProblem(str(path), "", "", f"cannot read file: {exc}"))
        else:
            problems.append(
                ManifestProblem(
                    f"<source {index}>",
                    "",
                    "",
                    f"expected a path, YAML text, a parsed manifest or an object, "
                    f"got {type(source).__name__}",
                )
            )
        for text, name in texts:
            try:
                loaded = loads(text, name, field_validation=field_validation, warnings=warnings)
                read += [SourcedObject(obj, name) for obj in loaded]
            except ManifestError as error:
                problems += error.problems
    return read, problems


def _source_name(source: object, index: int) -> str:
    if isinstance(source, str) and _is_text(source):
        return f"<string {index}>"
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return f"<object {index}>"


def _too_large(path: Path, size: int) -> ManifestProblem:
    mib = 1024 * 1024
    return ManifestProblem(
        str(path),
        "",
        "",
        f"is {size / mib:.0f} MiB, more than the {MAX_MANIFEST_BYTES // mib} MiB a manifest "
        "file may be (far more than a cluster holds): split it, or leave out what the "
        "simulation does not need",
    )


def describe(obj: KubeObject) -> str:
    """How problems name an object, as the manifest loader does: ``Pod default/web``, ``Node n1``."""
    kind, name = obj.kind_name(), obj.metadata.name or obj.metadata.generate_name
    if not name:
        return kind
    namespaced = obj.NAMESPACED if not isinstance(obj, Unstructured) else True
    return (
        f"{kind} {obj.metadata.namespace or 'default'}/{name}" if namespaced else f"{kind} {name}"
    )


# --- sorting -------------------------------------------------------------------------------


FIELD_VALIDATION_HINT = (
    "unknown fields are errors, as with kubectl (fieldValidation=Strict): correct them, or "
    "pass --field-validation=Warn to drop them with a warning (Ignore: without one)"
)


def load_inputs(
    sources: Sequence[Source],
    config: ConfigSource | None = None,
    registry: Mapping[str, PluginFactory] | None = None,
    field_validation: str = "Strict",
    feature_gates: FeatureGates | None = None,
    expand_controllers: bool = True,
) -> Inputs:
    """Read ``sources`` and the configuration; raise :class:`SimulationInputError` listing every problem.

    With ``registry``, a plugin the configuration enables that the registry
    lacks is a problem too, reported at its field. ``field_validation`` is
    what ``kubectl --validate`` takes: ``Strict`` (an unknown field is a
    problem), ``Warn`` (it is dropped with a warning) or ``Ignore``
    (:mod:`framework.objects.manifest`). Sources that hold no object at all
    are a problem too: there would be nothing to simulate. ``feature_gates`` picks
    the release whose default plugins a configuration is defaulted with. With
    ``expand_controllers`` False (``serve``, whose controllers run for good),
    the workload controllers are checked but only listed in
    :attr:`Inputs.controllers`, without their pods.
    """
    warnings: list[str] = []
    read, manifest_problems = _read(sources, field_validation, warnings)
    problems = [str(p) for p in manifest_problems]
    if any("strict decoding error" in p.message for p in manifest_problems):
        problems.append(FIELD_VALIDATION_HINT)
    if not read and not manifest_problems and sources:
        named = ", ".join(_source_name(s, i) for i, s in enumerate(sources, 1))
        problems.append(f"no objects in {named}: give manifests with Nodes and Pods to simulate")
    objects: list[SourcedObject] = []
    controllers: list[SourcedObject] = []
    config_documents: list[SourcedObject] = []
    simulated = simulated_kinds()
    owners = _pod_controllers(read)
    nodes = [item.obj for item in read if isinstance(item.obj, Node)]  # a DaemonSet's, wherever
    for item in read:
        obj, source = item.obj, item.source
        kind = obj.kind_name()
        if isinstance(obj, Unstructured):
            version = obj.api_version
            if kind == CONFIG_KIND:
                config_documents.append(item)
            elif kind in CONTROLLER_KINDS and version == CONTROLLER_KINDS[kind]:
                try:
                    pods = expand_controller(obj, nodes)  # its errors first: they name fields
                    kept = controller_objects(obj)
                    if expand_controllers:
                        objects += [SourcedObject(o, source) for o in kept]
                    if expand_controllers and not (pods and _controller_key(pods[0]) in owners):
                        objects += [SourcedObject(pod, source) for pod in pods]
                    controllers.append(item)
                except ControllerError as error:
                    problems += [f"{source}: {describe(obj)}: {e}" for e in error.errors]
            else:
                warnings.append(
                    f"{source}: {describe(obj)}: kind {kind} ({version or 'no apiVersion'}) is not "
                    f"simulated; skipped (understood: {', '.join(understood_kinds())})"
                )
        elif kind in simulated:
            objects.append(item)
        else:
            warnings.append(f"{source}: {describe(obj)}: kind {kind} is not simulated; skipped")
    problems += _missing_priority_classes(objects)
    warnings += _old_pod_group_labels(objects)

    loaded_config, config_source, written = None, "", None
    try:
        loaded_config, config_source, written = _load_config(
            config, config_documents, feature_gates
        )
    except ConfigError as error:
        problems += [str(p) for p in error.problems]
    except SimulationInputError as error:
        problems += error.problems
    if written is not None and registry is not None:
        problems += _unknown_plugins(written, config_source, registry)
    if problems:
        raise SimulationInputError(problems)
    return Inputs(
        tuple(objects), loaded_config, config_source, tuple(warnings), tuple(controllers)
    )


def _controller_key(pod: Pod) -> tuple[str, str, str] | None:
    for ref in pod.metadata.owner_references:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return (
                pod.metadata.namespace or "default",
                str(ref.get("kind")),
                str(ref.get("name")),
            )
    return None


def _pod_controllers(read: Sequence[SourcedObject]) -> set[tuple[str, str, str]]:
    """The controllers the given pods name: theirs are already there (a snapshot's), not created again.

    A controller creates only the pods it lacks; here, one whose pods are
    given (any of them) creates none.
    """
    return {
        key
        for item in read
        if isinstance(item.obj, Pod) and (key := _controller_key(item.obj)) is not None
    }


def understood_kinds() -> tuple[str, ...]:
    """Every kind the simulator reads: simulated, expanded into pods, or the configuration."""
    return (*simulated_kinds(), *CONTROLLER_KINDS, CONFIG_KIND)


#: Labels older scheduler-plugins releases read for a pod's PodGroup; Coscheduling reads neither now.
OLD_POD_GROUP_LABELS = ("pod-group.scheduling.sigs.k8s.io", "scheduling.sigs.k8s.io/pod-group")
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"


def _old_pod_group_labels(objects: Sequence[SourcedObject]) -> list[str]:
    return [
        f"{o.source}: {describe(o.obj)}: metadata.labels: {old} is no longer read by "
        f"Coscheduling; the pod is in no PodGroup: label it {POD_GROUP_LABEL}: "
        f"{o.obj.metadata.labels[old]}"
        for o in objects
        if isinstance(o.obj, Pod)
        for old in OLD_POD_GROUP_LABELS
        if old in o.obj.metadata.labels
    ]


def _missing_priority_classes(objects: Sequence[SourcedObject]) -> list[str]:
    # The Priority admission plugin would refuse the pod; say so before anything is created.
    known = set(SYSTEM_PRIORITY_CLASSES) | {
        o.obj.metadata.name for o in objects if isinstance(o.obj, PriorityClass)
    }
    return [
        f"{o.source}: {describe(o.obj)}: spec.priorityClassName: no PriorityClass with name "
        f"{o.obj.spec.priority_class_name} was found"
        for o in objects
        if isinstance(o.obj, Pod)
        and o.obj.spec.priority_class_name
        and o.obj.spec.priority_class_name not in known
    ]


def _load_config(
    config: ConfigSource | None,
    documents: Sequence[SourcedObject],
    gates: FeatureGates | None = None,
) -> tuple[KubeSchedulerConfiguration | None, str, Any]:
    """The configuration, where it came from, and its document as written (None if not known)."""
    if len(documents) + (config is not None) > 1:
        where = [d.source for d in documents] + (["--config"] if config is not None else [])
        raise SimulationInputError(
            [
                f"{where[-1]}: {CONFIG_KIND}: a scheduler configuration was already given "
                f"in {where[0]}; give exactly one"
            ]
        )
    if documents:
        written = documents[0].obj.to_dict()
        source = documents[0].source
        return config_from_dict(written, source, feature_gates=gates), source, written
    if config is None:
        return None, "", None
    if isinstance(config, KubeSchedulerConfiguration):
        return config, "<configuration>", None
    if isinstance(config, Mapping):
        loaded = config_from_dict(config, "<configuration>", feature_gates=gates)
        return loaded, "<configuration>", config
    text_or_path = os.fspath(config)
    loaded = load_config(
        text_or_path, feature_gates=gates
    )  # reports a bad file in kube-scheduler's words
    if _is_text(text_or_path):
        text, source = text_or_path, "<string>"
    else:
        text, source = Path(text_or_path).read_text(encoding="utf-8"), text_or_path
    try:
        written_objects = loads(text, source)
    except ManifestError:
        return loaded, source, None  # loaded all the same: only the field paths are lost
    return loaded, source, written_objects[0].to_dict() if written_objects else None


def _unknown_plugins(
    written: Any, source: str, registry: Mapping[str, PluginFactory]
) -> list[str]:
    """One line per enabled plugin that ``registry`` lacks, at its field in the file as written.

    kube-scheduler names the plugin but not where it is written; reading
    the document before defaults lets us say where. Plugins of the default
    profile this project does not implement yet are left out with a note
    instead (:mod:`framework.runtime.build`), so they are not reported.
    """
    try:
        as_written = decode_config(written, source)
    except ConfigError:
        return []  # already reported by the full load
    lines = []
    for i, profile in enumerate(as_written.profiles):
        if profile.plugins is None:
            continue
        for point in (*EXTENSION_POINTS, "multiPoint"):
            for j, plugin in enumerate(profile.plugins.point(point).enabled):
                if plugin.name in registry or plugin.name in NOT_IMPLEMENTED_DEFAULT_PLUGINS:
                    continue
                field = f"profiles[{i}].plugins.{point}.enabled[{j}].name"
                message = (
                    f'plugin "{plugin.name}" does not exist: no plugin of that name is '
                    f"registered (an out-of-tree plugin needs --plugin {plugin.name}=module:factory)"
                )
                lines.append(str(ConfigProblem(source, field, message)))
    return lines
