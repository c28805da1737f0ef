"""Label pools: pods wait in one pool while the other has room.

Pools are node labels and a pod's ``nodeSelector``, which NodeAffinity
filters on (kubernetes/kubernetes ``pkg/scheduler/framework/plugins/nodeaffinity``,
v1.33); one scheduler with several profiles shares one cache and queue
(``profile.NewMap`` in ``pkg/scheduler/profile/profile.go``), so its
profiles never race and never fence.
"""

from __future__ import annotations

from framework.experiments.pools import pools_table, run_pools


def test_pools_leave_batch_pods_pending_while_the_general_pool_has_room() -> None:
    pooled = run_pools(6, pools=True)
    assert pooled.pending == 2
    assert pooled.pending_with_room == 2
    assert pooled.cpu_requested_percent == 58  # chapter 0: 28 of 48 CPUs


def test_one_scheduler_with_two_profiles_runs_them_all() -> None:
    shared = run_pools(6, pools=False)
    assert shared.pending == 0
    assert shared.cpu_requested_percent == 75  # 36 of 48 CPUs


def test_what_stays_pending_with_one_scheduler_would_not_fit_anywhere() -> None:
    shared = run_pools(8, pools=False)
    assert shared.pending > 0
    assert shared.pending_with_room == 0


def test_the_same_seed_gives_the_same_table() -> None:
    assert pools_table((4, 8), seed=3) == pools_table((4, 8), seed=3)


def test_the_batch_pool_holds_four_pods_so_up_to_four_the_pools_cost_nothing() -> None:
    pooled = run_pools(4, pools=True)
    assert (pooled.pending, pooled.cpu_requested_percent) == (0, 58)


def test_on_the_shared_cluster_the_web_pods_spread_one_per_node_leaving_room_for_six() -> None:
    shared = run_pools(8, pools=False)
    web_nodes = {o.node_name for o in shared.outcomes if o.pod.name.startswith("web-")}
    assert len(web_nodes) == 6
    assert shared.pending == 2
