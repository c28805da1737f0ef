"""What the scheduler writes into ``status.nominatedNodeName``, release by release.

* ``NominatedNodeNameForExpectation`` (alpha v1.34, beta and on from v1.35):
  before the binding cycle waits at Permit or runs PreBind work, the pod is
  nominated to the node it is expected to land on, so that other components
  (the cluster autoscaler) see where it is going. Go: ``bindingCycle`` in
  ``kubernetes/kubernetes:pkg/scheduler/schedule_one.go`` and
  ``RunPreBindPreFlights`` in ``pkg/scheduler/framework/runtime/framework.go``,
  read in v1.35-era copies.
* ``ClearingNominatedNodeNameAfterBinding`` (alpha v1.34, beta and on from
  v1.35): the API server's binding empties the nomination (``assignPod`` in
  ``pkg/registry/core/pod/storage/storage.go``).
* v1.35: an attempt that fails with no PostFilter plugin to run clears the
  pod's nomination; v1.33 left it in place (``schedulingCycle``).
"""

from __future__ import annotations

import dataclasses

from framework.config.defaults import set_defaults
from framework.config.types import KubeSchedulerConfiguration
from framework.cycle_state import CycleState
from framework.featuregate import new_feature_gates
from framework.objects import Pod
from framework.scheduler.scheduler import Scheduler
from framework.status import Status
from tests.scheduler.helpers import Cluster, node, pod

N1 = "n1"


class PreBindWork:
    """A PreBind plugin that records the pod's nomination as the API server has it at PreBind."""

    def __init__(self, api: object, has_work: bool) -> None:
        self.api = api
        self.has_work = has_work
        self.seen: list[str] = []

    def name(self) -> str:
        return "PreBindWork"

    def pre_bind_pre_flight(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
        return None if self.has_work else Status.skip()

    def pre_bind(self, state: CycleState, p: Pod, node_name: str) -> Status | None:
        current = self.api.get(Pod, p.name, namespace="default")  # type: ignore[attr-defined]
        self.seen.append(current.status.nominated_node_name)
        return None


class WaitAtPermit:
    """Permit: every pod waits (the test allows it)."""

    def name(self) -> str:
        return "WaitAtPermit"

    def permit(self, state: CycleState, p: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status.wait(), 60.0


def schedule(
    version: str,
    gates: str = "",
    *,
    has_work: bool = True,
    waits: bool = False,
) -> tuple[Cluster, PreBindWork]:
    """Schedule pod ``p`` onto ``n1`` at ``version``; return the cluster and what PreBind saw."""
    feature_gates = new_feature_gates(version, gates)
    cluster = Cluster(node(N1), pod("p"), feature_gates=feature_gates)
    work = PreBindWork(cluster.api, has_work)
    plugins = ["PreBindWork"] + (["WaitAtPermit"] if waits else [])
    sched = cluster.scheduler_with(
        *plugins,
        factories={
            "PreBindWork": lambda _a, _h: work,
            "WaitAtPermit": lambda _a, _h: WaitAtPermit(),
        },
        feature_gates=feature_gates,
    )
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)
    if waits:
        fwk = sched.profiles["default-scheduler"]
        uid = cluster.api.get(Pod, "p", namespace="default").metadata.uid
        waiting = fwk.get_waiting_pod(uid)
        assert waiting is not None
        waiting.allow("WaitAtPermit")
    sched.scheduling.wait_for_bindings()
    sched.stop()
    assert cluster.node_of("p") == N1
    return cluster, work


def nominated(cluster: Cluster, name: str = "p") -> str:
    return cluster.api.get(Pod, name, namespace="default").status.nominated_node_name


def test_since_v1_35_a_pod_whose_binding_takes_time_is_nominated_to_its_node_first() -> None:
    cluster, work = schedule("1.35")
    assert work.seen == [N1]
    # ClearingNominatedNodeNameAfterBinding: once bound, the nomination is gone.
    assert nominated(cluster) == ""


def test_a_pod_waiting_at_permit_is_nominated_even_when_pre_bind_has_nothing_to_do() -> None:
    _, work = schedule("1.37", has_work=False, waits=True)
    assert work.seen == [N1]


def test_a_pod_bound_at_once_is_not_nominated() -> None:
    # Every PreBindPreFlight answers Skip and nothing waits: the pod will be bound at once.
    _, work = schedule("1.37", has_work=False)
    assert work.seen == [""]


def test_before_v1_35_the_binding_cycle_nominates_nothing() -> None:
    _, work = schedule("1.34")
    assert work.seen == [""]
    _, work = schedule("1.33", waits=True)
    assert work.seen == [""]
    # The alpha gate of v1.34 turns it on there too.
    _, work = schedule("1.34", "NominatedNodeNameForExpectation=true")
    assert work.seen == [N1]


def test_without_clearing_after_binding_the_nomination_outlives_the_binding() -> None:
    cluster, work = schedule("1.35", "ClearingNominatedNodeNameAfterBinding=false")
    assert work.seen == [N1]
    assert nominated(cluster) == N1


def _nominated_then_unschedulable(version: str) -> str:
    """A pod nominated to n1 (by an earlier preemption, say) that no longer fits anywhere."""
    cluster = Cluster(
        node(N1, cpu="1"), pod("big", cpu="2"), feature_gates=new_feature_gates(version)
    )
    current = cluster.api.get(Pod, "big", namespace="default")
    cluster.api.update_status(
        dataclasses.replace(
            current, status=dataclasses.replace(current.status, nominated_node_name=N1)
        )
    )
    sched: Scheduler = cluster.scheduler_with(feature_gates=new_feature_gates(version))
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("big") == ""
    return nominated(cluster, "big")


def test_since_v1_35_a_failure_without_post_filter_clears_the_nomination() -> None:
    # The helper's profile has no PostFilter plugin (no DefaultPreemption).
    assert _nominated_then_unschedulable("1.33") == N1
    assert _nominated_then_unschedulable("1.34") == N1
    assert _nominated_then_unschedulable("1.35") == ""
    assert _nominated_then_unschedulable("1.37") == ""


def test_the_default_profile_does_not_nominate_a_pod_without_volumes_or_claims() -> None:
    # Every default PreBind plugin (VolumeBinding, DynamicResources) answers Skip at
    # PreBindPreFlight for such a pod: it is bound at once, with no status write before.
    feature_gates = new_feature_gates("1.37")
    cluster = Cluster(node(N1), pod("p"), feature_gates=feature_gates)
    config = set_defaults(KubeSchedulerConfiguration(), feature_gates=feature_gates)
    sched = Scheduler(cluster.api, config, clock=cluster.clock, feature_gates=feature_gates)
    fwk = sched.profiles["default-scheduler"]
    assert [pl.name() for pl in fwk.plugins["preBind"]] == ["VolumeBinding", "DynamicResources"]
    writes: list[str] = []
    update_status = cluster.api.update_status

    def recording(obj: object) -> object:
        writes.append(type(obj).__name__)
        return update_status(obj)  # type: ignore[arg-type]

    cluster.api.update_status = recording  # type: ignore[method-assign]
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)
    sched.scheduling.wait_for_bindings()
    sched.stop()
    assert cluster.node_of("p") == N1
    assert writes == []
