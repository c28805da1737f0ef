"""The scheduler's API calls as objects the dispatcher can queue, merge, sync and run.

With ``SchedulerAsyncAPICalls`` (KEP-5229; beta from v1.34, off by
default through v1.37) kube-scheduler does not write to the API server
from its scheduling loop: it hands each write to the API dispatcher
(:mod:`framework.api_dispatcher`) as a *call* that knows

* its type and the object it is about (``call_type``, ``uid``): the
  dispatcher holds at most one call per object;
* how relevant its type is (:data:`RELEVANCES`): a binding (2) outranks a
  status patch (1), so a binding replaces a patch still queued for the same
  pod, and a patch arriving while a binding waits is dropped;
* how to absorb an older call of its own type (``merge``): a newer status
  patch keeps its own conditions and nomination, and takes the old call's
  nomination (if it had none) and the conditions of other types;
* how to bring an object read from the informer up to date with itself
  (``sync``), and whether it would change nothing any more (``is_no_op``),
  in which case the dispatcher drops it.

:func:`patch_pod_status` is the write itself, shared with the synchronous
path (gate off), so that the two differ only in *when* it happens.

Mirrors ``PodStatusPatchCall`` and ``PodBindingCall`` in
``kubernetes/kubernetes:pkg/scheduler/framework/api_calls/`` (``pod_status_patch.go``,
read in its newest indexed copy, index id 57448917032, which keeps a list of
conditions; ``pod_binding.go``; ``api_calls.go`` for the types and
relevances), and ``updatePod`` in ``pkg/scheduler/schedule_one.go``.
Simplified: the patch is an update of the status subresource with retry on
Conflict, applying the call's conditions and nomination to the pod as the
server has it (what a strategic-merge patch of those fields does); a pod
bound or replaced meanwhile is left alone, as the synchronous path does here.
A ``PodPreemptionCall`` appears in one indexed copy only (not in
``api_calls.go``'s relevances) and is not modelled.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from typing import Any

import framework.types
from framework.apiserver.errors import APIError, Conflict, NotFound
from framework.apiserver.pods import update_pod_condition
from framework.clock import RealClock, rfc3339
from framework.objects import Binding, Pod, PodCondition, PodStatus
from framework.types import NominatingMode

__all__ = [
    "POD_BINDING",
    "POD_STATUS_PATCH",
    "RELEVANCES",
    "PodBindingCall",
    "PodStatusPatchCall",
    "patch_pod_status",
    "sync_status",
]

logger = logging.getLogger(__name__)

POD_STATUS_PATCH = "pod_status_patch"
POD_BINDING = "pod_binding"

RELEVANCES: dict[str, int] = {POD_STATUS_PATCH: 1, POD_BINDING: 2}
"""A more relevant call replaces a less relevant one queued for the same object (Go's ``Relevances``)."""


def _overrides(nominating: framework.types.NominatingInfo | None, status: PodStatus) -> bool:
    """Whether the nomination would change ``status.nominatedNodeName`` (``nnnNeedsUpdate``)."""
    return (
        nominating is not None
        and nominating.mode is NominatingMode.OVERRIDE
        and status.nominated_node_name != nominating.nominated_node_name
    )


def sync_status(
    status: PodStatus,
    conditions: list[PodCondition],
    nominating: framework.types.NominatingInfo | None,
    now: str,
) -> tuple[PodStatus, bool]:
    """``status`` with the conditions and nomination applied, and whether anything changed."""
    new = status
    for condition in conditions:
        new = update_pod_condition(new, condition, now)
    if _overrides(nominating, new):
        assert nominating is not None
        new = dataclasses.replace(new, nominated_node_name=nominating.nominated_node_name)
    return new, new != status


def patch_pod_status(
    client: Any,
    pod: Pod,
    conditions: list[PodCondition],
    nominating: framework.types.NominatingInfo | None,
    now: Callable[[], str],
) -> None:
    """Write the conditions and nomination into the pod's status, if they change it.

    Read, change, write, and again on Conflict (at most five times). Not
    critical: an API error is logged and dropped, as kube-scheduler logs
    ``Error updating pod``; a pod deleted, replaced (another uid) or bound
    meanwhile is left alone.
    """
    for _ in range(5):
        try:
            current = client.get(Pod, pod.name, namespace=pod.namespace)
        except NotFound:
            return
        except APIError as error:
            logger.warning("updating the status of pod %s: %s", pod.key, error)
            return
        if current.metadata.uid != pod.metadata.uid or current.spec.node_name:
            return
        status, changed = sync_status(current.status, conditions, nominating, now())
        if not changed:
            return
        try:
            client.update_status(dataclasses.replace(current, status=status))
            return
        except Conflict:
            continue
        except NotFound:
            return
        except APIError as error:
            logger.warning("updating the status of pod %s: %s", pod.key, error)
            return


def _condition_needs_update(status: PodStatus, condition: PodCondition) -> bool:
    """Go's ``conditionNeedsUpdate``: status, reason, message or lastProbeTime differ."""
    for old in status.conditions:
        if old.type == condition.type:
            return (old.status, old.reason, old.message, old.last_probe_time) != (
                condition.status,
                condition.reason,
                condition.message,
                condition.last_probe_time,
            )
    return True


class PodStatusPatchCall:
    """Patch a pod's conditions and nominated node (``PodStatusPatchCall``)."""

    def __init__(
        self,
        pod: Pod,
        condition: PodCondition | None,
        nominating_info: framework.types.NominatingInfo | None,
        clock: Any = None,
    ) -> None:
        self._lock = threading.Lock()
        #: Set when execution starts; a later sync no longer changes what the call compares to.
        self.executed = False
        self.pod = pod
        #: The status the call was made against, kept fresh by :meth:`sync` until it runs.
        self.pod_status = pod.status
        self.new_conditions: list[PodCondition] = [condition] if condition is not None else []
        self.nominating_info = nominating_info
        self._clock = clock or RealClock()

    def call_type(self) -> str:
        return POD_STATUS_PATCH

    def uid(self) -> str:
        return self.pod.metadata.uid

    def _now(self) -> str:
        return rfc3339(self._clock.now())

    def execute(self, client: Any) -> None:
        with self._lock:
            self.executed = True
            conditions = list(self.new_conditions)
            status = self.pod_status
        _, changed = sync_status(status, conditions, self.nominating_info, self._now())
        if not changed:
            return  # "does not need to be executed because it has no effect"
        patch_pod_status(client, self.pod, conditions, self.nominating_info, self._now)

    def sync(self, obj: Pod) -> Pod:
        """The informer's ``obj`` with this call applied; before execution, adopt its status."""
        with self._lock:
            if not self.executed:
                self.pod_status = obj.status
            conditions = list(self.new_conditions)
        status, changed = sync_status(obj.status, conditions, self.nominating_info, self._now())
        return dataclasses.replace(obj, status=status) if changed else obj

    def merge(self, old: Any) -> None:
        if not isinstance(old, PodStatusPatchCall):
            raise TypeError(
                f"unexpected error: call of type {type(old).__name__} is not of type "
                "PodStatusPatchCall"
            )
        mine = self.nominating_info
        if (mine is None or mine.mode is NominatingMode.NOOP) and (
            old.nominating_info is not None and old.nominating_info.mode is NominatingMode.OVERRIDE
        ):
            self.nominating_info = old.nominating_info
        types = {c.type for c in self.new_conditions}
        self.new_conditions.extend(c for c in old.new_conditions if c.type not in types)

    def is_no_op(self) -> bool:
        if _overrides(self.nominating_info, self.pod_status):
            return False
        return not any(_condition_needs_update(self.pod_status, c) for c in self.new_conditions)


class PodBindingCall:
    """Bind a pod (``PodBindingCall``): never merged, never a no-op, syncs nothing."""

    def __init__(self, binding: Binding) -> None:
        self.binding = binding

    def call_type(self) -> str:
        return POD_BINDING

    def uid(self) -> str:
        return self.binding.metadata.uid

    def execute(self, client: Any) -> None:
        client.bind(self.binding)

    def sync(self, obj: Any) -> Any:
        return obj

    def merge(self, old: Any) -> None:
        """A newer binding simply replaces the older one."""

    def is_no_op(self) -> bool:
        return False
