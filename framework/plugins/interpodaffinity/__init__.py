"""InterPodAffinity: pods placed near, or away from, other pods, per topology domain.

Four modules, as Kubernetes splits the work:

* :mod:`framework.plugins.interpodaffinity.terms` compiles pod affinity terms;
* :mod:`framework.plugins.interpodaffinity.filtering` counts matching pods
  per topology domain and decides whether a node passes;
* :mod:`framework.plugins.interpodaffinity.scoring` sums preferred weights
  per domain and scales them;
* :mod:`framework.plugins.interpodaffinity.plugin` is the plugin built on
  them, with its args in :mod:`framework.config.args_interpodaffinity`.

Everything a caller needs is importable from here: ``NAME``, ``new``, the
plugin class, its args and the reason constants.
"""

from __future__ import annotations

from framework.config.args_interpodaffinity import (
    DEFAULT_HARD_POD_AFFINITY_WEIGHT,
    InterPodAffinityArgs,
    validate_inter_pod_affinity_args,
)
from framework.plugins.interpodaffinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
)
from framework.plugins.interpodaffinity.plugin import (
    NAME,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    InterPodAffinity,
    get_namespace_labels_snapshot,
    new,
)

__all__ = [
    "DEFAULT_HARD_POD_AFFINITY_WEIGHT",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "InterPodAffinity",
    "InterPodAffinityArgs",
    "get_namespace_labels_snapshot",
    "new",
    "validate_inter_pod_affinity_args",
]
