"""Kubernetes objects, parsed from ordinary manifests and written back.

>>> from framework.objects import Pod
>>> pod = Pod.from_dict({"metadata": {"name": "web"},
...                      "spec": {"containers": [{"name": "app", "image": "nginx"}]}})
>>> pod.spec.containers[0].image
'nginx'
"""

from framework.objects.cluster import Binding, Event, EventSource, Namespace, PriorityClass
from framework.objects.helpers import pod_priority, pod_uid
from framework.objects.meta import (
    KubeObject,
    LabelSelector,
    LabelSelectorRequirement,
    ObjectMeta,
    ObjectReference,
    Unstructured,
)
from framework.objects.node import ContainerImage, Node, NodeCondition, NodeSpec, NodeStatus, Taint
from framework.objects.pod import (
    Affinity,
    Container,
    ContainerPort,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodCondition,
    PodSchedulingGate,
    PodSpec,
    PodStatus,
    PreferredSchedulingTerm,
    ResourceList,
    ResourceRequirements,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from framework.objects.podgroup import (
    POD_GROUP_LABEL,
    PodGroup,
    PodGroupPhase,
    PodGroupSpec,
    PodGroupStatus,
)
from framework.objects.policy import (
    Condition,
    PodDisruptionBudget,
    PodDisruptionBudgetSpec,
    PodDisruptionBudgetStatus,
)
from framework.objects.quantity import Quantity, QuantityError
from framework.objects.schema import FieldError, ObjectInvalid

__all__ = [
    "POD_GROUP_LABEL",
    "Affinity",
    "Binding",
    "Condition",
    "Container",
    "ContainerImage",
    "ContainerPort",
    "Event",
    "EventSource",
    "FieldError",
    "KubeObject",
    "LabelSelector",
    "LabelSelectorRequirement",
    "Namespace",
    "Node",
    "NodeAffinity",
    "NodeCondition",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "NodeSpec",
    "NodeStatus",
    "ObjectInvalid",
    "ObjectMeta",
    "ObjectReference",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PodCondition",
    "PodDisruptionBudget",
    "PodDisruptionBudgetSpec",
    "PodDisruptionBudgetStatus",
    "PodGroup",
    "PodGroupPhase",
    "PodGroupSpec",
    "PodGroupStatus",
    "PodSchedulingGate",
    "PodSpec",
    "PodStatus",
    "PreferredSchedulingTerm",
    "PriorityClass",
    "Quantity",
    "QuantityError",
    "ResourceList",
    "ResourceRequirements",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "Unstructured",
    "WeightedPodAffinityTerm",
    "pod_priority",
    "pod_uid",
]
