"""The PodDisruptionBudget: how many of an application's pods may be down by choice.

A *voluntary* disruption is one somebody decides on: draining a node,
evicting a pod through the Eviction API, or preemption by the scheduler. A
PodDisruptionBudget (PDB) selects an application's pods with a label
selector and says how much of it must stay up: ``minAvailable`` (at least
this many healthy pods, a number or a percentage) or ``maxUnavailable`` (at
most this many unhealthy, ditto), never both. The disruption controller
keeps its ``status`` current: how many matching pods are healthy
(``currentHealthy``), how many must be (``desiredHealthy``), how many there
should be (``expectedPods``), and so how many more may be disrupted now
(``disruptionsAllowed``).

kube-scheduler does not obey a PDB, but it *prefers* not to break one:
preemption counts the victims that would take a budget below zero, and
chooses the node with the fewest such violations
(:mod:`framework.plugins.defaultpreemption`).

``minAvailable`` and ``maxUnavailable`` are ``intstr.IntOrString``: in
Python, an ``int`` or a ``str`` (``"50%"``).

>>> pdb = PodDisruptionBudget.from_dict({
...     "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
...     "metadata": {"name": "web"},
...     "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}})
>>> pdb.spec.min_available, pdb.spec.max_unavailable, pdb.status.disruptions_allowed
('50%', None, 0)

Mirrors ``k8s.io/api/policy/v1`` (``PodDisruptionBudget``,
``PodDisruptionBudgetSpec``, ``PodDisruptionBudgetStatus``) and
``k8s.io/apimachinery/pkg/apis/meta/v1.Condition`` (v1.33). Simplified:
``metav1.Condition`` lives here, beside its only user so far; the status's
counters are always written (as the Go fields have no ``omitempty``), the
rest of the model follows the "empty means absent" rule of
:mod:`framework.objects.schema`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from framework.objects.meta import Extra, KubeObject, LabelSelector, ObjectMeta, extra_field
from framework.objects.schema import Model

__all__ = [
    "Condition",
    "PodDisruptionBudget",
    "PodDisruptionBudgetSpec",
    "PodDisruptionBudgetStatus",
]


@dataclass(frozen=True, slots=True)
class Condition(Model):
    """``metav1.Condition``: one aspect of an object's state (``DisruptionAllowed=True``)."""

    type: str = ""
    status: str = ""
    observed_generation: int = 0
    last_transition_time: str | None = None
    reason: str = ""
    message: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodDisruptionBudgetSpec(Model):
    """``spec``: which pods (``selector``) and how many must stay up, or may be down.

    ``min_available`` and ``max_unavailable`` are each ``None`` (unset), an
    ``int`` or a percentage string; the API server refuses both at once.
    ``unhealthy_pod_eviction_policy`` (``IfHealthyBudget`` or
    ``AlwaysAllow``) is kept but only the Eviction API reads it.
    """

    min_available: int | str | None = None
    selector: LabelSelector | None = None
    max_unavailable: int | str | None = None
    unhealthy_pod_eviction_policy: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodDisruptionBudgetStatus(Model):
    """``status``, written by the disruption controller (here: by the fake API server).

    ``disrupted_pods`` maps a pod name to when the Eviction API let it go,
    so that the budget counts it as gone before its deletion is seen.
    """

    _ALWAYS: ClassVar[frozenset[str]] = frozenset(
        {"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"}
    )

    observed_generation: int = 0
    disrupted_pods: Mapping[str, str] = field(default_factory=dict)
    disruptions_allowed: int = 0
    current_healthy: int = 0
    desired_healthy: int = 0
    expected_pods: int = 0
    conditions: tuple[Condition, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget(KubeObject):
    """``policy/v1`` PodDisruptionBudget (namespaced, with a ``status`` subresource)."""

    KIND: ClassVar[str] = "PodDisruptionBudget"
    API_VERSION: ClassVar[str] = "policy/v1"

    api_version: str = "policy/v1"
    kind: str = "PodDisruptionBudget"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: PodDisruptionBudgetSpec = field(default_factory=PodDisruptionBudgetSpec)
    status: PodDisruptionBudgetStatus = field(default_factory=PodDisruptionBudgetStatus)
    extra: Extra = extra_field()
