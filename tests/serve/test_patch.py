"""PATCH bodies: JSON merge patch (RFC 7386), strategic merge patch, JSON patch (RFC 6902).

Expectations from RFC 7386's appendix A examples, RFC 6902 section 4, and
``k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go`` (merging
lists on their patchMergeKey, ``$patch: delete``/``replace``,
``$setElementOrder``, ``$retainKeys``, ``$deleteFromPrimitiveList``).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.apiserver.errors import BadRequest
from framework.apiserver.http.patch import json_merge_patch, json_patch, strategic_merge_patch


@pytest.mark.parametrize(
    ("target", "patch", "expected"),
    [
        pytest.param({"a": "b"}, {"a": "c"}, {"a": "c"}, id="replace a value"),
        pytest.param({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}, id="add a key"),
        pytest.param({"a": "b"}, {"a": None}, {}, id="null deletes"),
        pytest.param({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}, id="lists are replaced"),
        pytest.param(
            {"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}, id="nested"
        ),
        pytest.param({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}, id="nulls in new maps"),
    ],
)
def test_json_merge_patch_follows_rfc_7386(target: Any, patch: Any, expected: Any) -> None:
    assert json_merge_patch(target, patch) == expected


CONTAINERS = {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}


@pytest.mark.parametrize(
    ("target", "patch", "expected"),
    [
        pytest.param(
            {"metadata": {"labels": {"app": "web"}}},
            {"metadata": {"labels": {"tier": "front"}}},
            {"metadata": {"labels": {"app": "web", "tier": "front"}}},
            id="kubectl label merges into the map",
        ),
        pytest.param(
            {"metadata": {"labels": {"app": "web", "tier": "x"}}},
            {"metadata": {"labels": {"tier": None}}},
            {"metadata": {"labels": {"app": "web"}}},
            id="kubectl label tier- deletes the key",
        ),
        pytest.param(
            CONTAINERS,
            {"spec": {"containers": [{"name": "b", "image": "z"}]}},
            {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "z"}]}},
            id="containers merge on name",
        ),
        pytest.param(
            CONTAINERS,
            {"spec": {"containers": [{"name": "c", "image": "w"}]}},
            {
                "spec": {
                    "containers": [
                        {"name": "a", "image": "x"},
                        {"name": "b", "image": "y"},
                        {"name": "c", "image": "w"},
                    ]
                }
            },
            id="a new container is appended",
        ),
        pytest.param(
            CONTAINERS,
            {
                "$setElementOrder/containers": [{"name": "a"}],
                "spec": {"containers": [{"name": "b", "$patch": "delete"}]},
            },
            {"spec": {"containers": [{"name": "a", "image": "x"}]}},
            id="$patch delete removes the element",
        ),
        pytest.param(
            {"spec": {"tolerations": [{"key": "a"}]}},
            {"spec": {"tolerations": [{"key": "b"}]}},
            {"spec": {"tolerations": [{"key": "b"}]}},
            id="a list without a merge key is replaced",
        ),
        pytest.param(
            {"spec": {"a": 1, "b": 2}},
            {"spec": {"$patch": "replace", "c": 3}},
            {"spec": {"c": 3}},
            id="$patch replace replaces the map",
        ),
        pytest.param(
            {"spec": {"a": 1, "b": 2}},
            {"spec": {"$retainKeys": ["b", "c"], "c": 3}},
            {"spec": {"b": 2, "c": 3}},
            id="$retainKeys drops the others",
        ),
        pytest.param(
            {"metadata": {"finalizers": ["x", "y"]}},
            {"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"]}},
            {"metadata": {"finalizers": ["y"]}},
            id="$deleteFromPrimitiveList",
        ),
    ],
)
def test_strategic_merge_patch_merges_lists_on_their_keys(
    target: Any, patch: Any, expected: Any
) -> None:
    assert strategic_merge_patch(target, patch) == expected


def test_a_merge_list_element_without_its_key_is_a_bad_request() -> None:
    with pytest.raises(BadRequest, match="does not contain declared merge key: name"):
        strategic_merge_patch(CONTAINERS, {"spec": {"containers": [{"image": "z"}]}})


@pytest.mark.parametrize(
    ("operations", "expected"),
    [
        pytest.param([{"op": "add", "path": "/b", "value": 2}], {"a": [1, 2], "b": 2}, id="add"),
        pytest.param([{"op": "add", "path": "/a/-", "value": 3}], {"a": [1, 2, 3]}, id="append"),
        pytest.param([{"op": "remove", "path": "/a/0"}], {"a": [2]}, id="remove"),
        pytest.param([{"op": "replace", "path": "/a", "value": 0}], {"a": 0}, id="replace"),
        pytest.param(
            [{"op": "copy", "from": "/a", "path": "/b"}], {"a": [1, 2], "b": [1, 2]}, id="copy"
        ),
        pytest.param([{"op": "move", "from": "/a", "path": "/b"}], {"b": [1, 2]}, id="move"),
        pytest.param([{"op": "test", "path": "/a/1", "value": 2}], {"a": [1, 2]}, id="test holds"),
    ],
)
def test_json_patch_follows_rfc_6902(operations: Any, expected: Any) -> None:
    assert json_patch({"a": [1, 2]}, operations) == expected


@pytest.mark.parametrize(
    "operations",
    [
        pytest.param([{"op": "test", "path": "/a", "value": 9}], id="failed test"),
        pytest.param([{"op": "remove", "path": "/zzz"}], id="missing path"),
        pytest.param([{"op": "jump", "path": "/a"}], id="unknown op"),
        pytest.param({"op": "add"}, id="not a list"),
    ],
)
def test_a_json_patch_that_cannot_apply_is_a_bad_request(operations: Any) -> None:
    with pytest.raises(BadRequest):
        json_patch({"a": 1}, operations)
