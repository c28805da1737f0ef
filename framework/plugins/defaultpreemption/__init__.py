"""DefaultPreemption: evict lower-priority pods to make room, as kube-scheduler's default PostFilter.

Three modules:

* :mod:`framework.plugins.defaultpreemption.plugin`: the plugin (eligibility,
  victim selection, candidate count), built on
  :mod:`framework.preemption`, which does the rest of the procedure;
* :mod:`framework.plugins.defaultpreemption.pdb`: which victims would break
  a PodDisruptionBudget;
* :mod:`framework.config.args_defaultpreemption`: ``DefaultPreemptionArgs``.

Everything a caller needs is importable from here.
"""

from __future__ import annotations

from framework.config.args_defaultpreemption import (
    DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE,
    DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE,
    DefaultPreemptionArgs,
    validate_default_preemption_args,
)
from framework.plugins.defaultpreemption.pdb import filter_pods_with_pdb_violation
from framework.plugins.defaultpreemption.plugin import (
    ENABLE_ASYNC_PREEMPTION,
    MSG_NO_VICTIMS,
    MSG_NOT_ELIGIBLE_POLICY_NEVER,
    MSG_NOT_ELIGIBLE_TERMINATING,
    MSG_WAITING_FOR_PREEMPTION,
    NAME,
    DefaultPreemption,
    IsEligiblePodFunc,
    MoreImportantPodFunc,
    new,
    pod_terminating_by_preemption,
)

__all__ = [
    "DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE",
    "DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE",
    "ENABLE_ASYNC_PREEMPTION",
    "MSG_NOT_ELIGIBLE_POLICY_NEVER",
    "MSG_NOT_ELIGIBLE_TERMINATING",
    "MSG_NO_VICTIMS",
    "MSG_WAITING_FOR_PREEMPTION",
    "NAME",
    "DefaultPreemption",
    "DefaultPreemptionArgs",
    "IsEligiblePodFunc",
    "MoreImportantPodFunc",
    "filter_pods_with_pdb_violation",
    "new",
    "pod_terminating_by_preemption",
    "validate_default_preemption_args",
]
