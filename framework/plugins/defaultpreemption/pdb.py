"""Which victims would break a PodDisruptionBudget: the split preemption reprieves by.

Preemption evicts what it must, but it would rather not take a budget
below zero. :func:`filter_pods_with_pdb_violation` walks the potential
victims *in order* (most important first), and for each PDB that selects a
victim spends one of the budget's ``disruptionsAllowed``; a victim that
takes any budget below zero is *violating*. The order matters: with one
disruption allowed and two matching victims, the first one is fine and
the second violates.

Two details follow Kubernetes exactly: a victim already listed in a
budget's ``disruptedPods`` (the Eviction API has let it go) does not spend
that budget again; and a budget with an empty or missing selector matches
no victim here (unlike the disruption controller, for which an empty
``policy/v1`` selector matches every pod of the namespace).

>>> from framework.objects import Pod, PodDisruptionBudget
>>> from framework.types import PodInfo
>>> web = [PodInfo(Pod.from_dict({"metadata": {"name": n, "namespace": "default",
...     "labels": {"app": "web"}}})) for n in ("a", "b")]
>>> pdb = PodDisruptionBudget.from_dict({"metadata": {"name": "web", "namespace": "default"},
...     "spec": {"selector": {"matchLabels": {"app": "web"}}}, "status": {"disruptionsAllowed": 1}})
>>> violating, fine = filter_pods_with_pdb_violation(web, [pdb])
>>> [p.pod.name for p in violating], [p.pod.name for p in fine]
(['b'], ['a'])

Mirrors ``filterPodsWithPDBViolation`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``
(v1.33).
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.objects import PodDisruptionBudget
from framework.objects.labels import SelectorError, label_selector_as_selector
from framework.types import PodInfo

__all__ = ["filter_pods_with_pdb_violation"]


def filter_pods_with_pdb_violation(
    pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """``(violating, non_violating)``, each in the order given (the function is stable)."""
    allowed = [pdb.status.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pod_info in pod_infos:
        pod = pod_info.pod
        violated = False
        if pod.metadata.labels:  # a pod without labels matches no budget
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                try:
                    selector = label_selector_as_selector(pdb.spec.selector)
                except SelectorError:
                    continue  # an invalid selector matches nothing
                if selector.empty() or not selector.matches(pod.metadata.labels):
                    continue
                if pod.name in pdb.status.disrupted_pods:
                    continue  # already counted by the Eviction API: spending again would over-count
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod_info)
    return violating, non_violating
