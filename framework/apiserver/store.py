"""The fake API server: an in-memory store with Kubernetes' rules for every write.

Everything a scheduler knows about the cluster it reads from the API server,
and everything it decides it writes there. This module is that server for
tests, the simulator and the chapters: the same objects, the same errors and
the same guarantees as the real one, without etcd, HTTP or authentication.

A **write** goes through the steps the real server takes, in the same order
(read :meth:`APIServer.create` top to bottom):

1. *defaulting* fills in omitted fields (:mod:`~framework.apiserver.defaults`);
2. *admission* may change or refuse the object (:mod:`.admission`);
3. the kind's *strategy* resets what a client may not set (:mod:`.strategy`);
4. *validation* lists every problem, refusing with ``422 Invalid`` (:mod:`~framework.apiserver.validation`);
5. the write is *committed*: the object gets the next ``resourceVersion``
   and the change goes to every watcher (:mod:`.watch`).

**Concurrency** is optimistic, as in Kubernetes: an update names the
``resourceVersion`` it read, and fails with ``409 Conflict`` if the object
changed since; the client reads again and retries. One lock guards the whole
store; a commit assigns the version and fans the change out while holding it,
so all watchers see all changes in one order. Stored objects are immutable,
so reads hand them out without copying.

Mirrors ``k8s.io/apiserver/pkg/registry/generic/registry/store.go`` (``Store``:
``Create``, ``Update``, ``Delete``), ``k8s.io/apiserver/pkg/registry/rest``
(``BeforeCreate``, names from ``generateName``),
``pkg/registry/core/pod/storage/storage.go`` (the ``pods/binding``
subresource) and ``k8s.io/apiserver/pkg/storage/etcd3/store.go`` (a no-op
update is not written). Simplified: deletion is immediate unless a grace
period is asked for, finalizers are ignored, a namespace's contents are
deleted with it at once. Events expire ``event_ttl`` seconds (1 h) after
their last write, on the server's clock (so a simulation's time expires them
too), seen at the next write or read of Events rather than by a timer.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import random
import threading
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from framework.apiserver import (
    admission,
    defaults,
    disruption,
    pods,
    pv_controller,
    resourceclaim_controller,
    strategy,
    validation,
)
from framework.apiserver.errors import (
    MSG_OBJECT_MODIFIED,
    AlreadyExists,
    BadRequest,
    Conflict,
    FieldCause,
    Invalid,
    NotFound,
    RequestEntityTooLarge,
    resource_for,
)
from framework.apiserver.selection import FieldSelectorArg, LabelSelectorArg, SelectionPredicate
from framework.apiserver.watch import (
    ADDED,
    DELETED,
    MODIFIED,
    Change,
    Watch,
    WatchCache,
    WatchEvent,
    parse_resource_version,
)
from framework.clock import Clock, RealClock, rfc3339
from framework.featuregate import FeatureGates, new_feature_gates
from framework.objects import (
    Binding,
    Event,
    KubeObject,
    Namespace,
    Node,
    ObjectMeta,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
)
from framework.objects.resource import RESOURCE_KINDS, ResourceClaim, ResourceClaimTemplate
from framework.objects.storage import (
    STORAGE_KINDS,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from framework.objects.workload import WORKLOAD_KINDS
from framework.objects.workloads import (
    DaemonSet,
    Deployment,
    Job,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)

__all__ = [
    "BUILTIN_NAMESPACES",
    "DEFAULT_EVENT_TTL",
    "DEFAULT_WATCH_WINDOW_BYTES",
    "MAX_OBJECT_BYTES",
    "MSG_TOO_LARGE",
    "SERVED_KINDS",
    "APIServer",
    "ListResult",
]

T = TypeVar("T", bound=KubeObject)

SERVED_KINDS: tuple[type[KubeObject], ...] = (
    Namespace,
    Node,
    Pod,
    Event,
    PriorityClass,
    PodGroup,
    PodDisruptionBudget,
    # Read by kube-scheduler's plugins only (PodTopologySpread's default selector).
    Service,
    ReplicationController,
    ReplicaSet,
    StatefulSet,
    # Read by the volume plugins.
    *STORAGE_KINDS,
    # Made into pods by the workload controllers (framework.simulator.controllers).
    Deployment,
    DaemonSet,
    Job,
    # Read by DynamicResources.
    *RESOURCE_KINDS,
    # scheduling.k8s.io's gangs (GenericWorkload), read by GangScheduling.
    *WORKLOAD_KINDS,
)
# Writes after which the PV controller looks again.
_VOLUME_INPUTS = (PersistentVolume, PersistentVolumeClaim, StorageClass)
BUILTIN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")

DEFAULT_WATCH_WINDOW_BYTES = 64 * 1024 * 1024
"""How many bytes of changes one kind's watch history keeps, when their sizes are known."""

DEFAULT_EVENT_TTL = 3600.0
"""Seconds an Event lives after its last write (kube-apiserver's ``--event-ttl``, 1 h)."""

MAX_OBJECT_BYTES = 1536 * 1024
"""The largest object etcd stores (its ``--max-request-bytes`` default, 1.5 MiB)."""

#: What etcd answers for a write larger than that.
MSG_TOO_LARGE = "etcdserver: request is too large"


_MAX_PLAIN_PREDICATES = 4096
"""How many (kind, namespace) list predicates :meth:`APIServer.list` keeps before starting afresh."""


@dataclass(frozen=True, slots=True)
class ListResult(Generic[T]):
    """A list answer: the items in key order and the resourceVersion they were read at."""

    items: tuple[T, ...]
    resource_version: str


class _Table:
    """The objects of one kind, by key (``namespace/name`` or ``name``), and their watch cache."""

    __slots__ = ("cache", "kind", "objects")

    def __init__(self, kind: type[KubeObject], watch_window: int, window_bytes: int) -> None:
        self.kind = kind
        self.objects: dict[str, KubeObject] = {}
        self.cache = WatchCache(watch_window, window_bytes)


class APIServer:
    """An in-memory Kubernetes API server for Namespaces, Nodes, Pods, Events, PriorityClasses
    and the PodGroup custom resource of scheduler-plugins.

    Starts with the namespaces ``default``, ``kube-system``, ``kube-public``
    and ``kube-node-lease`` and the two system PriorityClasses, as a new
    cluster does. Inject ``clock`` (timestamps), ``uid_factory`` and ``rng``
    (names from ``generateName``) to make runs repeatable. ``watch_window``
    is how many changes per kind a watch may replay. With
    ``max_object_bytes`` set (the HTTP face sets :data:`MAX_OBJECT_BYTES`),
    every write is encoded as JSON before it is committed, and refused if it
    cannot be or if it is larger (``413``, in etcd's words): what is stored can
    always be written back. Left unset, in-process runs skip that cost.
    With sizes known, each kind's watch history keeps at most
    ``watch_window_bytes`` (64 MiB) of changes as well. ``event_ttl``
    (``--event-ttl``, 1 h; None: forever) is how long an Event lives. A ``namespace`` left
    out means ``default`` for a namespaced kind (and is ignored for a
    cluster-scoped one), except in ``list`` and ``watch``, where it means all
    namespaces. Every method is thread-safe; errors are
    :class:`~framework.apiserver.errors.APIError`.

    It also does the disruption controller's job, at once: every write of a
    Pod or a PodDisruptionBudget recomputes the status of the namespace's
    budgets (:mod:`~framework.apiserver.disruption`), writing those that
    changed as status updates with their own resourceVersions.
    """

    def __init__(
        self,
        clock: Clock | None = None,
        *,
        uid_factory: Callable[[], str] | None = None,
        rng: random.Random | None = None,
        watch_window: int = 10_000,
        max_object_bytes: int | None = None,
        watch_window_bytes: int = DEFAULT_WATCH_WINDOW_BYTES,
        event_ttl: float | None = DEFAULT_EVENT_TTL,
        feature_gates: FeatureGates | None = None,
    ) -> None:
        self.max_object_bytes = max_object_bytes
        # The gates the server reads: may tolerations use Lt and Gt (validation), and does a
        # binding clear the pod's nomination? A server built without gates has the default
        # release's, as a real one has its own version's.
        gates = feature_gates or new_feature_gates()
        self._comparison_operators = gates.enabled("TaintTolerationComparisonOperators")
        self._clear_nominated_on_bind = gates.enabled("ClearingNominatedNodeNameAfterBinding")
        self._lock = threading.RLock()
        self._clock: Clock = clock or RealClock()
        self._new_uid = uid_factory or (lambda: str(uuid.uuid4()))
        self._rng = rng or random.Random()
        self._resource_version = 0
        self._budgets_paused = False  # while a namespace's contents go, or budgets are synced
        self._volumes_paused = False  # while the PV controller writes what it decided
        self._claims_paused = False  # while the resourceclaim controller writes
        self._tables = {
            kind: _Table(kind, watch_window, watch_window_bytes) for kind in SERVED_KINDS
        }
        self.event_ttl = event_ttl
        # The predicates of lists without selectors, by kind and namespace (plugins' listers
        # ask for the same few, once or more per pod).
        self._plain_predicates: dict[tuple[type[KubeObject], str | None], SelectionPredicate] = {}
        # Events in the order they were last written: (expires at, key, resourceVersion).
        self._event_expiry: collections.deque[tuple[float, str, str]] = collections.deque()
        for name in BUILTIN_NAMESPACES:
            self.create(Namespace(metadata=ObjectMeta(name=name)))
        for name, value in validation.SYSTEM_PRIORITY_CLASSES.items():
            self.create(PriorityClass(metadata=ObjectMeta(name=name), value=value))

    # --- reads ------------------------------------------------------------------------

    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        """The stored object; :class:`NotFound` if there is none."""
        table = self._table(kind)
        with self._lock:
            if kind is Event:
                self._expire_events()
            return cast(T, self._stored(table, self._key(kind, name, namespace)))

    def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        label_selector: LabelSelectorArg = None,
        field_selector: FieldSelectorArg = None,
    ) -> ListResult[T]:
        """The matching objects in key order (as etcd returns them); ``namespace=None`` is all."""
        table = self._table(kind)
        if label_selector is None and field_selector is None:
            matches = self._plain_predicate(kind, namespace)
        else:
            matches = SelectionPredicate.compile(kind, namespace, label_selector, field_selector)
        with self._lock:
            if kind is Event:
                self._expire_events()
            version = str(self._resource_version)
            if not table.objects:
                return ListResult((), version)
            snapshot = list(table.objects.values())
        items = sorted((o for o in snapshot if matches(o)), key=lambda o: o.key)
        return ListResult(tuple(cast(list[T], items)), version)

    def _plain_predicate(
        self, kind: type[KubeObject], namespace: str | None
    ) -> SelectionPredicate:
        """The compiled predicate of a list without selectors (it cannot be malformed), kept."""
        key = (kind, namespace)
        found = self._plain_predicates.get(key)
        if found is None:
            if len(self._plain_predicates) >= _MAX_PLAIN_PREDICATES:
                self._plain_predicates.clear()
            found = self._plain_predicates[key] = SelectionPredicate.compile(kind, namespace)
        return found

    def watch(
        self,
        kind: type[KubeObject],
        resource_version: str | int | None = None,
        *,
        namespace: str | None = None,
        label_selector: LabelSelectorArg = None,
        field_selector: FieldSelectorArg = None,
    ) -> Watch:
        """Watch changes to ``kind``; see :mod:`framework.apiserver.watch` for the guarantees.

        With no ``resource_version`` (or ``"0"``) the watch opens with an
        ADDED event per matching object; with one it replays every retained
        change after it, or raises :class:`~framework.apiserver.errors.Expired`.
        """
        table = self._table(kind)
        matches = SelectionPredicate.compile(kind, namespace, label_selector, field_selector)
        start = parse_resource_version(resource_version)
        with self._lock:
            if start is None:
                watch = Watch(matches, self._resource_version, self._forget(table))
                for obj in sorted(filter(matches, table.objects.values()), key=lambda o: o.key):
                    watch._enqueue(WatchEvent(ADDED, obj, obj.metadata.resource_version))
            else:
                changes = table.cache.since(start)
                watch = Watch(matches, start, self._forget(table))
                for change in changes:  # the replay, delivered before any live change
                    watch._deliver(change)
            table.cache.register(watch)
        return watch

    def current_resource_version(self) -> str:
        """The resourceVersion of the latest write, as a decimal string."""
        with self._lock:
            return str(self._resource_version)

    def watch_history(self, kind: type[KubeObject]) -> tuple[int, int]:
        """How many changes of ``kind`` a watch may replay now, and their bytes (if known)."""
        with self._lock:
            return self._table(kind).cache.retained

    def watcher_count(self, kind: type[KubeObject] | None = None) -> int:
        """How many watches of ``kind`` (of every kind, if None) are registered now.

        A stopped watch is unregistered at once, so this falls back when a
        client goes away; the tests for abandoned watches read it.
        """
        with self._lock:
            tables = [self._table(kind)] if kind is not None else self._tables.values()
            return sum(table.cache.watcher_count for table in tables)

    # --- writes -------------------------------------------------------------------------

    def create(self, obj: T, *, namespace: str | None = None) -> T:
        """Store a new object and return it as stored (uid, resourceVersion, timestamps set).

        ``namespace`` is the request's namespace; the object's own must agree.
        Raises AlreadyExists, NotFound (no such namespace), Forbidden
        (admission), Invalid (validation) or BadRequest.
        """
        table = self._table(type(obj))
        obj = defaults.set_defaults(strategy.with_request_namespace(obj, namespace))
        if obj.metadata.resource_version:
            raise BadRequest("resourceVersion should not be set on objects to be created")
        with self._lock:
            self._expire_events()
            obj = strategy.prepare_for_create(self._admit(admission.CREATE, obj))
            uid, now = self._new_uid(), rfc3339(self._clock.now())
            version = str(self._resource_version + 1)  # what _commit will give it
            obj = strategy.fill_system_fields(obj, self._name_for(obj, table), uid, now, version)
            obj = strategy.generate_job_selector(obj)
            _raise_if_invalid(
                obj,
                validation.validate_create(obj, comparison_operators=self._comparison_operators),
            )
            if obj.key in table.objects:
                raise AlreadyExists(resource_for(table.kind), obj.metadata.name)
            return cast(T, self._commit(table, ADDED, obj, None))

    def update(self, obj: T) -> T:
        """Replace the object's spec and metadata; its status is kept (``PUT``).

        If ``obj.metadata.resource_version`` is set it must equal the stored
        one, else :class:`Conflict`; empty means "whatever is stored". An
        update that changes nothing returns the stored object unchanged.
        """
        return self._update(obj, status=False)

    def update_status(self, obj: T) -> T:
        """Replace the object's status (``PUT .../status``); its spec is kept.

        As in Kubernetes, labels and annotations sent along are written too.
        Only Pods, Nodes, Namespaces, PodGroups and PodDisruptionBudgets have a
        status subresource.
        """
        if not isinstance(obj, strategy.HAS_STATUS):
            raise BadRequest(f"{type(obj).__name__} has no status subresource")
        return self._update(obj, status=True)

    def delete(
        self,
        kind: type[T],
        name: str,
        namespace: str | None = None,
        *,
        resource_version: str | None = None,
        uid: str | None = None,
        grace_period_seconds: int | None = 0,
    ) -> T:
        """Delete an object and return its final state (with the deletion's resourceVersion).

        ``resource_version`` and ``uid`` are preconditions (:class:`Conflict`
        if they do not hold). A pod bound to a node and given a grace period
        (``None`` means its ``terminationGracePeriodSeconds``) is only marked
        with ``deletionTimestamp``; deleting it again with 0 removes it. The
        default, 0, deletes at once, as ``kubectl delete --grace-period=0
        --force`` does: there is no kubelet here to confirm a graceful end.
        Deleting a namespace deletes everything in it.
        """
        table = self._table(kind)
        admission.admit_delete(kind, name)
        with self._lock:
            self._expire_events()
            old = self._stored(table, self._key(kind, name, namespace))
            _check_preconditions(old, resource_version, uid)
            grace = pods.grace_period(old, grace_period_seconds)
            if grace > 0:
                return cast(T, self._delete_gracefully(table, old, grace))
            if isinstance(old, Namespace):
                self._delete_contents(old.metadata.name)
            return cast(T, self._commit(table, DELETED, old, old))

    def bind(self, binding: Binding) -> Pod:
        """Assign a pod to a node: ``POST pods/<name>/binding``; return the bound pod.

        The node need not exist (the real server does not check). Raises
        Invalid (target not a Node, or no name), NotFound (no such pod) or
        Conflict (already bound, being deleted, still gated, or a failed
        uid/resourceVersion precondition). One MODIFIED event follows.
        """
        namespace = binding.metadata.namespace or "default"
        name = binding.metadata.name
        _raise_if_invalid(binding, pods.validate_binding(binding))
        table = self._tables[Pod]
        with self._lock:
            self._expire_events()
            pod = cast(Pod, self._stored(table, f"{namespace}/{name}"))
            meta = binding.metadata
            _check_preconditions(pod, meta.resource_version or None, meta.uid or None)
            refusal = pods.binding_refusal(pod)
            if refusal:
                raise Conflict(resource_for(Binding), name, refusal)
            now = rfc3339(self._clock.now())
            bound = pods.assign(
                pod,
                binding.target.name,
                meta.annotations,
                now,
                clear_nominated_node_name=self._clear_nominated_on_bind,
                resource_version=str(self._resource_version + 1),  # what _commit will give it
            )
            return cast(Pod, self._commit(table, MODIFIED, bound, pod))

    # --- the steps of a write -----------------------------------------------------------------

    def _update(self, obj: T, *, status: bool) -> T:
        table = self._table(type(obj))
        obj = defaults.set_defaults(strategy.with_request_namespace(obj, None))
        with self._lock:
            self._expire_events()
            old = self._stored(table, obj.key)
            sent = obj.metadata.resource_version
            if sent and sent != old.metadata.resource_version:
                raise Conflict(resource_for(table.kind), obj.metadata.name, MSG_OBJECT_MODIFIED)
            if status:
                new = strategy.prepare_for_status_update(obj, cast(T, old))
            else:
                new = strategy.prepare_for_update(self._admit(admission.UPDATE, obj), cast(T, old))
            new = new.with_metadata(resource_version=old.metadata.resource_version)
            _raise_if_invalid(
                new,
                validation.validate_update(
                    new, old, comparison_operators=self._comparison_operators
                ),
            )
            if new == old:
                return new  # etcd3's GuaranteedUpdate skips a write that changes no byte
            return cast(T, self._commit(table, MODIFIED, new, old))

    def _admit(self, operation: str, obj: T) -> T:
        namespaces = self._tables[Namespace].objects.keys()
        classes = cast(Mapping[str, PriorityClass], self._tables[PriorityClass].objects)
        return admission.admit(operation, obj, namespaces=namespaces, priority_classes=classes)

    def _name_for(self, obj: KubeObject, table: _Table) -> str:
        """The object's name, or one made from ``generateName`` that is not taken yet."""
        name = obj.metadata.name
        # A clash is unlikely but possible; like RetryGenerateName, draw again a few times.
        for _ in range(8 if not name and obj.metadata.generate_name else 0):
            name = strategy.generate_name(obj.metadata.generate_name, self._rng)
            if self._key(table.kind, name, obj.metadata.namespace) not in table.objects:
                break
        return name

    def _commit(
        self, table: _Table, change: str, obj: KubeObject, prev: KubeObject | None
    ) -> KubeObject:
        """Give ``obj`` the next resourceVersion, store (or remove) it and tell the watchers."""
        size = 0
        if self.max_object_bytes is not None and change != DELETED:
            size = self._check_encodable(obj, self.max_object_bytes)
        self._resource_version += 1
        version = str(self._resource_version)
        # A create or a binding stamps the version with its other changes (one copy, not two).
        stored = (
            obj
            if obj.metadata.resource_version == version
            else obj.with_metadata(resource_version=version)
        )
        if change == DELETED:
            del table.objects[stored.key]
        else:
            table.objects[stored.key] = stored
        table.cache.record(Change(change, stored, prev, self._resource_version), size)
        if isinstance(stored, Event) and change != DELETED and self.event_ttl is not None:
            expires = self._clock.now() + self.event_ttl
            self._event_expiry.append((expires, stored.key, stored.metadata.resource_version))
        if isinstance(stored, Pod | PodDisruptionBudget) and not self._budgets_paused:
            self._sync_disruption_budgets(stored.metadata.namespace)
        if isinstance(stored, _VOLUME_INPUTS) and not self._volumes_paused and change != DELETED:
            self._sync_volumes(stored)
        if (
            change == ADDED
            and isinstance(stored, Pod | ResourceClaimTemplate)
            and not self._claims_paused
        ):
            self._sync_claims(stored)
        return stored

    def _sync_claims(self, written: Pod | ResourceClaimTemplate) -> None:
        """The resourceclaim controller's job (:mod:`.resourceclaim_controller`), at once."""
        pod_table = self._tables[Pod]
        if isinstance(written, Pod):
            if not resourceclaim_controller.needs_claims(written):
                return
            waiting = [written]
        else:
            namespace = written.metadata.namespace
            waiting = [
                cast(Pod, p)
                for p in pod_table.objects.values()
                if p.metadata.namespace == namespace
                and resourceclaim_controller.needs_claims(cast(Pod, p))
            ]
        claims_table = self._tables[ResourceClaim]
        self._claims_paused = True
        try:
            for pod in waiting:
                planned = resourceclaim_controller.plan(
                    pod,
                    cast(
                        Mapping[str, ResourceClaimTemplate],
                        self._tables[ResourceClaimTemplate].objects,
                    ),
                    cast(Mapping[str, ResourceClaim], claims_table.objects),
                )
                if not planned.claims:
                    continue
                made: list[tuple[str, str]] = []
                now = rfc3339(self._clock.now())
                for entry, claim in planned.claims:
                    claim = defaults.set_defaults(claim)
                    name = self._name_for(claim, claims_table)
                    claim = strategy.fill_system_fields(claim, name, self._new_uid(), now)
                    self._commit(claims_table, ADDED, claim, None)
                    made.append((entry, name))
                current = cast(Pod, pod_table.objects[pod.key])
                updated = resourceclaim_controller.with_claim_statuses(current, made)
                self._commit(pod_table, MODIFIED, updated, current)
        finally:
            self._claims_paused = False

    def _sync_volumes(self, written: KubeObject) -> None:
        """The PV controller's job (:mod:`.pv_controller`): bind and provision claims, at once.

        It looks at what the write concerns (the volume and its claim, or the
        claim and the volumes it could bind), not at every volume and claim:
        a write costs the same in a cluster of ten claims or ten thousand.
        """
        self._volumes_paused = True  # its own writes are what it decided: no pass per write
        try:
            for _ in range(3):  # a provisioned volume, then its binding, settle within passes
                volumes, claims = self._volume_scope(written)
                changes = pv_controller.reconcile(
                    volumes,
                    claims,
                    cast(Mapping[str, StorageClass], self._tables[StorageClass].objects),
                    cast(Mapping[str, Node], self._tables[Node].objects),
                )
                if not changes:
                    return
                table_of_volumes = self._tables[PersistentVolume]
                now = rfc3339(self._clock.now())
                for created in changes.created:
                    if created.key in table_of_volumes.objects:
                        continue
                    made = strategy.fill_system_fields(
                        defaults.set_defaults(created), created.metadata.name, self._new_uid(), now
                    )
                    self._commit(table_of_volumes, ADDED, made, None)
                for new, old in changes.updated:
                    table = self._tables[type(new)]
                    current = table.objects.get(new.key)
                    if (
                        current is not None
                        and current.metadata.resource_version == old.metadata.resource_version
                    ):
                        self._commit(table, MODIFIED, new, current)
        finally:
            self._volumes_paused = False

    def _volume_scope(
        self, written: KubeObject
    ) -> tuple[Sequence[PersistentVolume], Sequence[PersistentVolumeClaim]]:
        """The volumes and claims a write of ``written`` may change the binding of."""
        volumes = cast(dict[str, PersistentVolume], self._tables[PersistentVolume].objects)
        claims = cast(
            dict[str, PersistentVolumeClaim], self._tables[PersistentVolumeClaim].objects
        )
        if isinstance(written, PersistentVolume):
            volume = volumes.get(written.key)
            if volume is None:
                return [], []
            ref = volume.spec.claim_ref
            if ref is not None:
                claim = claims.get(f"{ref.namespace}/{ref.name}")
                return [volume], [claim] if claim is not None else []
            waiting = [c for c in claims.values() if not c.spec.volume_name]
            return [volume], waiting
        if isinstance(written, PersistentVolumeClaim):
            claim = claims.get(written.key)
            if claim is None:
                return [], []
            if claim.spec.volume_name:
                named = volumes.get(claim.spec.volume_name)
                return [named] if named is not None else [], [claim]
            return list(volumes.values()), [claim]
        return list(volumes.values()), list(claims.values())

    @staticmethod
    def _check_encodable(obj: KubeObject, limit: int) -> int:
        """Refuse ``obj`` unless it encodes as JSON in at most ``limit`` bytes (as etcd would)."""
        try:
            size = len(json.dumps(obj.to_dict(), allow_nan=False).encode())
        except (TypeError, ValueError, RecursionError) as exc:
            why = f"{obj.KIND} {obj.metadata.name!r} cannot be encoded as JSON: {exc}"
            raise BadRequest(why) from None
        if size > limit:
            raise RequestEntityTooLarge(
                f"{MSG_TOO_LARGE} ({obj.KIND} {obj.metadata.name!r} would be {size} bytes; "
                f"etcd stores at most {limit})"
            )
        return size

    def _expire_events(self) -> None:
        """Delete the Events whose TTL has passed since their last write (etcd's lease, here)."""
        now = self._clock.now()
        queue, events = self._event_expiry, self._tables[Event]
        while queue and queue[0][0] <= now:
            _, key, version = queue.popleft()
            event = events.objects.get(key)
            if event is not None and event.metadata.resource_version == version:
                self._commit(events, DELETED, event, event)

    def _sync_disruption_budgets(self, namespace: str) -> None:
        """The disruption controller's job: rewrite the budgets of ``namespace`` that changed."""
        budgets = self._tables[PodDisruptionBudget]
        if not budgets.objects:
            return  # no budget anywhere (the usual case): nothing to look at
        mine = sorted(
            (b for b in budgets.objects.values() if b.metadata.namespace == namespace),
            key=lambda b: b.key,
        )
        if not mine:
            return
        pods_here = [
            cast(Pod, p)
            for p in self._tables[Pod].objects.values()
            if p.metadata.namespace == namespace
        ]
        now = self._clock.now()
        self._budgets_paused = True  # its own status writes change no input: one pass is enough
        try:
            for budget in cast(list[PodDisruptionBudget], mine):
                status = disruption.compute_status(budget, pods_here, now)
                if status != budget.status:
                    updated = dataclasses.replace(budget, status=status)
                    self._commit(budgets, MODIFIED, updated, budget)
        finally:
            self._budgets_paused = False

    def _delete_gracefully(self, table: _Table, pod: KubeObject, grace: int) -> KubeObject:
        marked = pods.mark_for_deletion(cast(Pod, pod), grace, self._clock.now())
        return pod if marked == pod else self._commit(table, MODIFIED, marked, pod)

    def _delete_contents(self, namespace: str) -> None:
        # The namespace controller's job, done at once: everything in it goes first.
        self._budgets_paused = True  # its budgets are going too: nothing to recompute
        try:
            for table in self._tables.values():
                doomed = [o for o in table.objects.values() if o.metadata.namespace == namespace]
                for obj in doomed:
                    self._commit(table, DELETED, obj, obj)
        finally:
            self._budgets_paused = False

    # --- helpers ----------------------------------------------------------------------------

    def _table(self, kind: type[KubeObject]) -> _Table:
        table = self._tables.get(kind)
        if table is None:
            served = ", ".join(k.KIND for k in SERVED_KINDS)
            hint = "; bind a pod with bind()" if kind is Binding else ""
            raise BadRequest(
                f"this API server does not store {kind.__name__} (it stores {served}){hint}"
            )
        return table

    def _stored(self, table: _Table, key: str) -> KubeObject:
        obj = table.objects.get(key)
        if obj is None:
            raise NotFound(resource_for(table.kind), key.rpartition("/")[2])
        return obj

    @staticmethod
    def _key(kind: type[KubeObject], name: str, namespace: str | None) -> str:
        return f"{namespace or 'default'}/{name}" if kind.NAMESPACED else name

    def _forget(self, table: _Table) -> Callable[[Watch], None]:
        def unregister(watch: Watch) -> None:
            with self._lock:
                table.cache.unregister(watch)

        return unregister


def _raise_if_invalid(obj: KubeObject, causes: Collection[FieldCause]) -> None:
    """Refuse ``obj`` with ``422 Invalid`` naming every cause, if there are any."""
    if causes:
        group = obj.API_VERSION.rpartition("/")[0]
        raise Invalid(obj.KIND, obj.metadata.name, list(causes), group)


def _check_preconditions(obj: KubeObject, resource_version: str | None, uid: str | None) -> None:
    """``storage.Preconditions.Check``; a failed precondition is a Conflict."""
    meta = obj.metadata
    if uid is not None and uid != meta.uid:
        why = f"Precondition failed: UID in precondition: {uid}, UID in object meta: {meta.uid}"
        raise Conflict(resource_for(type(obj)), meta.name, why)
    if resource_version is not None and resource_version != meta.resource_version:
        why = (
            f"the ResourceVersion in the precondition ({resource_version}) does not match the "
            f"ResourceVersion in record ({meta.resource_version}). "
            "The object might have been modified"
        )
        raise Conflict(resource_for(type(obj)), meta.name, why)
