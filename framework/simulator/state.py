"""A snapshot's state, written the way the cluster got into it: create, status, graceful delete.

A create resets what only the server, the kubelet and the controllers may
set (:mod:`framework.apiserver.strategy`): a new pod is ``Pending`` with no
start time, nothing is being deleted, a budget's status is empty. A
snapshot of a running cluster records exactly those fields, and the
scheduler reads them: DefaultPreemption picks victims and nodes by
``status.startTime``, PodTopologySpread skips pods with a
``deletionTimestamp``, the nominator keeps ``status.nominatedNodeName``
and preemption counts a budget's ``status.disruptedPods``. So each object
is brought to its recorded state through the API server's own writes, in
the order the cluster made them, and every one of them is validated:

1. **create**, as a client would (the server resets the status);
2. a **status update**, as the kubelet or a controller writes it: a pod's
   ``phase``, ``startTime``, ``nominatedNodeName`` and conditions (one
   given replaces the server's of its type, the others stay); a budget's
   ``disruptedPods`` (the server then recomputes its counts, as the
   disruption controller would, from the pods it holds); a
   PersistentVolume's or a claim's phase (``Bound``, ``Released``,
   ``Lost``), as the PV controller writes it, where it differs from the
   one this project's PV controller reached on its own;
3. a **graceful delete** of each terminating pod, at the moment it was
   asked for (``deletionTimestamp`` less ``deletionGracePeriodSeconds``)
   and with that grace period, so that the server writes the same
   ``deletionTimestamp`` again.

**Time.** The clock starts at the earliest of those deletion moments and
ends at the latest moment the state records (a start time, a condition's
transition, an eviction, a deletion request): the simulation goes on from
there, so a pod with no start time counts as starting after every pod
that has one, as it would in the live cluster. Inputs that record no state
start at the fixed fake start of :class:`~framework.clock.FakeClock`, as
they always did. Time stamps are kept as written, fractions of a second
included, and compared to the nanosecond
(:func:`~framework.clock.parse_rfc3339_nanos`).

Mirrors what reaches an API server from a cluster's life: ``rest.BeforeCreate``
then the kubelet's status manager (``pkg/kubelet/status/status_manager.go``,
a status update) then ``rest.BeforeDelete`` (``deletionTimestamp = now +
grace``), in ``kubernetes/kubernetes`` at v1.33. Simplified: a budget's
counts are recomputed by this project's disruption controller, whose
``expectedPods`` for a percentage is the number of matching pods
(:mod:`framework.apiserver.disruption`); ``observedGeneration`` is the new
object's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from framework.apiserver import APIServer
from framework.clock import FakeClock, parse_rfc3339_nanos
from framework.objects import KubeObject, Pod, PodDisruptionBudget, PodStatus
from framework.objects.storage import PersistentVolume, PersistentVolumeClaim
from framework.simulator.inputs import SimulationInputError, SourcedObject, describe

__all__ = [
    "StateError",
    "clock_for",
    "deletion_moment",
    "finish_state",
    "load_state",
    "state_clock",
    "state_times",
    "with_state",
]

DEFAULT_GRACE_SECONDS = 30
"""``terminationGracePeriodSeconds`` when a pod gives none (``DefaultTerminationGracePeriodSeconds``)."""


class StateError(ValueError):
    """A recorded state that cannot be loaded; ``problems`` holds ``(field, message)`` pairs."""

    def __init__(self, problems: Sequence[tuple[str, str]]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(f"{field}: {message}" for field, message in self.problems))


def _nanos(field: str, text: str, problems: list[tuple[str, str]]) -> int | None:
    try:
        return parse_rfc3339_nanos(text)
    except ValueError:
        problems.append(
            (field, f"{text!r} is not an RFC 3339 time; write it like 2026-11-30T10:00:00Z")
        )
        return None


def _grace(pod: Pod) -> int:
    meta, spec = pod.metadata, pod.spec
    if meta.deletion_grace_period_seconds is not None:
        return meta.deletion_grace_period_seconds
    if spec.termination_grace_period_seconds is not None:
        return spec.termination_grace_period_seconds
    return DEFAULT_GRACE_SECONDS


def deletion_moment(pod: Pod) -> float | None:
    """When the graceful delete of a terminating pod was asked for (epoch seconds), else None."""
    deadline = pod.metadata.deletion_timestamp
    if deadline is None:
        return None
    return parse_rfc3339_nanos(deadline) / 1e9 - _grace(pod)


def state_times(obj: KubeObject) -> list[int]:
    """The past moments ``obj``'s state records, in nanoseconds; raises :class:`StateError`."""
    problems: list[tuple[str, str]] = []
    stamps: list[tuple[str, str]] = []
    if isinstance(obj, Pod):
        status = obj.status
        if status.start_time:
            stamps.append(("status.startTime", status.start_time))
        for i, condition in enumerate(status.conditions):
            for name, value in (
                ("lastTransitionTime", condition.last_transition_time),
                ("lastProbeTime", condition.last_probe_time),
            ):
                if value:
                    stamps.append((f"status.conditions[{i}].{name}", value))
    elif isinstance(obj, PodDisruptionBudget):
        for name, value in sorted(obj.status.disrupted_pods.items()):
            stamps.append((f"status.disruptedPods[{name}]", value))
        for i, cond in enumerate(obj.status.conditions):
            if cond.last_transition_time:
                stamps.append(
                    (f"status.conditions[{i}].lastTransitionTime", cond.last_transition_time)
                )
    times = [t for field, text in stamps if (t := _nanos(field, text, problems)) is not None]
    if isinstance(obj, Pod) and obj.metadata.deletion_timestamp:
        deadline = _nanos("metadata.deletionTimestamp", obj.metadata.deletion_timestamp, problems)
        if deadline is not None:
            times.append(deadline - _grace(obj) * 1_000_000_000)
    if problems:
        raise StateError(problems)
    return times


def _latest(objects: Sequence[KubeObject]) -> float | None:
    latest = max((t for obj in objects for t in state_times(obj)), default=None)
    return None if latest is None else latest / 1e9


def state_clock(objects: Sequence[KubeObject]) -> FakeClock:
    """A clock at the earliest moment the state of ``objects`` records (see the module docstring).

    Raises :class:`StateError` for the first object with a time stamp that is not one.
    """
    latest = _latest(objects)
    if latest is None:
        return FakeClock()
    moments = [
        m for obj in objects if isinstance(obj, Pod) and (m := deletion_moment(obj)) is not None
    ]
    return FakeClock(min([latest, *moments]))


def clock_for(items: Sequence[SourcedObject]) -> FakeClock:
    """:func:`state_clock` for the simulator's inputs; a bad time stamp is a
    :class:`~framework.simulator.inputs.SimulationInputError` naming the file, object and field."""
    problems = []
    for item in items:
        try:
            state_times(item.obj)
        except StateError as error:
            problems += [
                f"{item.source}: {describe(item.obj)}: {field}: {message}"
                for field, message in error.problems
            ]
    if problems:
        raise SimulationInputError(problems)
    return state_clock([item.obj for item in items])


def _status_given(pod: Pod) -> bool:
    return dataclasses.replace(pod.status, qos_class="") != PodStatus()


def _storage_state(
    api: APIServer, given: PersistentVolume | PersistentVolumeClaim, created: KubeObject
) -> KubeObject:
    """The PV controller's status write: the phase the cluster's controller had reached.

    Ours may have written one already (a volume and its claim bound again): the status is
    written over the stored object only where it differs.
    """
    if given.status.phase in ("", "Pending"):
        return created
    current = api.get(type(given), created.metadata.name, created.metadata.namespace)
    if current.status.phase == given.status.phase:
        return current
    if isinstance(given, PersistentVolume) and isinstance(current, PersistentVolume):
        return api.update_status(dataclasses.replace(current, status=given.status))
    assert isinstance(given, PersistentVolumeClaim) and isinstance(current, PersistentVolumeClaim)
    return api.update_status(dataclasses.replace(current, status=given.status))


def with_state(api: APIServer, given: KubeObject, created: KubeObject) -> KubeObject:
    """``created`` (as the server stored ``given``) with ``given``'s status written back.

    For a pod, the kubelet's status update: the given phase, start time and
    nomination, its conditions in place of the server's of the same type.
    For a volume or a claim, the PV controller's phase. A budget's status
    waits for its pods (:func:`finish_state`).
    """
    if isinstance(given, (PersistentVolume, PersistentVolumeClaim)):
        return _storage_state(api, given, created)
    if not isinstance(given, Pod) or not isinstance(created, Pod) or not _status_given(given):
        return created
    status = given.status
    types = {c.type for c in status.conditions}
    kept = tuple(c for c in created.status.conditions if c.type not in types)
    status = dataclasses.replace(
        status,
        conditions=(*kept, *status.conditions),
        qos_class=status.qos_class or created.status.qos_class,
        phase=status.phase or created.status.phase,
    )
    return api.update_status(dataclasses.replace(created, status=status))


def finish_state(
    api: APIServer, clock: FakeClock, pairs: Sequence[tuple[KubeObject, KubeObject]]
) -> None:
    """Once every pod is there: the graceful deletes, in the order they were asked for, then
    the budgets' statuses, at the latest moment the state records.

    ``pairs`` are ``(given, created)`` for every object loaded so far.
    """
    deletions: list[tuple[float, Pod, KubeObject]] = []
    for given, created in pairs:
        if isinstance(given, Pod) and (moment := deletion_moment(given)) is not None:
            deletions.append((moment, given, created))
    for moment, pod, created in sorted(deletions, key=lambda d: d[0]):
        if moment > clock.now():
            clock.set(moment)
        api.delete(
            Pod,
            created.metadata.name,
            created.metadata.namespace,
            uid=created.metadata.uid,
            grace_period_seconds=_grace(pod),
        )
    latest = _latest([given for given, _ in pairs])
    if latest is not None and latest > clock.now():
        clock.set(latest)
    for given, created in pairs:
        if isinstance(given, PodDisruptionBudget) and given.status.disrupted_pods:
            current = api.get(
                PodDisruptionBudget, created.metadata.name, created.metadata.namespace
            )
            status = dataclasses.replace(
                current.status, disrupted_pods=given.status.disrupted_pods
            )
            api.update_status(dataclasses.replace(current, status=status))


def load_state(
    api: APIServer, clock: FakeClock, objects: Sequence[KubeObject]
) -> list[KubeObject]:
    """Create ``objects`` in order, each with its state, then :func:`finish_state`.

    Returns the objects as created (before the deletions and budget writes).
    """
    pairs = [(obj, with_state(api, obj, api.create(obj))) for obj in objects]
    finish_state(api, clock, pairs)
    return [created for _, created in pairs]
