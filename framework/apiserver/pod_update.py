"""What may change in a pod once it exists: almost nothing.

A pod is a promise to run certain containers, with certain resources, under
certain placement rules; once created, its spec is frozen. An update may
change the containers' images, ``activeDeadlineSeconds`` and the tolerations
(adding, never removing), and remove scheduling gates; anything else is
refused with one of the best-known messages in Kubernetes::

    Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than ...

For a scheduler this is why a pod is never "moved": ``spec.nodeName`` can
be set once, through the binding subresource, and a pod that should run
elsewhere is deleted and created anew. The one loosening, for pods still held
by scheduling gates (KEP-3838), lets a controller narrow where a gated pod may
go by adding ``nodeSelector`` entries before releasing it.

Mirrors ``ValidatePodUpdate`` in ``pkg/apis/core/validation/validation.go``
(``validateOnlyAddedTolerations``, ``validateOnlyDeletedSchedulingGates``, the
``mungedPodSpec`` comparison). Simplified: the Forbidden error lists the
differing spec fields instead of printing a go-cmp diff; on gated pods only
``nodeSelector`` additions are allowed, not the narrowing of node affinity;
``terminationGracePeriodSeconds`` is frozen like the rest.
"""

from __future__ import annotations

import dataclasses

from framework.apiserver.errors import FieldCause
from framework.objects import Container, Pod, PodSpec

__all__ = ["MSG_POD_SPEC_IMMUTABLE", "UPDATABLE_POD_SPEC_FIELDS", "validate_pod_update"]

Causes = list[FieldCause]

UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
MSG_POD_SPEC_IMMUTABLE = "pod updates may not change fields other than " + ",".join(
    UPDATABLE_POD_SPEC_FIELDS
)


def _changed_spec_fields(a: PodSpec, b: PodSpec) -> list[str]:
    left, right = a.to_dict(), b.to_dict()
    return sorted(k for k in left.keys() | right.keys() if left.get(k) != right.get(k))


def validate_pod_update(new: Pod, old: Pod) -> list[FieldCause]:
    """Every reason ``new`` may not replace ``old`` (the spec rules of ``ValidatePodUpdate``).

    The spec must equal the old one once the updatable fields are set aside;
    tolerations may only be added, scheduling gates only removed, and while a
    pod is gated its ``nodeSelector`` may only grow.
    """
    causes: Causes = []
    for field, new_list, old_list in (
        ("spec.containers", new.spec.containers, old.spec.containers),
        ("spec.initContainers", new.spec.init_containers, old.spec.init_containers),
    ):
        if len(new_list) != len(old_list):
            return [FieldCause.forbidden(field, "pod updates may not add or remove containers")]
    causes += _only_added_tolerations(new, old)
    causes += _only_removed_scheduling_gates(new, old)
    munged = _munge_updatable_fields(new.spec, old.spec)
    if old.spec.scheduling_gates:
        causes += _only_added_node_selector(new, old)
        munged = dataclasses.replace(munged, node_selector=old.spec.node_selector)
    if munged != old.spec:
        changed = ", ".join(_changed_spec_fields(munged, old.spec))
        causes.append(
            FieldCause.forbidden("spec", f"{MSG_POD_SPEC_IMMUTABLE}\n  changed: {changed}")
        )
    return causes


def _munge_updatable_fields(new: PodSpec, old: PodSpec) -> PodSpec:
    """``new`` with the fields an update may change taken from ``old``; then it must equal ``old``.

    (The name is Kubernetes': ``mungedPodSpec``.)
    """

    def old_images(
        containers: tuple[Container, ...], olds: tuple[Container, ...]
    ) -> tuple[Container, ...]:
        return tuple(
            dataclasses.replace(c, image=o.image) for c, o in zip(containers, olds, strict=True)
        )

    extra = dict(new.extra)
    extra.pop("activeDeadlineSeconds", None)
    if "activeDeadlineSeconds" in old.extra:
        extra["activeDeadlineSeconds"] = old.extra["activeDeadlineSeconds"]
    return dataclasses.replace(
        new,
        containers=old_images(new.containers, old.containers),
        init_containers=old_images(new.init_containers, old.init_containers),
        tolerations=old.tolerations,
        scheduling_gates=old.scheduling_gates,
        extra=extra,
    )


def _only_added_tolerations(new: Pod, old: Pod) -> Causes:
    # Each old toleration must still be there; only its tolerationSeconds may change.
    for previous in old.spec.tolerations:
        if not any(
            dataclasses.replace(previous, toleration_seconds=t.toleration_seconds) == t
            for t in new.spec.tolerations
        ):
            return [
                FieldCause.forbidden(
                    "spec.tolerations",
                    "existing toleration can not be modified except its tolerationSeconds",
                )
            ]
    return []


def _only_removed_scheduling_gates(new: Pod, old: Pod) -> Causes:
    old_names = {g.name for g in old.spec.scheduling_gates}
    return [
        FieldCause.forbidden(
            f"spec.schedulingGates[{i}].name",
            f"only deletion is allowed, but found new scheduling gate '{gate.name}'",
        )
        for i, gate in enumerate(new.spec.scheduling_gates)
        if gate.name not in old_names
    ]


def _only_added_node_selector(new: Pod, old: Pod) -> Causes:
    # While a pod is gated its placement may be narrowed, never widened (KEP-3838).
    return [
        FieldCause.forbidden(
            f"spec.nodeSelector[{key}]",
            "only additions to spec.nodeSelector are allowed while the pod has scheduling gates",
        )
        for key, value in old.spec.node_selector.items()
        if new.spec.node_selector.get(key) != value
    ]
