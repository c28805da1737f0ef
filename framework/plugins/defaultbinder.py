"""DefaultBinder: binds the pod by posting a Binding to the API server.

The one Bind plugin of the default profile. It writes
``POST /api/v1/namespaces/{ns}/pods/{name}/binding`` with the chosen node as
target and the pod's uid as a precondition; the API server sets
``spec.nodeName``, once. Any API error (the pod was deleted, or bound by
someone else in between) becomes an Error status, and the binding cycle
fails and unreserves.

With ``SchedulerAsyncAPICalls`` on, the binding goes through the API
dispatcher (the handle's ``api_cacher()``) and the plugin waits for it there,
so that it is ordered with the pod's other queued writes.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/defaultbinder/default_binder.go``
(v1.33; the API cacher branch as in the v1.34+ copies).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import APIError
from framework.cycle_state import CycleState
from framework.interface import Handle
from framework.objects import Binding, ObjectMeta, ObjectReference, Pod
from framework.plugins import names
from framework.status import Status

__all__ = ["NAME", "DefaultBinder", "new"]

NAME = names.DEFAULT_BINDER


class DefaultBinder:
    """Bind plugin: a Binding to the API server."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def name(self) -> str:
        return NAME

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        binding = Binding(
            metadata=ObjectMeta(name=pod.name, namespace=pod.namespace, uid=pod.metadata.uid),
            target=ObjectReference(kind="Node", name=node_name),
        )
        cacher = getattr(self._handle, "api_cacher", lambda: None)()
        if cacher is not None:
            error = cacher.wait_on_finish(cacher.bind_pod(binding))
            return Status.as_error(error) if error is not None else None
        try:
            self._handle.client().bind(binding)
        except APIError as error:
            return Status.as_error(error)
        return None


def new(args: Any, handle: Any) -> DefaultBinder:
    return DefaultBinder(handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _bind: type[interface.BindPlugin] = DefaultBinder
