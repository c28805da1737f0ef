"""PATCH bodies: JSON merge patch, strategic merge patch and JSON patch, applied to a stored object.

``kubectl label``, ``kubectl annotate`` and ``kubectl apply`` (on an object
that exists) send a **strategic merge patch**; other clients send a **JSON
merge patch** (RFC 7386) or a **JSON patch** (RFC 6902). The server applies
the patch to the stored object's JSON and then handles the result as an
update, with the same defaulting, validation and optimistic concurrency.

* JSON merge patch: objects merge key by key, ``null`` deletes a key, and any
  other value (lists included) replaces the old one.
* Strategic merge patch: the same, except that lists Kubernetes declares
  with ``patchStrategy: merge`` merge element by element on their
  ``patchMergeKey`` (:data:`MERGE_KEYS`: containers by ``name``, a
  container's ``ports`` by ``containerPort``, conditions by ``type``, ...),
  an element ``{"$patch": "delete"}`` removes its match, ``{"$patch":
  "replace"}`` in a map replaces it whole, and the bookkeeping directives
  kubectl adds (``$setElementOrder/<list>``, ``$retainKeys``,
  ``$deleteFromPrimitiveList/<list>``) are honoured or dropped.
* JSON patch: ``add``, ``remove``, ``replace``, ``move``, ``copy`` and ``test``
  on JSON pointers.

Mirrors ``k8s.io/apimachinery/pkg/util/strategicpatch/patch.go``
(``StrategicMergePatch``), ``github.com/evanphx/json-patch`` (``MergePatch``,
``DecodePatch``/``Apply``) and ``k8s.io/apiserver/pkg/endpoints/handlers/patch.go``.
Simplified: the merge keys come from a table keyed by field name rather than
from the Go types' struct tags (so a field's strategy is the same wherever it
appears); ``$setElementOrder`` orders nothing (merged lists keep the stored
order, new elements last); lists of primitives with ``patchStrategy: merge``
(``finalizers``) are replaced rather than merged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from framework.apiserver.errors import BadRequest, RequestEntityTooLarge

__all__ = [
    "JSON_PATCH",
    "JSON_PATCH_MAX_COPY_BYTES",
    "MAX_JSON_PATCH_OPERATIONS",
    "MERGE_KEYS",
    "MERGE_PATCH",
    "PATCH_TYPES",
    "STRATEGIC_MERGE_PATCH",
    "apply_patch",
    "json_merge_patch",
    "json_patch",
    "strategic_merge_patch",
]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)
"""The patch content types served (``application/apply-patch+yaml``, server-side apply, is not)."""

MERGE_KEYS: Mapping[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "ports": "containerPort",
    "imagePullSecrets": "name",
    "conditions": "type",
    "hostAliases": "ip",
    "resourceClaims": "name",
    "ownerReferences": "uid",
    "taints": "key",
    "addresses": "type",
    "schedulingGates": "name",
    "readinessGates": "conditionType",
}
"""Lists declared ``patchStrategy: merge``, and the key their elements merge on."""

_DIRECTIVE = "$patch"

MAX_JSON_PATCH_OPERATIONS = 10_000
"""The most operations a JSON patch may have (``maxJSONPatchOperations``, ``handlers/patch.go``)."""

JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024
"""How much a JSON patch's ``copy`` operations may add, together, in bytes of JSON.

kube-apiserver's ``JSONPatchMaxCopyBytes`` (``pkg/server/config.go``), set
as evanphx/json-patch's ``AccumulatedCopySizeLimit``: each copy may double
the document, so sixteen of them would turn a kilobyte into 64 MiB.
"""


def json_merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: ``patch`` merged into ``target`` (neither is modified)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = json_merge_patch(result.get(key), value)
    return result


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    """Kubernetes' strategic merge patch of ``patch`` into ``target`` (neither is modified)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    if patch.get(_DIRECTIVE) == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != _DIRECTIVE}
    if patch.get(_DIRECTIVE) == "delete":
        return None
    result = dict(target)
    retain = patch.get("$retainKeys")
    for key, value in patch.items():
        if key.startswith("$setElementOrder/") or key in (_DIRECTIVE, "$retainKeys"):
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            name = key.partition("/")[2]
            doomed = value if isinstance(value, list) else []
            if isinstance(result.get(name), list):
                result[name] = [v for v in result[name] if v not in doomed]
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, list) and key in MERGE_KEYS and isinstance(result.get(key), list):
            result[key] = _merge_list(result[key], value, MERGE_KEYS[key])
        elif isinstance(value, dict):
            merged = strategic_merge_patch(result.get(key), value)
            if merged is None:
                result.pop(key, None)
            else:
                result[key] = merged
        else:
            result[key] = copy.deepcopy(value)
    if isinstance(retain, list):
        result = {k: v for k, v in result.items() if k in retain}
    return result


def _merge_list(target: list[Any], patch: list[Any], key: str) -> list[Any]:
    merged = list(target)
    for element in patch:
        if not isinstance(element, dict) or key not in element:
            if isinstance(element, dict) and element.get(_DIRECTIVE) == "replace":
                return [e for e in patch if not (isinstance(e, dict) and _DIRECTIVE in e)]
            raise BadRequest(f"map: {element} does not contain declared merge key: {key}")
        at = next(
            (
                i
                for i, e in enumerate(merged)
                if isinstance(e, dict) and e.get(key) == element[key]
            ),
            None,
        )
        if element.get(_DIRECTIVE) == "delete":
            if at is not None:
                del merged[at]
        elif at is None:
            merged.append(strategic_merge_patch({}, element))
        else:
            merged[at] = strategic_merge_patch(merged[at], element)
    return merged


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise BadRequest(f'json patch path "{path}" must start with "/"')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _parent(doc: Any, parts: list[str], path: str) -> tuple[Any, str]:
    node = doc
    for part in parts[:-1]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise BadRequest(f'json patch: path "{path}" does not exist')
    return node, parts[-1]


def _get(doc: Any, path: str) -> Any:
    parts = _pointer(path)
    if not parts:
        return doc
    parent, last = _parent(doc, parts, path)
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent[int(last)]
    raise BadRequest(f'json patch: path "{path}" does not exist')


def _remove(doc: Any, path: str) -> Any:
    value = _get(doc, path)
    parent, last = _parent(doc, _pointer(path), path)
    if isinstance(parent, dict):
        del parent[last]
    else:
        del parent[int(last)]
    return value


def _add(doc: Any, path: str, value: Any) -> Any:
    parts = _pointer(path)
    if not parts:
        return value
    parent, last = _parent(doc, parts, path)
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list) and (
        last == "-" or (last.isdigit() and int(last) <= len(parent))
    ):
        parent.insert(len(parent) if last == "-" else int(last), value)
    else:
        raise BadRequest(f'json patch: cannot add at path "{path}"')
    return doc


def json_patch(target: Any, operations: Any) -> Any:
    """RFC 6902: apply the list of ``operations`` to a copy of ``target``."""
    if not isinstance(operations, list):
        raise BadRequest("json patch must be a list of operations")
    if len(operations) > MAX_JSON_PATCH_OPERATIONS:
        raise RequestEntityTooLarge(
            f"The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, "
            f"got {len(operations)}"
        )
    doc = copy.deepcopy(target)
    copied = 0
    for op in operations:
        if not isinstance(op, dict) or not isinstance(op.get("path"), str):
            raise BadRequest(f"json patch operation {op!r} needs an op and a path")
        kind, path = op.get("op"), op["path"]
        if kind in ("add", "replace", "remove", "move", "copy") and "" in (path, op.get("from")):
            # evanphx/json-patch v4's findObject: the root has no parent to change it in.
            raise BadRequest(f'{kind} operation does not apply: doc is missing path: ""')
        if kind in ("add", "replace"):
            if kind == "replace":
                _remove(doc, path)
            doc = _add(doc, path, copy.deepcopy(op.get("value")))
        elif kind == "remove":
            _remove(doc, path)
        elif kind in ("move", "copy"):
            source = op.get("from")
            if not isinstance(source, str):
                raise BadRequest(f'json patch operation "{kind}" needs "from"')
            if kind == "copy":
                copied += len(json.dumps(_get(doc, source)).encode())
                if copied > JSON_PATCH_MAX_COPY_BYTES:
                    raise BadRequest(
                        "Unable to complete the copy, the accumulated size increase of copy is "
                        f"{copied}, exceeding the limit {JSON_PATCH_MAX_COPY_BYTES}"
                    )
            value = _remove(doc, source) if kind == "move" else copy.deepcopy(_get(doc, source))
            doc = _add(doc, path, value)
        elif kind == "test":
            if _get(doc, path) != op.get("value"):
                raise BadRequest(f'json patch: test failed at path "{path}"')
        else:
            raise BadRequest(f"json patch: unknown operation {kind!r}")
    return doc


def apply_patch(content_type: str, target: dict[str, Any], patch: Any) -> Any:
    """Apply a patch of ``content_type`` (one of :data:`PATCH_TYPES`) to ``target``."""
    if content_type == JSON_PATCH:
        return json_patch(target, patch)
    if not isinstance(patch, dict):
        raise BadRequest("a merge patch must be a JSON object")
    if content_type == MERGE_PATCH:
        return json_merge_patch(target, patch)
    return strategic_merge_patch(target, patch)
