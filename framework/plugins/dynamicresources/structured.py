"""The structured-parameters allocator: which devices on a node satisfy a pod's claims.

Given the claims to allocate, the devices already allocated (to other
claims, or in flight), the device classes and the ResourceSlices,
:meth:`Allocator.allocate` answers for one node: an
:class:`~framework.objects.resource.AllocationResult` per claim, or None
when they cannot all be satisfied there. It works as kube's allocator does:

1. **Pools.** Slices are grouped into pools by driver and pool name; only
   the newest ``generation`` of a pool counts, and a pool with fewer slices
   of it than ``resourceSliceCount`` is *incomplete* (still being updated):
   skipped for ``ExactCount``, an error for ``All``. Pools are searched in
   order of driver and pool name, devices in the order the slices list them.
2. **Which devices a node sees**: those of slices for ``nodeName`` the node,
   of ``allNodes`` slices, and of slices whose ``nodeSelector`` matches it.
3. **Which devices a request may take**: not allocated (unless the request
   asks for ``adminAccess``, which takes a device in use and holds none),
   every selector of its class and of the request true (:mod:`.cel`), and
   its counters still available (partitionable devices, below), and every
   taint of the device tolerated by the request (``DRADeviceTaints``).
   A device is looked at in that order, and only when the search reaches it.
4. **Search.** Claims in order, requests in order, each device of a request
   in turn; the first device that fits is taken and the search goes on;
   when a later one cannot be satisfied, it backs up and tries the next
   candidate (so ``matchAttribute`` constraints and several requests for one
   kind of device are solved, not guessed). A request with
   ``firstAvailable`` tries its sub-requests in order. ``All`` takes every
   matching device the node sees, and fails if one is in use or there is none.
5. **Result**: per claim the devices taken, and the node selector the
   allocation is good for: the node by name when a device came from a
   node-local slice, the slice's ``nodeSelector``, or none (``allNodes``).

**Partitionable devices** (``DRAPartitionableDevices``, beta and on from
v1.36): a slice's ``sharedCounters`` are counter sets of its pool
(``memory: 40Gi`` of one physical GPU), and a device ``consumesCounters``
from them (a half of that GPU, ``20Gi``). A slice with counter sets belongs
to its pool whatever node it names. A device may be taken only while the
pool's counters cover what it and the devices already taken in this
allocation consume, after what the pool's allocated devices (on any node)
consume. A pool whose devices name a missing counter set or counter, or
that declares a set twice, is *invalid*: its devices are not searched, a
request for ``All`` of them is an error, and when nothing else fits the
node fails with ``invalid resource pools were encountered``
(:class:`FailedOnNode`: not an error, other nodes may do). With the gate
off, slices with counter sets or per-device node selection are left out and
a device that consumes counters is never taken.

Errors (a class that does not exist, a selector that does not compile or
fails at run time, an incomplete pool for ``All``, a pool that lists a
device twice) raise
:class:`AllocationError`; the plugin turns them into an error status, as
kube's Filter does.

Mirrors ``kubernetes/kubernetes:staging/src/k8s.io/dynamic-resource-allocation/structured/``
``allocator.go`` and ``pools.go`` (``NewAllocator``, ``Allocate``, ``GatherPools``,
``allocateOne``, ``isSelectable``, ``createNodeSelector``; read in the
v1.33-era copy of the index, whose "stable" allocator v1.34 keeps).
The admin-access cases of the unit tests were read in
``internal/allocatortesting/allocator_testing.go`` (index id 21667203); the
counters in the incubating allocator of the index's newest copy
(``allocator_incubating.go``: ``allocateDevice``, ``checkAvailableCounters``,
``deallocateCountersForDevice``, index id 143551145; ``pools_incubating.go``:
``GatherPools``, ``buildPool``, ``checkSlicesInPool``, index id 138829402).
Simplified: no per-device node selection (``perDeviceNodeSelection``: such a
slice reaches no node) or consumable capacity; a pool that lists a device
twice is an error here, where newer releases mark it invalid as above;
taints are the slices' own (no DeviceTaintRules);
several slices' ``nodeSelector``\\ s in one allocation give the first one,
not their intersection.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple

from framework.objects import Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from framework.objects.nodeaffinity import LazyErrorNodeSelector
from framework.objects.quantity import Quantity
from framework.objects.resource import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    AllocationResult,
    Device,
    DeviceAllocationResult,
    DeviceClass,
    DeviceRequestAllocationResult,
    DeviceSelector,
    ResourceClaim,
    ResourceSlice,
)
from framework.plugins.dynamicresources import cel

__all__ = [
    "AllocationError",
    "Allocator",
    "DeviceID",
    "FailedOnNode",
    "Pool",
    "PoolCounters",
    "SliceIndex",
    "gather_pools",
    "tolerates_taint",
]


_VIEWS: OrderedDict[int, tuple[Device, cel.Device]] = OrderedDict()
_VIEWS_MAX = 65536


class AllocationError(ValueError):
    """Something wrong with a claim, a class or the slices: an error, not "does not fit"."""


class FailedOnNode(Exception):
    """Nothing fits on this node, and a pool it sees is invalid (``ErrFailedAllocationOnNode``).

    Not an error: other nodes may do. Filter reports it as the node's reason.
    """


class DeviceID(NamedTuple):
    """A device by driver, pool and name (``DeviceID``)."""

    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(slots=True)
class Pool:
    """One pool's newest slices (``Pool``): complete or not."""

    driver: str
    name: str
    generation: int
    slices: list[ResourceSlice] = field(default_factory=list)
    incomplete: bool = False


def gather_pools(slices: Iterable[ResourceSlice], node: Node) -> list[Pool]:
    """The pools whose devices ``node`` sees, newest generation only (``GatherPools``)."""
    pools: dict[tuple[str, str], Pool] = {}
    for resource_slice in slices:
        spec = resource_slice.spec
        if not _slice_reaches(resource_slice, node):
            continue
        key = (spec.driver, spec.pool.name)
        pool = pools.get(key)
        if pool is None or spec.pool.generation > pool.generation:
            pools[key] = Pool(spec.driver, spec.pool.name, spec.pool.generation, [resource_slice])
        elif spec.pool.generation == pool.generation:
            pool.slices.append(resource_slice)
    for pool in pools.values():
        expected = pool.slices[0].spec.pool.resource_slice_count
        pool.incomplete = len(pool.slices) < expected
        seen: set[str] = set()
        for resource_slice in pool.slices:
            for device in resource_slice.spec.devices:
                if device.name in seen:
                    raise AllocationError(
                        "invalid resource pools were encountered: pool "
                        f"{pool.driver}/{pool.name}: duplicate device name {device.name}"
                    )
                seen.add(device.name)
    return [pools[key] for key in sorted(pools)]


def _slice_reaches(resource_slice: ResourceSlice, node: Node) -> bool:
    spec = resource_slice.spec
    if spec.node_name:
        return spec.node_name == node.metadata.name
    if spec.all_nodes:
        return True
    if spec.node_selector is not None:
        return LazyErrorNodeSelector(spec.node_selector).matches(node)
    return False


def _attributes(driver: str, device: Device) -> dict[str, dict[str, Any]]:
    """The device's attributes by domain; an unqualified name is in the driver's domain."""
    by_domain: dict[str, dict[str, Any]] = {}
    for name, attribute in device.attributes.items():
        domain, _, short = name.rpartition("/")
        by_domain.setdefault(domain or driver, {})[short] = attribute.value()
    return by_domain


def _capacity(driver: str, device: Device) -> dict[str, dict[str, Any]]:
    by_domain: dict[str, dict[str, Any]] = {}
    for name, capacity in device.capacity.items():
        domain, _, short = name.rpartition("/")
        by_domain.setdefault(domain or driver, {})[short] = capacity.value
    return by_domain


Counters = dict[str, dict[str, Decimal]]
"""Counter sets by name, each counter's value by name (``counterSets``)."""


def _counter_values(raw: Any) -> dict[str, Decimal]:
    """``{memory: {value: 8Gi}}`` as exact numbers."""
    values: dict[str, Decimal] = {}
    for name, counter in (raw or {}).items():
        value = counter.get("value") if isinstance(counter, Mapping) else None
        values[str(name)] = Quantity.parse(value if value is not None else 0).value
    return values


def _shared_counters(resource_slice: ResourceSlice) -> list[Mapping[str, Any]]:
    """The slice's ``spec.sharedCounters``: counter sets for the devices of its pool."""
    raw = resource_slice.spec.extra.get("sharedCounters") or ()
    return [c for c in raw if isinstance(c, Mapping)]


def _consumes(device: Device) -> tuple[tuple[str, tuple[tuple[str, Decimal], ...]], ...]:
    """The device's ``consumesCounters``: per counter set, what it takes of each counter."""
    raw = device.extra.get("consumesCounters") or ()
    return tuple(
        (str(c.get("counterSet", "")), tuple(sorted(_counter_values(c.get("counters")).items())))
        for c in raw
        if isinstance(c, Mapping)
    )


@dataclass(frozen=True, slots=True)
class PoolCounters:
    """What partitionable devices need of a pool (``Pool.CounterSets``, validated).

    ``device_slices`` are all the pool's device slices of its generation,
    those for other nodes too: their allocated devices spend the counters.
    ``invalid`` is why the pool cannot be used (``InvalidReason``), or empty.
    """

    counter_sets: Counters
    device_slices: tuple[ResourceSlice, ...]
    invalid: str = ""


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A device the node sees, with what selectors and constraints read of it."""

    id: DeviceID
    slice: ResourceSlice
    view: cel.Device
    incomplete_pool: bool
    taints: tuple[Mapping[str, Any], ...] = ()
    consumes: tuple[tuple[str, tuple[tuple[str, Decimal], ...]], ...] = ()
    counters: PoolCounters | None = None

    @property
    def invalid_pool(self) -> bool:
        return self.counters is not None and bool(self.counters.invalid)


@dataclass(frozen=True, slots=True)
class _Request:
    """One request to satisfy (or one alternative of ``firstAvailable``)."""

    index: int  # its position among all alternatives of the cycle: the key of its cache
    claim_index: int
    name: str  # "request" or "request/subrequest", as the result names it
    constraint_name: str  # the top-level request's name, as constraints name it
    class_name: str
    selectors: tuple[DeviceSelector, ...]
    mode: str
    count: int
    admin_access: bool | None = None
    tolerations: tuple[Mapping[str, Any], ...] = ()


class SliceIndex:
    """The slices by the node they name, and the devices each node sees, made once.

    Every pod's Filter asks, for each node, which devices of which pools it
    sees: the same answer while no slice changes. The plugin keeps one index
    per set of slices (a new one when a slice changes), and each node's
    answer is made on its first use. A node's answer is kept with the node
    object it was made for, and made again for a newer one only when a
    shared slice selects nodes by their labels.

    With ``partitionable_devices`` (``DRAPartitionableDevices``), a slice
    with ``sharedCounters`` belongs to its pool whatever node it names, and
    gives the pool its counter sets; without, such slices and those with
    ``perDeviceNodeSelection`` are left out (but still count for whether
    their pool is complete).
    """

    def __init__(
        self, slices: Iterable[ResourceSlice], *, partitionable_devices: bool = True
    ) -> None:
        self.partitionable_devices = partitionable_devices
        self._by_node: dict[str, list[ResourceSlice]] = {}
        self._shared: list[ResourceSlice] = []
        self._by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
        for resource_slice in slices:
            spec = resource_slice.spec
            self._by_pool.setdefault((spec.driver, spec.pool.name), []).append(resource_slice)
            if _shared_counters(resource_slice) or (
                not partitionable_devices and spec.per_device_node_selection is not None
            ):
                continue  # counter sets (or, gate off, left out): never a device of its own
            if spec.node_name:
                self._by_node.setdefault(spec.node_name, []).append(resource_slice)
            else:
                self._shared.append(resource_slice)
        self._reads_labels = any(s.spec.node_selector is not None for s in self._shared)
        self._seen: dict[str, tuple[Node, list[_Candidate]]] = {}
        self._counters: dict[tuple[str, str, int], PoolCounters] = {}
        self._lock = threading.Lock()

    def _candidates(self, node: Node) -> list[_Candidate]:
        """The devices ``node`` sees, pool by pool; raises :class:`AllocationError`."""
        name = node.metadata.name
        with self._lock:
            hit = self._seen.get(name)
        if hit is not None and (hit[0] is node or not self._reads_labels):
            return hit[1]
        found: list[_Candidate] = []
        for pool in gather_pools([*self._by_node.get(name, ()), *self._shared], node):
            if not self._complete(pool):
                continue  # a newer generation is on its way: the pool is ignored
            counters = self._pool_counters(pool) if self.partitionable_devices else None
            found.extend(
                _Candidate(
                    DeviceID(pool.driver, pool.name, device.name),
                    resource_slice,
                    _view(resource_slice, device),
                    pool.incomplete,
                    tuple(t for t in device.extra.get("taints") or () if isinstance(t, Mapping)),
                    _consumes(device),
                    counters,
                )
                for resource_slice in pool.slices
                for device in resource_slice.spec.devices
            )
        with self._lock:
            self._seen[name] = (node, found)
        return found

    def _complete(self, pool: Pool) -> bool:
        """Whether the pool is current; sets ``pool.incomplete`` from all its slices.

        kube's ``checkSlicesInPool``: a slice of the pool with a newer
        generation (for another node) makes the pool obsolete (False); a
        pool has all its slices when those of its generation, for any node
        and counter sets included, are as many as it announces.
        """
        everything = self._by_pool.get((pool.driver, pool.name), [])
        if any(s.spec.pool.generation > pool.generation for s in everything):
            return False
        same = [s for s in everything if s.spec.pool.generation == pool.generation]
        expected = pool.slices[0].spec.pool.resource_slice_count
        pool.incomplete = len(pool.slices) < expected and len(same) < expected
        return True

    def _pool_counters(self, pool: Pool) -> PoolCounters:
        """The pool's counter sets and device slices, validated (``buildPool``), made once."""
        key = (pool.driver, pool.name, pool.generation)
        known = self._counters.get(key)
        if known is not None:
            return known
        same = [
            s
            for s in self._by_pool.get((pool.driver, pool.name), [])
            if s.spec.pool.generation == pool.generation
        ]
        counter_sets: Counters = {}
        invalid = ""
        for resource_slice in same:
            for counter_set in _shared_counters(resource_slice):
                set_name = str(counter_set.get("name", ""))
                if set_name in counter_sets and not invalid:
                    invalid = f"duplicate counter set name {set_name}"
                counter_sets[set_name] = _counter_values(counter_set.get("counters"))
        # The node's slices first, then the pool's others, as kube validates them.
        device_slices = [*pool.slices, *(s for s in same if s not in pool.slices)]
        device_slices = [s for s in device_slices if not _shared_counters(s)]
        for resource_slice in device_slices:
            for device in resource_slice.spec.devices:
                for set_name, counters in _consumes(device):
                    if invalid:
                        break
                    if set_name not in counter_sets:
                        invalid = f"counter set {set_name} not found"
                        break
                    for counter, _ in counters:
                        if counter not in counter_sets[set_name]:
                            invalid = f"counter {counter} not found in counter set {set_name}"
                            break
        found = PoolCounters(counter_sets, tuple(device_slices), invalid)
        with self._lock:
            self._counters[key] = found
        return found


def _view(resource_slice: ResourceSlice, device: Device) -> cel.Device:
    """What selectors see of a device, made once per stored device, not per node and pod.

    Keyed by the device object (kept alive with its entry, so its id is
    not reused), which a stored slice never changes: a new version of the
    slice brings new device objects.
    """
    hit = _VIEWS.get(id(device))
    if hit is not None and hit[0] is device:
        return hit[1]
    driver = resource_slice.spec.driver
    view = cel.Device(driver, _attributes(driver, device), _capacity(driver, device))
    _VIEWS[id(device)] = (device, view)
    if len(_VIEWS) > _VIEWS_MAX:
        _VIEWS.popitem(last=False)
    return view


class Allocator:
    """Allocates ``claims`` on one node at a time (``Allocator``)."""

    def __init__(
        self,
        claims: Sequence[ResourceClaim],
        allocated: set[DeviceID],
        classes: Mapping[str, DeviceClass],
        slices: Sequence[ResourceSlice] | SliceIndex,
        *,
        admin_access: bool = True,
        device_taints: bool = True,
        partitionable_devices: bool = True,
    ) -> None:
        self._admin_access = admin_access  # the DRAAdminAccess gate
        self._device_taints = device_taints  # the DRADeviceTaints gate
        self._partitionable = partitionable_devices  # the DRAPartitionableDevices gate
        # Per pool, the counters its allocated devices leave (constant for the cycle), and
        # what the devices of the allocation under way take (per allocate call).
        self._available: dict[tuple[str, str], Counters] = {}
        self._consumed: dict[tuple[str, str], Counters] = {}
        self._claims = list(claims)
        self._allocated = allocated
        self._classes = classes
        self._matches: dict[tuple[int, DeviceID], bool] = {}
        self._next_index = 0
        self._requests = [
            (claim_index, request.name, self._alternatives(claim_index, request))
            for claim_index, claim in enumerate(self._claims)
            for request in claim.spec.devices.requests
        ]
        self._slices = (
            slices
            if isinstance(slices, SliceIndex)
            else SliceIndex(slices, partitionable_devices=partitionable_devices)
        )

    def claims_to_allocate(self) -> list[ResourceClaim]:
        return list(self._claims)

    def for_claims(self, claims: Sequence[ResourceClaim]) -> Allocator:
        """An allocator for other claims over the same devices, classes and slices.

        Go's ``Allocate`` takes the claims per call; the special claim of
        extended resources differs from node to node.
        """
        return Allocator(
            claims,
            self._allocated,
            self._classes,
            self._slices,
            admin_access=self._admin_access,
            device_taints=self._device_taints,
            partitionable_devices=self._partitionable,
        )

    def needs_a_free_device(self) -> bool:
        """Whether every request takes at least one device not in use (``ExactCount``, count >= 1).

        Then a node with no free device cannot satisfy the claims, whatever
        the selectors say, and :meth:`allocate` there evaluates none of them.
        (``All`` evaluates selectors on devices in use too, and may raise.)
        """
        return bool(self._requests) and all(
            option.mode == ALLOCATION_MODE_EXACT_COUNT
            and option.count >= 1
            and not option.admin_access  # which may take a device in use
            for _, _, options in self._requests
            for option in options
        )

    def has_free_device(self, node: Node) -> bool | None:
        """Whether ``node`` sees a device of a complete pool no one holds; None if that is unsure.

        Unsure: the node's slices are in error (:meth:`allocate` raises there).
        """
        try:
            candidates = self._slices._candidates(node)
        except AllocationError:
            return None
        if any(c.invalid_pool for c in candidates):
            return None  # allocate() may fail there with "invalid resource pools..."
        return any(not c.incomplete_pool and c.id not in self._allocated for c in candidates)

    def allocate(self, node: Node) -> list[AllocationResult] | None:
        """One allocation per claim on ``node``, or None; raises :class:`AllocationError`."""
        candidates = self._slices._candidates(node)
        alternatives = self._requests
        for _, _, options in alternatives:
            for option in options:
                self._device_class(option)
                if option.admin_access and not self._admin_access:
                    raise AllocationError(
                        f"claim {_name(self._claims[option.claim_index])}, request "
                        f"{option.name}: admin access is requested, but the feature is disabled"
                    )
        chosen: list[tuple[_Request, list[_Candidate]]] = []
        self._consumed = {}
        if not self._search(alternatives, 0, candidates, set(), chosen):
            if any(c.invalid_pool for c in candidates):
                # Not fatal: other nodes may do; the node's reason says why this one did not.
                raise FailedOnNode("invalid resource pools were encountered")
            return None
        return self._results(chosen, node)

    def _alternatives(self, claim_index: int, request: Any) -> list[_Request]:
        if request.exactly is not None:
            exact = request.exactly
            return [self._request(claim_index, request.name, request.name, exact)]
        return [
            self._request(claim_index, f"{request.name}/{sub.name}", request.name, sub)
            for sub in request.first_available
        ]

    def _request(self, claim_index: int, name: str, top: str, spec: Any) -> _Request:
        mode = spec.allocation_mode or ALLOCATION_MODE_EXACT_COUNT
        count = spec.count if spec.count is not None else 1
        self._next_index += 1
        return _Request(
            self._next_index,
            claim_index,
            name,
            top,
            spec.device_class_name,
            spec.selectors,
            mode,
            count,
            getattr(spec, "admin_access", None),  # a firstAvailable alternative has none
            tuple(t for t in spec.tolerations if isinstance(t, Mapping)),
        )

    # --- the search -----------------------------------------------------------------------

    def _search(
        self,
        requests: list[tuple[int, str, list[_Request]]],
        at: int,
        candidates: list[_Candidate],
        taken: set[DeviceID],
        chosen: list[tuple[_Request, list[_Candidate]]],
    ) -> bool:
        if at == len(requests):
            return True
        for alternative in requests[at][2]:
            if alternative.mode == ALLOCATION_MODE_ALL:
                invalid = next((c for c in candidates if c.invalid_pool), None)
                if invalid is not None:
                    claim = self._claims[alternative.claim_index]
                    raise AllocationError(
                        f"claim {_name(claim)}, request {alternative.name}: asks for all "
                        f"devices, but resource pool {invalid.id.driver}/{invalid.id.pool} "
                        "is currently invalid"
                    )
                matching = [c for c in candidates if self._selectable(alternative, c)]
                incomplete = [c for c in matching if c.incomplete_pool]
                if incomplete:
                    claim = self._claims[alternative.claim_index]
                    pool = f"{incomplete[0].id.driver}/{incomplete[0].id.pool}"
                    raise AllocationError(
                        f"claim {_name(claim)}, request {alternative.name}: asks for all "
                        f"devices, but resource pool {pool} is currently being updated"
                    )
                if not matching or (
                    not alternative.admin_access
                    and any(c.id in taken or c.id in self._allocated for c in matching)
                ):
                    continue
                spent: list[_Candidate] = []
                if not all(self._spend(c, spent) for c in matching):
                    self._give_back(spent)
                    continue
                if not all(self._tolerated(alternative, c) for c in matching):
                    continue  # the counters stay spent for this node, as in kube
                if self._try(alternative, matching, requests, at, candidates, taken, chosen):
                    return True
                self._give_back(spent)
                continue
            if alternative.mode != ALLOCATION_MODE_EXACT_COUNT:
                raise AllocationError(
                    f"claim {_name(self._claims[alternative.claim_index])}, request "
                    f"{alternative.name}: unsupported count mode {alternative.mode}"
                )
            if self._pick(alternative, [], 0, requests, at, candidates, taken, chosen):
                return True
        return False

    def _pick(
        self,
        request: _Request,
        picked: list[_Candidate],
        start: int,
        requests: list[tuple[int, str, list[_Request]]],
        at: int,
        candidates: list[_Candidate],
        taken: set[DeviceID],
        chosen: list[tuple[_Request, list[_Candidate]]],
    ) -> bool:
        """Choose ``request.count`` devices one by one, in order, backing up on failure.

        A device is looked at only when the search reaches it, as kube's
        ``allocateOne`` does: in use (cheap) first, then its selectors, then the
        constraints; so a selector that fails at run time on a device after
        the one taken is never evaluated.
        """
        if len(picked) == request.count:
            return self._try(request, picked, requests, at, candidates, taken, chosen)
        # Admin access may look at a device in use (monitoring it, say), and leaves it free.
        allocated = set() if request.admin_access else self._allocated
        in_use = set() if request.admin_access else taken
        for i in range(start, len(candidates)):
            candidate = candidates[i]
            if (
                candidate.incomplete_pool
                or candidate.invalid_pool
                or candidate.id in in_use
                or candidate.id in allocated
            ):
                continue
            if not self._selectable(request, candidate):
                continue
            spent: list[_Candidate] = []
            if not self._spend(candidate, spent):
                continue
            # A taint or constraint that refuses the device leaves its counters spent for the
            # rest of this node's search: kube's allocateDevice rolls them back only when the
            # device, once taken, is given back.
            if not self._tolerated(request, candidate):
                continue
            if not self._constraints_hold(request, candidate, chosen, picked):
                continue
            picked.append(candidate)
            if self._pick(request, picked, i + 1, requests, at, candidates, taken, chosen):
                return True
            picked.pop()
            self._give_back(spent)
        return False

    # --- counters (partitionable devices) --------------------------------------------------

    def _spend(self, candidate: _Candidate, spent: list[_Candidate]) -> bool:
        """Take the device's counters if its pool has them left (``checkAvailableCounters``).

        A device that consumes no counters always may; one that does may
        not at all with the gate off. On success the device is added to
        ``spent``, for :meth:`_give_back`.
        """
        if not candidate.consumes:
            return True
        if not self._partitionable or candidate.counters is None:
            return False
        key = (candidate.id.driver, candidate.id.pool)
        available = self._available_counters(key, candidate.counters)
        consumed = self._consumed.setdefault(key, {})
        for set_name, counters in candidate.consumes:
            into = consumed.setdefault(set_name, {})
            for counter, value in counters:
                into[counter] = into.get(counter, Decimal(0)) + value
        for set_name, counters_left in available.items():
            for counter, left in counters_left.items():
                if left < consumed.get(set_name, {}).get(counter, Decimal(0)):
                    self._give_back([candidate])
                    return False
        spent.append(candidate)
        return True

    def _give_back(self, spent: list[_Candidate]) -> None:
        """Return the counters of devices no longer taken (``deallocateCountersForDevice``)."""
        for candidate in spent:
            consumed = self._consumed.get((candidate.id.driver, candidate.id.pool), {})
            for set_name, counters in candidate.consumes:
                into = consumed.get(set_name, {})
                for counter, value in counters:
                    into[counter] = into.get(counter, Decimal(0)) - value
        spent.clear()

    def _available_counters(self, key: tuple[str, str], pool: PoolCounters) -> Counters:
        """The pool's counters less what its allocated devices, on any node, consume."""
        known = self._available.get(key)
        if known is not None:
            return known
        available = {name: dict(values) for name, values in pool.counter_sets.items()}
        for resource_slice in pool.device_slices:
            for device in resource_slice.spec.devices:
                if DeviceID(key[0], key[1], device.name) not in self._allocated:
                    continue
                for set_name, counters in _consumes(device):
                    left = available.get(set_name)
                    for counter, value in counters:
                        if left is not None and counter in left:
                            left[counter] -= value  # may go below 0: nothing left
        self._available[key] = available
        return available

    def _try(
        self,
        request: _Request,
        devices: list[_Candidate],
        requests: list[tuple[int, str, list[_Request]]],
        at: int,
        candidates: list[_Candidate],
        taken: set[DeviceID],
        chosen: list[tuple[_Request, list[_Candidate]]],
    ) -> bool:
        if request.mode == ALLOCATION_MODE_ALL and not all(
            self._constraints_hold(request, d, chosen, devices[:i]) for i, d in enumerate(devices)
        ):
            return False
        ids = set() if request.admin_access else {d.id for d in devices}
        chosen.append((request, list(devices)))
        if self._search(requests, at + 1, candidates, taken | ids, chosen):
            return True
        chosen.pop()
        return False

    def _tolerated(self, request: _Request, candidate: _Candidate) -> bool:
        """Every taint of the device is tolerated by the request (``allTaintsTolerated``)."""
        if not self._device_taints:
            return True
        return all(
            any(tolerates_taint(t, taint) for t in request.tolerations)
            for taint in candidate.taints
        )

    def _device_class(self, request: _Request) -> DeviceClass:
        claim = self._claims[request.claim_index]
        if not request.class_name:
            raise AllocationError(
                f"claim {_name(claim)}, request {request.name}: missing device class name "
                "(unsupported request type?)"
            )
        device_class = self._classes.get(request.class_name)
        if device_class is None:
            raise AllocationError(
                f"claim {_name(claim)}, request {request.name}: could not retrieve device "
                f'class {request.class_name}: deviceclass.resource.k8s.io "{request.class_name}" '
                "not found"
            )
        return device_class

    def _selectable(self, request: _Request, candidate: _Candidate) -> bool:
        """The class's and the request's selectors hold for the device (``isSelectable``).

        The answer is kept for the allocator's life (the cycle), as kube's
        ``deviceMatchesRequest`` keeps it: Filter asks again on every node.
        """
        key = (request.index, candidate.id)
        known = self._matches.get(key)
        if known is None:
            known = self._matches[key] = self._evaluate(request, candidate)
        return known

    def _evaluate(self, request: _Request, candidate: _Candidate) -> bool:
        device_class = self._device_class(request)
        if not _selectors_match(device_class, device_class.spec.selectors, candidate):
            return False
        return _selectors_match(self._claims[request.claim_index], request.selectors, candidate)

    def _constraints_hold(
        self,
        request: _Request,
        candidate: _Candidate,
        chosen: list[tuple[_Request, list[_Candidate]]],
        picked: list[_Candidate],
    ) -> bool:
        """Every ``matchAttribute`` of the claim agrees with the devices already taken for it."""
        claim = self._claims[request.claim_index]
        for constraint in claim.spec.devices.constraints:
            attribute = constraint.match_attribute
            if not attribute:
                continue
            if constraint.requests and request.constraint_name not in constraint.requests:
                continue
            value = _attribute(candidate, attribute)
            if value is None:
                return False  # a device without the attribute cannot match anything
            others = [
                d
                for r, devices in chosen
                if r.claim_index == request.claim_index
                and (not constraint.requests or r.constraint_name in constraint.requests)
                for d in devices
            ] + picked
            if any(_attribute(d, attribute) != value for d in others):
                return False
        return True

    def _results(
        self, chosen: list[tuple[_Request, list[_Candidate]]], node: Node
    ) -> list[AllocationResult]:
        per_claim: list[list[tuple[_Request, _Candidate]]] = [[] for _ in self._claims]
        for request, devices in chosen:
            for device in devices:
                per_claim[request.claim_index].append((request, device))
        results = []
        for taken in per_claim:
            device_results = tuple(
                DeviceRequestAllocationResult(
                    request=request.name,
                    driver=device.id.driver,
                    pool=device.id.pool,
                    device=device.id.device,
                    admin_access=request.admin_access,
                )
                for request, device in taken
            )
            results.append(
                AllocationResult(
                    devices=DeviceAllocationResult(results=device_results),
                    node_selector=_node_selector([d for _, d in taken], node),
                )
            )
        return results


def _name(claim: ResourceClaim) -> str:
    """``klog.KObj``: ``namespace/name``, or the name alone without a namespace."""
    if claim.metadata.namespace:
        return f"{claim.metadata.namespace}/{claim.metadata.name}"
    return claim.metadata.name


def _where(owner: DeviceClass | ResourceClaim) -> str:
    if isinstance(owner, DeviceClass):
        return f"class {owner.metadata.name}"
    return f"claim {_name(owner)}"


def _selectors_match(
    owner: DeviceClass | ResourceClaim,
    selectors: tuple[DeviceSelector, ...],
    candidate: _Candidate,
) -> bool:
    """Whether every selector of ``owner`` (a class or a claim's request) holds for the device."""
    for i, selector in enumerate(selectors):
        if selector.cel is None:
            continue
        try:
            expression = cel.compile_expression(selector.cel.expression)
        except cel.CELError as error:
            raise AllocationError(
                f"{_where(owner)}: selector #{i}: CEL compile error: {error}"
            ) from None
        try:
            if not expression.matches(candidate.view):
                return False
        except cel.CELRuntimeError as error:
            raise AllocationError(
                f"{_where(owner)}: selector #{i}: CEL runtime error: {error}"
            ) from None
    return True


def _attribute(candidate: _Candidate, qualified: str) -> Any:
    domain, _, name = qualified.rpartition("/")
    return candidate.view.attributes.get(domain or candidate.id.driver, {}).get(name)


def _node_selector(devices: list[_Candidate], node: Node) -> NodeSelector | None:
    """Where the allocation is usable (``createNodeSelector``): the node, a selector, or anywhere."""
    selectors = []
    for device in devices:
        spec = device.slice.spec
        if spec.node_name:
            return _local_node_selector(node.metadata.name)
        if spec.node_selector is not None:
            selectors.append(spec.node_selector)
    return selectors[0] if selectors else None


@functools.lru_cache(maxsize=8192)
def _local_node_selector(name: str) -> NodeSelector:
    """``metadata.name In [name]`` (immutable, so one per node serves every allocation)."""
    return NodeSelector(
        node_selector_terms=(
            NodeSelectorTerm(
                match_fields=(
                    NodeSelectorRequirement(key="metadata.name", operator="In", values=(name,)),
                )
            ),
        )
    )


def tolerates_taint(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Whether a request's toleration tolerates a device's taint (``resourceclaim.ToleratesTaint``).

    An empty key or effect matches any; ``Exists`` any value, ``Equal`` (the
    default operator) only the taint's own.
    """
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False
