"""DynamicResources: a pod's ResourceClaims must be allocated, or allocatable, on the node.

A pod lists its claims in ``spec.resourceClaims``. The plugin, as kube's:

* **PreEnqueue** keeps the pod out of the active queue until every claim
  exists (a template's claim is made by the resourceclaim controller and
  named in the pod's status), is not being deleted, and — for a generated
  one — belongs to the pod. Each failure is kube's message, unresolvable.
* **PreFilter** reads the claims: ``Skip`` for a pod without any (the
  common case: nothing else runs). An allocated claim that cannot take
  another consumer fails with ``resourceclaim in use``; an allocated one
  keeps its node selector for Filter. For the unallocated ones, every
  request's DeviceClass must exist (else ``request <r>: device class <c>
  does not exist``), no allocation of them may be in flight, and an
  :class:`~.structured.Allocator` is set up with the devices all other
  claims hold, in flight ones included.
* **Filter** per node: an allocated claim's node selector must match (else
  ``resourceclaim not available on the node``), and the allocator must
  satisfy every unallocated claim there (else ``cannot allocate all
  claims``); an error in a claim or class (a bad CEL selector) is an error
  status. The node's allocations are kept for Reserve.
* **PostFilter**, when no node passed, deallocates one claim allocated where
  the pod could not go and used by no other pod, so that the next attempt
  allocates it afresh (``deallocation of ResourceClaim completed``).
* **Score** (from v1.35, kubernetes#134711) ranks the nodes that passed by
  the ``firstAvailable`` alternatives their allocations take: 8 for a
  request's first choice, 7 for its second... (``compute_score``);
  **NormalizeScore** is ``DefaultNormalizeScore``. A pod without claims
  scores 0 everywhere. It follows the later code: off with
  ``DRAPrioritizedList``, and an allocated claim counts its own allocation
  (v1.35 itself indexed the node's allocations by the claim's position).
* **Reserve** takes the chosen node's allocations *in flight*
  (``SignalClaimPendingAllocation``): the next pod's PreFilter counts those
  devices as taken, so two pods never get the same device; **Unreserve**
  gives them back and takes the pod out of ``reservedFor``.
* **PreBind** writes each claim through the API server's status: the
  finalizer, the allocation, and the pod in ``status.reservedFor``; then the
  in-flight entry goes, the API server now holding it.

All the Unschedulable statuses are ``UnschedulableAndUnresolvable``, as
kube's ``statusUnschedulable`` makes them: preemption cannot free a device.

**Extended resources backed by DRA** (``DRAExtendedResource``: alpha in
v1.34, beta and on in v1.36, GA and locked in v1.37): a pod asking for an
extended resource that a DeviceClass serves (``spec.extendedResourceName``,
or the implicit ``deviceclass.resource.kubernetes.io/<class>``) gets a
*special claim*. PreFilter starts it in memory (named
``<extended-resources>``, no requests), or finds the one a previous cycle
created (annotated ``resource.kubernetes.io/extended-resource-claim``, owned
by the pod). Filter gives it, per node, a request per container and
resource the node does not advertise in ``allocatable`` (``cannot fit
resource`` for one that neither the node nor a class provides; ``cannot
schedule extended resource claim`` for a claim left by a previous cycle,
which PostFilter then deletes: ``deletion of ResourceClaim completed``).
Reserve takes its allocation in flight, PreBind creates it in the API server
(``generateName: <pod>-extended-resources-``), writes its allocation and
reservation, and records in the pod's
``status.extendedResourceClaimStatus`` which request serves which
container's resource; Unreserve deletes a claim PreBind created. The
arithmetic is in :mod:`framework.plugins.dynamicresources.extended`.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/dynamicresources/``
``dynamicresources.go`` (read in the index's v1.33-era copy, commit
``00d3750``, for PostFilter in a v1.35-era copy, index id 308089077, for
Score in the newest copy, index id 882775000, and a later patch to it, index
id 55693577404, and for
the extended resources in the newest copy, index id 882775000, with
``extendeddynamicresources.go``, index id 52277332836;
v1.34 moves it to ``resource.k8s.io/v1`` and keeps these steps), the
in-flight bookkeeping of ``dra_manager.go`` and, for claims, slices and
classes, its informers and ``allocateddevices.go``
(:mod:`framework.plugins.dynamicresources.tracker`).
Partitionable devices (``DRAPartitionableDevices``, beta and on from v1.36)
are the allocator's (:mod:`framework.plugins.dynamicresources.structured`).
Simplified: no consumable capacity or binding conditions; device taints only
from the slices (no DeviceTaintRules); PostFilter takes the first claim it
may deallocate, not a random one. Where a pod has claims of its own and its
extended resource comes from the node's device plugin, the in-memory special
claim is left out of the allocation (Go would allocate it with no requests
and dereference a missing node claim in Reserve).
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import APIError, NotFound
from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.cycle_state import CycleState
from framework.cycle_state import NotFound as StateNotFound
from framework.interface import (
    MAX_NODE_SCORE,
    NodeScore,
    NodeToStatus,
    PostFilterResult,
    PreFilterResult,
    SignFragment,
)
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.nodeaffinity import LazyErrorNodeSelector, NodeSelectorParseError
from framework.objects.resource import (
    FINALIZER,
    AllocationResult,
    ClaimNameError,
    DeviceClass,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceSlice,
    can_be_reserved,
    claim_name,
    is_for_pod,
    is_reserved_for_pod,
    pod_resource_claims,
)
from framework.objects.resource_names import is_scalar_resource_name
from framework.objects.resources import pod_requests
from framework.plugins import names
from framework.plugins.dynamicresources.extended import (
    SPECIAL_CLAIM_IN_MEM_NAME,
    ContainerExtendedResourceRequest,
    DeviceClassResolver,
    ExtendedResourceCache,
    create_requests_and_mappings,
    find_extended_resource_claim,
    has_device_class_mapped_extended_resource,
    is_dra_extended_resource_name,
    special_claim,
)
from framework.plugins.dynamicresources.structured import (
    AllocationError,
    Allocator,
    DeviceID,
    FailedOnNode,
    SliceIndex,
)
from framework.plugins.dynamicresources.tracker import AllocatedDevices, held_devices
from framework.plugins.helper import default_normalize_score
from framework.plugins.listers import ObjectTracker
from framework.status import Status
from framework.util import patch_pod_status

__all__ = [
    "MSG_CANNOT_ALLOCATE",
    "MSG_IN_USE",
    "MSG_NOT_AVAILABLE",
    "NAME",
    "DynamicResources",
    "new",
]

NAME = names.DYNAMIC_RESOURCES
STATE_KEY = NAME
GATE = "DynamicResourceAllocation"

MSG_IN_USE = "resourceclaim in use"
MSG_NOT_AVAILABLE = "resourceclaim not available on the node"
MSG_CANNOT_ALLOCATE = "cannot allocate all claims"
MSG_CANNOT_FIT_RESOURCE = "cannot fit resource"
MSG_STALE_EXTENDED_CLAIM = "cannot schedule extended resource claim"
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize


@dataclass(slots=True)
class _ClaimInfo:
    """Per claim: the nodes an allocated one is usable on; the allocation Reserve chose."""

    available_on_nodes: LazyErrorNodeSelector | None = None
    allocation: AllocationResult | None = None


@dataclass(slots=True)
class _NodeAllocation:
    """Filter's answer for one node (``nodeAllocation``): the allocations, and for which claims.

    ``indices`` are the positions in the state's claims of the claims
    allocated, in the order of ``allocations``; ``extended_claim`` is the
    special claim with this node's requests, ``mappings`` the containers
    those requests serve.
    """

    allocations: list[AllocationResult]
    indices: list[int]
    extended_claim: ResourceClaim | None = None
    mappings: list[ContainerExtendedResourceRequest] = field(default_factory=list)


@dataclass(slots=True)
class _StateData:
    """PreFilter's claims and allocator; Filter's allocations per node (``stateData``).

    ``claims`` are the pod's own claims, then the special claim for its
    extended resources (at ``extended_index``), if it has one.
    """

    claims: list[ResourceClaim] = field(default_factory=list)
    extended_index: int | None = None
    initial_extended_uid: str = ""
    pod_scalar_resources: dict[str, int] = field(default_factory=dict)
    resolver: DeviceClassResolver | None = None
    allocator: Allocator | None = None
    infos: list[_ClaimInfo] = field(default_factory=list)
    node_allocations: dict[str, _NodeAllocation] = field(default_factory=dict)
    unavailable_claims: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def clone(self) -> _StateData:
        return self  # written in Filter and Reserve, read after: shared, as in kube

    def extended_claim(self) -> ResourceClaim | None:
        return self.claims[self.extended_index] if self.extended_index is not None else None

    def no_user_claim(self) -> bool:
        return len(self.claims) == (1 if self.extended_index is not None else 0)


class _InFlight:
    """Claims allocated in Reserve and not yet written by PreBind (``inFlightAllocations``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claims: dict[str, ResourceClaim] = {}

    def signal(self, claim: ResourceClaim) -> None:
        with self._lock:
            self._claims[claim.metadata.uid] = claim

    def remove(self, uid: str) -> bool:
        with self._lock:
            return self._claims.pop(uid, None) is not None

    def has(self, uid: str) -> bool:
        with self._lock:
            return uid in self._claims

    def claims(self) -> list[ResourceClaim]:
        with self._lock:
            return list(self._claims.values())


class DynamicResources:
    """PreEnqueue, PreFilter, Filter, Reserve/Unreserve, PreBind; see the module docstring."""

    def __init__(self, handle: Any = None, args: Any = None) -> None:
        self._handle = handle
        gates = getattr(handle, "feature_gates", None)
        self.enabled = gates.enabled(GATE) if gates is not None else True
        self.admin_access = gates.enabled("DRAAdminAccess") if gates is not None else True
        self.device_taints = gates.enabled("DRADeviceTaints") if gates is not None else True
        self.partitionable_devices = (
            gates.enabled("DRAPartitionableDevices") if gates is not None else True
        )
        self.extended_resource = (
            gates.enabled("DRAExtendedResource") if gates is not None else True
        )
        self.prioritized_list = gates.enabled("DRAPrioritizedList") if gates is not None else True
        # Score came with kubernetes#134711 (v1.35); new() builds a v1.34 plugin without it.
        self.scores = gates.at_least("1.35") if gates is not None else True
        # The v1.35 copy listens to allocatable changes (an extended resource may leave a
        # node's device plugin); the v1.33 one does not.
        self.node_allocatable_event = gates.at_least("1.35") if gates is not None else True
        self.in_flight = _InFlight()
        # The informers' stores of kube's DRA manager, and its allocatedDevices.
        self.allocated = AllocatedDevices()
        self.claims = ObjectTracker(ResourceClaim, [self.allocated.on_change])
        self.slices = ObjectTracker(ResourceSlice)
        self.classes = ObjectTracker(DeviceClass)
        self.extended_resources = ExtendedResourceCache(self.classes)
        self._slice_index: tuple[int, SliceIndex] | None = None

    def name(self) -> str:
        return NAME

    def stop_watching(self) -> None:
        """Stop the watches behind claims, slices and classes (``Scheduler.stop`` calls it)."""
        for tracker in (self.claims, self.slices, self.classes):
            tracker.stop()

    def _client(self) -> Any:
        return self._handle.client() if self._handle is not None else None

    # --- the pod's claims ------------------------------------------------------------------

    def _pod_claims(self, pod: Pod) -> list[ResourceClaim]:
        """The pod's claims, in ``spec.resourceClaims`` order (``foreachPodResourceClaim``).

        Raises ValueError with kube's message for a claim that is not there
        yet, is being deleted, or is not the pod's own.
        """
        # The claim informer's store, as kube's draManager.ResourceClaims().Get: no request.
        self.claims.refresh(self._client())
        claims = []
        for pod_claim in pod_resource_claims(pod):
            name, must_check_owner = claim_name(pod, pod_claim)
            if name is None:
                continue  # the template's claim was not needed
            claim = self.claims.get(f"{pod.metadata.namespace}/{name}")
            if claim is None:
                raise ValueError(f'resourceclaim.resource.k8s.io "{name}" not found')
            if claim.metadata.deletion_timestamp:
                raise ValueError(f'resourceclaim "{name}" is being deleted')
            if must_check_owner:
                problem = is_for_pod(pod, claim)
                if problem is not None:
                    raise ValueError(problem)
            claims.append(claim)
        return claims

    # --- PreEnqueue ------------------------------------------------------------------------

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """A pod with claims is unsignable; any other adds nothing (Go, v1.35).

        Whether a claim's devices fit one node or several is not simple to tell, so
        upstream keeps every pod with a claim out of batching (kubernetes#134986).
        """
        if pod_resource_claims(pod):
            return None, Status.unschedulable("pods with dra resource claims are not signable")
        return None, None

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not self.enabled or not pod_resource_claims(pod):
            return None
        try:
            self._pod_claims(pod)
        except ValueError as error:  # ClaimNameError too
            return Status.unresolvable(str(error))
        return None

    # --- PreFilter -------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        data = _StateData()
        state.write(STATE_KEY, data)
        if not self.enabled:
            return None, Status.skip()
        claims: list[ResourceClaim] = []
        if pod_resource_claims(pod):
            try:
                claims = self._pod_claims(pod)
            except (ValueError, ClaimNameError) as error:
                return None, Status.unresolvable(str(error))
        extended = self._pre_filter_extended_resources(pod, data)
        if extended is not None:
            data.extended_index = len(claims)
            data.initial_extended_uid = extended.metadata.uid
            claims.append(extended)
        if not claims:
            return None, Status.skip()
        to_allocate: list[ResourceClaim] = []
        self.classes.refresh(self._client())
        data.infos = [_ClaimInfo() for _ in claims]
        for index, claim in enumerate(claims):
            allocation = claim.status.allocation
            if (
                allocation is not None
                and not can_be_reserved(claim)
                and not is_reserved_for_pod(pod, claim)
            ):
                return None, Status.unresolvable(MSG_IN_USE)
            if allocation is not None:
                if allocation.node_selector is not None:
                    try:
                        data.infos[index].available_on_nodes = LazyErrorNodeSelector(
                            allocation.node_selector
                        )
                    except NodeSelectorParseError as error:
                        return None, Status.as_error(error)
                continue
            if self.in_flight.has(claim.metadata.uid):
                return None, Status.unresolvable(
                    f"resource claim {claim.metadata.namespace}/{claim.metadata.name} "
                    "is in the process of being allocated"
                )
            if index == data.extended_index:
                continue  # no spec yet (or a stale one, which Filter reports)
            to_allocate.append(claim)
            for request in claim.spec.devices.requests:
                if request.exactly is not None:
                    status = self._validate_device_class(
                        request.exactly.device_class_name, request.name
                    )
                    if status is not None:
                        return None, status
                if request.first_available and not self.prioritized_list:
                    return None, Status.unresolvable(
                        f"resource claim {claim.key}, request {request.name}: has subrequests, "
                        "but the DRAPrioritizedList feature is disabled"
                    )
                for sub in request.first_available:
                    status = self._validate_device_class(
                        sub.device_class_name, f"{request.name}/{sub.name}"
                    )
                    if status is not None:
                        return None, status
        if to_allocate or (extended is not None and extended.status.allocation is None):
            client = self._client()
            for tracker in (self.claims, self.slices, self.classes):
                tracker.refresh(client)
            data.allocator = Allocator(
                to_allocate,
                self._allocated_devices(),
                {c.metadata.name: c for c in self.classes.values()},
                self._slices_by_node(),
                admin_access=self.admin_access,
                device_taints=self.device_taints,
                partitionable_devices=self.partitionable_devices,
            )
        data.claims = claims
        return None, None

    def _pre_filter_extended_resources(self, pod: Pod, data: _StateData) -> ResourceClaim | None:
        """The pod's special claim when a class serves one of its extended resources, else None.

        The one a previous cycle created if there is one, else a new one in
        memory (``preFilterExtendedResources``).
        """
        if not self.extended_resource or not _asks_for_dra_extended_resource(pod):
            return None
        client = self._client()
        resolver = self.extended_resources.resolver(client)
        requests = pod_requests(pod)
        if not has_device_class_mapped_extended_resource(requests, resolver):
            return None
        data.resolver = resolver
        data.pod_scalar_resources = {
            name: amount for name, amount in requests.items() if is_scalar_resource_name(name)
        }
        self.claims.refresh(client)
        found = find_extended_resource_claim(pod, self.claims.values())
        return found if found is not None else special_claim(pod)

    def _allocated_devices(self) -> set[DeviceID]:
        """The devices held by stored allocations and by those in flight (``ListAllAllocatedDevices``).

        A claim in flight counts as its in-flight copy says, not as stored.
        """
        taken: set[DeviceID] = self.allocated.get()
        in_flight = self.in_flight.claims()
        for claim in in_flight:
            stored = self.claims.get(claim.key)
            for device in held_devices(stored) if stored is not None else ():
                if self.allocated.holders(device) == 1:
                    taken.discard(device)
        for claim in in_flight:
            taken.update(held_devices(claim))
        return taken

    def _slices_by_node(self) -> SliceIndex:
        """The slices by node, made again only when a slice changed."""
        generation = self.slices.generation
        if self._slice_index is None or self._slice_index[0] != generation:
            self._slice_index = (
                generation,
                SliceIndex(self.slices.values(), partitionable_devices=self.partitionable_devices),
            )
        return self._slice_index[1]

    def _validate_device_class(self, class_name: str, request: str) -> Status | None:
        if not class_name:
            return Status.as_error(ValueError(f"request {request}: unsupported request type"))
        if self.classes.get(class_name) is None:  # the class informer's store
            return Status.unresolvable(
                f"request {request}: device class {class_name} does not exist"
            )
        return None

    def pre_filter_extensions(self) -> None:
        return None

    def batch_allocator(self, state: CycleState) -> Allocator | None:
        """The cycle's allocator when every claim of the pod is still to allocate, else None.

        For the batch engine's Filter form: then this plugin's Filter on a
        node is the allocator's answer alone.
        """
        try:
            data = state.read_as(STATE_KEY, _StateData)
        except (StateNotFound, TypeError):
            return None
        if (
            data.allocator is None
            or data.extended_index is not None  # its requests differ from node to node
            or len(data.allocator.claims_to_allocate()) != len(data.claims)
        ):
            return None
        return data.allocator

    def _state(self, state: CycleState) -> _StateData | Status:
        try:
            return state.read_as(STATE_KEY, _StateData)
        except StateNotFound as error:
            # Go's getStateData hands CycleState.Read's error back unwrapped: "not found".
            return Status.as_error(error)
        except TypeError:
            return Status.as_error(ValueError("unable to convert state into stateData"))

    # --- Filter ----------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        data = self._state(state)
        if isinstance(data, Status):
            return data
        node = node_info.node
        if not data.claims or node is None:
            return None
        node_claim, mappings, status = self._filter_extended_resources(data, pod, node_info)
        if status is not None:
            return status
        if node_claim is None and data.no_user_claim():
            return None  # the node's device plugin serves the extended resources
        unavailable = [
            index
            for index, info in enumerate(data.infos)
            if info.available_on_nodes is not None and not info.available_on_nodes.matches(node)
        ]
        allocations: list[AllocationResult] | None = None
        indices: list[int] = []
        if data.allocator is not None:
            allocator = data.allocator
            if node_claim is not None:
                to_allocate = [*allocator.claims_to_allocate(), node_claim]
                allocator = allocator.for_claims(to_allocate)
            indices = [
                i
                for i, c in enumerate(data.claims)
                if c.status.allocation is None
                and (i != data.extended_index or node_claim is not None)
            ]
            try:
                allocations = allocator.allocate(node)
            except FailedOnNode as failed:
                return Status.unresolvable(str(failed))  # not fatal: other nodes may do
            except AllocationError as error:
                return Status.as_error(error)
            if allocations is None or len(allocations) != len(indices):
                return Status.unresolvable(MSG_CANNOT_ALLOCATE)
        with data.lock:
            if unavailable:
                data.unavailable_claims.update(unavailable)
                return Status.unresolvable(MSG_NOT_AVAILABLE)
            if allocations is not None:
                data.node_allocations[node.metadata.name] = _NodeAllocation(
                    allocations, indices, node_claim, mappings
                )
        return None

    def _filter_extended_resources(
        self, data: _StateData, pod: Pod, node_info: NodeInfo
    ) -> tuple[ResourceClaim | None, list[ContainerExtendedResourceRequest], Status | None]:
        """The special claim with the requests this node must serve through DRA, or None.

        None when the node's device plugins serve every extended resource
        (``filterExtendedResources``).
        """
        claim = data.extended_claim()
        if claim is None or data.resolver is None:
            return None, [], None
        if claim.spec.devices.requests:
            # Left by a previous cycle: PostFilter deletes it, and the pod tries anew.
            return None, [], Status.unresolvable(MSG_STALE_EXTENDED_CLAIM)
        allocatable = node_info.allocatable.scalar_resources
        through_dra: dict[str, int] = {}
        for name, amount in data.pod_scalar_resources.items():
            if not is_dra_extended_resource_name(name) or amount == 0:
                continue
            backed_by_dra = data.resolver.get_device_class(name) is not None
            if backed_by_dra and allocatable.get(name, 0) == 0:
                through_dra[name] = amount
            elif name not in allocatable:
                return None, [], Status.unresolvable(MSG_CANNOT_FIT_RESOURCE)
        if not through_dra and data.no_user_claim():
            return None, [], None
        if claim.status.allocation is not None or not through_dra:
            return None, [], None
        requests, mappings = create_requests_and_mappings(pod, through_dra, data.resolver)
        spec = dataclasses.replace(
            claim.spec, devices=dataclasses.replace(claim.spec.devices, requests=tuple(requests))
        )
        return dataclasses.replace(claim, spec=spec), mappings, None

    # --- PostFilter -----------------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        """Deallocate one claim allocated where the pod cannot go, if no other pod uses it.

        Only called when no node passed Filter. The claim's devices are then
        free, and the pod's next attempt allocates it afresh, wherever it
        fits. The status stays Unschedulable: DefaultPreemption still runs.
        """
        if not self.enabled:
            return None, Status.unschedulable("plugin disabled")
        data = self._state(state)
        if isinstance(data, Status):
            return None, data
        if not data.claims:
            # The reason every FailedScheduling message of a pod without claims carries from
            # v1.34 on, before DefaultPreemption's "preemption: ..." (the runtime joins them).
            return None, Status.unschedulable("no new claims to deallocate")
        client = self._client()
        # Go ranges over a set, in random order on purpose ("no better heuristic"); we take the
        # claims in the pod's order so runs repeat.
        extended = data.extended_claim()
        stale = extended is not None and extended.metadata.name != SPECIAL_CLAIM_IN_MEM_NAME
        for index in sorted(data.unavailable_claims):
            claim = data.claims[index]
            if index == data.extended_index:
                if stale:
                    break  # deleted below
                continue
            reserved = claim.status.reserved_for
            if reserved and not (len(reserved) == 1 and reserved[0].uid == pod.metadata.uid):
                continue
            extra = {k: v for k, v in claim.status.extra.items() if k != "devices"}
            status = dataclasses.replace(
                claim.status, allocation=None, reserved_for=(), extra=extra
            )
            try:
                if client is None:
                    raise ValueError("deallocating a claim: no API server to write to")
                self.claims.assume(client.update_status(dataclasses.replace(claim, status=status)))
            except (APIError, ValueError) as error:
                return None, Status.as_error(error)
            return None, Status.unschedulable("deallocation of ResourceClaim completed")
        if extended is not None and stale:
            # The special claim a previous cycle created (and perhaps allocated): gone, so that
            # the next attempt starts afresh.
            try:
                self._delete_claim(extended)
            except (APIError, ValueError) as error:
                return None, Status.as_error(error)
            return None, Status.unschedulable("deletion of ResourceClaim completed")
        return None, Status.unschedulable("still not schedulable")

    def _delete_claim(self, claim: ResourceClaim) -> None:
        """Remove the scheduler's finalizer, then delete the claim (``deleteClaim``)."""
        client = self._client()
        if client is None:
            raise ValueError("deleting a claim: no API server to write to")
        key = f"{claim.metadata.namespace}/{claim.metadata.name}"
        try:
            current = client.get(ResourceClaim, claim.metadata.name, claim.metadata.namespace)
        except NotFound:
            return
        if FINALIZER in current.metadata.finalizers:
            kept = tuple(f for f in current.metadata.finalizers if f != FINALIZER)
            try:
                client.update(current.with_metadata(finalizers=kept))
            except APIError as error:
                raise ValueError(f"update resourceclaim {key}: {error}") from None
        with contextlib.suppress(NotFound):  # someone else deleted it: fine
            client.delete(ResourceClaim, claim.metadata.name, claim.metadata.namespace)

    # --- Score, NormalizeScore -----------------------------------------------------------

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """How well the node's allocation (from Filter) ranks among the ``firstAvailable`` alternatives.

        0 for a pod without claims, and for a node Filter kept no allocation
        for (all claims allocated before the cycle).
        """
        if not self.enabled or not self.scores or not self.prioritized_list:
            return 0, None
        data = self._state(state)
        if isinstance(data, Status):
            return 0, data
        if not data.claims or node_info.node is None:
            return 0, None
        node_allocation = data.node_allocations.get(node_info.node.metadata.name)
        if node_allocation is None:
            return 0, None
        try:
            return compute_score(data.claims, node_allocation), None
        except ValueError as error:
            return 0, Status.as_error(error)

    def scores_zero(self, state: CycleState) -> bool:
        """Whether ``score`` answers ``(0, None)`` on every node: the pod has no claims, or no Score runs.

        Not a kube method: the batch engine's Score form reads it, to score
        most pods with one constant column instead of a call per node.
        """
        if not self.enabled or not self.scores or not self.prioritized_list:
            return True
        try:
            data = state.read_as(STATE_KEY, _StateData)
        except (StateNotFound, TypeError):
            return False  # score reports the error
        return not data.claims

    def score_extensions(self) -> DynamicResources:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        if not self.enabled:
            return None
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    # --- Reserve, Unreserve ----------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        data = self._state(state)
        if isinstance(data, Status):
            return data
        pending = [i for i, c in enumerate(data.claims) if c.status.allocation is None]
        if not pending or data.allocator is None:
            return None
        node_allocation = data.node_allocations.get(node_name)
        if node_allocation is None or not node_allocation.allocations:
            if all(i == data.extended_index for i in pending):
                return None  # only the special claim, and the node's device plugin serves it
            return Status.as_error(ValueError("claim allocation not found for node"))
        allocations, indices = node_allocation.allocations, node_allocation.indices
        if len(allocations) != len(indices):
            return Status.as_error(
                ValueError(
                    f"internal error, have {len(allocations)} allocations, "
                    f"{len(indices)} claims to allocate, want {len(pending)} claims"
                )
            )
        for index, allocation in zip(indices, allocations, strict=True):
            data.infos[index].allocation = allocation
            claim = data.claims[index]
            if index == data.extended_index and node_allocation.extended_claim is not None:
                claim = node_allocation.extended_claim  # with this node's requests
            finalizers = claim.metadata.finalizers
            if FINALIZER not in finalizers:
                finalizers = (*finalizers, FINALIZER)
            status = dataclasses.replace(claim.status, allocation=allocation)
            self.in_flight.signal(
                dataclasses.replace(claim, status=status).with_metadata(finalizers=finalizers)
            )
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if not self.enabled:
            return
        data = self._state(state)
        if isinstance(data, Status) or not data.claims:
            return
        client = self._client()
        for index, claim in enumerate(data.claims):
            if index == data.extended_index:
                continue  # below
            self.in_flight.remove(claim.metadata.uid)
            if client is None or claim.status.allocation is None:
                continue
            try:  # the pod out of reservedFor, if PreBind got that far
                current = client.get(ResourceClaim, claim.metadata.name, claim.metadata.namespace)
                if not is_reserved_for_pod(pod, current):
                    continue
                kept = tuple(r for r in current.status.reserved_for if r.uid != pod.metadata.uid)
                self.claims.assume(
                    client.update_status(
                        dataclasses.replace(
                            current, status=dataclasses.replace(current.status, reserved_for=kept)
                        )
                    )
                )
            except APIError:
                continue  # we will get here again when the pod is retried
        extended = data.extended_claim()
        if extended is None:
            return
        self.in_flight.remove(data.initial_extended_uid)
        if extended.metadata.name == SPECIAL_CLAIM_IN_MEM_NAME:
            return  # never written to the API server
        # PreBind created it: delete it, or it would be orphaned. Go logs a failure and goes on.
        with contextlib.suppress(APIError, ValueError):
            self._delete_claim(extended)

    # --- PreBind ---------------------------------------------------------------------------

    def pre_bind_needed(self, pod: Pod) -> bool:
        """Whether PreBind may write for this pod: only if it has claims.

        Not a kube extension point: the scheduler asks it to bind a pod on the
        scheduling thread when no PreBind plugin has anything to wait for.
        """
        if not self.enabled:
            return False
        if pod_resource_claims(pod):
            return True
        return self.extended_resource and _asks_for_dra_extended_resource(pod)

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Skip unless the pod has claims for PreBind to write (``PreBindPreFlight``, v1.34).

        The scheduler nominates the pod to its node before binding only when
        some PreBind plugin has work (``NominatedNodeNameForExpectation``).
        """
        if not self.enabled:
            return Status.skip()
        data = self._state(state)
        if isinstance(data, Status):
            return data
        if not data.claims:
            return Status.skip()
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        data = self._state(state)
        if isinstance(data, Status):
            return data
        for index, claim in enumerate(data.claims):
            if is_reserved_for_pod(pod, claim):
                continue
            try:
                data.claims[index] = self._bind_claim(data, index, pod, node_name)
            except (APIError, ValueError) as error:
                return Status.as_error(error)
        return None

    def _bind_claim(self, data: _StateData, index: int, pod: Pod, node_name: str) -> ResourceClaim:
        """Write the allocation (if Reserve made one) and the reservation (``bindClaim``).

        The special claim is created first, from this node's variant, and the
        pod's status then says which of its requests serves which container.
        """
        client = self._client()
        claim = data.claims[index]
        allocation = data.infos[index].allocation
        extended = index == data.extended_index
        if extended and allocation is None and not claim.spec.devices.requests:
            return claim  # the node's device plugin serves the extended resources
        if client is None:
            raise ValueError("binding claims: no API server to write to")
        in_flight_uid = claim.metadata.uid
        try:
            if extended and claim.metadata.name == SPECIAL_CLAIM_IN_MEM_NAME:
                claim = self._create_extended_claim(client, data, node_name)
                data.claims[index] = claim  # Unreserve deletes it if binding fails
            key = f"{claim.metadata.namespace}/{claim.metadata.name}"
            current: ResourceClaim = client.get(
                ResourceClaim, claim.metadata.name, claim.metadata.namespace
            )
            if current.metadata.deletion_timestamp:
                raise ValueError(f"claim {key} got deleted in the meantime")
            if allocation is not None:
                if current.status.allocation is not None:
                    raise ValueError(f"claim {key} got allocated elsewhere in the meantime")
                if FINALIZER not in current.metadata.finalizers:
                    current = client.update(
                        current.with_metadata(finalizers=(*current.metadata.finalizers, FINALIZER))
                    )
            reference = ResourceClaimConsumerReference(
                resource="pods", name=pod.metadata.name, uid=pod.metadata.uid
            )
            status = dataclasses.replace(
                current.status,
                allocation=allocation if allocation is not None else current.status.allocation,
                reserved_for=(*current.status.reserved_for, reference),
            )
            try:
                updated: ResourceClaim = client.update_status(
                    dataclasses.replace(current, status=status)
                )
            except APIError as error:
                what = "allocation and reservation" if allocation is not None else "reservation"
                raise ValueError(f"add {what} to claim {key}: {error}") from None
            self.claims.assume(updated)  # the next pod's PreFilter sees its devices taken
            if extended:
                data.claims[index] = updated
                self._patch_extended_resource_claim_status(client, pod, updated, data, node_name)
            return updated
        finally:
            if allocation is not None:
                self.in_flight.remove(in_flight_uid)

    def _create_extended_claim(
        self, client: Any, data: _StateData, node_name: str
    ) -> ResourceClaim:
        """Create the node's variant of the special claim (``createExtendedResourceClaimInAPI``)."""
        node_allocation = data.node_allocations.get(node_name)
        if node_allocation is None or node_allocation.extended_claim is None:
            raise ValueError(f"extended resource claim not found for node {node_name}")
        claim = node_allocation.extended_claim
        # Fields that must or cannot be set on create: the server names it from generateName.
        claim = dataclasses.replace(
            claim, status=dataclasses.replace(claim.status, allocation=None)
        ).with_metadata(name="", uid="")
        try:
            created: ResourceClaim = client.create(claim)
        except APIError as error:
            raise ValueError(
                f"create claim for extended resources {claim.metadata.namespace}/: {error}"
            ) from None
        return created

    def _patch_extended_resource_claim_status(
        self, client: Any, pod: Pod, claim: ResourceClaim, data: _StateData, node_name: str
    ) -> None:
        """Record in the pod's status which request serves which container's resource."""
        node_allocation = data.node_allocations.get(node_name)
        mappings = node_allocation.mappings if node_allocation is not None else []
        pod_key = f"{pod.metadata.namespace}/{pod.metadata.name}"
        if not mappings:
            raise ValueError(
                f"nil or empty request mappings, no update of pod {pod_key} "
                "ExtendedResourceClaimStatus"
            )
        recorded = {
            "requestMappings": [m.to_dict() for m in mappings],
            "resourceClaimName": claim.metadata.name,
        }
        try:
            patch_pod_status(
                client,
                pod,
                lambda status: dataclasses.replace(
                    status, extra={**status.extra, "extendedResourceClaimStatus": recorded}
                ),
            )
        except APIError as error:
            raise ValueError(
                f"update pod {pod_key} ExtendedResourceClaimStatus: {error}"
            ) from None

    # --- events ----------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Nodes added or relabelled, claims added or updated, the pod's generated claims, classes, slices."""
        if not self.enabled:
            return []
        update = ActionType.ADD | ActionType.UPDATE
        node_action = ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT
        if self.node_allocatable_event:
            node_action |= ActionType.UPDATE_NODE_ALLOCATABLE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_action)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_CLAIM, update)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM)
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, update)),
        ]


def compute_score(claims: list[ResourceClaim], node_allocation: _NodeAllocation) -> int:
    """The ranks of the sub-requests the claims' allocations take (``computeScore``).

    Each ``firstAvailable`` request adds ``8 - i`` when its allocation took
    its sub-request ``i``: 8 for the first alternative, 1 for the eighth. A
    claim allocated before the cycle counts its own allocation; the others,
    the allocation Filter found for them on this node. Raises ValueError if
    Filter kept none for a claim that needed one.
    """
    pending = dict(zip(node_allocation.indices, node_allocation.allocations, strict=True))
    score = 0
    for index, claim in enumerate(claims):
        allocation = claim.status.allocation
        if allocation is None:
            allocation = pending.get(index)
        if allocation is None:
            if not claim.spec.devices.requests:
                continue  # the special claim, its extended resources served by the node
            raise ValueError(
                f"number of allocations {len(node_allocation.allocations)} is smaller than "
                "number of claims needing allocation"
            )
        taken = {r.request for r in allocation.devices.results if "/" in r.request}
        for request in claim.spec.devices.requests:
            for rank, sub in enumerate(request.first_available):
                if f"{request.name}/{sub.name}" in taken:
                    score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - rank
    return score


def _asks_for_dra_extended_resource(pod: Pod) -> bool:
    """Whether a container of the pod names an extended resource DRA could serve (a quick look)."""
    return any(
        is_dra_extended_resource_name(name)
        for container in (*pod.spec.init_containers, *pod.spec.containers)
        for name in container.resources.requests
    )


def allocated_devices_of(claim: ResourceClaim) -> list[str]:
    """``driver/pool/device`` of each device allocated to ``claim`` (for tables and tests)."""
    allocation = claim.status.allocation
    if allocation is None:
        return []
    return [f"{r.driver}/{r.pool}/{r.device}" for r in allocation.devices.results]


class _BeforeScore(DynamicResources):
    """DynamicResources before v1.35, when Go's type had no Score: the framework must not list it there.

    The framework tells the points a plugin joins by ``isinstance`` against
    their protocols, which read a method set to None as not implemented.
    """

    score = None  # type: ignore[assignment]  # no Score point, as in Go's v1.34 type


def new(args: Any, handle: Any) -> DynamicResources:
    """The factory the registry calls (DynamicResources takes no args); no Score before v1.35."""
    gates = getattr(handle, "feature_gates", None)
    cls = DynamicResources if gates is None or gates.at_least("1.35") else _BeforeScore
    return cls(handle, args if isinstance(args, Mapping) else None)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_enqueue: type[interface.PreEnqueuePlugin] = DynamicResources
    _pre_filter: type[interface.PreFilterPlugin] = DynamicResources
    _filter: type[interface.FilterPlugin] = DynamicResources
    _post_filter: type[interface.PostFilterPlugin] = DynamicResources
    _score: type[interface.ScorePlugin] = DynamicResources
    _reserve: type[interface.ReservePlugin] = DynamicResources
    _pre_bind: type[interface.PreBindPlugin] = DynamicResources
    _enqueue_extensions: type[interface.EnqueueExtensions] = DynamicResources
