"""NodeAffinity: a pod's ``nodeSelector`` and node affinity decide which nodes it may use and prefers.

Two modules, as Kubernetes splits the work:

* :mod:`framework.objects.nodeaffinity` compiles and matches node
  selectors, a part Kubernetes shares with other components that place
  pods (the DaemonSet controller, for one);
* :mod:`framework.plugins.nodeaffinity.plugin` is the scheduler plugin
  built on it, with its args, :class:`NodeAffinityArgs`.

Everything a caller needs is importable from here: ``NAME``, ``new``,
the plugin class and the reason constants.
"""

from __future__ import annotations

from framework.config.args_nodeaffinity import (
    NodeAffinityArgs,
    validate_args,
    validate_node_affinity_args,
)
from framework.plugins.nodeaffinity.plugin import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NAME,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    NodeAffinity,
    get_pod_preferred_node_affinity,
    new,
)

__all__ = [
    "ERR_REASON_CONFLICT",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_POD",
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "NodeAffinity",
    "NodeAffinityArgs",
    "get_pod_preferred_node_affinity",
    "new",
    "validate_args",
    "validate_node_affinity_args",
]
