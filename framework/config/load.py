"""Reading a kube-scheduler configuration file: decode strictly, fill in defaults, validate.

``kube-scheduler --config sched.yaml`` does three things with the file, and
so does :func:`load_config`:

1. **decode** it strictly as ``kubescheduler.config.k8s.io/v1``: an unknown
   or duplicated key, a wrong type, a number too big for its Go type, an
   unknown field in an in-tree plugin's ``args`` -- each is an error;
2. **default** it (:func:`~framework.config.defaults.set_defaults`);
3. **validate** the result (:func:`~framework.config.validation.validate`).

Problems are collected within a pass and reported together, each with its
field path, as one :class:`~framework.config.errors.ConfigError`; a later
pass runs only when the earlier ones found nothing, because defaulting a
file that did not decode would invent problems that are not there.

Older API versions are refused with what to do about it: ``v1beta3`` was
removed in Kubernetes v1.29 and ``v1beta2`` in v1.28; the fix is to change
``apiVersion`` to ``kubescheduler.config.k8s.io/v1``.

Contract: the returned configuration is defaulted and valid as far as a
configuration can be without the plugins. The checks that need the plugins
are in :mod:`framework.config.framework_checks`.

Mirrors ``loadConfigFromFile`` in
``kubernetes/kubernetes:cmd/kube-scheduler/app/options/configfile.go``, the
strict codecs of ``pkg/scheduler/apis/config/scheme``, and the call to
``ValidateKubeSchedulerConfiguration`` in ``cmd/kube-scheduler/app/options``
(v1.33). Simplified: the file holds one YAML or JSON document, and a second
document is an error rather than ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from framework.config.args import ArgsRegistry, in_tree_args
from framework.config.defaults import set_defaults
from framework.config.errors import ConfigError, ConfigProblem
from framework.config.types import API_VERSION, KIND, KubeSchedulerConfiguration
from framework.config.validation import validate
from framework.featuregate import FeatureGates
from framework.objects.manifest import MSG_TOO_DEEP, read_yaml_documents
from framework.objects.schema import FieldError
from framework.objects.schema import Path as FieldPath

__all__ = [
    "MAX_CONFIG_BYTES",
    "REMOVED_API_VERSIONS",
    "config_from_dict",
    "decode_config",
    "load_config",
    "loads_config",
]

_GROUP = "kubescheduler.config.k8s.io"

REMOVED_API_VERSIONS = {
    f"{_GROUP}/v1beta3": "v1.29",
    f"{_GROUP}/v1beta2": "v1.28",
    f"{_GROUP}/v1beta1": "v1.23",
}
"""Configuration API versions kube-scheduler no longer reads, and the release that dropped them."""


def _header_problems(data: Mapping[str, Any], source: str) -> list[ConfigProblem]:
    kind = data.get("kind")
    version = data.get("apiVersion")
    problems: list[ConfigProblem] = []
    if not kind:
        problems.append(ConfigProblem(source, "kind", f"is required: write kind: {KIND}"))
    elif kind != KIND:
        problems.append(
            ConfigProblem(
                source, "kind", f"{kind!r} is not a scheduler configuration; use kind: {KIND}"
            )
        )
    if not version:
        problems.append(
            ConfigProblem(source, "apiVersion", f"is required: write apiVersion: {API_VERSION}")
        )
    elif not isinstance(version, str):  # a list or a map here is no version at all
        problems.append(
            ConfigProblem(
                source,
                "apiVersion",
                f"expected a string, got {type(version).__name__}; write apiVersion: {API_VERSION}",
            )
        )
    elif version in REMOVED_API_VERSIONS:
        problems.append(
            ConfigProblem(
                source,
                "apiVersion",
                f'no kind "{KIND}" is registered for version "{version}": {version} was removed in '
                f"Kubernetes {REMOVED_API_VERSIONS[version]}; change apiVersion to {API_VERSION}",
            )
        )
    elif version != API_VERSION:
        problems.append(
            ConfigProblem(
                source,
                "apiVersion",
                f'no kind "{KIND}" is registered for version "{version}"; use {API_VERSION}',
            )
        )
    return problems


def decode_config(
    data: Any, source: str = "<dict>", args: ArgsRegistry | None = None
) -> KubeSchedulerConfiguration:
    """Strictly decode a parsed document as written (no defaults, no validation)."""
    if not isinstance(data, Mapping):
        got = "an empty document" if data is None else type(data).__name__
        raise ConfigError([ConfigProblem(source, "", f"expected an object, got {got}")])
    problems = _header_problems(data, source)
    if problems:
        raise ConfigError(problems)
    errors: list[FieldError] = []
    # Decode what can be decoded, so that the args of a file with a typo
    # elsewhere are checked in the same pass.
    config = KubeSchedulerConfiguration._decode(data, FieldPath(), errors)
    problems += [ConfigProblem(source, e.path, e.message) for e in errors]
    registry = args if args is not None else in_tree_args()
    for i, profile in enumerate(config.profiles):
        for j, entry in enumerate(profile.plugin_config):
            spec = registry.get(entry.name)
            if spec is not None:
                where = f"profiles[{i}].pluginConfig[{j}].args"
                problems += [ConfigProblem(source, p, m) for p, m in spec.check(entry.args, where)]
    if problems:
        raise ConfigError(problems)
    return config


def config_from_dict(
    data: Any,
    source: str = "<dict>",
    *,
    args: ArgsRegistry | None = None,
    dynamic_resource_allocation: bool = False,
    feature_gates: FeatureGates | None = None,
) -> KubeSchedulerConfiguration:
    """Decode, default and validate one parsed document; raise :class:`ConfigError` listing every problem.

    ``args`` is the registry of plugin argument types (default: the in-tree
    ones); ``feature_gates`` picks the release whose default plugins are merged
    in; ``dynamic_resource_allocation`` forces that gate on.
    """
    registry = args if args is not None else in_tree_args()
    try:
        config = decode_config(data, source, registry)
        config = set_defaults(
            config,
            registry,
            dynamic_resource_allocation=dynamic_resource_allocation,
            feature_gates=feature_gates,
        )
        problems = validate(config, registry)
    except RecursionError:  # args nested past what the decoder can follow
        raise ConfigError([ConfigProblem(source, "", MSG_TOO_DEEP)]) from None
    if problems:
        raise ConfigError(ConfigProblem(source, path, message) for path, message in problems)
    return config


def _parse(text: str, source: str) -> Any:
    try:
        documents = [d for d in read_yaml_documents(text) if d is not None]
    except RecursionError:
        raise ConfigError([ConfigProblem(source, "", MSG_TOO_DEEP)]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([ConfigProblem(source, "", f"invalid YAML{where}: {problem}")]) from None
    if len(documents) > 1:
        raise ConfigError(
            [
                ConfigProblem(
                    source,
                    "",
                    f"found {len(documents)} documents; a scheduler configuration file holds exactly one",
                )
            ]
        )
    return documents[0] if documents else None


def loads_config(
    text: str,
    source: str = "<string>",
    *,
    args: ArgsRegistry | None = None,
    dynamic_resource_allocation: bool = False,
    feature_gates: FeatureGates | None = None,
) -> KubeSchedulerConfiguration:
    """:func:`config_from_dict` on YAML or JSON text; ``source`` names it in errors."""
    return config_from_dict(
        _parse(text, source),
        source,
        args=args,
        dynamic_resource_allocation=dynamic_resource_allocation,
        feature_gates=feature_gates,
    )


MAX_CONFIG_BYTES = 4 * 1024 * 1024
"""The largest configuration file read (kube-scheduler's own are a few kilobytes)."""


def load_config(
    path_or_text: str | Path,
    *,
    args: ArgsRegistry | None = None,
    dynamic_resource_allocation: bool = False,
    feature_gates: FeatureGates | None = None,
) -> KubeSchedulerConfiguration:
    """Load a configuration from a file, or from text.

    A :class:`~pathlib.Path` is always a file. A string is text when it
    spans lines or starts with ``{``, and a file name otherwise. Options are
    those of :func:`config_from_dict`.
    """
    if isinstance(path_or_text, str) and (
        "\n" in path_or_text or path_or_text.lstrip().startswith("{")
    ):
        text, source = path_or_text, "<string>"
    else:
        path = Path(path_or_text)
        try:
            if (size := path.stat().st_size) > MAX_CONFIG_BYTES:
                why = (
                    f"is {size} bytes, more than the {MAX_CONFIG_BYTES} a scheduler "
                    "configuration may be: is it the right file?"
                )
                raise ConfigError([ConfigProblem(str(path), "", why)])
            text, source = path.read_text(encoding="utf-8"), str(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError([ConfigProblem(str(path), "", f"cannot read file: {exc}")]) from None
    return loads_config(
        text,
        source,
        args=args,
        dynamic_resource_allocation=dynamic_resource_allocation,
        feature_gates=feature_gates,
    )
