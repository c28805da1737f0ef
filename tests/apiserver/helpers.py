"""Small builders for the objects the API server tests create."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Binding, Node, ObjectMeta, ObjectReference, Pod


def pod(name: str = "web", *, namespace: str = "", **spec: Any) -> Pod:
    """A valid pod with one container; ``spec`` keys are manifest keys (camelCase)."""
    manifest: dict[str, Any] = {
        "metadata": {"name": name, **({"namespace": namespace} if namespace else {})},
        "spec": {"containers": [{"name": "app", "image": "nginx"}], **spec},
    }
    return Pod.from_dict(manifest)


def node(name: str = "n1", **status: Any) -> Node:
    return Node.from_dict({"metadata": {"name": name}, "status": status})


def binding(pod_name: str, node_name: str, *, namespace: str = "default", **meta: Any) -> Binding:
    return Binding(
        metadata=ObjectMeta(name=pod_name, namespace=namespace, **meta),
        target=ObjectReference(kind="Node", name=node_name),
    )


def counting_uids() -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"uid-{next(counter)}"


def new_api(**kwargs: Any) -> APIServer:
    """A server with a fake clock and predictable uids."""
    kwargs.setdefault("uid_factory", counting_uids())
    return APIServer(kwargs.pop("clock", FakeClock()), **kwargs)
