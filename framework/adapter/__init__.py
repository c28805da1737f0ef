"""The real-cluster adapter: the scheduler on any Kubernetes API server, through the official client.

:class:`~framework.adapter.client.KubeClient` has the methods the scheduler
calls on the in-memory :class:`~framework.apiserver.APIServer` (``get``,
``list``, ``watch``, ``create``, ``update``, ``update_status``, ``delete``,
``bind``) and carries them out over HTTP with the ``kubernetes`` package;
``python -m framework run`` (:mod:`framework.cli.run`) runs a
:class:`~framework.scheduler.scheduler.Scheduler` on it. The core never
imports this package.
"""

from framework.adapter.client import KubeClient
from framework.adapter.errors import error_from_status
from framework.adapter.streamwatcher import RemoteWatch

__all__ = ["KubeClient", "RemoteWatch", "error_from_status"]
