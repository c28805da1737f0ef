"""Admission: the plugins that may change or refuse a request after it is decoded.

Between decoding a request and storing the object, the API server passes it
through a chain of admission plugins. Four of them shape what a scheduler
sees, and they run here in the order kube-apiserver runs them:

1. **NamespaceLifecycle** refuses objects in a namespace that does not exist
   (``404 namespaces "x" not found``) and the deletion of ``default``,
   ``kube-system`` and ``kube-public``.
2. **DefaultTolerationSeconds** gives every pod a 300-second toleration of
   the ``node.kubernetes.io/not-ready`` and ``node.kubernetes.io/unreachable``
   NoExecute taints, unless it already tolerates them: that is why a pod
   survives five minutes on a node that stops answering.
3. **Priority** resolves ``spec.priorityClassName`` to ``spec.priority`` and
   ``spec.preemptionPolicy``; a pod without a class gets the cluster's
   ``globalDefault`` class, or priority 0. The scheduler's queue and
   preemption read only the resolved numbers. A ``scheduling.k8s.io``
   PodGroup's ``spec.priorityClassName`` is resolved the same way into its
   ``spec.priority`` (v1.37-era ``PodGroupSpec``), the priority a gang
   preempts at.
4. **Priority** (validating half) allows a single ``globalDefault`` class.

Mirrors ``plugin/pkg/admission/namespace/lifecycle``,
``plugin/pkg/admission/defaulttolerationseconds`` and
``plugin/pkg/admission/priority`` (``admitPod``, ``validatePriorityClass``).
Simplified: plugins are plain functions called in a fixed order (the pod
plugins return the spec fields they set, applied in one copy); the
namespace check reads the store directly instead of an informer, so there is
no window in which a just-created namespace is unknown.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, TypeVar, cast

from framework.apiserver.errors import Forbidden, GroupResource, NotFound, resource_for
from framework.objects import KubeObject, Namespace, Pod, PriorityClass, Toleration
from framework.objects.copying import replace
from framework.objects.workload import SchedulingPodGroup

__all__ = [
    "CREATE",
    "DEFAULT_TOLERATION_SECONDS",
    "IMMORTAL_NAMESPACES",
    "MSG_GLOBAL_DEFAULT_EXISTS",
    "MSG_NAMESPACE_UNDELETABLE",
    "MSG_NO_PRIORITY_CLASS",
    "MSG_POD_GROUP_PRIORITY_MISMATCH",
    "MSG_POD_PREEMPTION_POLICY_MISMATCH",
    "MSG_POD_PRIORITY_MISMATCH",
    "TAINT_NODE_NOT_READY",
    "TAINT_NODE_UNREACHABLE",
    "UPDATE",
    "admit",
    "admit_delete",
]

CREATE = "CREATE"
UPDATE = "UPDATE"

TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_TOLERATION_SECONDS = 300

IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})

MSG_NAMESPACE_UNDELETABLE = "this namespace may not be deleted"
MSG_NO_PRIORITY_CLASS = "no PriorityClass with name {name} was found"
# The pod's words with "pod group": Go's text for a PodGroup was not read.
MSG_POD_GROUP_PRIORITY_MISMATCH = (
    "the integer value of priority ({given}) must not be provided in pod group spec; "
    "priority admission controller computed {computed} from the given PriorityClass name"
)
MSG_POD_PRIORITY_MISMATCH = (
    "the integer value of priority ({given}) must not be provided in pod spec; "
    "priority admission controller computed {computed} from the given PriorityClass name"
)
MSG_POD_PREEMPTION_POLICY_MISMATCH = (
    "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; "
    "priority admission controller computed {computed} from the given PriorityClass name"
)
MSG_GLOBAL_DEFAULT_EXISTS = (
    "PriorityClass {name} is already marked as default. Only one default can exist"
)

T = TypeVar("T", bound=KubeObject)
_NAMESPACES = GroupResource("namespaces")


# --- NamespaceLifecycle --------------------------------------------------------------------


def _namespace_lifecycle(obj: KubeObject, namespaces: Collection[str]) -> None:
    if obj.NAMESPACED and obj.metadata.namespace not in namespaces:
        raise NotFound(_NAMESPACES, obj.metadata.namespace)


def admit_delete(kind: type[KubeObject], name: str) -> None:
    """Refuse deleting a namespace the cluster cannot live without (NamespaceLifecycle)."""
    if kind is Namespace and name in IMMORTAL_NAMESPACES:
        raise Forbidden(_NAMESPACES, name, MSG_NAMESPACE_UNDELETABLE)


# --- DefaultTolerationSeconds --------------------------------------------------------------


def _tolerates(pod: Pod, key: str) -> bool:
    # An empty key or effect in a toleration is a wildcard.
    return any(t.key in (key, "") and t.effect in ("NoExecute", "") for t in pod.spec.tolerations)


def _default_toleration_seconds(pod: Pod) -> dict[str, Any]:
    """The spec fields DefaultTolerationSeconds changes: ``tolerations``, if one is missing."""
    added = tuple(
        Toleration(
            key=key,
            operator="Exists",
            effect="NoExecute",
            toleration_seconds=DEFAULT_TOLERATION_SECONDS,
        )
        for key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE)
        if not _tolerates(pod, key)
    )
    return {"tolerations": (*pod.spec.tolerations, *added)} if added else {}


# --- Priority --------------------------------------------------------------------------------


def _global_default(classes: Collection[PriorityClass]) -> PriorityClass | None:
    # If a race left several defaults, the real plugin takes the lowest value.
    defaults = [pc for pc in classes if pc.global_default]
    return min(defaults, key=lambda pc: pc.value) if defaults else None


def _resolve_priority(
    obj: KubeObject, name: str, classes: Mapping[str, PriorityClass]
) -> tuple[str, int, str | None]:
    """The class name, value and preemption policy ``name`` resolves to (none: the default)."""
    if not name:
        default = _global_default(list(classes.values()))
        if default is None:
            return "", 0, "PreemptLowerPriority"
        return default.metadata.name, default.value, default.preemption_policy
    found = classes.get(name)
    if found is None:
        raise _forbidden(obj, MSG_NO_PRIORITY_CLASS.format(name=name))
    return name, found.value, found.preemption_policy


def _admit_pod_priority(pod: Pod, classes: Mapping[str, PriorityClass]) -> dict[str, Any]:
    """The spec fields Priority sets: the class name, its value and its preemption policy."""
    name, value, policy = _resolve_priority(pod, pod.spec.priority_class_name, classes)
    if pod.spec.priority is not None and pod.spec.priority != value:
        why = MSG_POD_PRIORITY_MISMATCH.format(given=pod.spec.priority, computed=value)
        raise _forbidden(pod, why)
    given_policy = pod.spec.preemption_policy
    if policy is not None and given_policy is not None and given_policy != policy:
        why = MSG_POD_PREEMPTION_POLICY_MISMATCH.format(given=given_policy, computed=policy)
        raise _forbidden(pod, why)
    return {
        "priority_class_name": name,
        "priority": value,
        "preemption_policy": policy if policy is not None else given_policy,
    }


def _admit_pod_group_priority(
    pg: SchedulingPodGroup, classes: Mapping[str, PriorityClass]
) -> dict[str, Any]:
    """A PodGroup's class resolved as a pod's is (v1.37-era ``PodGroupSpec.Priority``)."""
    name, value, _ = _resolve_priority(pg, pg.spec.priority_class_name, classes)
    if pg.spec.priority is not None and pg.spec.priority != value:
        why = MSG_POD_GROUP_PRIORITY_MISMATCH.format(given=pg.spec.priority, computed=value)
        raise _forbidden(pg, why)
    return {"priority_class_name": name, "priority": value}


def _validate_priority_class(
    pc: PriorityClass, operation: str, classes: Mapping[str, PriorityClass]
) -> None:
    if not pc.global_default:
        return
    existing = _global_default(list(classes.values()))
    if existing is None:
        return
    if operation == CREATE or existing.metadata.name != pc.metadata.name:
        raise _forbidden(pc, MSG_GLOBAL_DEFAULT_EXISTS.format(name=existing.metadata.name))


def _forbidden(obj: KubeObject, why: str) -> Forbidden:
    """The error ``admission.NewForbidden`` builds: ``pods "web" is forbidden: <why>``."""
    return Forbidden(resource_for(type(obj)), obj.metadata.name, why)


# --- the chain -------------------------------------------------------------------------------


def admit(
    operation: str,
    obj: T,
    *,
    namespaces: Collection[str],
    priority_classes: Mapping[str, PriorityClass],
) -> T:
    """Run the admission chain on a create or update of ``obj``; return the admitted object.

    ``namespaces`` are the names of the namespaces that exist and
    ``priority_classes`` the stored PriorityClasses by name. Raise
    :class:`NotFound` or :class:`Forbidden` as the plugin that refuses would.
    """
    _namespace_lifecycle(obj, namespaces)
    if isinstance(obj, Pod):
        # The two plugins change different fields of the spec, and neither reads what the
        # other writes: their changes go into one copy (kube changes the decoded pod in place).
        changes = _default_toleration_seconds(obj)
        if operation == CREATE:
            changes.update(_admit_pod_priority(obj, priority_classes))
        if not changes:
            return obj
        spec = replace(obj.spec, **changes)
        return cast(T, replace(obj, spec=spec))
    if isinstance(obj, SchedulingPodGroup) and operation == CREATE:
        group_spec = replace(obj.spec, **_admit_pod_group_priority(obj, priority_classes))
        return cast(T, replace(obj, spec=group_spec))
    if isinstance(obj, PriorityClass):
        _validate_priority_class(obj, operation, priority_classes)
    return obj
