"""The cache's pod and node life cycle (cache.go: AssumePod, FinishBinding, ForgetPod, AddPod, ...)."""

from __future__ import annotations

import logging

import pytest

from framework import types
from framework.cache import Cache, CacheCorrupted, CacheError, Snapshot
from framework.clock import FakeClock
from framework.node_info import ImageStateSummary, NodeInfo
from framework.objects import Pod, PodCondition
from framework.objects.copying import replace
from framework.types import PodInfo
from tests.cache.helpers import assert_totals_match_pods, make_node, make_pod


def node_info(cache: Cache, name: str) -> NodeInfo:
    return cache.dump().nodes[name]


def cpu_on(cache: Cache, name: str) -> int:
    return node_info(cache, name).requested.milli_cpu


def bound(pod: Pod, node: str) -> Pod:
    """The version of ``pod`` the watch delivers once it is bound to ``node``."""
    return Pod.from_dict({**pod.to_dict(), "spec": {**pod.to_dict()["spec"], "nodeName": node}})


@pytest.fixture
def cache() -> Cache:
    c = Cache()
    c.add_node(make_node("n1"))
    c.add_node(make_node("n2"))
    return c


# --- assume, confirm, forget -----------------------------------------------------------


def test_an_assumed_pod_counts_on_its_node_at_once(cache: Cache) -> None:
    pod = make_pod("p", node="n1", cpu="500m")
    cache.assume_pod(PodInfo(pod))
    assert cache.is_assumed_pod(pod)
    assert cpu_on(cache, "n1") == 500
    assert cache.dump().assumed_pods == {"uid-p"}
    assert cache.pod_count() == 1


def test_assume_then_confirm_by_add_pod_then_remove(cache: Cache) -> None:
    pod = make_pod("p", node="n1", cpu="500m")
    cache.assume_pod(PodInfo(pod))
    cache.finish_binding(pod)
    confirmed = pod.with_metadata(resource_version="7")
    cache.add_pod(confirmed)
    assert not cache.is_assumed_pod(pod)
    assert cache.get_pod(pod) is confirmed  # the real pod replaced the assumed copy
    assert [p.pod for p in node_info(cache, "n1").pods] == [confirmed]
    assert cpu_on(cache, "n1") == 500
    cache.remove_pod(confirmed)
    assert cpu_on(cache, "n1") == 0
    assert cache.pod_count() == 0
    with pytest.raises(CacheError):
        cache.get_pod(pod)


def test_confirmation_on_another_node_moves_the_pod_there(
    cache: Cache, caplog: pytest.LogCaptureFixture
) -> None:
    pod = make_pod("p", node="n1", cpu="500m")
    cache.assume_pod(PodInfo(pod))
    with caplog.at_level(logging.INFO, logger="framework.cache.cache"):
        cache.add_pod(bound(pod, "n2"))
    assert (cpu_on(cache, "n1"), cpu_on(cache, "n2")) == (0, 500)
    assert "Pod was added to a different node than it was assumed" in caplog.text


def test_assume_then_forget_leaves_nothing(cache: Cache) -> None:
    pod = make_pod("p", node="n1", cpu="500m")
    cache.assume_pod(PodInfo(pod))
    cache.forget_pod(pod)
    assert not cache.is_assumed_pod(pod)
    assert (cpu_on(cache, "n1"), cache.pod_count(), cache.dump().assumed_pods) == (
        0,
        0,
        frozenset(),
    )


def test_the_assumed_pod_info_is_copied_so_the_callers_later_changes_do_not_leak(
    cache: Cache,
) -> None:
    info = PodInfo(make_pod("p", node="n1", cpu="500m"))
    cache.assume_pod(info)
    info.update(make_pod("p", node="n1", cpu="3"))
    assert cpu_on(cache, "n1") == 500


def test_a_pod_in_the_cache_cannot_be_assumed_again(cache: Cache) -> None:
    pod = make_pod("p", node="n1")
    cache.assume_pod(PodInfo(pod))
    with pytest.raises(CacheError) as raised:
        cache.assume_pod(PodInfo(pod))
    assert str(raised.value) == "pod uid-p(default/p) is in the cache, so can't be assumed"


def test_a_pod_without_a_uid_has_no_cache_key(cache: Cache) -> None:
    pod = make_pod("p", node="n1").with_metadata(uid="")
    with pytest.raises(CacheError, match="cannot get cache key for pod with empty UID"):
        cache.assume_pod(PodInfo(pod))


def test_forget_refuses_a_pod_that_was_not_assumed(cache: Cache) -> None:
    added = make_pod("added", node="n1")
    cache.add_pod(added)
    with pytest.raises(CacheError) as raised:
        cache.forget_pod(added)
    assert str(raised.value) == (
        "pod uid-added(default/added) wasn't assumed so cannot be forgotten"
    )
    with pytest.raises(CacheError, match="wasn't assumed so cannot be forgotten"):
        cache.forget_pod(make_pod("never-seen", node="n1"))
    assert cache.pod_count() == 1


def test_forget_refuses_a_pod_assumed_on_another_node(cache: Cache) -> None:
    pod = make_pod("p", node="n1")
    cache.assume_pod(PodInfo(pod))
    with pytest.raises(CacheError) as raised:
        cache.forget_pod(bound(pod, "n2"))
    # Kubernetes' message names the argument's node first.
    assert str(raised.value) == "pod uid-p(default/p) was assumed on n2 but assigned to n1"
    assert cache.is_assumed_pod(pod)


# --- added pods ------------------------------------------------------------------------


def test_a_pod_cannot_be_added_twice(cache: Cache) -> None:
    pod = make_pod("p", node="n1")
    cache.add_pod(pod)
    with pytest.raises(CacheError, match=r"^pod uid-p\(default/p\) was already in added state$"):
        cache.add_pod(pod)


def test_update_replaces_the_pods_requests_on_its_node(cache: Cache) -> None:
    old = make_pod("p", node="n1", cpu="1")
    new = make_pod("p", node="n1", cpu="2")
    cache.add_pod(old)
    cache.update_pod(old, new)
    assert cpu_on(cache, "n1") == 2000
    assert cache.get_pod(old) is new


def test_update_refuses_unknown_and_assumed_pods(cache: Cache) -> None:
    unknown = make_pod("u", node="n1")
    with pytest.raises(CacheError) as raised:
        cache.update_pod(unknown, unknown)
    assert str(raised.value) == (
        "pod uid-u(default/u) is not added to scheduler cache, so cannot be updated"
    )
    assumed = make_pod("a", node="n1")
    cache.assume_pod(PodInfo(assumed))
    with pytest.raises(
        CacheError, match=r"^assumed pod uid-a\(default/a\) should not be updated$"
    ):
        cache.update_pod(assumed, assumed)


def test_an_update_that_moves_a_pod_to_another_node_means_the_cache_is_corrupted(
    cache: Cache,
) -> None:
    pod = make_pod("p", node="n1")
    cache.add_pod(pod)
    with pytest.raises(CacheCorrupted, match="Scheduler cache is corrupted"):
        cache.update_pod(pod, bound(pod, "n2"))


def test_remove_refuses_an_unknown_pod(cache: Cache) -> None:
    with pytest.raises(CacheError) as raised:
        cache.remove_pod(make_pod("u", node="n1"))
    assert str(raised.value) == (
        "pod uid-u(default/u) is not found in scheduler cache, so cannot be removed from it"
    )


def test_remove_of_a_pod_seen_on_another_node_means_the_cache_is_corrupted(cache: Cache) -> None:
    pod = make_pod("p", node="n1")
    cache.add_pod(pod)
    with pytest.raises(CacheCorrupted):
        cache.remove_pod(bound(pod, "n2"))


def test_remove_with_an_empty_node_name_removes_the_cached_pod(cache: Cache) -> None:
    # A missed Delete leaves the informer with the pod's last state, possibly unbound.
    pod = make_pod("p", node="n1", cpu="1")
    cache.add_pod(pod)
    cache.remove_pod(make_pod("p"))
    assert (cpu_on(cache, "n1"), cache.pod_count()) == (0, 0)


def test_an_assumed_pod_can_be_removed_like_an_added_one(cache: Cache) -> None:
    pod = make_pod("p", node="n1", cpu="1")
    cache.assume_pod(PodInfo(pod))
    cache.remove_pod(pod)
    assert (cache.pod_count(), cache.is_assumed_pod(pod)) == (0, False)


# --- expiry ----------------------------------------------------------------------------


def test_without_a_ttl_an_assumed_pod_never_expires() -> None:
    clock = FakeClock()
    cache = Cache(clock=clock)
    pod = make_pod("p", node="n1")
    cache.assume_pod(PodInfo(pod))
    cache.finish_binding(pod)
    clock.advance(10**6)
    assert cache.cleanup_assumed_pods() == []
    assert cache.is_assumed_pod(pod)


def test_a_ttl_of_zero_also_means_never_as_in_kubernetes() -> None:
    clock = FakeClock()
    cache = Cache(ttl_seconds=0, clock=clock)
    pod = make_pod("p", node="n1")
    cache.assume_pod(PodInfo(pod))
    cache.finish_binding(pod)
    clock.advance(10**6)
    assert cache.cleanup_assumed_pods() == []


def test_with_a_ttl_an_assumed_pod_expires_once_the_ttl_has_passed_after_binding() -> None:
    clock = FakeClock()
    cache = Cache(ttl_seconds=30, clock=clock)
    cache.add_node(make_node("n1"))
    pod = make_pod("p", node="n1", cpu="1")
    cache.assume_pod(PodInfo(pod))
    clock.advance(100)
    assert cache.cleanup_assumed_pods() == [], "the binding still runs: no expiry"
    cache.finish_binding(pod)
    clock.advance(30)
    assert cache.cleanup_assumed_pods() == [], "exactly at the deadline is not after it"
    clock.advance(0.5)
    assert cache.cleanup_assumed_pods() == [pod]
    assert (cache.pod_count(), cache.is_assumed_pod(pod), cpu_on(cache, "n1")) == (0, False, 0)


def test_a_confirmed_pod_does_not_expire() -> None:
    clock = FakeClock()
    cache = Cache(ttl_seconds=30, clock=clock)
    pod = make_pod("p", node="n1")
    cache.assume_pod(PodInfo(pod))
    cache.finish_binding(pod)
    cache.add_pod(pod)
    clock.advance(31)
    assert cache.cleanup_assumed_pods() == []
    assert cache.pod_count() == 1


def test_an_expired_pod_that_is_confirmed_later_is_added_back() -> None:
    clock = FakeClock()
    cache = Cache(ttl_seconds=1, clock=clock)
    pod = make_pod("p", node="n1", cpu="1")
    cache.assume_pod(PodInfo(pod))
    cache.finish_binding(pod)
    clock.advance(2)
    cache.cleanup_assumed_pods()
    cache.add_pod(pod)
    assert cache.pod_count() == 1 and not cache.is_assumed_pod(pod)


def test_cleanup_takes_an_explicit_now() -> None:
    clock = FakeClock(start=0)
    cache = Cache(ttl_seconds=5, clock=clock)
    pod = make_pod("p", node="n1")
    cache.assume_pod(PodInfo(pod))
    cache.finish_binding(pod)
    assert cache.cleanup_assumed_pods(now=5.0) == []
    assert cache.cleanup_assumed_pods(now=6.0) == [pod]


# --- nodes -----------------------------------------------------------------------------


def test_a_removed_node_with_pods_stays_as_a_ghost_until_its_last_pod_goes() -> None:
    cache = Cache()
    node = make_node("n1")
    cache.add_node(node)
    pod = make_pod("p", node="n1", cpu="1")
    cache.add_pod(pod)
    cache.remove_node(node)
    ghost = node_info(cache, "n1")
    assert ghost.node is None and [p.pod for p in ghost.pods] == [pod]
    assert cache.node_count() == 1
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert snapshot.num_nodes() == 0
    cache.remove_pod(pod)
    assert cache.node_count() == 0


def test_a_pod_may_arrive_before_its_node() -> None:
    cache = Cache()
    pod = make_pod("p", node="n1", cpu="1")
    cache.add_pod(pod)
    assert node_info(cache, "n1").node is None
    info = cache.add_node(make_node("n1"))
    assert info.node is not None and info.requested.milli_cpu == 1000
    assert cache.node_count() == 1


def test_removing_an_unknown_node_fails() -> None:
    with pytest.raises(CacheError, match=r"^node n9 is not found$"):
        Cache().remove_node(make_node("n9"))


def test_update_node_replaces_the_node_and_keeps_its_pods(cache: Cache) -> None:
    cache.add_pod(make_pod("p", node="n1", cpu="1"))
    info = cache.update_node(make_node("n1"), make_node("n1", cpu="16"))
    assert info.allocatable.milli_cpu == 16000
    assert info.requested.milli_cpu == 1000


def test_node_infos_handed_out_are_copies(cache: Cache) -> None:
    returned = cache.add_node(make_node("n3"))
    returned.add_pod(PodInfo(make_pod("x", node="n3", cpu="1")))
    dumped = cache.dump().nodes["n3"]
    assert dumped.requested.milli_cpu == 0
    dumped.add_pod(PodInfo(make_pod("y", node="n3", cpu="1")))
    assert cpu_on(cache, "n3") == 0


def test_image_summaries_count_the_nodes_holding_each_image() -> None:
    cache = Cache()
    nginx = (("nginx:1.27", "nginx"), 100)
    cache.add_node(make_node("n1", images=[nginx]))
    cache.add_node(make_node("n2", images=[nginx, (("redis",), 50)]))
    assert node_info(cache, "n2").image_states == {
        "nginx:1.27": ImageStateSummary(100, 2),
        "nginx": ImageStateSummary(100, 2),
        "redis": ImageStateSummary(50, 1),
    }
    cache.remove_node(make_node("n2", images=[nginx, (("redis",), 50)]))
    assert node_info(cache, "n1").image_states["nginx"] == ImageStateSummary(100, 1)


def test_a_snapshot_counts_image_holders_as_of_each_nodes_last_change() -> None:
    # Kubernetes counts when it copies a NodeInfo; an untouched node keeps its old count.
    cache = Cache()
    nginx = (("nginx",), 100)
    cache.add_node(make_node("n1", images=[nginx]))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    cache.add_node(make_node("n2", images=[nginx]))
    cache.update_snapshot(snapshot)
    assert snapshot.get("n1").image_states["nginx"].num_nodes == 1
    assert snapshot.get("n2").image_states["nginx"].num_nodes == 2
    cache.add_pod(make_pod("p", node="n1"))
    cache.update_snapshot(snapshot)
    assert snapshot.get("n1").image_states["nginx"].num_nodes == 2


def test_every_node_info_keeps_totals_equal_to_the_sum_of_its_pods(cache: Cache) -> None:
    a, b = make_pod("a", node="n1", cpu="1", memory="1Gi"), make_pod("b", node="n1", cpu="250m")
    cache.add_pod(a)
    cache.assume_pod(PodInfo(b))
    cache.update_pod(a, make_pod("a", node="n1", cpu="2"))
    cache.forget_pod(b)
    for info in cache.dump().nodes.values():
        assert_totals_match_pods(info)


# --- the requests kept from the assumed pod -------------------------------------------------


def _resized(pod: Pod, status: dict[str, object]) -> Pod:
    """``pod`` with a new status from the kubelet (same spec objects, new status objects)."""
    fresh = Pod.from_dict({**pod.to_dict(), "status": status})
    return replace(pod, status=fresh.status)


def test_the_bound_pod_keeps_the_requests_computed_when_it_was_assumed(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    pod = make_pod("p", node="n1", cpu="500m")
    cache.assume_pod(PodInfo(pod))
    computed: list[Pod] = []
    real = types.pod_requests

    def counting(p: Pod, **options: object) -> dict[str, int]:
        computed.append(p)
        return real(p, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(types, "pod_requests", counting)
    # What the binding writes: the node name (already set here) and the PodScheduled condition.
    bound_pod = replace(
        pod,
        status=replace(pod.status, conditions=(PodCondition(type="PodScheduled", status="True"),)),
    ).with_metadata(resource_version="7")
    cache.add_pod(bound_pod)
    assert computed == []
    assert cpu_on(cache, "n1") == 500
    assert_totals_match_pods(node_info(cache, "n1"))


def test_an_in_place_resize_of_a_bound_pod_changes_its_nodes_totals(cache: Cache) -> None:
    pod = make_pod("p", node="n1", cpu="1")
    cache.assume_pod(PodInfo(pod))
    cache.add_pod(pod)
    growing = _resized(
        pod, {"containerStatuses": [{"name": "app", "allocatedResources": {"cpu": "3"}}]}
    )
    cache.update_pod(pod, growing)
    assert cpu_on(cache, "n1") == 3000
    infeasible = _resized(
        pod,
        {
            "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
            "containerStatuses": [{"name": "app", "allocatedResources": {"cpu": "2"}}],
        },
    )
    cache.update_pod(growing, infeasible)
    assert cpu_on(cache, "n1") == 2000
    cache.remove_pod(infeasible)
    assert cpu_on(cache, "n1") == 0


def test_an_infeasible_resize_alone_changes_the_requests(cache: Cache) -> None:
    """Only the condition changes (same container statuses): the spec stops counting."""
    statuses = {"containerStatuses": [{"name": "app", "allocatedResources": {"cpu": "1"}}]}
    pod = _resized(make_pod("p", node="n1", cpu="4"), statuses)
    cache.add_pod(pod)
    assert cpu_on(cache, "n1") == 4000
    condition = PodCondition(type="PodResizePending", status="True", reason="Infeasible")
    marked = replace(pod, status=replace(pod.status, conditions=(condition,)))
    assert marked.status.extra is pod.status.extra
    cache.update_pod(pod, marked)
    assert cpu_on(cache, "n1") == 1000
