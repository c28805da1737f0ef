"""Chapter 12 done right: the RBAC verb of a request. Must pass.

:func:`make` builds the function; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch"}
VERBS["DELETE"] = "delete"


def make(
    *,
    methods_any_case: bool = False,
    watch_case_sensitive: bool = False,
    empty_watch_is_list: bool = False,
) -> Callable[[str, str, Mapping[str, str]], str]:
    def request_verb(method: str, name: str, query: Mapping[str, str]) -> str:
        verb = VERBS.get(method.upper() if methods_any_case else method, "")
        if name:
            return verb
        if verb == "get":
            watch = query.get("watch")
            if watch is None or (empty_watch_is_list and watch == ""):
                return "list"
            value = watch if watch_case_sensitive else watch.lower()
            return "list" if value in ("false", "0") else "watch"
        if verb == "delete":
            return "deletecollection"
        return verb

    return request_verb


request_verb = make()
