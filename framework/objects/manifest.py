"""Reading and writing manifests: the YAML and JSON files users already have.

:func:`load_manifests` takes files, directories or text holding one or many
documents (``---``-separated YAML, JSON, ``kind: List``) of mixed kinds and
returns typed objects in file order. Kinds this project models come back as
their class (:class:`~framework.objects.Pod`, :class:`~framework.objects.Node`,
...); any other kind comes back as :class:`~framework.objects.Unstructured`,
whole, so that the caller decides what to do with it.

Loading is all or nothing. Every problem in every document is collected, and
if there is one, :class:`ManifestError` is raised listing them all, each
naming the file, the object and the field::

    pods.yaml: Pod default/web: spec.containers[0].resources.requests.cpu: "1 core" is not a valid quantity

YAML is read as Kubernetes reads it (``sigs.k8s.io/yaml``): timestamps stay
text, a key written twice in one mapping is an error, not a silent
overwrite, a key must be a scalar (JSON has no other kind), and a document
that aliases an anchor so often that it would expand many times over (a
"billion laughs" bomb) is refused with go-yaml's words, ``document contains
excessive aliasing``. Input nested deeper than the reader can follow is a
:class:`ManifestError` too, never a crash.

With ``field_validation`` (``Strict``, ``Warn`` or ``Ignore``, kubectl's
``--validate`` values), every field is checked against Kubernetes' schema of
its kind (:mod:`framework.objects.openapi`): ``Strict`` makes an unknown
field a problem in kube-apiserver's words, ``strict decoding error: unknown
field "spec.nodeSelecter"``, with the closest known field suggested; ``Warn``
and ``Ignore`` drop it, the first with a warning. Without it, unknown keys
are kept (in each object's ``extra``). A kind written in the wrong case
(``kind: pod``) is a problem either way, as kubectl finds no such kind.

Mirrors what ``kubectl apply -f`` does before it sends anything
(``k8s.io/cli-runtime/pkg/resource``: visiting files, splitting documents,
decoding). Simplified: no remote URLs, no kustomize.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from framework.objects.cluster import Binding, Event, Namespace, PriorityClass
from framework.objects.meta import KubeObject, Unstructured
from framework.objects.node import Node
from framework.objects.openapi import check_fields, kind_schema, suggest_field
from framework.objects.pod import Pod
from framework.objects.podgroup import PodGroup
from framework.objects.policy import PodDisruptionBudget
from framework.objects.resource import RESOURCE_KINDS
from framework.objects.schema import FieldError, ObjectInvalid
from framework.objects.storage import STORAGE_KINDS
from framework.objects.workload import WORKLOAD_KINDS
from framework.objects.workloads import Service

__all__ = [
    "KINDS",
    "KINDS_BY_GROUP",
    "ManifestError",
    "ManifestProblem",
    "dump_manifests",
    "load_manifests",
    "loads",
    "read_yaml",
    "read_yaml_documents",
]

KINDS: dict[str, type[KubeObject]] = {
    cls.KIND: cls
    for cls in (Pod, Node, Namespace, Event, Binding, PriorityClass, PodGroup, PodDisruptionBudget)
}
# Served kinds read by kube-scheduler's plugins (default spreading, the volume plugins).
# ReplicaSets, StatefulSets and ReplicationControllers stay Unstructured here: the
# simulator expands them into pods (framework.simulator.controllers) and keeps them.
_SCHEDULER_READ: tuple[type[KubeObject], ...] = (Service, *STORAGE_KINDS, *RESOURCE_KINDS)
KINDS.update({cls.KIND: cls for cls in _SCHEDULER_READ})
"""The kinds decoded into typed objects, by ``kind``."""
KINDS.update({cls.KIND: cls for cls in WORKLOAD_KINDS if cls.KIND not in KINDS})
# A kind name two groups share (PodGroup: scheduler-plugins' and the in-tree one) is told
# apart by the group of apiVersion; these win over KINDS for their group.
KINDS_BY_GROUP: dict[tuple[str, str], type[KubeObject]] = {
    (cls.API_VERSION.rpartition("/")[0], cls.KIND): cls for cls in WORKLOAD_KINDS
}
"""The kinds decoded by ``(group, kind)`` before ``KINDS`` is asked."""

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

# Kinds users write that are not modelled but whose case is still checked.
_OTHER_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
_KINDS_BY_LOWER = {kind.lower(): kind for kind in (*KINDS, *_OTHER_KINDS)}


@dataclass(frozen=True, slots=True)
class ManifestProblem:
    """One problem: the file, the object (``Pod default/web``) if known, the field if known."""

    source: str
    obj: str
    field: str
    message: str

    def __str__(self) -> str:
        parts = [self.source]
        if self.obj:
            parts.append(self.obj)
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)


class ManifestError(ValueError):
    """Manifests that could not be loaded; ``problems`` lists every one of them."""

    def __init__(self, problems: list[ManifestProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


if TYPE_CHECKING:
    _SafeLoader = yaml.SafeLoader
else:
    # libyaml's parser when PyYAML was built with it: 10 MB of YAML in seconds, not minutes.
    _SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _KubeYAMLLoader(_SafeLoader):
    """PyYAML's safe loader, reading YAML the way Kubernetes does."""


# Kubernetes keeps ``2024-01-01T00:00:00Z`` as a string; PyYAML would make a datetime.
_KubeYAMLLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping_without_duplicates(
    loader: yaml.SafeLoader, node: yaml.MappingNode
) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            # `? [a, b]` is a valid YAML key, but JSON (and so Kubernetes) has none like it.
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a scalar", key_node.start_mark
            )
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise yaml.constructor.ConstructorError(
                None, None, f"mapping key {key!r} already defined", key_node.start_mark
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_KubeYAMLLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping_without_duplicates
)


def _guarded(tag: str) -> Any:
    """The safe constructor of ``tag``, failing as go-yaml's ``resolve`` does, with a mark.

    PyYAML's own raise ValueError or IndexError (``!!int abc``, an empty
    ``!!int``, an integer of more digits than Python converts), which would
    escape as a crash instead of a problem in the input.
    """
    constructor = yaml.SafeLoader.yaml_constructors[tag]
    short = "!!" + tag.rpartition(":")[2]

    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        try:
            return constructor(loader, node)
        except (ValueError, IndexError, KeyError, AttributeError, OverflowError, TypeError):
            text = str(node.value)
            shown = text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot decode !!str `{shown}` as a {short}", node.start_mark
            ) from None

    return construct


for _tag in ("int", "float", "bool", "binary", "timestamp"):
    _KubeYAMLLoader.add_constructor(
        f"tag:yaml.org,2002:{_tag}", _guarded(f"tag:yaml.org,2002:{_tag}")
    )

# go-yaml's guard against alias bombs (yaml.v2 decode.go, allowedAliasRatio): up to
# 400,000 decoded nodes, 99 % may come from aliases; from 4,000,000 on, only 10 %.
_ALIAS_RATIO_RANGE_LOW = 400_000
_ALIAS_RATIO_RANGE_HIGH = 4_000_000


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    span = _ALIAS_RATIO_RANGE_HIGH - _ALIAS_RATIO_RANGE_LOW
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_RANGE_LOW) / span


def _check_aliasing(root: yaml.Node) -> None:
    """Refuse a document whose aliases would expand it out of proportion (go-yaml's rule).

    Counts, without expanding anything, how many nodes decoding would visit
    (each alias visits its anchor's whole subtree again) against how many
    nodes the document has. Iterative, so deep nesting cannot overflow here.
    """
    sizes: dict[int, int] = {}
    distinct: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes.get(id(child), 0) for child in _children(node))
            continue
        distinct.add(key)
        if key in sizes or key in on_path:
            continue  # already counted, or a recursive alias (the constructor refuses those)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    decoded = sizes.get(id(root), 1)
    aliased = decoded - len(distinct)
    if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(decoded):
        raise yaml.constructor.ConstructorError(
            None, None, "document contains excessive aliasing", root.start_mark
        )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _construct_checked_document(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    _check_aliasing(node)
    return yaml.SafeLoader.construct_document(loader, node)


class _KubeYAMLLoaderChecked(_KubeYAMLLoader):
    """The same, counting what aliases would expand to first: for text that has an alias."""


_KubeYAMLLoaderChecked.construct_document = _construct_checked_document  # type: ignore[assignment, method-assign]


def _loader_for(text: str) -> type[_KubeYAMLLoader]:
    # An alias is written `*name`: text without a `*` has none, and needs no count (a third
    # of the time a large manifest takes to load).
    return _KubeYAMLLoaderChecked if "*" in text else _KubeYAMLLoader


MSG_TOO_DEEP = "nested too deeply to read (more levels than Python's recursion limit allows)"
"""The problem reported for input nested deeper than the reader can follow."""


def _parse_documents(text: str, source: str) -> list[Any]:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ManifestError(
                [ManifestProblem(source, "", "", f"invalid JSON at line {exc.lineno}: {exc.msg}")]
            ) from None
        except RecursionError:
            raise ManifestError([ManifestProblem(source, "", "", MSG_TOO_DEEP)]) from None
        return data if isinstance(data, list) else [data]
    try:
        return read_yaml_documents(text)
    except RecursionError:
        raise ManifestError([ManifestProblem(source, "", "", MSG_TOO_DEEP)]) from None
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ManifestError(
            [ManifestProblem(source, "", "", f"invalid YAML{where}: {problem}")]
        ) from None


def read_yaml_documents(text: str) -> list[Any]:
    """Every YAML document of ``text`` as Kubernetes reads it; :class:`yaml.YAMLError` if not."""
    return list(yaml.load_all(text, Loader=_loader_for(text)))


def read_yaml(text: str) -> Any:
    """One YAML document as Kubernetes reads it (the rules above); :class:`yaml.YAMLError` if not.

    For a single object sent on its own, such as a request body; a stream of
    documents is :func:`loads`' job.
    """
    return yaml.load(text, Loader=_loader_for(text))


def _object_name(document: Mapping[str, Any], kind: str, namespaced: bool) -> str:
    metadata = document.get("metadata")
    name = namespace = ""
    if isinstance(metadata, Mapping):
        name = str(metadata.get("name") or metadata.get("generateName") or "")
        namespace = str(metadata.get("namespace") or "")
    if namespaced and name:
        name = f"{namespace or 'default'}/{name}"
    return f"{kind or 'object'} {name or '<unnamed>'}".strip()


@dataclass(slots=True)
class _Options:
    field_validation: str | None = None
    warnings: list[str] | None = None


def _decode(
    document: Any,
    source: str,
    position: str,
    problems: list[ManifestProblem],
    options: _Options | None = None,
) -> list[KubeObject]:
    options = options or _Options()
    if document is None:  # an empty document between two '---'
        return []
    if not isinstance(document, Mapping):
        problems.append(
            ManifestProblem(
                source, position, "", f"expected an object, got {type(document).__name__}"
            )
        )
        return []
    kind = document.get("kind")
    if kind is not None and not isinstance(kind, str):
        problems.append(
            ManifestProblem(source, position, "kind", f"expected a string, got {kind!r}")
        )
        return []
    if not kind:
        problems.append(
            ManifestProblem(
                source,
                _object_name(document, "", False) if document.get("metadata") else position,
                "kind",
                "is required (every object says what it is, e.g. kind: Pod)",
            )
        )
        return []
    if kind.endswith("List") and isinstance(document.get("items"), list):
        decoded: list[KubeObject] = []
        for i, item in enumerate(document["items"]):
            decoded += _decode(item, source, f"{position} items[{i}]", problems, options)
        return decoded

    api_version = document.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    cls: type[KubeObject] = KINDS_BY_GROUP.get((group, kind)) or KINDS.get(kind, Unstructured)
    label = _object_name(document, kind, cls.NAMESPACED)
    meant = _KINDS_BY_LOWER.get(kind.lower())
    if cls is Unstructured and meant is not None and meant != kind:
        problems.append(
            ManifestProblem(
                source,
                label,
                "kind",
                f'no matches for kind "{kind}" in version "{api_version or ""}" '
                f"(kinds are case-sensitive: kind: {meant})",
            )
        )
        return []
    served = getattr(cls, "API_VERSIONS", (cls.API_VERSION,))
    if cls is not Unstructured and api_version not in (None, *served):
        problems.append(
            ManifestProblem(
                source,
                label,
                "apiVersion",
                f"{api_version!r} does not serve kind {kind} (use {' or '.join(served)})",
            )
        )
        return []
    if options.field_validation is not None and isinstance(api_version, str):
        model = None if cls is Unstructured else cls
        schema = kind_schema(kind, api_version, model)
        if schema is not None:
            unknown = check_fields(document, schema, drop=options.field_validation != "Strict")
            for path in unknown:
                if options.field_validation == "Strict":
                    close = suggest_field(path, schema)
                    hint = f' (did you mean "{close}"?)' if close else ""
                    message = f'strict decoding error: unknown field "{path}"{hint}'
                    problems.append(ManifestProblem(source, label, "", message))
                elif options.field_validation == "Warn" and options.warnings is not None:
                    options.warnings.append(f'{source}: {label}: unknown field "{path}"')
    try:
        return [cls.from_dict(document)]
    except ObjectInvalid as exc:
        problems.extend(_problem(source, label, error) for error in exc.errors)
        return []
    except RecursionError:
        problems.append(ManifestProblem(source, label, "", MSG_TOO_DEEP))
        return []


def _problem(source: str, label: str, error: FieldError) -> ManifestProblem:
    return ManifestProblem(source, label, error.path, error.message)


def loads(
    text: str,
    source: str = "<string>",
    *,
    field_validation: str | None = None,
    warnings: list[str] | None = None,
) -> list[KubeObject]:
    """Load every object in one text (YAML or JSON); ``source`` names it in errors.

    ``field_validation`` is ``Strict``, ``Warn`` or ``Ignore`` (see the
    module's docstring); the warnings of ``Warn`` are appended to ``warnings``.
    """
    problems: list[ManifestProblem] = []
    objects: list[KubeObject] = []
    options = _Options(field_validation, warnings)
    for index, document in enumerate(_parse_documents(text, source)):
        objects += _decode(document, source, f"document {index + 1}", problems, options)
    if problems:
        raise ManifestError(problems)
    return objects


def _expand(paths: Iterable[str | Path]) -> list[Path]:
    files: list[Path] = []
    for entry in paths:
        path = Path(entry)
        if path.is_dir():
            files += sorted(
                p for p in path.rglob("*") if p.suffix in MANIFEST_SUFFIXES and p.is_file()
            )
        else:
            files.append(path)
    return files


def load_manifests(*paths: str | Path) -> list[KubeObject]:
    """Load every object from files and directories (``*.yaml``, ``*.yml``, ``*.json``), in order.

    Directories are read recursively in sorted path order. Raises
    :class:`ManifestError` listing every problem of every file; nothing is
    returned unless everything loaded.
    """
    problems: list[ManifestProblem] = []
    objects: list[KubeObject] = []
    for path in _expand(paths):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(ManifestProblem(str(path), "", "", f"cannot read file: {exc}"))
            continue
        try:
            objects += loads(text, str(path))
        except ManifestError as exc:
            problems += exc.problems
    if problems:
        raise ManifestError(problems)
    return objects


def dump_manifests(objects: Iterable[KubeObject]) -> str:
    """Write objects as one multi-document YAML text, fields in manifest order."""
    return yaml.safe_dump_all(
        [obj.to_dict() for obj in objects], sort_keys=False, default_flow_style=False
    )
