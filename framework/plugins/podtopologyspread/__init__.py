"""PodTopologySpread: keep the pods of a workload evenly spread over zones, hosts or any node label.

Four modules, as Kubernetes splits the plugin:

* :mod:`~framework.plugins.podtopologyspread.common`: constraints parsed from the pod (``matchLabelKeys``
  merged into the selector, policies defaulted), node inclusion, counting;
* :mod:`~framework.plugins.podtopologyspread.filtering`: PreFilter, AddPod/RemovePod and Filter (hard constraints);
* :mod:`~framework.plugins.podtopologyspread.scoring`: PreScore, Score and NormalizeScore (soft constraints);
* :mod:`~framework.plugins.podtopologyspread.plugin`: the plugin itself, default constraints, events and hints;

and :mod:`~framework.config.args_podtopologyspread` for ``PodTopologySpreadArgs``.
"""

from __future__ import annotations

from framework.config.args_podtopologyspread import (
    LIST_DEFAULTING,
    SYSTEM_DEFAULT_CONSTRAINTS,
    SYSTEM_DEFAULTING,
    PodTopologySpreadArgs,
    check_pod_topology_spread_args,
    validate_pod_topology_spread_config,
)
from framework.plugins.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
)
from framework.plugins.podtopologyspread.plugin import (
    NAME,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    PodTopologySpread,
    default_selector,
    new,
)

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "LIST_DEFAULTING",
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "SYSTEM_DEFAULTING",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "PodTopologySpread",
    "PodTopologySpreadArgs",
    "check_pod_topology_spread_args",
    "default_selector",
    "new",
    "validate_pod_topology_spread_config",
]
