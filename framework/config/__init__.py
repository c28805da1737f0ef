"""kube-scheduler's configuration: ``KubeSchedulerConfiguration`` read, defaulted and checked.

One module per step a configuration goes through, in that order:

* :mod:`~framework.config.types` — the file's shape (``kubescheduler.config.k8s.io/v1``);
* :mod:`~framework.config.strict` — strict decoding: unknown fields are errors;
* :mod:`~framework.config.default_plugins` — the default plugin line-up and the merge rules;
* :mod:`~framework.config.args` — plugin arguments: defaults and the validation hook;
* :mod:`~framework.config.defaults` — ``SetDefaults`` for the whole configuration;
* :mod:`~framework.config.validation` — ``ValidateKubeSchedulerConfiguration``;
* :mod:`~framework.config.load` — files and text in, a usable configuration out;
* :mod:`~framework.config.framework_checks` — what NewFramework checks and how
  ``multiPoint`` expands, on names alone;
* :mod:`~framework.config.errors` — every problem, with its field path.

>>> config = loads_config("apiVersion: kubescheduler.config.k8s.io/v1\\nkind: KubeSchedulerConfiguration\\n")
>>> [p.scheduler_name for p in config.profiles], config.parallelism
(['default-scheduler'], 16)
"""

from framework.config.args import (
    ArgsRegistry,
    ArgsSpec,
    default_plugin_args,
    in_tree_args,
    out_of_tree_args,
)
from framework.config.default_plugins import (
    DEFAULT_MULTI_POINT,
    IN_TREE_EXTENSION_POINTS,
    default_plugins,
    merge_plugin_set,
    merge_plugins,
)
from framework.config.defaults import set_defaults
from framework.config.errors import ConfigError, ConfigProblem
from framework.config.framework_checks import (
    FrameworkConfigError,
    PluginRef,
    build_plugin_lists,
    expand_multi_point,
    score_weights,
)
from framework.config.load import config_from_dict, decode_config, load_config, loads_config
from framework.config.types import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    KIND,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
)
from framework.config.validation import validate

__all__ = [
    "API_VERSION",
    "DEFAULT_MULTI_POINT",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "IN_TREE_EXTENSION_POINTS",
    "KIND",
    "ArgsRegistry",
    "ArgsSpec",
    "ConfigError",
    "ConfigProblem",
    "FrameworkConfigError",
    "KubeSchedulerConfiguration",
    "KubeSchedulerProfile",
    "Plugin",
    "PluginConfig",
    "PluginRef",
    "PluginSet",
    "Plugins",
    "build_plugin_lists",
    "config_from_dict",
    "decode_config",
    "default_plugin_args",
    "default_plugins",
    "expand_multi_point",
    "in_tree_args",
    "load_config",
    "loads_config",
    "merge_plugin_set",
    "merge_plugins",
    "out_of_tree_args",
    "score_weights",
    "set_defaults",
    "validate",
]
