"""VolumeBinding: a pod's claims must be bound, or bindable, to volumes its node can use.

Of a pod's PersistentVolumeClaims, the **bound** ones must have a volume
whose node affinity the node satisfies. The **unbound** ones of a
``WaitForFirstConsumer`` class are the scheduler's to decide, node by node:
a matching Available volume the node can use (the smallest that fits:
a *static binding*), or else their class must be able to provision one
there (its provisioner, its ``allowedTopologies``, and — for a CSI driver
that publishes capacity — a CSIStorageCapacity with room, on a segment the
node is in: a *dynamic provisioning*). Unbound claims of an ``Immediate``
class are the PV controller's; a pod with one waits (unresolvable) until it
is bound.

The extension points, as in kube:

* **PreFilter** reads the claims: ``Skip`` for a pod without any (the
  common case; nothing else runs), unresolvable for a claim that does not
  exist, is being deleted or lost its volume, or an unbound ``Immediate``
  one. Bound claims on volumes pinned by ``kubernetes.io/hostname`` (local
  volumes) narrow the nodes to theirs (a PreFilterResult).
* **Filter** decides per node (:meth:`VolumeBinder.find_pod_volumes`), with
  the reasons of :data:`REASONS`, all unresolvable.
* **Reserve** assumes the node's decision in the binder's cache (a volume
  taken, a claim's selected node), so the next pod does not take the same
  volume; **Unreserve** forgets it.
* **PreBind** writes it to the API server — the volume's ``claimRef``, or
  the claim's ``volume.kubernetes.io/selected-node`` annotation — and
  waits, on the scheduler's clock, until the PV controller has bound every
  claim (:mod:`framework.apiserver.pv_controller` does so at once), a
  check fails (a provisioner gave up, a volume lost its ``claimRef``, the
  pod is gone), or ``bindTimeoutSeconds`` (VolumeBindingArgs, 600 by
  default) pass: then the attempt fails with ``binding volumes: context
  deadline exceeded`` and the pod is tried again.
* **PreScore/Score** score by the capacity of the volumes chosen only with
  the ``StorageCapacityScoring`` gate, alpha and off in v1.33: PreScore
  returns ``Skip``.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/volumebinding/``
``volume_binding.go`` and ``binder.go`` (``GetPodVolumeClaims``,
``GetEligibleNodes``, ``FindPodVolumes``, ``AssumePodVolumes``,
``BindPodVolumes``, ``RevertAssumedPodVolumes``) and ``assume_cache.go``
(v1.33). Simplified: in-tree volumes are not translated to CSI for their
node affinity (VolumeZone checks their zone labels); PreBind checks the
bindings at once, then every second (kube's first check comes after a
second, ``checkBindings`` in ``binder.go``, and skips objects older than
its writes, which an in-process server never returns);
``VolumeAttributesClass`` is not compared; the capacity
score (gate off) is not implemented.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from framework.apiserver.errors import APIError, NotFound, resource_for
from framework.clock import Clock, RealClock
from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.cycle_state import CycleState
from framework.cycle_state import NotFound as StateNotFound
from framework.interface import PreFilterResult, SignFragment
from framework.node_info import NodeInfo
from framework.objects import Node, ObjectReference, Pod
from framework.objects.labels import SelectorError, label_selector_as_selector
from framework.objects.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    CSIDriver,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    claim_class,
    pod_volumes,
    volume_class,
)
from framework.objects.volume_helpers import (
    NOT_SUPPORTED_PROVISIONER,
    check_node_affinity,
    find_matching_volume,
    match_topology_selector_terms,
    requested_storage,
)
from framework.plugins import names
from framework.plugins.listers import ClientListers, listers_of
from framework.runtime import signature as sig
from framework.status import Status

__all__ = [
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "NAME",
    "REASONS",
    "BindingInfo",
    "PodVolumeClaims",
    "PodVolumes",
    "VolumeBinder",
    "VolumeBinding",
    "new",
]

NAME = names.VOLUME_BINDING
STATE_KEY = NAME
HOSTNAME = "kubernetes.io/hostname"

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)
REASONS = (
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
)
"""Filter's reasons, in the order kube appends them."""
MSG_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

_T = TypeVar("_T", PersistentVolume, PersistentVolumeClaim)


@dataclass(frozen=True, slots=True)
class BindingInfo:
    """A static binding: this volume for this claim."""

    pv: PersistentVolume
    pvc: PersistentVolumeClaim


@dataclass(slots=True)
class PodVolumes:
    """What one node needs done for the pod: volumes to bind, claims to provision."""

    static_bindings: list[BindingInfo] = field(default_factory=list)
    dynamic_provisions: list[PersistentVolumeClaim] = field(default_factory=list)


@dataclass(slots=True)
class PodVolumeClaims:
    """The pod's claims, sorted (``PodVolumeClaims``)."""

    bound_claims: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_delay_binding: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_volumes_delay_binding: dict[str, list[PersistentVolume]] = field(default_factory=dict)


@dataclass(slots=True)
class _StateData:
    """PreFilter's claims, Filter's decision per node, Reserve's ``all_bound``."""

    pod_volume_claims: PodVolumeClaims | None = None
    pod_volumes_by_node: dict[str, PodVolumes] = field(default_factory=dict)
    all_bound: bool = False
    has_static_bindings: bool = False

    def clone(self) -> _StateData:
        return self  # written in Filter and Reserve, read after: shared, as in kube


class _AssumeCache:
    """The binder's view of volumes and claims: the API server's, overlaid by what it assumed.

    An assumed object is dropped as soon as the server holds a newer
    version of it (the write it stood for, or anyone's), as the informer's
    update replaces it in kube's ``AssumeCache``.
    """

    def __init__(self, listers: Callable[[], ClientListers]) -> None:
        self._listers = listers
        self.pvs: dict[str, tuple[str, PersistentVolume]] = {}
        self.pvcs: dict[str, tuple[str, PersistentVolumeClaim]] = {}

    def _fresh_pv(self, stored: PersistentVolume | None) -> PersistentVolume | None:
        if stored is None:
            return None
        assumed = self.pvs.get(stored.metadata.name)
        if assumed is None:
            return stored
        base, volume = assumed
        if stored.metadata.resource_version != base:
            self.pvs.pop(stored.metadata.name, None)  # a binding cycle may drop it meanwhile
            return stored
        return volume

    def get_pv(self, name: str) -> PersistentVolume | None:
        return self._fresh_pv(self._listers().get(PersistentVolume, name))

    def list_pvs(self, storage_class: str) -> list[PersistentVolume]:
        volumes = (self._fresh_pv(v) for v in self._listers().list(PersistentVolume))
        return [v for v in volumes if v is not None and volume_class(v) == storage_class]

    def get_pvc(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        stored = self._listers().get(PersistentVolumeClaim, name, namespace)
        key = f"{namespace}/{name}"
        assumed = self.pvcs.get(key)
        if stored is None or assumed is None:
            return stored
        base, claim = assumed
        if stored.metadata.resource_version != base:
            self.pvcs.pop(key, None)
            return stored
        return claim

    def assume_pv(self, volume: PersistentVolume, base: str) -> None:
        self.pvs[volume.metadata.name] = (base, volume)

    def assume_pvc(self, claim: PersistentVolumeClaim, base: str) -> None:
        self.pvcs[f"{claim.metadata.namespace}/{claim.metadata.name}"] = (base, claim)

    def restore_pv(self, name: str) -> None:
        self.pvs.pop(name, None)

    def restore_pvc(self, namespace: str, name: str) -> None:
        self.pvcs.pop(f"{namespace}/{name}", None)


def _is_fully_bound(claim: PersistentVolumeClaim) -> bool:
    return bool(claim.spec.volume_name) and ANN_BIND_COMPLETED in claim.metadata.annotations


def local_volume_node_names(volume: PersistentVolume) -> set[str]:
    """Nodes a volume's affinity names by hostname (``GetLocalPersistentVolumeNodeNames``)."""
    affinity = volume.spec.node_affinity
    if affinity is None or affinity.required is None:
        return set()
    result: set[str] = set()
    for term in affinity.required.node_selector_terms:
        nodes: set[str] | None = None
        for expression in term.match_expressions:
            if expression.key == HOSTNAME and expression.operator == "In":
                values = set(expression.values)
                nodes = values if nodes is None else nodes & values
        result |= nodes or set()
    return result


class VolumeBinder:
    """The scheduler's volume binder (``volumeBinder``): decides, assumes and binds."""

    def __init__(self, handle: Any = None) -> None:
        self._handle = handle
        self.cache = _AssumeCache(self.listers)
        #: What the last PreBind wrote through the API server (volumes, then claims).
        self.writes: list[PersistentVolume | PersistentVolumeClaim] = []

    def listers(self) -> ClientListers:
        return listers_of(self._handle)

    # --- PreFilter -------------------------------------------------------------------------------

    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        """The pod's claims, bound, delayed or immediate (``GetPodVolumeClaims``); raises ValueError."""
        claims = PodVolumeClaims()
        for volume in pod_volumes(pod):
            name = volume.claim_name(pod)
            if name is None:
                continue
            claim = self.cache.get_pvc(pod.metadata.namespace, name)
            if claim is None:
                key = f"{pod.metadata.namespace}/{name}"
                raise ValueError(
                    f'error getting PVC "{key}": could not find v1.PersistentVolumeClaim "{key}"'
                )
            if _is_fully_bound(claim):
                claims.bound_claims.append(claim)
            elif self._is_delay_binding(claim) and not claim.spec.volume_name:
                claims.unbound_claims_delay_binding.append(claim)
            else:
                claims.unbound_claims_immediate.append(claim)
        for claim in claims.unbound_claims_delay_binding:
            class_name = claim_class(claim)
            claims.unbound_volumes_delay_binding[class_name] = self.cache.list_pvs(class_name)
        return claims

    def _is_delay_binding(self, claim: PersistentVolumeClaim) -> bool:
        """``IsDelayBindingMode``: the claim's class waits for the first consumer."""
        class_name = claim_class(claim)
        if not class_name:
            return False
        cls = self.listers().get(StorageClass, class_name)
        if cls is None:
            return False
        if cls.volume_binding_mode is None:
            raise ValueError(f"VolumeBindingMode not set for StorageClass {class_name!r}")
        return cls.volume_binding_mode == "WaitForFirstConsumer"

    def get_eligible_nodes(
        self, bound_claims: list[PersistentVolumeClaim]
    ) -> frozenset[str] | None:
        """The nodes local volumes of bound claims allow (``GetEligibleNodes``); None: all."""
        eligible: set[str] | None = None
        for claim in bound_claims:
            volume = self.cache.get_pv(claim.spec.volume_name)
            if volume is None:
                return None
            nodes = local_volume_node_names(volume)
            if nodes:
                eligible = set(nodes) if eligible is None else eligible & nodes
        return frozenset(eligible) if eligible is not None else None

    # --- Filter ----------------------------------------------------------------------------------

    def find_pod_volumes(
        self, pod: Pod, claims: PodVolumeClaims, node: Node
    ) -> tuple[PodVolumes, list[str]]:
        """What ``node`` needs done, and the reasons it cannot (``FindPodVolumes``); raises ValueError."""
        pod_volumes_ = PodVolumes()
        bound_satisfied = unbound_satisfied = sufficient_storage = pvs_found = True
        if claims.bound_claims:
            bound_satisfied, pvs_found = self._check_bound_claims(claims.bound_claims, node)
        if claims.unbound_claims_delay_binding:
            to_match: list[PersistentVolumeClaim] = []
            to_provision: list[PersistentVolumeClaim] = []
            for claim in claims.unbound_claims_delay_binding:
                selected = claim.metadata.annotations.get(ANN_SELECTED_NODE)
                if selected is not None:
                    if selected != node.metadata.name:
                        unbound_satisfied = False
                        return pod_volumes_, _reasons(
                            bound_satisfied, unbound_satisfied, sufficient_storage, pvs_found
                        )
                    to_provision.append(claim)
                else:
                    to_match.append(claim)
            if to_match:
                unbound_satisfied, pod_volumes_.static_bindings, unmatched = (
                    self._find_matching_volumes(
                        to_match, claims.unbound_volumes_delay_binding, node
                    )
                )
                to_provision += unmatched
            if to_provision:
                unbound_satisfied, sufficient_storage, pod_volumes_.dynamic_provisions = (
                    self._check_volume_provisions(to_provision, node)
                )
        return pod_volumes_, _reasons(
            bound_satisfied, unbound_satisfied, sufficient_storage, pvs_found
        )

    def _check_bound_claims(
        self, claims: list[PersistentVolumeClaim], node: Node
    ) -> tuple[bool, bool]:
        """(node affinity satisfied, every volume found) (``checkBoundClaims``)."""
        for claim in claims:
            volume = self.cache.get_pv(claim.spec.volume_name)
            if volume is None:
                return True, False
            if not check_node_affinity(volume, node.metadata.labels):
                return False, True
        return True, True

    def _find_matching_volumes(
        self,
        claims: list[PersistentVolumeClaim],
        volumes: Mapping[str, list[PersistentVolume]],
        node: Node,
    ) -> tuple[bool, list[BindingInfo], list[PersistentVolumeClaim]]:
        """Smallest claims first, each the smallest volume left (``findMatchingVolumes``)."""
        chosen: dict[str, PersistentVolume] = {}
        bindings: list[BindingInfo] = []
        unmatched: list[PersistentVolumeClaim] = []
        found_matches = True
        for claim in sorted(claims, key=requested_storage):
            try:
                match = find_matching_volume(
                    claim, volumes.get(claim_class(claim), []), node, chosen, delay_binding=True
                )
            except SelectorError as error:
                raise ValueError(
                    f"error creating internal label selector for claim: "
                    f"{claim.metadata.namespace}/{claim.metadata.name}: {error}"
                ) from None
            if match is None:
                unmatched.append(claim)
                found_matches = False
                continue
            chosen[match.metadata.name] = match
            bindings.append(BindingInfo(match, claim))
        return found_matches, bindings, unmatched

    def _check_volume_provisions(
        self, claims: list[PersistentVolumeClaim], node: Node
    ) -> tuple[bool, bool, list[PersistentVolumeClaim]]:
        """(provisionable here, enough capacity, the claims) (``checkVolumeProvisions``)."""
        provisions: list[PersistentVolumeClaim] = []
        for claim in claims:
            key = f"{claim.metadata.namespace}/{claim.metadata.name}"
            class_name = claim_class(claim)
            if not class_name:
                raise ValueError(f'no class for claim "{key}"')
            cls = self.listers().get(StorageClass, class_name)
            if cls is None:
                raise ValueError(f'failed to find storage class "{class_name}"')
            if cls.provisioner in ("", NOT_SUPPORTED_PROVISIONER):
                return False, True, []
            if not match_topology_selector_terms(cls.allowed_topologies, node.metadata.labels):
                return False, True, []
            if not self._has_enough_capacity(cls, claim, node):
                return True, False, []
            provisions.append(claim)
        return True, True, provisions

    def _has_enough_capacity(
        self, cls: StorageClass, claim: PersistentVolumeClaim, node: Node
    ) -> bool:
        """A CSIStorageCapacity of the class, with room, on a segment the node is in (``hasEnoughCapacity``)."""
        if "storage" not in claim.spec.resources.requests:
            return True
        listers = self.listers()
        driver = listers.get(CSIDriver, cls.provisioner)
        if driver is None or not driver.spec.storage_capacity:
            return True  # not a CSI driver, or one that does not publish capacity
        size = requested_storage(claim)
        for capacity in listers.list(CSIStorageCapacity):
            if (
                capacity.storage_class_name == cls.metadata.name
                and _capacity_sufficient(capacity, size)
                and _node_has_access(node, capacity)
            ):
                return True
        return False

    # --- Reserve, PreBind, Unreserve ----------------------------------------------------------

    def assume_pod_volumes(self, pod: Pod, node_name: str, volumes: PodVolumes) -> bool:
        """Record the node's decision in the cache; True when every claim was bound already."""
        if self._all_bound(pod):
            return True
        bindings = []
        for binding in volumes.static_bindings:
            bound, dirty = _bind_volume_to_claim(binding.pv, binding.pvc)
            if dirty:
                self.cache.assume_pv(bound, binding.pv.metadata.resource_version)
            bindings.append(BindingInfo(bound, binding.pvc))
        provisions = []
        for claim in volumes.dynamic_provisions:
            annotations = {**claim.metadata.annotations, ANN_SELECTED_NODE: node_name}
            assumed = claim.with_metadata(annotations=annotations)
            self.cache.assume_pvc(assumed, claim.metadata.resource_version)
            provisions.append(assumed)
        volumes.static_bindings = bindings
        volumes.dynamic_provisions = provisions
        return False

    def _all_bound(self, pod: Pod) -> bool:
        for volume in pod_volumes(pod):
            name = volume.claim_name(pod)
            if name is None:
                continue
            claim = self.cache.get_pvc(pod.metadata.namespace, name)
            if claim is None or not _is_fully_bound(claim):
                return False
        return True

    def revert_assumed_pod_volumes(self, volumes: PodVolumes) -> None:
        for binding in volumes.static_bindings:
            self.cache.restore_pv(binding.pv.metadata.name)
        for claim in volumes.dynamic_provisions:
            self.cache.restore_pvc(claim.metadata.namespace, claim.metadata.name)

    def bind_pod_volumes(
        self, pod: Pod, node_name: str, volumes: PodVolumes, clock: Clock, timeout: float
    ) -> None:
        """Write the decision, then wait for the claims to be bound (``BindPodVolumes``).

        Polls :meth:`check_bindings` every second of ``clock`` for at most
        ``timeout`` seconds (``bindTimeoutSeconds``); raises ValueError (or
        the API server's error) when a write fails, a check fails, or time
        runs out.
        """
        client = self._handle.client() if self._handle is not None else None
        if client is None:
            raise ValueError("binding volumes: no API server to write to")
        self.writes = [b.pv for b in volumes.static_bindings] + list(volumes.dynamic_provisions)
        for written in self.writes:
            client.update(written)
        for binding in volumes.static_bindings:
            self.cache.restore_pv(binding.pv.metadata.name)
        for claim in volumes.dynamic_provisions:
            self.cache.restore_pvc(claim.metadata.namespace, claim.metadata.name)
        # kube's first check comes a second after the writes (immediate=false); ours comes at
        # once, since the fake API server's PV controller binds as the write commits.
        deadline = clock.now() + timeout
        while not self._checked(pod, node_name, volumes):
            if clock.now() >= deadline:
                raise ValueError("binding volumes: context deadline exceeded")
            clock.sleep(min(1.0, deadline - clock.now()))
            if clock.now() >= deadline:  # the deadline wins over the tick that falls on it
                raise ValueError("binding volumes: context deadline exceeded")

    def _checked(self, pod: Pod, node_name: str, volumes: PodVolumes) -> bool:
        try:
            return self.check_bindings(pod, node_name, volumes)
        except ValueError as error:
            raise ValueError(f"binding volumes: {error}") from error

    def check_bindings(self, pod: Pod, node_name: str, volumes: PodVolumes) -> bool:
        """True when every claim PreBind wrote for is bound; raises ValueError to retry the pod.

        ``checkBindings``: it reads the API server's objects, not the assume
        cache, which the scheduling thread may have assumed again.
        """
        listers = self.listers()
        node = listers.get(Node, node_name)
        if node is None:
            raise ValueError(
                f'failed to get node "{node_name}": {NotFound(resource_for(Node), node_name)}'
            )
        namespace, name = pod.metadata.namespace, pod.metadata.name
        if listers.get(Pod, name, namespace) is None:
            raise ValueError(f"pod does not exist any more: {NotFound(resource_for(Pod), name)}")
        for binding in volumes.static_bindings:
            volume = self._api_object(PersistentVolume, binding.pv.metadata.name, None, "binding")
            claim = self._api_object(
                PersistentVolumeClaim,
                binding.pvc.metadata.name,
                binding.pvc.metadata.namespace,
                "binding",
            )
            _check_node_affinity(volume, node)
            ref = volume.spec.claim_ref
            if ref is None or not ref.uid:
                raise ValueError(f'ClaimRef got reset for pv "{volume.metadata.name}"')
            if not _is_fully_bound(claim):
                return False
        for provision in volumes.dynamic_provisions:
            claim = self._api_object(
                PersistentVolumeClaim,
                provision.metadata.name,
                provision.metadata.namespace,
                "provisioning pvc",
            )
            annotations = claim.metadata.annotations
            if not annotations:
                raise ValueError(f'selectedNode annotation reset for PVC "{claim.metadata.name}"')
            if annotations.get(ANN_SELECTED_NODE) != node_name:
                # A provisioner that failed removes the annotation: the scheduler tries again.
                raise ValueError(f'provisioning failed for PVC "{claim.metadata.name}"')
            if claim.spec.volume_name:
                volume_ = listers.get(PersistentVolume, claim.spec.volume_name)
                if volume_ is None:
                    return False  # not seen yet; or deleted, and the claim will be unbound
                _check_node_affinity(volume_, node)
            if not _is_fully_bound(claim):
                return False
        return True

    def _api_object(self, kind: type[_T], name: str, namespace: str | None, what: str) -> _T:
        found = self.listers().get(kind, name, namespace)
        if found is None:
            raise ValueError(f"failed to check {what}: {NotFound(resource_for(kind), name)}")
        return found


def _check_node_affinity(volume: PersistentVolume, node: Node) -> None:
    if not check_node_affinity(volume, node.metadata.labels):
        raise ValueError(
            f'pv "{volume.metadata.name}" node affinity doesn\'t match node '
            f'"{node.metadata.name}": no matching NodeSelectorTerms'
        )


def _reasons(bound: bool, unbound: bool, storage: bool, found: bool) -> list[str]:
    reasons = []
    if not bound:
        reasons.append(ERR_REASON_NODE_CONFLICT)
    if not unbound:
        reasons.append(ERR_REASON_BIND_CONFLICT)
    if not storage:
        reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
    if not found:
        reasons.append(ERR_REASON_PV_NOT_EXIST)
    return reasons


def _capacity_sufficient(capacity: CSIStorageCapacity, size: int) -> bool:
    limit = capacity.maximum_volume_size or capacity.capacity
    return limit is not None and limit.units >= size


def _node_has_access(node: Node, capacity: CSIStorageCapacity) -> bool:
    if capacity.node_topology is None:
        return False
    try:
        return label_selector_as_selector(capacity.node_topology).matches(node.metadata.labels)
    except SelectorError:
        return False


def _bind_volume_to_claim(
    volume: PersistentVolume, claim: PersistentVolumeClaim
) -> tuple[PersistentVolume, bool]:
    """The volume with its ``claimRef`` set to the claim (``GetBindVolumeToClaim``), and whether it changed."""
    ref = volume.spec.claim_ref
    if (
        ref is not None
        and ref.name == claim.metadata.name
        and ref.namespace == claim.metadata.namespace
        and ref.uid == claim.metadata.uid
    ):
        return volume, False
    annotations = dict(volume.metadata.annotations)
    if ref is None:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    new_ref = ObjectReference(
        kind="PersistentVolumeClaim",
        api_version="v1",
        namespace=claim.metadata.namespace,
        name=claim.metadata.name,
        uid=claim.metadata.uid,
        resource_version=claim.metadata.resource_version,
    )
    spec = dataclasses.replace(volume.spec, claim_ref=new_ref)
    return dataclasses.replace(volume, spec=spec).with_metadata(annotations=annotations), True


class VolumeBinding:
    """PreFilter, Filter, PreScore/Score, Reserve/Unreserve, PreBind; see the module docstring."""

    def __init__(self, handle: Any = None, args: Any = None) -> None:
        self._handle = handle
        self.binder = VolumeBinder(handle)
        self.bind_timeout_seconds = 600
        if isinstance(args, Mapping) and args.get("bindTimeoutSeconds") is not None:
            self.bind_timeout_seconds = int(args["bindTimeoutSeconds"])

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """Feasibility depends on the pod's volumes but ConfigMaps and Secrets (Go, v1.35)."""
        return [SignFragment(sig.VOLUMES_SIGNER_NAME, sig.volumes_signer(pod))], None

    def _pod_has_pvcs(self, pod: Pod) -> tuple[bool, str | None]:
        """Whether the pod uses claims, and the error that stops it (``podHasPVCs``)."""
        has = False
        listers = self.binder.listers()
        for volume in pod_volumes(pod):
            name = volume.claim_name(pod)
            if name is None:
                continue
            has = True
            claim = listers.get(PersistentVolumeClaim, name, pod.metadata.namespace)
            if claim is None:
                if volume.ephemeral is not None:
                    return has, (
                        "waiting for ephemeral volume controller to create the "
                        f'persistentvolumeclaim "{name}"'
                    )
                return has, str(NotFound(resource_for(PersistentVolumeClaim), name))
            if claim.status.phase == "Lost":
                return has, (
                    f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume '
                    f'"{claim.spec.volume_name}"'
                )
            if claim.metadata.deletion_timestamp:
                return has, f'persistentvolumeclaim "{name}" is being deleted'
        return has, None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not pod_volumes(pod):
            state.write(STATE_KEY, _StateData())
            return None, Status.skip()
        has, error = self._pod_has_pvcs(pod)
        if error is not None:
            return None, Status.unresolvable(error)
        if not has:
            state.write(STATE_KEY, _StateData())
            return None, Status.skip()
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except ValueError as failure:
            return None, Status.as_error(failure)
        if claims.unbound_claims_immediate:
            return None, Status.unresolvable(MSG_UNBOUND_IMMEDIATE)
        eligible = self.binder.get_eligible_nodes(claims.bound_claims)
        state.write(STATE_KEY, _StateData(pod_volume_claims=claims))
        return (PreFilterResult(eligible) if eligible is not None else None), None

    def pre_filter_extensions(self) -> None:
        return None

    def _state(self, state: CycleState) -> _StateData | Status:
        try:
            return state.read_as(STATE_KEY, _StateData)
        except StateNotFound as error:
            # Go's getStateData hands CycleState.Read's error back unwrapped: "not found".
            return Status.as_error(error)
        except TypeError:
            return Status.as_error(ValueError("unable to convert state into stateData"))

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        data = self._state(state)
        if isinstance(data, Status):
            return data
        node = node_info.node
        if data.pod_volume_claims is None or node is None:
            return None
        try:
            volumes, reasons = self.binder.find_pod_volumes(pod, data.pod_volume_claims, node)
        except ValueError as error:
            return Status.as_error(error)
        if reasons:
            return Status.unresolvable(*reasons)
        data.pod_volumes_by_node[node.metadata.name] = volumes
        data.has_static_bindings = data.has_static_bindings or bool(volumes.static_bindings)
        return None

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        return Status.skip()  # StorageCapacityScoring is alpha and off in v1.33: no scorer

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return 0, None

    def score_extensions(self) -> None:
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = self._state(state)
        if isinstance(data, Status):
            return data
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is None:
            data.all_bound = True  # no claim, or none decided for this node
            return None
        data.all_bound = self.binder.assume_pod_volumes(pod, node_name, volumes)
        return None

    def pre_bind_needed(self, pod: Pod) -> bool:
        """Whether PreBind may write for this pod: only if it uses claims (else it returns at once).

        Not a kube extension point: the scheduler asks it to bind a pod on the
        scheduling thread when no PreBind plugin has anything to wait for.
        """
        return any(volume.claim_name(pod) is not None for volume in pod_volumes(pod))

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Skip when every claim is already bound (PreBind has nothing to write), else Success.

        ``PreBindPreFlight`` (v1.34): the scheduler asks it before the binding
        cycle to learn whether binding will take time
        (``NominatedNodeNameForExpectation``).
        """
        data = self._state(state)
        if isinstance(data, Status):
            return data
        if data.all_bound:
            return Status.skip()
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = self._state(state)
        if isinstance(data, Status):
            return data
        if data.all_bound:
            return None
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is None:
            return Status.as_error(ValueError(f'no pod volumes found for node "{node_name}"'))
        clock = getattr(self._handle, "clock", None)
        try:
            self.binder.bind_pod_volumes(
                pod,
                node_name,
                volumes,
                clock() if clock is not None else RealClock(),
                self.bind_timeout_seconds,
            )
        except (APIError, ValueError) as error:
            return Status.as_error(error)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        data = self._state(state)
        if isinstance(data, Status):
            return
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is not None:
            self.binder.revert_assumed_pod_volumes(volumes)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Classes, claims and volumes added or updated, nodes added or relabelled, CSINodes."""
        update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, update)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, update)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, update)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, update)),
        ]


def new(args: Any, handle: Any) -> VolumeBinding:
    """The factory the registry calls, with the profile's ``VolumeBindingArgs``."""
    return VolumeBinding(handle, args)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = VolumeBinding
    _filter: type[interface.FilterPlugin] = VolumeBinding
    _pre_score: type[interface.PreScorePlugin] = VolumeBinding
    _score: type[interface.ScorePlugin] = VolumeBinding
    _reserve: type[interface.ReservePlugin] = VolumeBinding
    _pre_bind: type[interface.PreBindPlugin] = VolumeBinding
    _enqueue_extensions: type[interface.EnqueueExtensions] = VolumeBinding
