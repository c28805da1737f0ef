"""Two schedulers on one cluster: the over-commit, and the kubelets' rejections that follow.

Kubernetes lets several schedulers share nodes (kubernetes/website
``content/en/docs/tasks/extend-kubernetes/configure-multiple-schedulers.md``);
the API server's binding checks only that the pod has no node yet
(``pkg/registry/core/pod/storage/storage.go``, ``assignPod``), and the
kubelet's admission rejects what does not fit
(``pkg/kubelet/lifecycle/predicate.go``). One scheduler counts each pod it
places in its cache at once (``assume`` in ``pkg/scheduler/schedule_one.go``),
so it never over-commits a node.
"""

from __future__ import annotations

import dataclasses

import pytest

from framework.experiments.race import RaceSettings, race_table, run_race, two_pods
from framework.simulator.kubelet import OUT_OF_CPU


def test_two_schedulers_put_chapter_0s_two_pods_on_one_node_and_its_kubelet_rejects_one() -> None:
    web, batch = two_pods(2)
    assert (web.state, web.node_name) == ("running", "node-a")
    assert (batch.state, batch.node_name, batch.reason) == ("rejected", "node-a", OUT_OF_CPU)
    assert batch.pod.to_dict()["status"]["message"] == (
        "Pod was rejected: Node didn't have enough resource: cpu, requested: 1500, "
        "used: 3500, capacity: 4000"
    )


def test_one_scheduler_with_two_profiles_places_both() -> None:
    outcomes = two_pods(1)
    assert [(o.pod.name, o.state, o.node_name) for o in outcomes] == [
        ("web", "running", "node-a"),
        ("batch", "running", "node-b"),
    ]


def test_without_delays_there_is_no_window_and_no_race() -> None:
    settings = RaceSettings(bind_latency=0.0, watch_delay=0.0)
    assert [o.state for o in two_pods(2, settings=settings)] == ["running", "running"]


def test_the_same_seed_gives_the_same_table() -> None:
    first = race_table((24, 64), seed=5)
    again = race_table((24, 64), seed=5)
    assert [(a, b) for a, b in first] == [(a, b) for a, b in again]
    assert [[o.node_name for o in two.outcomes] for two, _ in first] == [
        [o.node_name for o in two.outcomes] for two, _ in again
    ]


def test_beyond_the_clusters_capacity_two_schedulers_over_commit() -> None:
    result = run_race(64, seed=0)
    assert result.cpu_asked_percent > 100
    assert result.rejected[OUT_OF_CPU] > 0
    assert result.running + result.pending + result.rejected_total == 64


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_scheduler_never_over_commits(seed: int) -> None:
    result = run_race(64, seed=seed, schedulers=1)
    assert result.rejected_total == 0
    assert result.running + result.pending == 64


def test_a_light_load_with_the_same_rules_is_not_over_committed() -> None:
    same_rules = dataclasses.replace(RaceSettings(), strategies=("LeastAllocated",) * 2)
    assert run_race(16, seed=0, settings=same_rules).rejected_total == 0
