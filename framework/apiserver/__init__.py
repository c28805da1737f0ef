"""An in-memory Kubernetes API server, with the real one's rules, errors and watches.

>>> from framework.apiserver import APIServer
>>> from framework.clock import FakeClock
>>> from framework.objects import Pod
>>> api = APIServer(FakeClock())
>>> pod = api.create(Pod.from_dict({"metadata": {"name": "web"},
...     "spec": {"containers": [{"name": "app", "image": "nginx"}]}}))
>>> pod.metadata.namespace, pod.spec.scheduler_name, pod.status.phase
('default', 'default-scheduler', 'Pending')
"""

from framework.apiserver.errors import (
    AlreadyExists,
    APIError,
    BadRequest,
    Conflict,
    Expired,
    FieldCause,
    Forbidden,
    Gone,
    GroupResource,
    InternalError,
    Invalid,
    NotFound,
    ServiceUnavailable,
    Timeout,
)
from framework.apiserver.events import EventRecorder
from framework.apiserver.fields import FieldSelector, parse_field_selector
from framework.apiserver.store import APIServer, ListResult
from framework.apiserver.watch import ADDED, DELETED, MODIFIED, Watch, WatchEvent

__all__ = [
    "ADDED",
    "DELETED",
    "MODIFIED",
    "APIError",
    "APIServer",
    "AlreadyExists",
    "BadRequest",
    "Conflict",
    "EventRecorder",
    "Expired",
    "FieldCause",
    "FieldSelector",
    "Forbidden",
    "Gone",
    "GroupResource",
    "InternalError",
    "Invalid",
    "ListResult",
    "NotFound",
    "ServiceUnavailable",
    "Timeout",
    "Watch",
    "WatchEvent",
    "parse_field_selector",
]
