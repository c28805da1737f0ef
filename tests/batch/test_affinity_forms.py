"""InterPodAffinity's batch forms: the reference's three Filter checks and its Score, per topology value.

The checks are those of ``Filter`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/filtering.go``
(v1.33), in its order: the incoming pod's required affinity (a node without
a term's topology label, or in a domain where no pod matches, is
``UnschedulableAndUnresolvable``, "node(s) didn't match pod affinity
rules", unless no pod matches anywhere and the pod matches its own terms),
its required anti-affinity (``Unschedulable``, "node(s) didn't match pod
anti-affinity rules"), and the existing pods' required anti-affinity
(``Unschedulable``, "node(s) didn't satisfy existing pods anti-affinity
rules"). Score sums, per topology key of PreScore's map, the points of the
node's value (``scoring.go``), and NormalizeScore scales min to max in
float64 and truncates.

Before these forms every cycle of a pod with required (anti-)affinity went
to the reference engine ("Filter plugin InterPodAffinity has no batch
form"); here the engines run side by side (``engine="both"``), must agree
on every node's status and score, and the searches are the batch engine's.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import framework
from framework.batch import forms
from framework.batch import interpodaffinity as ipa
from framework.batch.arrays import NodeArrays
from framework.batch.engine import DifferentialSchedulingAlgorithm
from framework.cache.snapshot import new_snapshot
from framework.objects import Node
from framework.plugins.interpodaffinity import InterPodAffinity

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def node(name: str, zone: str | None) -> dict[str, Any]:
    labels = {HOST: name}
    if zone is not None:
        labels[ZONE] = zone
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "20"}},
    }


def term(app: str, key: str) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


def pod(
    name: str, app: str, affinity: dict[str, Any] | None = None, node_name: str | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx"}]}
    if affinity is not None:
        spec["affinity"] = affinity
    if node_name is not None:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        "spec": spec,
    }


def required(kind: str, *terms: dict[str, Any]) -> dict[str, Any]:
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def _all_batch(algorithm: DifferentialSchedulingAlgorithm) -> None:
    assert algorithm.mismatches == []
    assert algorithm.stats.batch_filters >= 1
    assert not [why for why in algorithm.stats.reference if "InterPodAffinity" in why]


def test_anti_affinity_by_hostname_rules_out_the_nodes_with_a_matching_pod(
    algorithms: list[DifferentialSchedulingAlgorithm],
) -> None:
    """scheduler_perf's SchedulingPodAntiAffinity in small: at most one green pod per node."""
    apart = required("podAntiAffinity", term("green", HOST))
    manifests = [
        *(node(f"n{i}", "zone-a") for i in range(3)),
        pod("old-0", "green", apart, node_name="n0"),
        pod("old-1", "green", apart, node_name="n2"),
        pod("new", "green", apart),
        pod("crowd", "green", apart),
    ]
    result = framework.simulate(*manifests, engine="both", seed=0)
    assert result.placements["default/new"] == "n1"
    assert result.placements["default/crowd"] is None
    message = result.attempts_of("default/crowd")[0].message
    # Each node holds a green pod: the incoming pod's own rule and the existing pods' both
    # apply, and the first to fail (its own) is the reason kube gives.
    assert "3 node(s) didn't match pod anti-affinity rules" in message
    (algorithm,) = algorithms
    _all_batch(algorithm)


def test_an_existing_pods_anti_affinity_rules_out_its_domain(
    algorithms: list[DifferentialSchedulingAlgorithm],
) -> None:
    """The incoming pod has no rules; a running pod's anti-affinity by zone keeps it out."""
    manifests = [
        node("a1", "zone-a"),
        node("a2", "zone-a"),
        node("b1", "zone-b"),
        node("bare", None),
        pod("guard", "db", required("podAntiAffinity", term("web", ZONE)), node_name="a1"),
        pod("web", "web"),
    ]
    result = framework.simulate(*manifests, engine="both", seed=3)
    assert result.placements["default/web"] in ("b1", "bare")
    (algorithm,) = algorithms
    _all_batch(algorithm)


def test_required_affinity_by_zone_and_the_first_pod_of_a_group(
    algorithms: list[DifferentialSchedulingAlgorithm],
) -> None:
    """Blue pods together by zone: the first may go anywhere with a zone, the rest follow it."""
    together = required("podAffinity", term("blue", ZONE))
    manifests = [
        node("a1", "zone-a"),
        node("b1", "zone-b"),
        node("b2", "zone-b"),
        node("bare", None),
        pod("first", "blue", together),
        pod("second", "blue", together),
        pod("third", "blue", together),
        # Wants a db pod, and there is none: no node can help.
        pod("lonely", "web", required("podAffinity", term("db", ZONE))),
    ]
    result = framework.simulate(*manifests, engine="both", seed=1)
    first = result.placements["default/first"]
    assert first in ("a1", "b1", "b2")
    zone_of = {"a1": "zone-a", "b1": "zone-b", "b2": "zone-b"}
    for name in ("second", "third"):
        placed = result.placements[f"default/{name}"]
        assert placed is not None and zone_of[placed] == zone_of[first]
    assert result.placements["default/lonely"] is None
    assert "4 node(s) didn't match pod affinity rules" in (
        result.attempts_of("default/lonely")[0].message
    )
    (algorithm,) = algorithms
    _all_batch(algorithm)


def test_preferred_terms_score_alike_in_both_engines(
    algorithms: list[DifferentialSchedulingAlgorithm],
) -> None:
    """Preferred affinity and anti-affinity of the incoming and the existing pods, two keys."""
    near_db = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 80, "podAffinityTerm": term("db", ZONE)},
                {"weight": 30, "podAffinityTerm": term("db", HOST)},
            ]
        },
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "podAffinityTerm": term("web", HOST)}
            ]
        },
    }
    manifests = [
        *(node(f"a{i}", "zone-a") for i in range(3)),
        *(node(f"b{i}", "zone-b") for i in range(3)),
        node("bare", None),
        pod("db-0", "db", node_name="b1"),
        pod("db-1", "db", required("podAffinity", term("web", ZONE)), node_name="a2"),
        pod("web-0", "web", node_name="b1"),
        *(pod(f"web-{i}", "web", near_db) for i in range(1, 5)),
    ]
    result = framework.simulate(*manifests, engine="both", seed=2)
    assert all(result.placements[f"default/web-{i}"] is not None for i in range(1, 5))
    (algorithm,) = algorithms
    _all_batch(algorithm)
    assert algorithm.stats.batch_scores >= 4


def test_inter_pod_affinity_has_batch_forms() -> None:
    plugin = InterPodAffinity(None)
    assert forms.filter_form(plugin) is not None
    assert forms.score_form(plugin) is not None
    assert forms.normalize_form(plugin) is not None


PAIRS = [(key, value) for key in ("zone", "rack") for value in ("a", "b", "c", "gone")]


@given(maps=st.lists(st.dictionaries(st.sampled_from(PAIRS), st.integers(-3, 3)), max_size=6))
def test_a_count_vector_kept_across_cycles_equals_one_built_afresh(
    maps: list[dict[tuple[str, str], int]],
) -> None:
    """The kept vectors are updated from the map's changed entries only: the same counts per node."""
    labels = [{"zone": "a", "rack": "b"}, {"zone": "b"}, {"rack": "c"}, {}]
    nodes = [
        Node.from_dict({"metadata": {"name": f"n{i}", "labels": node_labels}})
        for i, node_labels in enumerate(labels)
    ]
    arrays = NodeArrays()
    arrays.refresh(new_snapshot([], nodes))
    for counts in maps:
        for key in ("zone", "rack"):
            kept = ipa._Counts(arrays, "existing", counts).of(key)[0]
            # Each node's count of its own domain, as satisfy_existing_pods_anti_affinity reads it.
            expected = [
                counts.get((key, node.metadata.labels[key]), 0)
                if key in node.metadata.labels
                else 0
                for node in nodes
            ]
            assert kept.tolist() == expected
