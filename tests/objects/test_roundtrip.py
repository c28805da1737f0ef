"""A manifest loaded and written back is the manifest: every field, known or not.

The guarantee a practitioner needs before trusting the simulator with their
YAML: nothing they wrote is dropped or altered on the way through (a quantity
comes back in the canonical form the API server writes, ``1.5`` as ``1500m``,
which the strategies generate).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from framework.objects import Node, Pod
from framework.objects.manifest import dump_manifests, loads
from tests.objects.strategies import NODE, POD


@pytest.mark.slow
@settings(max_examples=150)
@given(POD)
def test_pod_manifest_round_trips_every_field(manifest: dict[str, Any]) -> None:
    assert Pod.from_dict(manifest).to_dict() == manifest


@settings(max_examples=100)
@given(NODE)
def test_node_manifest_round_trips_every_field(manifest: dict[str, Any]) -> None:
    assert Node.from_dict(manifest).to_dict() == manifest


@pytest.mark.slow
@settings(max_examples=50)
@given(st.lists(st.one_of(POD, NODE), min_size=1, max_size=4))
def test_dumped_yaml_loads_back_to_the_same_objects(manifests: list[dict[str, Any]]) -> None:
    objects = loads(dump_manifests(loads(dump_manifests_raw(manifests))))
    assert [o.to_dict() for o in objects] == manifests


def dump_manifests_raw(manifests: list[dict[str, Any]]) -> str:
    import yaml

    return yaml.safe_dump_all(manifests, sort_keys=False)


def test_decoded_fields_are_typed() -> None:
    pod = Pod.from_dict(
        {
            "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "250m"}}}]},
        }
    )
    assert pod.spec.containers[0].resources.requests["cpu"].milli == 250


def test_empty_known_fields_are_omitted_like_omitempty() -> None:
    manifest = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1", "labels": {}},
        "spec": {"unschedulable": False, "taints": []},
    }
    assert Node.from_dict(manifest).to_dict() == {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
    }


def test_null_means_absent_for_known_fields_and_is_kept_for_unknown_ones() -> None:
    manifest = {"metadata": {"name": "n1", "labels": None}, "xCustom": None}
    assert Node.from_dict(manifest).to_dict() == {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "xCustom": None,
    }


def test_unknown_fields_are_copied_not_shared() -> None:
    manifest: dict[str, Any] = {"metadata": {"name": "n1"}, "xCustom": {"a": [1]}}
    node = Node.from_dict(manifest)
    manifest["xCustom"]["a"].append(2)
    assert node.to_dict()["xCustom"] == {"a": [1]}
