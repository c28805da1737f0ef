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
* **Reserve** takes the chosen node's allocations *in flight*
  (``SignalClaimPendingAllocation``): the next pod's PreFilter counts those
  devices as taken, so two pods never get the same device; **Unreserve**
  gives them back and takes the pod out of ``reservedFor``.
* **PreBind** writes each claim through the API server's status: the
  finalizer, the allocation, and the pod in ``status.reservedFor``; then the
  in-flight entry goes, the API server now holding it.

All the Unschedulable statuses are ``UnschedulableAndUnresolvable``, as
kube's ``statusUnschedulable`` makes them: preemption cannot free a device.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/dynamicresources/``
``dynamicresources.go`` (read in the index's v1.33-era copy, commit
``00d3750``, and for PostFilter in a v1.35-era copy, index id 308089077;
v1.34 moves it to ``resource.k8s.io/v1`` and keeps these steps), the
in-flight bookkeeping of ``dra_manager.go`` and, for claims, slices and
classes, its informers and ``allocateddevices.go``
(:mod:`framework.plugins.dynamicresources.tracker`).
Simplified: no extended-resource mapping (``DRAExtendedResource``, GA in
v1.37: a container's ``nvidia.com/gpu`` stays NodeResourcesFit's alone), no
partitionable devices (``DRAPartitionableDevices``: counters are ignored),
consumable capacity or binding conditions; device taints only from the
slices (no DeviceTaintRules); PostFilter takes the first claim it may
deallocate, not a random one.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import APIError
from framework.cluster_event import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.cycle_state import CycleState
from framework.cycle_state import NotFound as StateNotFound
from framework.interface import NodeToStatus, PostFilterResult, PreFilterResult, SignFragment
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
from framework.plugins import names
from framework.plugins.dynamicresources.structured import (
    AllocationError,
    Allocator,
    DeviceID,
    SliceIndex,
)
from framework.plugins.dynamicresources.tracker import (
    AllocatedDevices,
    ObjectTracker,
    held_devices,
)
from framework.plugins.listers import ClientListers, listers_of
from framework.status import Status

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


@dataclass(slots=True)
class _ClaimInfo:
    """Per claim: the nodes an allocated one is usable on; the allocation Reserve chose."""

    available_on_nodes: LazyErrorNodeSelector | None = None
    allocation: AllocationResult | None = None


@dataclass(slots=True)
class _StateData:
    """PreFilter's claims and allocator; Filter's allocations per node (``stateData``)."""

    claims: list[ResourceClaim] = field(default_factory=list)
    allocator: Allocator | None = None
    infos: list[_ClaimInfo] = field(default_factory=list)
    node_allocations: dict[str, list[AllocationResult]] = field(default_factory=dict)
    unavailable_claims: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def clone(self) -> _StateData:
        return self  # written in Filter and Reserve, read after: shared, as in kube


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
        self.in_flight = _InFlight()
        # The informers' stores of kube's DRA manager, and its allocatedDevices.
        self.allocated = AllocatedDevices()
        self.claims = ObjectTracker(ResourceClaim, [self.allocated.on_change])
        self.slices = ObjectTracker(ResourceSlice)
        self.classes = ObjectTracker(DeviceClass)
        self._slice_index: tuple[int, SliceIndex] | None = None

    def name(self) -> str:
        return NAME

    def stop_watching(self) -> None:
        """Stop the watches behind claims, slices and classes (``Scheduler.stop`` calls it)."""
        for tracker in (self.claims, self.slices, self.classes):
            tracker.stop()

    def _listers(self) -> ClientListers:
        return listers_of(self._handle)

    # --- the pod's claims ------------------------------------------------------------------

    def _pod_claims(self, pod: Pod) -> list[ResourceClaim]:
        """The pod's claims, in ``spec.resourceClaims`` order (``foreachPodResourceClaim``).

        Raises ValueError with kube's message for a claim that is not there
        yet, is being deleted, or is not the pod's own.
        """
        listers = self._listers()
        claims = []
        for pod_claim in pod_resource_claims(pod):
            name, must_check_owner = claim_name(pod, pod_claim)
            if name is None:
                continue  # the template's claim was not needed
            claim = listers.get(ResourceClaim, name, pod.metadata.namespace)
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
        if not self.enabled or not pod_resource_claims(pod):
            return None, Status.skip()
        try:
            claims = self._pod_claims(pod)
        except (ValueError, ClaimNameError) as error:
            return None, Status.unresolvable(str(error))
        if not claims:
            return None, Status.skip()
        to_allocate: list[ResourceClaim] = []
        listers = self._listers()
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
            to_allocate.append(claim)
            if self.in_flight.has(claim.metadata.uid):
                return None, Status.unresolvable(
                    f"resource claim {claim.metadata.namespace}/{claim.metadata.name} "
                    "is in the process of being allocated"
                )
            for request in claim.spec.devices.requests:
                if request.exactly is not None:
                    status = self._validate_device_class(
                        listers, request.exactly.device_class_name, request.name
                    )
                    if status is not None:
                        return None, status
                for sub in request.first_available:
                    status = self._validate_device_class(
                        listers, sub.device_class_name, f"{request.name}/{sub.name}"
                    )
                    if status is not None:
                        return None, status
        if to_allocate:
            client = self._handle.client() if self._handle is not None else None
            for tracker in (self.claims, self.slices, self.classes):
                tracker.refresh(client)
            data.allocator = Allocator(
                to_allocate,
                self._allocated_devices(),
                {c.metadata.name: c for c in self.classes.values()},
                self._slices_by_node(),
                admin_access=self.admin_access,
                device_taints=self.device_taints,
            )
        data.claims = claims
        return None, None

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
            self._slice_index = (generation, SliceIndex(self.slices.values()))
        return self._slice_index[1]

    def _validate_device_class(
        self, listers: ClientListers, class_name: str, request: str
    ) -> Status | None:
        if not class_name:
            return Status.as_error(ValueError(f"request {request}: unsupported request type"))
        if listers.get(DeviceClass, class_name) is None:
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
        if data.allocator is None or len(data.allocator.claims_to_allocate()) != len(data.claims):
            return None
        return data.allocator

    def _state(self, state: CycleState) -> _StateData | Status:
        try:
            return state.read_as(STATE_KEY, _StateData)
        except (StateNotFound, TypeError) as error:
            return Status.as_error(ValueError(f"reading {STATE_KEY!r} from cycleState: {error}"))

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
        unavailable = [
            index
            for index, info in enumerate(data.infos)
            if info.available_on_nodes is not None and not info.available_on_nodes.matches(node)
        ]
        allocations: list[AllocationResult] | None = None
        if data.allocator is not None:
            try:
                allocations = data.allocator.allocate(node)
            except AllocationError as error:
                return Status.as_error(error)
            if allocations is None or len(allocations) != len(data.allocator.claims_to_allocate()):
                return Status.unresolvable(MSG_CANNOT_ALLOCATE)
        with data.lock:
            if unavailable:
                data.unavailable_claims.update(unavailable)
                return Status.unresolvable(MSG_NOT_AVAILABLE)
            if allocations is not None:
                data.node_allocations[node.metadata.name] = allocations
        return None

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
        client = self._handle.client() if self._handle is not None else None
        # Go ranges over a set, in random order on purpose ("no better heuristic"); we take the
        # claims in the pod's order so runs repeat.
        for index in sorted(data.unavailable_claims):
            claim = data.claims[index]
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
        return None, Status.unschedulable("still not schedulable")

    # --- Reserve, Unreserve ----------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        data = self._state(state)
        if isinstance(data, Status):
            return data
        pending = [c for c in data.claims if c.status.allocation is None]
        if not pending or data.allocator is None:
            return None
        allocations = data.node_allocations.get(node_name)
        if allocations is None:
            return Status.as_error(ValueError("claim allocation not found for node"))
        to_allocate = data.allocator.claims_to_allocate()
        if len(allocations) != len(to_allocate) or len(allocations) != len(pending):
            return Status.as_error(
                ValueError(
                    f"internal error, have {len(allocations)} allocations, "
                    f"{len(to_allocate)} claims to allocate, want {len(pending)} claims"
                )
            )
        for claim, allocation in zip(to_allocate, allocations, strict=True):
            index = data.claims.index(claim)
            data.infos[index].allocation = allocation
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
        client = self._handle.client() if self._handle is not None else None
        for claim in data.claims:
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

    # --- PreBind ---------------------------------------------------------------------------

    def pre_bind_needed(self, pod: Pod) -> bool:
        """Whether PreBind may write for this pod: only if it has claims.

        Not a kube extension point: the scheduler asks it to bind a pod on the
        scheduling thread when no PreBind plugin has anything to wait for.
        """
        return self.enabled and bool(pod_resource_claims(pod))

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
                data.claims[index] = self._bind_claim(data, index, pod)
            except (APIError, ValueError) as error:
                return Status.as_error(error)
        return None

    def _bind_claim(self, data: _StateData, index: int, pod: Pod) -> ResourceClaim:
        """Write the allocation (if Reserve made one) and the reservation (``bindClaim``)."""
        client = self._handle.client() if self._handle is not None else None
        if client is None:
            raise ValueError("binding claims: no API server to write to")
        claim = data.claims[index]
        allocation = data.infos[index].allocation
        key = f"{claim.metadata.namespace}/{claim.metadata.name}"
        try:
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
            return updated
        finally:
            if allocation is not None:
                self.in_flight.remove(claim.metadata.uid)

    # --- events ----------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Nodes added or relabelled, claims added or updated, the pod's generated claims, classes, slices."""
        if not self.enabled:
            return []
        update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE,
                    ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT,
                )
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_CLAIM, update)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM)
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, update)),
        ]


def allocated_devices_of(claim: ResourceClaim) -> list[str]:
    """``driver/pool/device`` of each device allocated to ``claim`` (for tables and tests)."""
    allocation = claim.status.allocation
    if allocation is None:
        return []
    return [f"{r.driver}/{r.pool}/{r.device}" for r in allocation.devices.results]


def new(args: Any, handle: Any) -> DynamicResources:
    """The factory the registry calls (DynamicResources takes no args)."""
    return DynamicResources(handle, args if isinstance(args, Mapping) else None)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_enqueue: type[interface.PreEnqueuePlugin] = DynamicResources
    _pre_filter: type[interface.PreFilterPlugin] = DynamicResources
    _filter: type[interface.FilterPlugin] = DynamicResources
    _post_filter: type[interface.PostFilterPlugin] = DynamicResources
    _reserve: type[interface.ReservePlugin] = DynamicResources
    _pre_bind: type[interface.PreBindPlugin] = DynamicResources
    _enqueue_extensions: type[interface.EnqueueExtensions] = DynamicResources
