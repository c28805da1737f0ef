"""Request bodies as the API server decodes them: JSON or YAML, into plain JSON values.

Every body becomes a JSON value (dicts, lists, strings, numbers, booleans
and null) before anything else reads it, so what JSON cannot hold never
reaches the store: a refused body leaves nothing behind, and every stored
object can be written back in a response, a list or a watch.

* **JSON** is read by :func:`json.loads`, refusing ``NaN`` and ``Infinity``
  (JSON has neither; Go's decoder refuses them).
* **YAML** is read with the manifest loader's rules
  (:func:`framework.objects.manifest.read_yaml`: timestamps stay text, a key
  written twice is an error, go-yaml's ``document contains excessive
  aliasing`` for an alias bomb, a recursive alias refused) and then must be
  JSON: bytes (``!!binary``), sets (``!!set``) and ``.nan`` are refused.
* **Nesting** deeper than :data:`MAX_NESTING_DEPTH` levels is refused. The C
  parsers under both (CPython's JSON scanner, libyaml) stop at about a
  thousand levels on their own, cheaply; the lower limit keeps every later
  step that recurses (decoding into objects, copying, patching, encoding)
  far from Python's recursion limit.

Mirrors ``k8s.io/apimachinery/pkg/runtime/serializer/json`` (the JSON and
YAML serializers) with ``sigs.k8s.io/yaml`` (``YAMLToJSON``) and
``k8s.io/apimachinery/pkg/util/json`` (``maxDepth`` = 10000). Simplified:
the depth limit is 100, not 10,000 (no Kubernetes object nests a tenth as
deep); a YAML mapping key that is a number stays one (sigs.k8s.io/yaml would
make it a string).
"""

from __future__ import annotations

import json
import math
from typing import Any

import yaml

from framework.apiserver.errors import BadRequest
from framework.objects.manifest import read_yaml

__all__ = ["MAX_NESTING_DEPTH", "decode_body"]

MAX_NESTING_DEPTH = 100
"""How many levels of objects and lists a body may nest."""

_SCALARS = (str, int, bool, type(None))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _read_json(text: str) -> Any:
    return json.loads(text, parse_constant=_refuse_constant)


def decode_body(raw: bytes, media: str) -> Any:
    """The body as a JSON value; :class:`BadRequest` for one that is not (or nests too deep)."""
    try:
        read = read_yaml if media == "application/yaml" else _read_json
        data = read(raw.decode("utf-8"))
    except (ValueError, yaml.YAMLError, RecursionError) as exc:
        # RecursionError: nesting deeper than the C parser follows.
        raise BadRequest(f"the body of the request could not be decoded: {exc}") from None
    _check_json(data)
    return data


def _check_json(value: Any) -> None:
    """Refuse what JSON cannot hold, and nesting past the limit; iterative, so never too deep."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, _SCALARS):
            continue
        if isinstance(node, float):
            if not math.isfinite(node):
                raise BadRequest(f"the body of the request holds {node}, which JSON cannot")
            continue
        if not isinstance(node, dict | list):
            raise BadRequest(
                f"the body of the request holds a {type(node).__name__}, which JSON cannot: "
                "send strings, numbers, booleans, null, lists and objects only"
            )
        if depth > MAX_NESTING_DEPTH:
            raise BadRequest(
                f"the body of the request nests more than {MAX_NESTING_DEPTH} levels deep"
            )
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children)
