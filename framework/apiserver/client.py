"""What the scheduler needs of an API server: the one client seam, and its watch.

The scheduler reads and writes the cluster through a small set of calls:
get, list and watch to follow it; create, update, update the status, delete
and bind to change it. :class:`Client` names that set. The in-memory
:class:`~framework.apiserver.store.APIServer` satisfies it, and so does the
adapter's :class:`~framework.adapter.client.KubeClient`, which sends the same
calls to a real cluster; whatever takes a ``Client`` runs against either.

Mirrors the part of ``k8s.io/client-go/kubernetes.Interface`` (the typed
clientset) that ``kubernetes/kubernetes:pkg/scheduler`` calls, and
``watch.Interface`` in ``k8s.io/apimachinery/pkg/watch/watch.go`` (v1.33).
Simplified: one generic call per verb, the kind given as the object's class,
where the clientset has a typed client per resource.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from framework.apiserver.selection import FieldSelectorArg, LabelSelectorArg
from framework.apiserver.store import ListResult
from framework.apiserver.watch import WatchEvent
from framework.objects import Binding
from framework.objects.meta import KubeObject

if TYPE_CHECKING:
    from framework.apiserver.store import APIServer

__all__ = ["Client", "WatchInterface"]

T = TypeVar("T", bound=KubeObject)


class WatchInterface(Protocol):
    """A stream of changes (``watch.Interface``): take the next, take what is there, stop."""

    def next(self, timeout: float | None = None) -> WatchEvent | None:
        """The next event, waiting at most ``timeout`` seconds; None when stopped or timed out."""
        ...

    def drain(self) -> list[WatchEvent]:
        """Every event already delivered, without waiting."""
        ...

    def stop(self) -> None:
        """End the stream; the watcher's ``next`` returns None from now on."""
        ...

    @property
    def stopped(self) -> bool: ...


class Client(Protocol):
    """The API calls the scheduler makes (the part of client-go's clientset it uses)."""

    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        """The stored object; ``NotFound`` if there is none."""
        ...

    def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        label_selector: LabelSelectorArg = None,
        field_selector: Any = None,
    ) -> ListResult[T]:
        """The matching objects, and the resourceVersion they were read at."""
        ...

    def watch(
        self,
        kind: type[KubeObject],
        resource_version: str | int | None = None,
        *,
        namespace: str | None = None,
        label_selector: LabelSelectorArg = None,
        field_selector: FieldSelectorArg = None,
    ) -> WatchInterface:
        """The changes to objects of ``kind`` after ``resource_version``."""
        ...

    def create(self, obj: T, *, namespace: str | None = None) -> T: ...

    def update(self, obj: T) -> T: ...

    def update_status(self, obj: T) -> T: ...

    def delete(
        self,
        kind: type[T],
        name: str,
        namespace: str | None = None,
        *,
        resource_version: str | None = None,
        uid: str | None = None,
        grace_period_seconds: int | None = 0,
    ) -> T | None:
        """Delete the object; its final state, or None when the server did not send it back."""
        ...

    def bind(self, binding: Binding) -> object:
        """``POST pods/<name>/binding``; raises the APIError of a failure."""
        ...


if TYPE_CHECKING:  # the in-memory server is a Client, checked as Go's `var _ I = &T{}`
    _client: type[Client] = APIServer
