"""Pod scheduling signatures: which parts of a pod its placement depends on (KEP-5598).

Two pods with the same **signature** get the same Filter verdicts and the
same scores on the same nodes in the same state, so the scheduler may reuse
one's node list for the other (:mod:`framework.runtime.batch`). Each Filter
and Score plugin that can tell which pod fields it reads implements
``sign_pod`` (:class:`~framework.interface.SignPlugin`) and returns
**fragments**, ``(key, value)`` pairs under the shared signer names below;
two plugins reading the same fields (Fit and BalancedAllocation both read
the requests) write the same key with the same value. A plugin whose answer
depends on more than the pod and one node (InterPodAffinity with affinity
terms, PodTopologySpread with constraints) says the pod is *unsignable*; so
does a profile with a plugin that has no ``sign_pod`` at all.

:meth:`Framework.sign_pod <framework.runtime.framework.Framework.sign_pod>`
joins the fragments, with the pod's ``schedulerName``, into one JSON text:
the signature. ``None`` means unsignable.

Mirrors the signer names and common signers of
``kubernetes/kubernetes:staging/src/k8s.io/kube-scheduler/framework/signers.go``
(read at v1.35, the release that made ``OpportunisticBatching`` beta), and
``SignFragment``. Values are JSON-encoded with sorted keys, where Go marshals
its own structs; only equality between two signatures in one run matters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from framework.interface import SignFragment
from framework.objects import Pod
from framework.objects.pod import NodeSelectorRequirement, NodeSelectorTerm
from framework.objects.resources import pod_requests

__all__ = [
    "FEATURES_SIGNER_NAME",
    "HOST_PORTS_SIGNER_NAME",
    "IMAGE_NAMES_SIGNER_NAME",
    "LABELS_SIGNER_NAME",
    "NODE_AFFINITY_SIGNER_NAME",
    "NODE_NAME_SIGNER_NAME",
    "NODE_SELECTOR_SIGNER_NAME",
    "RESOURCES_SIGNER_NAME",
    "SCHEDULER_NAME_SIGNER_NAME",
    "TOLERATIONS_SIGNER_NAME",
    "VOLUMES_SIGNER_NAME",
    "SignFragment",
    "canonical",
    "host_ports_signer",
    "node_affinity_signer",
    "resources_signer",
    "tolerations_signer",
    "volumes_signer",
]

# The signer names, exactly Go's (signers.go): a fragment's key.
IMAGE_NAMES_SIGNER_NAME = "v1.Pod.Spec.CanonicalImageNames()"
LABELS_SIGNER_NAME = "v1.Pod.Labels"
NODE_NAME_SIGNER_NAME = "v1.Pod.Spec.NodeName"
NODE_AFFINITY_SIGNER_NAME = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR_SIGNER_NAME = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS_SIGNER_NAME = "v1.Pod.Spec.HostPorts()"
RESOURCES_SIGNER_NAME = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME_SIGNER_NAME = "v1.Pod.Spec.SchedulerName"
TOLERATIONS_SIGNER_NAME = "v1.Pod.Spec.Tolerations"
VOLUMES_SIGNER_NAME = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
FEATURES_SIGNER_NAME = "v1.Pod.Spec.RequiredFeatures()"


def canonical(value: Any) -> str:
    """``value`` as JSON with sorted keys: equal values, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def host_ports_signer(pod: Pod) -> list[int]:
    """The host ports of every container and init container, each once, ascending."""
    ports = {
        port.host_port
        for container in (*pod.spec.containers, *pod.spec.init_containers)
        for port in container.ports
        if port.host_port != 0
    }
    return sorted(ports)


def _requirements_signer(requirements: Iterable[NodeSelectorRequirement]) -> list[str]:
    # Go sorts each requirement's values, then the requirements: their order means nothing.
    signed = []
    for requirement in requirements:
        data = requirement.to_dict()
        data["values"] = sorted(requirement.values)
        signed.append(canonical(data))
    return sorted(signed)


def _term_signer(term: NodeSelectorTerm) -> dict[str, list[str]]:
    return {
        "MatchExpressions": _requirements_signer(term.match_expressions),
        "MatchFields": _requirements_signer(term.match_fields),
    }


def node_affinity_signer(pod: Pod) -> dict[str, list[str]] | None:
    """The pod's node affinity with every list sorted (``NodeAffinitySigner``); None without any."""
    affinity = pod.spec.affinity
    if affinity is None or affinity.node_affinity is None:
        return None
    node_affinity = affinity.node_affinity
    preferred = sorted(
        canonical({"Weight": term.weight, "Preference": _term_signer(term.preference)})
        for term in node_affinity.preferred_during_scheduling_ignored_during_execution
    )
    required_selector = node_affinity.required_during_scheduling_ignored_during_execution
    required = (
        sorted(canonical(_term_signer(t)) for t in required_selector.node_selector_terms)
        if required_selector is not None
        else []
    )
    return {"Required": required, "Preferred": preferred}


def tolerations_signer(pod: Pod) -> list[dict[str, Any]]:
    """The pod's tolerations, sorted by key then value (``TolerationsSigner``)."""
    ordered = sorted(pod.spec.tolerations, key=lambda t: (t.key, t.value))
    return [t.to_dict() for t in ordered]


def volumes_signer(pod: Pod) -> list[str]:
    """The pod's volume sources, sorted, leaving out ConfigMap and Secret volumes.

    Those two never change where a pod fits, and are named after each pod
    often enough that keeping them would give no two pods one signature
    (Go's comment on ``VolumesSigner``). The volume's name is left out too:
    Go signs ``VolumeSource`` only.
    """
    signed = []
    for volume in pod.spec.extra.get("volumes") or ():
        if not isinstance(volume, dict):
            continue
        if "configMap" in volume or "secret" in volume:
            continue
        source = {k: v for k, v in volume.items() if k != "name"}
        signed.append(canonical(source))
    return sorted(signed)


def resources_signer(pod: Pod, *, pod_level_resources: bool = True) -> dict[str, int]:
    """The pod's effective requests, overhead included (``computePodResourceRequest``).

    ``pod_level_resources`` is the signing plugin's ``PodLevelResources``:
    the signature holds what the plugin will compare.
    """
    return dict(
        sorted(pod_requests(pod, skip_pod_level_resources=not pod_level_resources).items())
    )
