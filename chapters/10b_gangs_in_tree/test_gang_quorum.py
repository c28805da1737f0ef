"""Chapter 10b: GangScheduling's quorum, as its Permit counts it.

The cases follow ``TestGangSchedulingFlow`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go``
(v1.35-era copy, index id 4060565217: a gang of minCount 3 with two members
waiting and a third arriving) and the v1.35 plugin's Permit (index id
1021253207), which counts assumed ∪ assigned pods and activates
``UnscheduledPods``.

Run against your code with ``python -m pytest chapters/10b_gangs_in_tree --exercise``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.objects import Pod
from framework.plugins.gangscheduling import GroupState

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.gangscheduling",
    skeleton="exercise.py",
    asks=["gang_permit"],
)


def pod(name: str, node: str = "") -> Pod:
    return Pod.from_dict({"metadata": {"name": name, "uid": name}, "spec": {"nodeName": node}})


def group(names: list[str], assumed: set[str], bound: set[str] = frozenset()) -> GroupState:
    return GroupState({n: pod(n, "node" if n in bound else "") for n in names}, set(assumed))


def test_two_of_three_assumed_waits_and_activates_the_third(impl):
    met, activate = impl.gang_permit(group(["p1", "p2", "p3"], {"p1", "p2"}), 3)
    assert met is False
    assert [p.name for p in activate] == ["p3"]


def test_the_third_assumed_meets_the_quorum(impl):
    assert impl.gang_permit(group(["p1", "p2", "p3"], {"p1", "p2", "p3"}), 3) == (True, [])


def test_bound_members_count_too(impl):
    # A member bound in an earlier cycle still counts (assumed ∪ assigned, v1.35).
    assert impl.gang_permit(group(["p1", "p2", "p3"], {"p2", "p3"}, {"p1"}), 3) == (True, [])


def test_a_member_both_assumed_and_bound_counts_once(impl):
    met, activate = impl.gang_permit(group(["p1", "p2", "p3"], {"p1"}, {"p1"}), 2)
    assert met is False
    assert [p.name for p in activate] == ["p2", "p3"]


def test_an_assumed_pod_that_is_gone_does_not_count(impl):
    met, activate = impl.gang_permit(group(["p1", "p2"], {"p1", "ghost"}), 2)
    assert met is False
    assert [p.name for p in activate] == ["p2"]


def test_unscheduled_members_come_in_name_order(impl):
    _, activate = impl.gang_permit(group(["w3", "w1", "w2", "w0"], {"w0"}), 4)
    assert [p.name for p in activate] == ["w1", "w2", "w3"]


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    size=st.integers(1, 8),
    assumed=st.sets(st.integers(0, 9)),
    bound=st.sets(st.integers(0, 7)),
    min_count=st.integers(1, 8),
)
def test_met_exactly_when_enough_are_scheduled(impl, size, assumed, bound, min_count):
    names = [f"p{i}" for i in range(size)]
    state = group(names, {f"p{i}" for i in assumed}, {f"p{i}" for i in bound if i < size})
    scheduled = {n for n in names if n in state.assumed or state.all_pods[n].spec.node_name}
    met, activate = impl.gang_permit(state, min_count)
    assert met == (len(scheduled) >= min_count)
    assert [p.name for p in activate] == ([] if met else sorted(set(names) - scheduled))
