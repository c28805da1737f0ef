"""Chapter 9 checkpoint: ``filterPodsWithPDBViolation``, the split preemption reprieves by.

Cases from the rule in ``default_preemption.go`` (v1.33): a budget is spent
in the order the victims come, a pod already in ``disruptedPods`` does not
spend it again, and a budget selects only pods of its namespace that its
(non-empty, valid) selector matches. Run against your code with
``python -m pytest chapters/09_preemption/test_checkpoint_pdb.py --exercise``.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from framework.objects import PodDisruptionBudget
from framework.types import PodInfo
from tests.plugins.defaultpreemption.helpers import make_pdb, make_pod

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.defaultpreemption.pdb",
    skeleton="checkpoint_pdb.py",
    asks=["filter_pods_with_pdb_violation"],
)

WEB = {"app": "web"}


def web(*names: str, namespace: str = "default") -> list[PodInfo]:
    return [PodInfo(make_pod(n, labels=WEB, namespace=namespace)) for n in names]


def split(
    impl: ModuleType, pods: list[PodInfo], pdbs: list[PodDisruptionBudget]
) -> tuple[list[str], list[str]]:
    violating, fine = impl.filter_pods_with_pdb_violation(pods, pdbs)
    return [p.pod.name for p in violating], [p.pod.name for p in fine]


def test_the_budget_is_spent_in_the_order_given(impl: ModuleType) -> None:
    budget = make_pdb("web", WEB, allowed=1)
    assert split(impl, web("a", "b", "c"), [budget]) == (["b", "c"], ["a"]), (
        "expected the first pod to spend the one disruption allowed, the next ones to violate"
    )
    assert split(impl, web("c", "a", "b"), [budget]) == (["a", "b"], ["c"])


def test_a_pod_matching_no_budget_is_fine(impl: ModuleType) -> None:
    other = PodInfo(make_pod("db", labels={"app": "db"}))
    bare = PodInfo(make_pod("bare"))
    budget = make_pdb("web", WEB, allowed=0)
    assert split(impl, [other, bare], [budget]) == ([], ["db", "bare"])


def test_a_pod_already_disrupted_does_not_spend_the_budget_again(impl: ModuleType) -> None:
    budget = make_pdb("web", WEB, allowed=1, disrupted={"a": "2024-01-01T00:00:00Z"})
    assert split(impl, web("a", "b"), [budget]) == ([], ["a", "b"]), (
        "expected a, listed in disruptedPods, to leave b the one disruption allowed"
    )


def test_a_budget_counts_only_in_its_namespace(impl: ModuleType) -> None:
    budget = make_pdb("web", WEB, allowed=0, namespace="other")
    assert split(impl, web("a"), [budget]) == ([], ["a"])
    assert split(impl, web("a", namespace="other"), [budget]) == (["a"], [])


def test_an_empty_selector_matches_nothing(impl: ModuleType) -> None:
    budget = PodDisruptionBudget.from_dict(
        {
            "metadata": {"name": "all", "namespace": "default"},
            "spec": {"selector": {}},
            "status": {"disruptionsAllowed": 0},
        }
    )
    assert split(impl, web("a"), [budget]) == ([], ["a"]), (
        "expected an empty selector to match no victim (unlike the disruption controller)"
    )


def test_any_budget_below_zero_makes_a_violation(impl: ModuleType) -> None:
    loose = make_pdb("loose", WEB, allowed=5)
    tight = make_pdb("tight", {"tier": "front"}, allowed=0)
    pod = PodInfo(make_pod("a", labels={**WEB, "tier": "front"}))
    assert split(impl, [pod], [loose, tight]) == (["a"], [])
    # a spent one of the loose budget's five too: four are left for b to f.
    assert split(impl, [pod, *web("b", "c", "d", "e", "f")], [loose, tight]) == (
        ["a", "f"],
        ["b", "c", "d", "e"],
    )
