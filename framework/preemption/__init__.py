"""Preemption: making room for a pod by evicting lower-priority ones.

Three modules, as Kubernetes splits the work between
``pkg/scheduler/framework/preemption`` and the plugin that uses it:

* :mod:`framework.preemption.candidate`: a candidate node and its victims;
* :mod:`framework.preemption.pick_one_node`: choosing among candidates;
* :mod:`framework.preemption.evaluator`: the whole procedure (eligibility,
  dry run, selection, eviction), parametrised by a plugin's
  :class:`~framework.preemption.evaluator.PreemptionInterface`.

The default plugin built on them is
:mod:`framework.plugins.defaultpreemption`.
"""

from __future__ import annotations

from framework.extender.types import Victims
from framework.preemption.candidate import Candidate, CandidateList
from framework.preemption.evaluator import (
    DISRUPTION_TARGET,
    MSG_NO_CANDIDATE,
    MSG_PREEMPTED,
    MSG_PREEMPTING,
    MSG_PREEMPTION_NOT_HELPFUL,
    REASON_PREEMPTION_BY_SCHEDULER,
    Evaluator,
    PreemptionError,
    PreemptionInterface,
    get_lower_priority_nominated_pods,
    get_pod_disruption_budgets,
)
from framework.preemption.pick_one_node import (
    PRIORITY_SHIFT,
    ScoreFunc,
    default_score_funcs,
    pick_one_node_for_preemption,
)

__all__ = [
    "DISRUPTION_TARGET",
    "MSG_NO_CANDIDATE",
    "MSG_PREEMPTED",
    "MSG_PREEMPTING",
    "MSG_PREEMPTION_NOT_HELPFUL",
    "PRIORITY_SHIFT",
    "REASON_PREEMPTION_BY_SCHEDULER",
    "Candidate",
    "CandidateList",
    "Evaluator",
    "PreemptionError",
    "PreemptionInterface",
    "ScoreFunc",
    "Victims",
    "default_score_funcs",
    "get_lower_priority_nominated_pods",
    "get_pod_disruption_budgets",
    "pick_one_node_for_preemption",
]
