"""Chapter 12 exercise: from an HTTP request to the RBAC verb an authorizer checks.

A ClusterRole grants verbs (``get``, ``list``, ``watch``, ``create``, ...), but
clients send HTTP methods. Write :func:`request_verb`, which turns a resource
request's method, the object name in its path and its query into the verb,
as kube-apiserver does before any authorizer runs, then check it::

    python -m pytest chapters/12_going_live --exercise

The rules are in the chapter's "Exercise" section. The tests are the same
ones that run against the reference code in
``framework/apiserver/http/requestinfo.py``. Stuck?
``python -m framework hint 12`` shows the hints one at a time.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["request_verb"]


def request_verb(method: str, name: str, query: Mapping[str, str]) -> str:
    """The RBAC verb of a resource request.

    ``method`` is the HTTP method as sent (``"GET"``), ``name`` the object the
    path names (``"web"`` in ``/api/v1/namespaces/default/pods/web``; ``""``
    for a collection), ``query`` the query string's parameters.
    """
    # TODO 1: the method alone: POST is "create", GET and HEAD "get", PUT "update",
    #         PATCH "patch", DELETE "delete"; any other method (or another spelling:
    #         methods are case-sensitive) has no verb, "".
    # TODO 2: a request that names an object keeps that verb.
    # TODO 3: a "get" of a collection is a "list", or a "watch" when the query has a
    #         "watch" parameter whose value is anything but "false" or "0" (any case).
    # TODO 4: a "delete" of a collection is a "deletecollection".
    raise NotImplementedError(
        "chapter 12 exercise: write request_verb in chapters/12_going_live/exercise.py "
        "(hints: python -m framework hint 12)"
    )
