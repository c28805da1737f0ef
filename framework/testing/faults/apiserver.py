"""An API server that fails on purpose: the real in-memory one behind a door that sometimes jams.

:class:`FaultyAPIServer` stands in front of an
:class:`~framework.apiserver.APIServer` and passes every request through,
except when its :class:`~framework.testing.faults.plan.FaultPlan` says otherwise:

* **bind** (``POST pods/<name>/binding``) answers ``409 Conflict`` (a failed
  precondition), ``500 InternalError`` or ``503 ServiceUnavailable`` without
  binding; or deletes the pod first, so the server itself answers
  ``404 NotFound``; or binds and then loses the answer (``504 Timeout``),
  the case that tests exactly-once: the write landed, the client was told
  it may not have;
* **update_status** and **create** answer ``409`` / ``500`` / ``503``
  without writing (the scheduler writes pod conditions and Events this way);
* **watch** refuses to resume from a resourceVersion (``410 Expired``, as
  after a compaction) or is closed by the server as soon as it opens.
  :meth:`FaultyAPIServer.drop_watches` closes every open watch at a moment
  the test chooses, losing the events not yet read, as a broken connection
  loses them.

Several schedulers (a crashed one and its successor) can each have their own
door onto one server. :meth:`FaultyAPIServer.sever` models the crash:
from then on every request from that door fails with ``503``, as nothing a
dead process sends arrives anywhere.

No Kubernetes counterpart: client-go's fake clientset does this with
reactors (``k8s.io/client-go/testing/fixture.go``); the real failures are
those of ``k8s.io/apimachinery/pkg/api/errors``.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, TypeVar

from framework.apiserver import (
    APIError,
    APIServer,
    Conflict,
    Expired,
    InternalError,
    ListResult,
    ServiceUnavailable,
    Timeout,
    Watch,
)
from framework.apiserver.errors import MSG_OBJECT_MODIFIED, resource_for
from framework.apiserver.watch import parse_resource_version
from framework.objects import Binding, KubeObject, Pod
from framework.testing.faults.plan import Fault, FaultPlan, Injection

__all__ = ["FaultyAPIServer"]

T = TypeVar("T", bound=KubeObject)


class FaultyAPIServer(APIServer):
    """``inner`` with faults injected into bind, update_status, create and watch as ``plan`` says.

    It is an :class:`~framework.apiserver.APIServer` (anything that takes one
    takes this), but holds no state of its own: every request that is not
    refused goes to ``inner``. ``plan`` may be shared with faulty plugins.
    """

    def __init__(self, inner: APIServer, plan: FaultPlan) -> None:
        # No super().__init__(): the state is inner's; this object is only a door onto it.
        self.inner = inner
        self.plan = plan
        self._watches: list[Watch] = []
        self._watches_lock = threading.Lock()
        self._severed = threading.Event()

    def __getattr__(self, name: str) -> Any:
        # Only for what this door lacks: the inner server's state, so that any APIServer
        # method not overridden here (one added later, say) runs on the inner server's data.
        if name in ("inner", "plan") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    # --- reads ------------------------------------------------------------------------------

    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        """The inner server's ``get``."""
        self._check_severed()
        return self.inner.get(kind, name, namespace)

    def list(self, kind: type[T], *args: Any, **kwargs: Any) -> ListResult[T]:
        """The inner server's ``list``."""
        self._check_severed()
        return self.inner.list(kind, *args, **kwargs)

    def current_resource_version(self) -> str:
        """The inner server's ``current_resource_version``."""
        self._check_severed()
        return self.inner.current_resource_version()

    def watch(
        self, kind: type[KubeObject], resource_version: str | int | None = None, **kwargs: Any
    ) -> Watch:
        """The inner server's ``watch``, unless a ``watch`` fault expires or drops it."""
        self._check_severed()
        resource = str(resource_for(kind))
        resuming = parse_resource_version(resource_version) is not None
        injection = self.plan.decide("watch", resource, "", "resume" if resuming else "list")
        if injection is not None and injection.fault is Fault.WATCH_EXPIRED and resuming:
            oldest = int(self.inner.current_resource_version())
            raise Expired.too_old(int(str(resource_version)), oldest)
        watch = self.inner.watch(kind, resource_version, **kwargs)
        if injection is not None and injection.fault is Fault.WATCH_DROPPED:
            watch.stop()
            return watch
        with self._watches_lock:
            self._watches = [w for w in self._watches if not w.stopped]
            self._watches.append(watch)
        return watch

    def drop_watches(self) -> int:
        """Close every watch opened through this door, as the server would; return how many."""
        with self._watches_lock:
            open_watches = [w for w in self._watches if not w.stopped]
            self._watches = []
        for watch in open_watches:
            watch.stop()
        return len(open_watches)

    # --- writes -----------------------------------------------------------------------------

    def create(self, obj: T, *, namespace: str | None = None) -> T:
        """The inner server's ``create``, unless a ``create`` fault refuses it."""
        self._check_severed()
        injection = self.plan.decide("create", str(resource_for(type(obj))), _pod_of(obj))
        if injection is not None:
            self._refuse(injection, obj.metadata.name, type(obj))
        return self.inner.create(obj, namespace=namespace)

    def update(self, obj: T) -> T:
        """The inner server's ``update``."""
        self._check_severed()
        return self.inner.update(obj)

    def update_status(self, obj: T) -> T:
        """The inner server's ``update_status``, unless an ``update_status`` fault refuses it."""
        self._check_severed()
        injection = self.plan.decide("update_status", str(resource_for(type(obj))), obj.key)
        if injection is not None:
            self._refuse(injection, obj.metadata.name, type(obj))
        return self.inner.update_status(obj)

    def delete(self, kind: type[T], name: str, namespace: str | None = None, **kwargs: Any) -> T:
        """The inner server's ``delete``."""
        self._check_severed()
        return self.inner.delete(kind, name, namespace, **kwargs)

    def bind(self, binding: Binding) -> Pod:
        """The inner server's ``bind``, unless a ``bind`` fault refuses it, deletes the pod first
        or loses the answer."""
        self._check_severed()
        meta = binding.metadata
        key = f"{meta.namespace or 'default'}/{meta.name}"
        injection = self.plan.decide("bind", "pods", key, binding.target.name)
        if injection is None:
            return self.inner.bind(binding)
        if injection.fault is Fault.POD_DELETED:
            # Gone already? The bind below says NotFound all the same.
            with contextlib.suppress(APIError):
                self.inner.delete(Pod, meta.name, meta.namespace or "default")
            return self.inner.bind(binding)
        if injection.fault is Fault.LOST_RESPONSE:
            self.inner.bind(binding)
            raise Timeout(f"injected: {injection}")
        self._refuse(injection, meta.name, Binding)
        raise AssertionError("unreachable")  # _refuse always raises

    # --- the crash ----------------------------------------------------------------------------

    def sever(self) -> None:
        """From now on every request through this door fails (its scheduler has crashed)."""
        self._severed.set()
        self.drop_watches()

    @property
    def severed(self) -> bool:
        return self._severed.is_set()

    def _check_severed(self) -> None:
        if self._severed.is_set():
            raise ServiceUnavailable("the connection to the server was lost (severed)")

    @staticmethod
    def _refuse(injection: Injection, name: str, kind: type[KubeObject]) -> None:
        fault = injection.fault
        if fault is Fault.CONFLICT:
            raise Conflict(resource_for(kind), name, MSG_OBJECT_MODIFIED)
        if fault is Fault.INTERNAL_ERROR:
            raise InternalError(f"injected: {injection}")
        raise ServiceUnavailable(f"injected: {injection}")

    def __repr__(self) -> str:
        return f"FaultyAPIServer({self.plan!r}{', severed' if self.severed else ''})"


def _pod_of(obj: KubeObject) -> str:
    """The pod an Event is about (``namespace/name``), or the object's own key."""
    involved = getattr(obj, "involved_object", None)
    if involved is not None and getattr(involved, "kind", "") == "Pod":
        return f"{involved.namespace or 'default'}/{involved.name}"
    return obj.key
