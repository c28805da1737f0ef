"""The fault-injection layer itself: rules that make sense, repeatable draws, wrappers that hide nothing.

No Kubernetes counterpart (``framework/testing/faults`` is a test tool); what these
tests hold is what the other suites rely on: a wrapped plugin has exactly
the extension points of the plugin it wraps (``runtime/framework.go``
expands ``multiPoint`` by the interfaces a plugin implements), and the same
seed gives the same faults.
"""

from __future__ import annotations

import pytest

from framework.apiserver import APIServer, ServiceUnavailable
from framework.clock import FakeClock
from framework.interface import (
    BindPlugin,
    FilterPlugin,
    PermitPlugin,
    PreFilterPlugin,
    QueueSortPlugin,
    ScorePlugin,
)
from framework.objects import Node
from framework.plugins.nodeports import NodePorts
from framework.plugins.queuesort import PrioritySort
from framework.plugins.registry import in_tree_registry
from framework.testing.deadline import DeadlinePlugin, with_deadlines
from framework.testing.faults import Fault, FaultPlan, FaultyAPIServer, FaultyPlugin, Rule

POINTS = [PreFilterPlugin, FilterPlugin, ScorePlugin, PermitPlugin, BindPlugin, QueueSortPlugin]


@pytest.mark.parametrize("inner", [NodePorts(), PrioritySort()], ids=["NodePorts", "PrioritySort"])
def test_a_wrapped_plugin_has_exactly_the_points_of_the_plugin_it_wraps(inner: object) -> None:
    clock = FakeClock()
    for wrapped in (FaultyPlugin(inner, FaultPlan()), DeadlinePlugin(inner, 5, clock)):  # type: ignore[arg-type]
        assert wrapped.name() == inner.name()  # type: ignore[attr-defined]
        for point in POINTS:
            assert isinstance(wrapped, point) == isinstance(inner, point), point.__name__


def test_a_rule_for_a_fault_its_site_cannot_take_is_refused() -> None:
    with pytest.raises(ValueError, match="SCORE_WRONG_LENGTH cannot be injected at Filter"):
        Rule("Filter", Fault.SCORE_WRONG_LENGTH)
    with pytest.raises(ValueError, match="no fault can be injected at 'Filtre'"):
        Rule("Filtre", Fault.RAISE)
    with pytest.raises(ValueError, match="probability must be within"):
        Rule("bind", Fault.CONFLICT, probability=1.5)


def draws(seed: int) -> list[bool]:
    plan = FaultPlan([Rule("Filter", Fault.ERROR, probability=0.3)], seed=seed)
    return [
        plan.decide("Filter", "NodePorts", f"default/p{i % 7}", f"n{i}") is not None
        for i in range(200)
    ]


def test_the_same_seed_gives_the_same_faults_and_another_seed_others() -> None:
    assert draws(1) == draws(1)
    assert draws(1) != draws(2)
    assert 30 < sum(draws(1)) < 90  # about 30 % of 200


def test_rules_at_one_site_share_a_call_so_at_most_one_fault_strikes_it() -> None:
    plan = FaultPlan(
        [
            Rule("bind", Fault.CONFLICT, probability=0.5),
            Rule("bind", Fault.UNAVAILABLE, probability=0.5),
        ]
    )
    outcomes = [plan.decide("bind", "pods", f"default/p{i}") for i in range(100)]
    assert all(o is not None for o in outcomes)  # the two slices cover [0, 1)
    counts = plan.counts()
    assert set(counts) == {"bind: 409 Conflict", "bind: 503 ServiceUnavailable"}
    assert sum(counts.values()) == 100


def test_a_limit_caps_how_often_a_rule_fires() -> None:
    plan = FaultPlan([Rule("Filter", Fault.RAISE, limit=2)])
    assert [plan.decide("Filter", "X", "default/p") is not None for _ in range(4)] == [
        True,
        True,
        False,
        False,
    ]


def test_a_disabled_plan_injects_nothing_and_lets_every_hang_go() -> None:
    plan = FaultPlan([Rule("Filter", Fault.RAISE)])
    plan.disabled()
    assert plan.decide("Filter", "X", "default/p") is None and plan.counts() == {}


def test_a_severed_door_refuses_everything_and_the_server_behind_it_goes_on() -> None:
    store = APIServer(FakeClock())
    door = FaultyAPIServer(store, FaultPlan())
    door.create(Node.from_dict({"metadata": {"name": "a"}}))
    door.sever()
    with pytest.raises(ServiceUnavailable, match="severed"):
        door.get(Node, "a")
    assert store.get(Node, "a").metadata.name == "a"


def test_deadlines_need_a_positive_number_of_seconds() -> None:
    with pytest.raises(ValueError, match="must be positive"):
        with_deadlines(in_tree_registry(), 0)
