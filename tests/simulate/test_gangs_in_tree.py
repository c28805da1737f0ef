"""Two gangs of 8 on room for 12: one runs, the other waits whole, three ways.

* v1.35 (``GenericWorkload`` and ``GangScheduling`` on, ``workloadRef``):
  job-b's first four members take the four free slots and wait at Permit
  until the 5-minute timeout rejects them, then try again: no member
  binds, but half the gang holds room while it waits.
* v1.36 (the PodGroup cycle, ``schedulingGroup``): job-b's members are tried
  together and given back together; none is ever parked at Permit, and the
  PodGroup says ``PodGroupScheduled=False (Unschedulable)``.
* scheduler-plugins' Coscheduling (chapter 10): job-b is turned away at
  PostFilter ("optimistic rejection") as soon as a member finds no node,
  and backs off (``podGroupBackoffSeconds: 60``; without a backoff this
  simulation retries job-b without end, a loop of the Coscheduling port
  that predates issue 20 and is left to it).

Kube's behaviour from ``gangscheduling.go`` and ``schedule_one_podgroup.go``
(see :mod:`framework.plugins.gangscheduling`, :mod:`framework.scheduler.podgroup_cycle`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.simulator.run import simulate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gangs"
GATES = {"GenericWorkload": True, "GangScheduling": True}
A = [f"default/job-a-{i}" for i in range(8)]
B = [f"default/job-b-{i}" for i in range(8)]


def _bound(result, names):
    return [n for n in names if result.placements.get(n)]


@pytest.fixture(scope="module")
def v135():
    return simulate(
        EXAMPLES / "two-gangs-v1.35.yaml", emulated_version="1.35", feature_gates=GATES
    )


@pytest.fixture(scope="module")
def v136():
    return simulate(
        EXAMPLES / "two-gangs-v1.36.yaml", emulated_version="1.36", feature_gates=GATES
    )


def test_v135_one_gang_runs_the_other_binds_nothing_but_holds_room_at_permit(v135):
    assert _bound(v135, A) == A
    assert _bound(v135, B) == []
    waited = {a.pod for a in v135.attempts if a.pod in B and a.result == "PermitRejected"}
    assert len(waited) >= 4  # four members at a time held the four free slots
    assert any(
        e.reason == "FailedScheduling"
        and "rejected due to timeout after waiting 5m0s at plugin GangScheduling" in e.message
        for e in v135.events
    )


def test_v136_the_pod_group_cycle_holds_nothing(v136):
    assert _bound(v136, A) == A
    assert _bound(v136, B) == []
    assert not [a for a in v136.attempts if a.pod in B and a.result == "PermitRejected"]
    messages = {e.message for e in v136.events if e.object in B}
    assert "waiting for minCount pods from a gang to be scheduled" in messages
    # The others ran PostFilter, as a pod's cycle does (podGroupPodSchedulingAlgorithm), and
    # found nothing to preempt: job-a is as important.
    assert (
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: "
        "0/3 nodes are available: 3 No preemption victims found for incoming pod."
    ) in messages
    assert [e.object for e in v136.events if e.reason == "Scheduled"] == A


def test_coscheduling_side_by_side():
    result = simulate(
        EXAMPLES / "two-gangs-coscheduling.yaml",
        config=EXAMPLES / "coscheduling-config.yaml",
    )
    assert _bound(result, A) == A
    assert _bound(result, B) == []
    rejected = {
        a.pod for a in result.attempts if "optimistic rejection in PostFilter" in a.message
    }
    assert rejected == set(B[:4])  # the members waiting at Permit, given up on at once


def test_without_the_gates_the_gangs_are_ordinary_pods():
    result = simulate(EXAMPLES / "two-gangs-v1.36.yaml", emulated_version="1.36")
    assert len(_bound(result, A + B)) == 12  # a partial gang: the deadlock chapter 10 opens with


def test_explain_a_group_says_what_the_gang_lacks(v135, v136):
    from framework.objects.manifest import load_manifests
    from framework.simulator.explain_group import explain_group

    text = explain_group(
        v135, load_manifests(EXAMPLES / "two-gangs-v1.35.yaml"), "workload/default/train/job-b"
    )
    first = text.splitlines()[0]
    assert first == (
        "workload/default/train/job-b: 0 of 8 pods bound; 4 of 8 pods assumed "
        "(waiting at Permit when the run ended); minCount 8."
    )
    assert "default/job-b-0 #1: PermitRejected" in text
    text = explain_group(
        v136, load_manifests(EXAMPLES / "two-gangs-v1.36.yaml"), "podgroup/default/job-a"
    )
    assert text.startswith("podgroup/default/job-a: 8 of 8 pods bound; 0 of 8 pods assumed")
    assert "The gang runs: its quorum is bound." in text
