"""PodDisruptionBudget as a manifest: ``policy/v1``, IntOrString fields, round trip.

The shape is ``k8s.io/api/policy/v1/types.go`` (``PodDisruptionBudgetSpec``,
``PodDisruptionBudgetStatus``) and ``k8s.io/apimachinery/pkg/util/intstr``
(an IntOrString is a JSON number or a JSON string) (v1.33).
"""

from __future__ import annotations

import pytest

from framework.objects import ObjectInvalid, PodDisruptionBudget
from framework.objects.manifest import ManifestError, dump_manifests, loads

MANIFEST = """
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 60%
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: NotIn, values: [cache]}]
  unhealthyPodEvictionPolicy: AlwaysAllow
status:
  observedGeneration: 2
  disruptedPods: {web-1: "2025-01-01T00:00:00Z"}
  disruptionsAllowed: 1
  currentHealthy: 3
  desiredHealthy: 2
  expectedPods: 3
  conditions:
  - {type: DisruptionAllowed, status: "True", reason: SufficientPods,
     lastTransitionTime: "2025-01-01T00:00:00Z", observedGeneration: 2}
"""


def test_a_manifest_loads_into_a_typed_budget() -> None:
    (pdb,) = loads(MANIFEST)
    assert isinstance(pdb, PodDisruptionBudget)
    assert pdb.describe() == "PodDisruptionBudget shop/web"
    assert pdb.spec.min_available == "60%" and pdb.spec.max_unavailable is None
    assert pdb.spec.selector is not None and pdb.spec.selector.match_labels == {"app": "web"}
    assert pdb.spec.unhealthy_pod_eviction_policy == "AlwaysAllow"
    assert pdb.status.disrupted_pods == {"web-1": "2025-01-01T00:00:00Z"}
    assert (pdb.status.disruptions_allowed, pdb.status.expected_pods) == (1, 3)
    assert pdb.status.conditions[0].reason == "SufficientPods"


def test_it_round_trips_unchanged() -> None:
    (pdb,) = loads(MANIFEST)
    (again,) = loads(dump_manifests([pdb]))
    assert again == pdb


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0), (3, 3), ("0%", "0%"), ("25%", "25%")],
    ids=["zero", "an integer", "zero percent", "a percentage"],
)
def test_int_or_string_keeps_its_type(value: int | str, expected: int | str) -> None:
    pdb = PodDisruptionBudget.from_dict({"spec": {"maxUnavailable": value}})
    assert pdb.spec.max_unavailable == expected
    # Zero is a value here, not "absent": it is written back.
    assert pdb.to_dict()["spec"]["maxUnavailable"] == expected


@pytest.mark.parametrize(
    "value", [[1], {"a": 1}, True, 1.5], ids=["list", "object", "bool", "float"]
)
def test_int_or_string_refuses_anything_else(value: object) -> None:
    with pytest.raises(ObjectInvalid) as raised:
        PodDisruptionBudget.from_dict({"spec": {"minAvailable": value}})
    (error,) = raised.value.errors
    assert error.path == "spec.minAvailable"
    assert error.message.startswith("expected an integer or a string, got")


def test_the_status_counters_are_always_written() -> None:
    """``disruptionsAllowed`` and the others have no ``omitempty`` in types.go."""
    pdb = PodDisruptionBudget.from_dict(
        {"metadata": {"name": "x"}, "status": {"observedGeneration": 1}}
    )
    assert pdb.to_dict()["status"] == {
        "observedGeneration": 1,
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    }


def test_the_api_version_is_policy_v1() -> None:
    with pytest.raises(
        ManifestError, match="'policy/v1beta1' does not serve kind PodDisruptionBudget"
    ):
        loads("apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: x}\n")
