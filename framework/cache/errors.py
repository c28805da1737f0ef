"""What the scheduler cache and its snapshot raise when asked for something they cannot do.

Kubernetes returns these as plain ``error`` values built with ``fmt.Errorf``;
here each kind of refusal is a class, so callers can catch exactly what they
expect, while the message keeps the wording of the Kubernetes original, so it
can be searched.

Mirrors the error returns of
``kubernetes/kubernetes:pkg/scheduler/backend/cache/{cache,node_tree,snapshot}.go``
(v1.33). Simplified: where kube-scheduler logs "cache is corrupted" and exits
the process (``klog.FlushAndExit``), we raise :class:`CacheCorrupted` and let
the caller decide.
"""

from __future__ import annotations

__all__ = [
    "CacheCorrupted",
    "CacheError",
    "NodeInfoNotFound",
    "SnapshotInconsistent",
    "go_quote",
]


def go_quote(text: str) -> str:
    r"""Quote as Go's ``%q`` does for the strings we meet: a zone key's NUL shows as ``\x00``.

    >>> print(go_quote("region:\x00:zone"))
    "region:\x00:zone"
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(map(_go_escape, escaped)) + '"'


def _go_escape(char: str) -> str:
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class CacheError(Exception):
    """The cache refused an operation: an unknown pod or node, or a pod in the wrong state."""


class CacheCorrupted(CacheError):
    """An event contradicts what the cache holds (a pod moved between nodes).

    kube-scheduler treats this as fatal and exits, because every later
    decision would rest on wrong totals.
    """


class SnapshotInconsistent(CacheError):
    """``update_snapshot`` found the snapshot's node list out of step with the node tree.

    The snapshot has already been rebuilt from scratch when this is raised;
    the error is there so the current scheduling cycle fails rather than
    use a list it cannot trust, as in Kubernetes.
    """


class NodeInfoNotFound(CacheError, LookupError):
    """A snapshot has no node of that name (``nodeinfo not found for node name "n"``)."""
