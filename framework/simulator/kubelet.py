"""The two parts of the kubelet this project plays: ending graceful deletions, and admission.

**Ending graceful deletions.** When a pod bound to a node is deleted with a
grace period — as preemption deletes its victims — the API server only marks
it: ``deletionTimestamp`` is set to when the grace period ends, and the pod
stays, *Terminating*.
On a real node the kubelet then stops the containers and, once they are
gone (at the latest when the grace period is over), deletes the pod for
good with a grace period of 0. Until then the pod still holds its room on
the node, which is why a preemptor waits for its victims to be gone.

There are no containers here, so :func:`finish_terminated_pods` does what
a kubelet would do with containers that use their whole grace period:
delete each terminating pod whose ``deletionTimestamp`` has come. The
simulator calls it whenever its fake clock moves;
:class:`TerminationLoop` calls it every second on real time, for
``python -m framework serve``.

This mirrors the status manager's final delete in
``kubernetes/kubernetes:pkg/kubelet/status/status_manager.go``
(``canBeDeleted``, then ``Delete`` with ``GracePeriodSeconds: 0`` and a uid
precondition).

**Admission.** The API server binds a pod to a node without asking whether
the node has room: that is the scheduler's bookkeeping. The kubelet checks
once more before it starts anything. Each pod that arrives on its node is
weighed against the pods it has already *admitted* and that are still
running (:func:`admit_pod`: the node's allocatable, the pod's requests, then
node affinity, node name, host ports and ``NoExecute`` taints). A pod that
does not fit is *rejected*: it ends in phase ``Failed`` with reason
``OutOfcpu``, ``OutOfmemory``, ``OutOfpods``... and the message ``Pod was
rejected: Node didn't have enough resource: cpu, requested: 1500, used:
3000, capacity: 4000``, and a ``Warning`` event with the same reason says
so. One scheduler never gets there, since it counts its own pods at once;
two schedulers sharing nodes do (chapter "Before the framework").
:class:`NodeAdmission` plays every node's kubelet at once: it follows a
watch on pods and admits each newly bound pod in the order the bindings
were committed. It is off unless you start it: ``python -m framework
serve`` and the experiments of :mod:`framework.experiments` do.

>>> from framework.objects import Node, Pod
>>> node = Node.from_dict({"metadata": {"name": "n1"},
...                        "status": {"allocatable": {"cpu": "1", "pods": "110"}}})
>>> def pod(name): return Pod.from_dict({"metadata": {"name": name}, "spec": {"containers": [
...     {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "600m"}}}]}})
>>> [r.reason or "admitted" for r in admit_pods(node, [pod("a"), pod("b")])]
['admitted', 'OutOfcpu']
>>> admit_pod(pod("b"), node, [pod("a")]).message
"Node didn't have enough resource: cpu, requested: 600, used: 600, capacity: 1000"

Admission mirrors ``predicateAdmitHandler.Admit`` and ``generalFilter`` in
``kubernetes/kubernetes:pkg/kubelet/lifecycle/predicate.go`` (with
``AdmissionCheck`` in ``pkg/scheduler/eventhandlers.go``), and
``HandlePodAdditions``, ``canAdmitPod`` and ``rejectPod`` in
``pkg/kubelet/kubelet.go`` (v1.33). Simplified: only these predicate checks
run (no eviction manager, topology manager, device plugins or OS and
sysctl checks; no ``AdmissionFailureHandler``, which on a real node may
evict critical-pod victims); an admitted pod's status is left as it is
(there are no containers to start: it stays ``Pending``) unless
``start_pods`` says to start it, as ``serve`` does: then it is ``Running``
and ready at once, as KWOK's stages play a node (and, given ``job_seconds``,
a Job's pod ``Succeeded`` that long after it started); pods are
admitted in the order their bindings arrive, where a kubelet sorts a batch
arriving together by creation time; a node that is not in the API server
has no kubelet, and its pods are left alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from framework.apiserver import DELETED, APIError, APIServer, EventRecorder, Watch
from framework.apiserver.errors import Conflict, NotFound
from framework.clock import Clock, RealClock, parse_rfc3339, rfc3339
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.nodeaffinity import get_required_node_affinity
from framework.objects.pod import PodStatus
from framework.objects.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from framework.plugins import nodename, nodeports
from framework.plugins.dynamicresources.extended import is_dra_extended_resource_name
from framework.plugins.helper import find_matching_untolerated_taint
from framework.plugins.names import NODE_AFFINITY, TAINT_TOLERATION
from framework.plugins.noderesources.fits import compute_pod_resource_request, fits_request

__all__ = [
    "INSUFFICIENT_RESOURCE_PREFIX",
    "OUT_OF_CPU",
    "OUT_OF_EPHEMERAL_STORAGE",
    "OUT_OF_MEMORY",
    "OUT_OF_PODS",
    "REJECTED_MESSAGE_PREFIX",
    "NodeAdmission",
    "PodAdmitResult",
    "Rejection",
    "TerminationLoop",
    "admit_pod",
    "admit_pods",
    "finish_terminated_pods",
    "termination_deadlines",
]

logger = logging.getLogger(__name__)


def _owned_by_job(pod: Pod) -> bool:
    return any(
        isinstance(ref, dict) and ref.get("kind") == "Job" and ref.get("controller") is True
        for ref in pod.metadata.owner_references
    )


def termination_deadlines(api: APIServer) -> list[tuple[float, Pod]]:
    """Every terminating pod with the time (epoch seconds) its grace period ends."""
    return [
        (parse_rfc3339(pod.metadata.deletion_timestamp), pod)
        for pod in api.list(Pod).items
        if pod.metadata.deletion_timestamp
    ]


def finish_terminated_pods(api: APIServer, now: float) -> list[Pod]:
    """Delete for good each terminating pod whose grace period is over at ``now``; return them.

    The uid precondition makes sure a pod recreated under the same name in
    the meantime is left alone; a pod already gone is no error.
    """
    finished: list[Pod] = []
    for deadline, pod in termination_deadlines(api):
        if deadline <= now:
            with contextlib.suppress(NotFound, Conflict):
                api.delete(
                    Pod, pod.name, pod.namespace, uid=pod.metadata.uid, grace_period_seconds=0
                )
                finished.append(pod)
    return finished


class TerminationLoop:
    """:func:`finish_terminated_pods` every ``period`` seconds on a thread, until stopped."""

    def __init__(self, api: APIServer, clock: Clock, period: float = 1.0) -> None:
        self._api = api
        self._clock = clock
        self._period = period
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="kubelet", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _loop(self) -> None:
        while not self._stop.wait(self._period):
            finish_terminated_pods(self._api, self._clock.now())


# --- admission ------------------------------------------------------------------------------

#: The reasons of a pod rejected for a resource (``OutOfCPU``... in predicate.go).
OUT_OF_CPU = "OutOfcpu"
OUT_OF_MEMORY = "OutOfmemory"
OUT_OF_EPHEMERAL_STORAGE = "OutOfephemeral-storage"
OUT_OF_PODS = "OutOfpods"
#: ``OutOf<name>`` for any other resource, an extended one for instance.
INSUFFICIENT_RESOURCE_PREFIX = "OutOf"
#: What ``rejectPod`` puts before the reason's message in the pod's ``status.message``.
REJECTED_MESSAGE_PREFIX = "Pod was rejected: "

_OUT_OF = {CPU: OUT_OF_CPU, MEMORY: OUT_OF_MEMORY, EPHEMERAL_STORAGE: OUT_OF_EPHEMERAL_STORAGE}
_OUT_OF[PODS] = OUT_OF_PODS

#: The phases of a pod that runs no more, and so holds no room on its node.
_TERMINAL = ("Succeeded", "Failed")
_STARTED = ("Initialized", "ContainersReady", "Ready")  # the conditions a started pod has


@dataclass(frozen=True, slots=True)
class PodAdmitResult:
    """The kubelet's verdict on one pod: admitted, or not with a one-word reason and a message."""

    admit: bool
    reason: str = ""
    message: str = ""


def _fits_request(pod: Pod, node_info: NodeInfo) -> list[tuple[str, str]]:
    """``(reason, message)`` per resource the node is short of, in ``Fits``' order.

    Extended resources the node does not have at all are not counted
    (``removeMissingExtendedResources``: they may be cluster-level resources).
    The kubelet modelled is v1.36's, with DRAExtendedResource on: the implicit
    ``deviceclass.resource.kubernetes.io/`` names are left out the same way
    (kubernetes#135668), and so is a resource the node advertises at 0, a
    device plugin with no healthy device, which DRA may serve instead
    (kubernetes#133784).
    """
    request = compute_pod_resource_request(pod)
    have = node_info.allocatable.scalar_resources
    request.scalar_resources = {
        name: amount
        for name, amount in request.scalar_resources.items()
        if not is_dra_extended_resource_name(name) or have.get(name, 0) != 0
    }
    return [
        (
            _OUT_OF.get(short.resource_name, INSUFFICIENT_RESOURCE_PREFIX + short.resource_name),
            # InsufficientResourceError.Error
            f"Node didn't have enough resource: {short.resource_name}, requested: "
            f"{short.requested}, used: {short.used}, capacity: {short.capacity}",
        )
        for short in fits_request(request, node_info)
    ]


def _predicate_failure(name: str) -> tuple[str, str]:
    # PredicateFailureError: the reason is the predicate's name; Error() in v1.33 names only it.
    return name, f"Predicate {name} failed"


def admit_pod(pod: Pod, node: Node, other_pods: Iterable[Pod]) -> PodAdmitResult:
    """Would the kubelet of ``node``, running ``other_pods``, admit ``pod``? (``Admit``)

    The checks run in ``generalFilter``'s order: resources (pod slots, cpu,
    memory, ephemeral-storage, extended), the pod's node selector and
    required node affinity, ``spec.nodeName``, host ports, then ``NoExecute``
    taints the pod does not tolerate. As in Kubernetes, only the first
    failure becomes the result's reason and message.
    """
    node_info = NodeInfo(*other_pods)
    node_info.set_node(node)
    failures = _fits_request(pod, node_info)
    if not get_required_node_affinity(pod).match(node)[0]:
        failures.append(_predicate_failure(NODE_AFFINITY))
    if not nodename.fits(pod, node_info):
        failures.append(_predicate_failure(nodename.NAME))
    if not nodeports.fits(pod, node_info):
        failures.append(_predicate_failure(nodeports.NAME))
    untolerated = find_matching_untolerated_taint(
        node.spec.taints, pod.spec.tolerations, lambda taint: taint.effect == "NoExecute"
    )
    if untolerated is not None:
        failures.append(_predicate_failure(TAINT_TOLERATION))
    if not failures:
        return PodAdmitResult(True)
    reason, message = failures[0]
    return PodAdmitResult(False, reason, message)


def admit_pods(node: Node, pods: Sequence[Pod]) -> list[PodAdmitResult]:
    """Admit ``pods`` on ``node`` one after the other, each against those admitted before it.

    What a kubelet does with pods arriving in this order (``HandlePodAdditions``):
    a rejected pod takes no room, so a later, smaller pod may still fit.
    """
    admitted: list[Pod] = []
    results = []
    for pod in pods:
        result = admit_pod(pod, node, admitted)
        if result.admit:
            admitted.append(pod)
        results.append(result)
    return results


@dataclass(frozen=True, slots=True)
class Rejection:
    """A pod a kubelet rejected: the pod as bound, its node, and the verdict."""

    pod: Pod
    node_name: str
    result: PodAdmitResult


class NodeAdmission:
    """The kubelets of every node, admitting each pod bound to their node.

    :meth:`sync` applies the pod changes that are ready, in the order the API
    server committed them (deterministic; the experiments and tests drive it
    so); :meth:`start` follows them on a thread, for ``python -m framework
    serve``, until :meth:`stop`. Each kubelet keeps the pods it admitted and
    forgets one when it is deleted or has finished (``Succeeded``,
    ``Failed``). Pods already bound when it starts were admitted before: they
    are taken as running. A rejected pod gets its status written (phase
    ``Failed``, ``reason``, ``message``) and a ``Warning`` event from
    component ``kubelet`` on its node's host; :attr:`rejections` lists them.
    """

    def __init__(
        self,
        api: APIServer,
        clock: Clock | None = None,
        *,
        start_pods: bool = False,
        job_seconds: float | None = None,
    ) -> None:
        self.api = api
        self.clock: Clock = clock or RealClock()
        #: With True, each admitted pod is started at once, Running and Ready.
        self.start_pods = start_pods
        #: With a number, a started pod of a Job succeeds that many seconds later.
        self.job_seconds = job_seconds
        self._finishing: dict[str, tuple[float, Pod]] = {}  # uid → (when it succeeds, pod)
        #: Admitted, still running pods per node, by uid, in admission order.
        self.admitted: dict[str, dict[str, Pod]] = {}
        #: Every rejection so far, in order.
        self.rejections: list[Rejection] = []
        self._seen: set[str] = set()  # uids judged already (admitted or rejected)
        self._recorders: dict[str, EventRecorder] = {}
        self._watch: Watch | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _open(self) -> None:
        listed = self.api.list(Pod)
        for pod in listed.items:
            if pod.spec.node_name and pod.status.phase not in _TERMINAL:
                self.admitted.setdefault(pod.spec.node_name, {})[pod.metadata.uid] = pod
                self._seen.add(pod.metadata.uid)
        self._watch = self.api.watch(Pod, resource_version=listed.resource_version)

    def sync(self) -> list[Rejection]:
        """Admit or reject every pod bound since the last call; return the rejections."""
        with self._lock:
            if self._watch is None:
                self._open()
            assert self._watch is not None
            rejected: list[Rejection] = []
            for event in self._watch.drain():
                rejection = self._handle(event.type, event.object)  # type: ignore[arg-type]
                if rejection is not None:
                    rejected.append(rejection)
            now = self.clock.now()
            for uid, (when, pod) in list(self._finishing.items()):
                if when <= now:
                    del self._finishing[uid]
                    self._succeed(pod)
            return rejected

    def _handle(self, change: str, pod: Pod) -> Rejection | None:
        node_name, uid = pod.spec.node_name, pod.metadata.uid
        if not node_name:
            return None
        if change == DELETED or pod.status.phase in _TERMINAL:
            # Gone or finished: its room is free (filterOutInactivePods). A terminating pod
            # still holds it until its grace period ends and it is deleted.
            self.admitted.get(node_name, {}).pop(uid, None)
            if change == DELETED:
                self._seen.discard(uid)
            return None
        if uid in self._seen:
            if uid in self.admitted.get(node_name, {}):
                self.admitted[node_name][uid] = pod
            return None
        try:
            node = self.api.get(Node, node_name)
        except NotFound:
            return None  # no such node, so no kubelet to admit it
        self._seen.add(uid)
        running = self.admitted.setdefault(node_name, {})
        result = admit_pod(pod, node, running.values())
        if result.admit:
            running[uid] = pod
            if self.start_pods and pod.status.phase in ("", "Pending"):
                self._start(pod)
                if self.job_seconds is not None and _owned_by_job(pod):
                    self._finishing[uid] = (self.clock.now() + self.job_seconds, pod)
            return None
        self._reject(pod, result)
        rejection = Rejection(pod, node_name, result)
        self.rejections.append(rejection)
        return rejection

    def _write_status(self, pod: Pod, change: Callable[[Pod], dict[str, Any] | None]) -> None:
        """Write ``change(current)`` as the pod's status; the status manager's retry loop.

        A conflicting write is retried with a fresh read; a pod gone, or
        replaced by another of the same name, is left alone, as is one for
        which ``change`` returns None.
        """
        for _ in range(5):
            try:
                current = self.api.get(Pod, pod.name, pod.namespace)
                if current.metadata.uid != pod.metadata.uid:
                    return
                written = change(current)
                if written is None:
                    return
                status = PodStatus.from_dict(written)
                self.api.update_status(dataclasses.replace(current, status=status))
                return
            except NotFound:
                return
            except Conflict:
                continue

    def _start(self, pod: Pod) -> None:
        """The containers start at once and are ready: the status a kubelet then writes.

        ``syncPod`` and ``generateAPIPodStatus`` (``pkg/kubelet/kubelet_pods.go``):
        phase ``Running``, ``startTime``, a ``running`` state per container,
        the ``Initialized``, ``ContainersReady`` and ``Ready`` conditions.
        As KWOK's ``pod-ready`` stage does it, without containers.
        """
        now = rfc3339(self.clock.now())
        statuses = [
            {
                "name": container.name,
                "image": container.image,
                "imageID": "",
                "ready": True,
                "started": True,
                "restartCount": 0,
                "state": {"running": {"startedAt": now}},
            }
            for container in pod.spec.containers
        ]

        def started(current: Pod) -> dict[str, Any] | None:
            if current.status.phase not in ("", "Pending"):
                return None
            written = current.status.to_dict()
            conditions = [
                c for c in written.get("conditions", ()) if c.get("type") not in _STARTED
            ]
            conditions += [
                {"type": kind, "status": "True", "lastTransitionTime": now} for kind in _STARTED
            ]
            return {
                **written,
                "phase": "Running",
                "startTime": now,
                "conditions": conditions,
                "containerStatuses": statuses,
            }

        self._write_status(pod, started)

    def _succeed(self, pod: Pod) -> None:
        """A Job's pod ran to the end: ``Succeeded``, its containers terminated with exit code 0.

        As KWOK's ``pod-complete`` stage; the conditions are those
        ``generateAPIPodStatus`` writes for a pod whose containers have all
        exited (``Ready`` False, reason ``PodCompleted``).
        """
        now = rfc3339(self.clock.now())

        def succeeded(current: Pod) -> dict[str, Any] | None:
            if current.status.phase != "Running":
                return None
            written = current.status.to_dict()
            statuses = [
                {
                    **status,
                    "ready": False,
                    "started": False,
                    "state": {
                        "terminated": {
                            "exitCode": 0,
                            "reason": "Completed",
                            "startedAt": (status.get("state") or {})
                            .get("running", {})
                            .get("startedAt", now),
                            "finishedAt": now,
                        }
                    },
                }
                for status in written.get("containerStatuses", ())
            ]
            conditions = [
                {**c, "status": "False", "reason": "PodCompleted", "lastTransitionTime": now}
                if c.get("type") in ("Ready", "ContainersReady")
                else c
                for c in written.get("conditions", ())
            ]
            return {
                **written,
                "phase": "Succeeded",
                "conditions": conditions,
                "containerStatuses": statuses,
            }

        self._write_status(pod, succeeded)

    def _reject(self, pod: Pod, result: PodAdmitResult) -> None:
        """``rejectPod``: a Warning event with the reason, then the pod's status ``Failed``."""
        node_name = pod.spec.node_name
        recorder = self._recorders.get(node_name)
        if recorder is None:
            recorder = EventRecorder(self.api, "kubelet", self.clock, host=node_name)
            self._recorders[node_name] = recorder
        recorder.event(pod, "Warning", result.reason, "", result.message)
        self._write_status(
            pod,
            lambda current: {
                **current.status.to_dict(),
                "phase": "Failed",
                "reason": result.reason,
                "message": REJECTED_MESSAGE_PREFIX + result.message,
            },
        )

    def start(self) -> None:
        """Follow the pods on a thread of its own (``python -m framework serve``)."""
        self.sync()
        self._thread = threading.Thread(target=self._loop, name="kubelet-admission", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.sync()
            except APIError:  # one failed write must not stop every kubelet
                logger.exception("node admission: a write failed; going on")

    def stop(self) -> None:
        """Stop the thread, if any, and the watch."""
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join()
        if self._watch is not None:
            self._watch.stop()
