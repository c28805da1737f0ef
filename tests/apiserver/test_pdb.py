"""PodDisruptionBudgets on the fake API server: served, validated, and kept up to date.

Validation messages are those of ``ValidatePodDisruptionBudgetSpec`` and
``ValidatePodDisruptionBudgetStatusUpdate`` in
``kubernetes/kubernetes:pkg/apis/policy/validation/validation.go`` (with
``ValidatePositiveIntOrPercent`` and ``IsNotMoreThan100Percent`` from
``pkg/apis/apps/validation`` and ``ValidateLabelSelector`` from
``k8s.io/apimachinery/pkg/apis/meta/v1/validation``); the strategy is
``pkg/registry/policy/poddisruptionbudget/strategy.go``; the status is what
``pkg/controller/disruption/disruption.go`` writes (v1.33).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.apiserver import MODIFIED, APIServer, Invalid, NotFound
from framework.apiserver.policy_validation import MSG_INVALID_PERCENT
from framework.clock import FakeClock
from framework.objects import Namespace, ObjectMeta, Pod, PodDisruptionBudget
from tests.apiserver.helpers import pod

WEB = {"matchLabels": {"app": "web"}}


def pdb(name: str = "web", namespace: str = "default", **spec: Any) -> PodDisruptionBudget:
    spec.setdefault("selector", WEB)
    return PodDisruptionBudget.from_dict(
        {"metadata": {"name": name, "namespace": namespace}, "spec": spec}
    )


def web_pod(name: str, node: str = "n1", namespace: str = "default") -> Pod:
    base = (
        pod(name, namespace=namespace, nodeName=node) if node else pod(name, namespace=namespace)
    )
    return base.with_metadata(labels={"app": "web"})


def invalid_message(api: APIServer, obj: PodDisruptionBudget) -> str:
    with pytest.raises(Invalid) as raised:
        api.create(obj)
    return raised.value.message


INTSTR = 'intstr.IntOrString{{Type:1, IntVal:0, StrVal:"{}"}}'

VALIDATION = {
    "minAvailable and maxUnavailable both set": (
        {"minAvailable": 1, "maxUnavailable": 1},
        "spec: Invalid value: policy.PodDisruptionBudgetSpec{...}: "
        "minAvailable and maxUnavailable cannot be both set",
    ),
    "negative minAvailable": (
        {"minAvailable": -1},
        "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0",
    ),
    "negative maxUnavailable": (
        {"maxUnavailable": -2},
        "spec.maxUnavailable: Invalid value: -2: must be greater than or equal to 0",
    ),
    "a string that is no percentage": (
        {"minAvailable": "5"},
        f"spec.minAvailable: Invalid value: {INTSTR.format('5')}: {MSG_INVALID_PERCENT}",
    ),
    "a negative percentage": (
        {"maxUnavailable": "-10%"},
        f"spec.maxUnavailable: Invalid value: {INTSTR.format('-10%')}: {MSG_INVALID_PERCENT}",
    ),
    "more than 100%": (
        {"maxUnavailable": "120%"},
        f"spec.maxUnavailable: Invalid value: {INTSTR.format('120%')}: "
        "must not be greater than 100%",
    ),
    "an unknown selector operator": (
        {"minAvailable": 1, "selector": {"matchExpressions": [{"key": "app", "operator": "Is"}]}},
        'spec.selector.matchExpressions[0].operator: Invalid value: "Is": '
        "not a valid selector operator",
    ),
    "In without values": (
        {"minAvailable": 1, "selector": {"matchExpressions": [{"key": "app", "operator": "In"}]}},
        "spec.selector.matchExpressions[0].values: Required value: "
        "must be specified when `operator` is 'In' or 'NotIn'",
    ),
    "Exists with values": (
        {
            "minAvailable": 1,
            "selector": {
                "matchExpressions": [{"key": "app", "operator": "Exists", "values": ["x"]}]
            },
        },
        "spec.selector.matchExpressions[0].values: Forbidden: "
        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ),
    "an unknown unhealthyPodEvictionPolicy": (
        {"minAvailable": 1, "unhealthyPodEvictionPolicy": "Sometimes"},
        'spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": '
        'supported values: "AlwaysAllow", "IfHealthyBudget"',
    ),
}


@pytest.mark.parametrize(("spec", "cause"), VALIDATION.values(), ids=VALIDATION.keys())
def test_invalid_budgets_are_refused_with_kubes_message(
    api: APIServer, spec: dict[str, Any], cause: str
) -> None:
    assert invalid_message(api, pdb(**spec)) == (
        f'PodDisruptionBudget.policy "web" is invalid: {cause}'
    )


@pytest.mark.parametrize(
    "spec",
    [
        {"minAvailable": 0},
        {"minAvailable": "100%"},
        {"maxUnavailable": "0%"},
        {"maxUnavailable": 3, "unhealthyPodEvictionPolicy": "AlwaysAllow"},
        {},
        {"selector": {}},
    ],
    ids=["zero", "100 percent", "0 percent", "with a policy", "neither field", "empty selector"],
)
def test_valid_budgets_are_stored(api: APIServer, spec: dict[str, Any]) -> None:
    stored = api.create(pdb(**spec))
    assert stored.metadata.generation == 1
    assert api.get(PodDisruptionBudget, "web").spec == stored.spec


def test_all_the_problems_are_reported_together(api: APIServer) -> None:
    message = invalid_message(api, pdb(minAvailable=-1, maxUnavailable="200%"))
    assert message.startswith('PodDisruptionBudget.policy "web" is invalid: [spec: Invalid value')
    assert "spec.minAvailable: Invalid value: -1" in message
    assert "spec.maxUnavailable: Invalid value:" in message


def test_it_is_namespaced_and_named_as_kube_names_it(api: APIServer) -> None:
    with pytest.raises(NotFound, match=r'namespaces "nowhere" not found'):
        api.create(pdb(namespace="nowhere"))
    with pytest.raises(NotFound, match=r'poddisruptionbudgets.policy "missing" not found'):
        api.get(PodDisruptionBudget, "missing")


def test_a_client_cannot_write_the_status_on_create(api: APIServer) -> None:
    sent = dataclasses.replace(
        pdb(minAvailable=1),
        status=dataclasses.replace(PodDisruptionBudget().status, disruptions_allowed=9),
    )
    assert api.create(sent).status.disruptions_allowed == 0


def test_a_spec_change_bumps_the_generation_and_the_controller_observes_it(
    api: APIServer,
) -> None:
    created = api.create(pdb(minAvailable=1))
    changed = dataclasses.replace(
        created,
        spec=dataclasses.replace(created.spec, min_available=2),
    ).with_metadata(resource_version="")
    updated = api.update(changed)
    assert updated.metadata.generation == 2
    current = api.get(PodDisruptionBudget, "web")
    assert current.status.observed_generation == 2
    assert current.status.desired_healthy == 2


def test_the_status_subresource_keeps_the_spec_and_checks_the_counters(api: APIServer) -> None:
    created = api.create(pdb(minAvailable=1))
    current = api.get(PodDisruptionBudget, "web")
    bad = dataclasses.replace(
        current,
        spec=dataclasses.replace(current.spec, min_available=7),
        status=dataclasses.replace(current.status, current_healthy=-1),
    )
    with pytest.raises(Invalid) as raised:
        api.update_status(bad)
    assert raised.value.message == (
        'PodDisruptionBudget.policy "web" is invalid: '
        "status.currentHealthy: Invalid value: -1: must be greater than or equal to 0"
    )
    assert api.get(PodDisruptionBudget, "web").spec == created.spec


# --- the disruption controller's job ------------------------------------------------------------


def test_writing_pods_keeps_the_budget_status_current(api: APIServer) -> None:
    api.create(pdb(minAvailable=1))
    for name in ("a", "b"):
        api.create(web_pod(name))
    api.create(web_pod("pending", node=""))
    status = api.get(PodDisruptionBudget, "web").status
    assert (status.expected_pods, status.current_healthy, status.disruptions_allowed) == (3, 2, 1)
    api.delete(Pod, "a", grace_period_seconds=30)  # terminating: no longer healthy
    status = api.get(PodDisruptionBudget, "web").status
    assert (status.current_healthy, status.disruptions_allowed) == (1, 0)
    assert status.conditions[0].reason == "InsufficientPods"


def test_each_status_change_is_a_modified_event_with_its_own_resource_version(
    api: APIServer,
) -> None:
    api.create(pdb(maxUnavailable=1))  # then the controller's first status write
    watch = api.watch(PodDisruptionBudget, api.current_resource_version())
    written = api.create(web_pod("a"))
    event = watch.next(timeout=0)
    assert event is not None and event.type == MODIFIED
    assert (
        int(event.object.metadata.resource_version) == int(written.metadata.resource_version) + 1
    )
    assert event.object.status.current_healthy == 1
    watch.stop()


def test_a_write_that_changes_no_budget_writes_no_status(api: APIServer) -> None:
    api.create(pdb(minAvailable=1))
    api.create(web_pod("a"))
    before = api.get(PodDisruptionBudget, "web").metadata.resource_version
    api.create(pod("unrelated", nodeName="n1"))  # not selected
    api.create(Namespace(metadata=ObjectMeta(name="other")))
    api.create(web_pod("elsewhere", namespace="other"))  # another namespace
    assert api.get(PodDisruptionBudget, "web").metadata.resource_version == before


def test_deleting_a_namespace_deletes_its_budgets_without_rewriting_them() -> None:
    api = APIServer(FakeClock())
    api.create(Namespace(metadata=ObjectMeta(name="shop")))
    api.create(pdb(namespace="shop", minAvailable=1))
    api.create(web_pod("a", namespace="shop"))
    watch = api.watch(PodDisruptionBudget, api.current_resource_version())
    api.delete(Namespace, "shop")
    events = watch.drain()
    assert [e.type for e in events] == ["DELETED"]
    watch.stop()


def test_the_budget_has_a_status_subresource(api: APIServer) -> None:
    api.create(pdb(minAvailable=1))
    current = api.get(PodDisruptionBudget, "web")
    assert api.update_status(current) == current  # served, and a no-op write is not written
