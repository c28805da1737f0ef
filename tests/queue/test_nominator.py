"""The nominator on its own: modes, one node per pod, and what an update keeps."""

from __future__ import annotations

from framework.queue.nominator import NominatingInfo, NominatingMode, Nominator
from framework.types import PodInfo
from tests.queue.helpers import pod

OVERRIDE, NOOP = NominatingMode.OVERRIDE, NominatingMode.NOOP


def names(nominator: Nominator, node: str) -> list[str]:
    return [p.pod.name for p in nominator.nominated_pods_for_node(node)]


def test_override_nominates_to_the_given_node_and_noop_reads_the_pod() -> None:
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo(pod("a")), NominatingInfo("n1", OVERRIDE))
    nominator.add_nominated_pod(
        PodInfo(pod("b", nominated_node_name="n1")), NominatingInfo("n9", NOOP)
    )
    nominator.add_nominated_pod(PodInfo(pod("c", nominated_node_name="n2")), None)
    nominator.add_nominated_pod(PodInfo(pod("d")), None)  # nominated nowhere
    assert names(nominator, "n1") == ["a", "b"]
    assert names(nominator, "n2") == ["c"]
    assert nominator.nominated_node_name(pod("d")) == ""


def test_a_pod_is_nominated_to_one_node_at_most() -> None:
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo(pod("a")), NominatingInfo("n1", OVERRIDE))
    nominator.add_nominated_pod(PodInfo(pod("a")), NominatingInfo("n2", OVERRIDE))
    assert (names(nominator, "n1"), names(nominator, "n2")) == ([], ["a"])


def test_override_with_an_empty_name_clears_the_nomination() -> None:
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo(pod("a")), NominatingInfo("n1", OVERRIDE))
    nominator.add_nominated_pod(PodInfo(pod("a")), NominatingInfo("", OVERRIDE))
    assert names(nominator, "n1") == [] and nominator.nominated_node_name(pod("a")) == ""


def test_an_update_follows_a_new_nomination_in_the_pod_status() -> None:
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo(pod("a", nominated_node_name="n1")), None)
    nominator.update_nominated_pod(
        pod("a", nominated_node_name="n1"), PodInfo(pod("a", nominated_node_name="n2"))
    )
    assert (names(nominator, "n1"), names(nominator, "n2")) == ([], ["a"])


def test_an_update_that_clears_the_status_clears_the_nomination() -> None:
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo(pod("a", nominated_node_name="n1")), None)
    nominator.update_nominated_pod(pod("a", nominated_node_name="n1"), PodInfo(pod("a")))
    assert names(nominator, "n1") == []


def test_nominated_pods_are_copies() -> None:
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo(pod("a")), NominatingInfo("n1", OVERRIDE))
    nominator.nominated_pods_for_node("n1")[0].update(pod("changed"))
    assert names(nominator, "n1") == ["a"]


def test_has_nominated_pods_answers_without_a_list() -> None:
    # The cheap question Filter asks per node before RunFilterPluginsWithNominatedPods' costly one.
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo(pod("a")), NominatingInfo("n1", OVERRIDE))
    assert nominator.has_nominated_pods("n1") and not nominator.has_nominated_pods("n2")
    nominator.delete_nominated_pod_if_exists(pod("a"))
    assert not nominator.has_nominated_pods("n1")
