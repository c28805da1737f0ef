"""The registered names of the plugins, exactly as Kubernetes spells them.

Configuration refers to plugins by these strings, and they appear in
``FailedScheduling`` diagnostics and in the queue's bookkeeping of which
plugin rejected a pod; a learner can search for any of them in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/names/names.go``
(in-tree) or in ``kubernetes-sigs/scheduler-plugins`` (out-of-tree).
"""

from __future__ import annotations

# In-tree (kubernetes/kubernetes, v1.33).
PRIORITY_SORT = "PrioritySort"
DEFAULT_BINDER = "DefaultBinder"
DEFAULT_PREEMPTION = "DefaultPreemption"
DYNAMIC_RESOURCES = "DynamicResources"
GANG_SCHEDULING = "GangScheduling"  # v1.35+, gate GangScheduling (KEP-4671)
IMAGE_LOCALITY = "ImageLocality"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_AFFINITY = "NodeAffinity"
NODE_NAME = "NodeName"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT = "NodeResourcesFit"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
SCHEDULING_GATES = "SchedulingGates"
TAINT_TOLERATION = "TaintToleration"
VOLUME_BINDING = "VolumeBinding"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
VOLUME_ZONE = "VolumeZone"

# Out-of-tree (kubernetes-sigs/scheduler-plugins).
QOS_SORT = "QOSSort"
COSCHEDULING = "Coscheduling"
