"""Preemption through the whole scheduler, on the fake API server and a fake clock.

A cluster is loaded from YAML, the default profile runs (DefaultPreemption
is its PostFilter), and the tests read what a user would: placements,
``nominatedNodeName``, the victims' conditions and deletion, the Events and
the exact FailedScheduling messages. The loop is kube-scheduler's:
preemption nominates a node and fails the attempt
(``schedule_one.go``); the victims' deletion is an ``AssignedPodDelete``
event whose NodeResourcesFit hint requeues the preemptor; the next attempt
tries the nominated node first and binds there (``evaluateNominatedNode``);
meanwhile lower-priority pods see the nomination (the two-pass Filter of
``RunFilterPluginsWithNominatedPods``). Victims are deleted with their own
grace period (``util.DeletePod``): the tests play the kubelet that ends
them (:func:`kubelet_finishes_terminations`).
"""

from __future__ import annotations

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.featuregate import new_feature_gates
from framework.objects import Event, Pod, PodDisruptionBudget
from framework.objects.manifest import loads
from framework.scheduler.scheduler import Scheduler

PRIORITY_CLASSES = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high-never}
value: 1000
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: mid}
value: 100
"""


def node(name: str, cpu: str = "2", taint: str = "") -> str:
    taints = f"\nspec: {{taints: [{{key: dedicated, value: {taint}, effect: NoSchedule}}]}}"
    return f"""
---
kind: Node
metadata: {{name: {name}}}{taints if taint else ""}
status: {{allocatable: {{cpu: "{cpu}", memory: 4Gi, pods: "110"}}}}"""


def pod(
    name: str,
    cpu: str,
    *,
    priority_class: str = "",
    node_name: str = "",
    labels: str = "{}",
    grace: int | None = None,
) -> str:
    extra = ""
    if priority_class:
        extra += f"\n  priorityClassName: {priority_class}"
    if node_name:
        extra += f"\n  nodeName: {node_name}"
    if grace is not None:
        extra += f"\n  terminationGracePeriodSeconds: {grace}"
    return f"""
---
kind: Pod
metadata: {{name: {name}, labels: {labels}}}
spec:
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "{cpu}"}}}}}}]{extra}"""


class Cluster:
    """The API server, the clock and a default-profile scheduler, for one scenario."""

    def __init__(self, manifests: str, seed: int = 0, gates: str = "") -> None:
        self.clock = FakeClock()
        self.api = APIServer(self.clock)
        for obj in loads(PRIORITY_CLASSES + manifests):
            self.api.create(obj)
        self.scheduler = Scheduler(
            self.api, clock=self.clock, seed=seed, feature_gates=new_feature_gates(None, gates)
        )

    def add(self, manifests: str) -> None:
        for obj in loads(manifests):
            self.api.create(obj)

    def run(self) -> None:
        self.scheduler.schedule_pending()

    def later(self, seconds: float = 10.0) -> None:
        """Let time pass, flush the queue's timers, and schedule what became ready."""
        self.clock.advance(seconds)
        self.scheduler.sync()
        self.scheduler.queue.flush_backoff_q_completed()
        self.scheduler.queue.flush_unschedulable_pods_leftover()
        self.run()

    def pod(self, name: str) -> Pod:
        return self.api.get(Pod, name, "default")

    def node_of(self, name: str) -> str:
        return self.pod(name).spec.node_name

    def events(self, reason: str) -> list[tuple[str, str]]:
        """(pod, message) of each Event with this reason, oldest first."""
        events = [e for e in self.api.list(Event).items if e.reason == reason]
        events.sort(key=lambda e: (e.last_timestamp or "", int(e.metadata.resource_version)))
        return [(e.involved_object.name, e.message) for e in events]

    def last(self, reason: str, name: str) -> str:
        """The message of the latest Event with this reason about pod ``name``."""
        return [message for pod_name, message in self.events(reason) if pod_name == name][-1]

    def close(self) -> None:
        self.scheduler.stop()


def kubelet_finishes_terminations(api: APIServer) -> list[str]:
    """What the kubelet does once a terminating pod's containers stop: delete it for good."""
    ended = []
    for p in api.list(Pod).items:
        if p.metadata.deletion_timestamp is not None:
            api.delete(Pod, p.name, p.namespace, grace_period_seconds=0)
            ended.append(p.name)
    return ended


@pytest.fixture
def two_full_nodes() -> Cluster:
    """Two 2-CPU nodes, each running one 1.5-CPU pod of priority 0."""
    cluster = Cluster(
        node("n1")
        + node("n2")
        + pod("low-1", "1500m", node_name="n1")
        + pod("low-2", "1500m", node_name="n2")
    )
    yield cluster  # type: ignore[misc]
    cluster.close()


def test_a_high_priority_pod_preempts_is_nominated_and_lands_once_the_victim_is_gone(
    two_full_nodes: Cluster,
) -> None:
    cluster = two_full_nodes
    cluster.add(pod("vip", "1", priority_class="high"))
    cluster.run()
    vip = cluster.pod("vip")
    target = vip.status.nominated_node_name
    assert target in ("n1", "n2") and vip.spec.node_name == ""
    victim = "low-1" if target == "n1" else "low-2"
    spared = "low-2" if victim == "low-1" else "low-1"
    # The attempt failed (FitError) though preemption succeeded: no "preemption:" part.
    assert cluster.events("FailedScheduling") == [
        ("vip", "0/2 nodes are available: 2 Insufficient cpu.")
    ]
    marked = cluster.pod(victim)
    assert marked.metadata.deletion_timestamp is not None  # graceful: 30 s
    assert [
        (c.type, c.reason) for c in marked.status.conditions if c.type == "DisruptionTarget"
    ] == [("DisruptionTarget", "PreemptionByScheduler")]
    assert cluster.events("Preempted") == [
        (victim, f"Preempted by pod {vip.metadata.uid} on node {target}")
    ]
    assert cluster.pod(spared).metadata.deletion_timestamp is None

    # The victim's graceful deletion changes nothing for the scheduler: it still holds the room.
    cluster.later()
    assert cluster.node_of("vip") == ""
    assert kubelet_finishes_terminations(cluster.api) == [victim]
    cluster.later()
    assert cluster.node_of("vip") == target
    assert cluster.last("Scheduled", "vip") == f"Successfully assigned default/vip to {target}"


def test_a_retry_while_victims_terminate_does_not_preempt_again(two_full_nodes: Cluster) -> None:
    cluster = two_full_nodes
    cluster.add(pod("vip", "1", priority_class="high"))
    cluster.run()
    target = cluster.pod("vip").status.nominated_node_name
    cluster.later(301)  # unschedulable for five minutes: tried again, victims still there
    assert cluster.last("FailedScheduling", "vip") == (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, "
        "preemption: not eligible due to a terminating pod on the nominated node."
    )
    assert len(cluster.events("Preempted")) == 1
    assert cluster.pod("vip").status.nominated_node_name == target  # kept


def test_victims_without_a_grace_period_go_at_once_and_the_pod_follows_after_backoff() -> None:
    # The classic queue: a backing-off pod waits out its backoff even when nothing else is ready.
    cluster = Cluster(
        node("n1") + pod("low", "1500m", node_name="n1", grace=0),
        gates="SchedulerPopFromBackoffQ=false",
    )
    cluster.add(pod("vip", "1", priority_class="high"))
    cluster.run()
    with pytest.raises(Exception, match="not found"):
        cluster.pod("low")
    assert cluster.node_of("vip") == ""  # backing off: the victim's deletion queued it
    cluster.later(1)
    assert cluster.node_of("vip") == "n1"
    cluster.close()


def test_with_pop_from_backoff_q_the_preemptor_follows_its_victims_at_once() -> None:
    # SchedulerPopFromBackoffQ (beta, on since v1.33; active_queue.go unlockedPop,
    # backoff_queue.go popBackoff): with activeQ empty the scheduler pops backoffQ's head
    # instead of idling, so the preemptor is retried as soon as its victim is gone.
    cluster = Cluster(node("n1") + pod("low", "1500m", node_name="n1", grace=0))
    cluster.add(pod("vip", "1", priority_class="high"))
    cluster.run()
    with pytest.raises(Exception, match="not found"):
        cluster.pod("low")
    assert cluster.node_of("vip") == "n1"
    cluster.close()


def test_lower_priority_pods_leave_the_nominated_room_alone() -> None:
    # Without SchedulerPopFromBackoffQ the preemptor waits out its backoff, nominated, while
    # its victim is already gone (with it, it would follow at once: the test above). Before
    # v1.35 the nomination also outlived the binding; now the binding clears it.
    cluster = Cluster(
        node("n1") + pod("low", "1500m", node_name="n1", grace=0),
        gates="SchedulerPopFromBackoffQ=false",
    )
    cluster.add(pod("vip", "1500m", priority_class="high"))
    cluster.run()
    assert cluster.pod("vip").status.nominated_node_name == "n1"
    # n1 is empty now, but nominated to vip: a mid-priority pod must not take the room.
    cluster.add(pod("mid", "1", priority_class="mid"))
    cluster.run()
    assert cluster.node_of("mid") == ""
    assert cluster.last("FailedScheduling", "mid") == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )
    cluster.later(1)
    assert cluster.node_of("vip") == "n1"
    assert cluster.pod("vip").status.nominated_node_name == ""
    cluster.close()


def test_preemption_prefers_the_node_whose_victims_break_no_disruption_budget() -> None:
    budget = """
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}"""
    for seed in range(4):  # whatever the random offset
        cluster = Cluster(
            node("n1")
            + node("n2")
            + pod("web", "1500m", node_name="n1", labels="{app: web}")
            + pod("batch", "1500m", node_name="n2", labels="{app: batch}")
            + budget,
            seed=seed,
        )
        assert cluster.api.get(PodDisruptionBudget, "web").status.disruptions_allowed == 0
        cluster.add(pod("vip", "1", priority_class="high"))
        cluster.run()
        assert cluster.pod("vip").status.nominated_node_name == "n2"
        assert cluster.events("Preempted")[0][0] == "batch"
        cluster.close()


def test_a_budget_is_broken_when_there_is_no_other_way() -> None:
    cluster = Cluster(
        node("n1")
        + pod("web", "1500m", node_name="n1", labels="{app: web}")
        + """
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}"""
    )
    cluster.add(pod("vip", "1", priority_class="high"))
    cluster.run()
    assert cluster.events("Preempted")[0][0] == "web"
    budget = cluster.api.get(PodDisruptionBudget, "web").status
    assert (budget.current_healthy, budget.disruptions_allowed) == (0, 0)  # terminating
    cluster.close()


def test_preemption_policy_never_waits_instead_of_preempting(two_full_nodes: Cluster) -> None:
    cluster = two_full_nodes
    cluster.add(pod("polite", "1", priority_class="high-never"))
    cluster.run()
    assert cluster.events("FailedScheduling") == [
        (
            "polite",
            "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, "
            "preemption: not eligible due to preemptionPolicy=Never.",
        )
    ]
    assert cluster.events("Preempted") == []
    assert cluster.pod("polite").status.nominated_node_name == ""


def test_the_full_failed_scheduling_message_names_what_preemption_could_not_do() -> None:
    """The facts sheet's §14.3 example: two tainted nodes and one without victims."""
    cluster = Cluster(
        node("small", cpu="1")
        + node("gpu-1", taint="gpu")
        + node("gpu-2", taint="gpu")
        + pod("peer", "500m", priority_class="high", node_name="small")
    )
    cluster.add(pod("big", "1", priority_class="high"))
    cluster.run()
    assert cluster.events("FailedScheduling") == [
        (
            "big",
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint "
            "{dedicated: gpu}. no new claims to deallocate, preemption: 0/3 nodes are available: "
            "1 No preemption victims "
            "found for incoming pod, 2 Preemption is not helpful for scheduling.",
        )
    ]
    condition = cluster.pod("big").status.conditions[0]
    assert (condition.reason, condition.message) == (
        "Unschedulable",
        cluster.events("FailedScheduling")[0][1],
    )
    cluster.close()


def test_the_seed_decides_between_equally_good_nodes() -> None:
    def target(seed: int) -> str:
        cluster = Cluster(
            node("n1")
            + node("n2")
            + pod("low-1", "1500m", node_name="n1")
            + pod("low-2", "1500m", node_name="n2"),
            seed=seed,
        )
        cluster.add(pod("vip", "1", priority_class="high"))
        cluster.run()
        chosen = cluster.pod("vip").status.nominated_node_name
        cluster.close()
        return chosen

    assert target(5) == target(5)
    assert {target(seed) for seed in range(12)} == {"n1", "n2"}


def test_the_default_profile_has_default_preemption() -> None:
    cluster = Cluster("")
    fwk = cluster.scheduler.profiles["default-scheduler"]
    # DynamicResources' PostFilter (deallocating an unused claim) comes first, from v1.34.
    assert fwk.plugin_names("postFilter") == ["DynamicResources", "DefaultPreemption"]
    # From v1.34 DynamicResources sits between them, in the multi-point order (default_plugins.go).
    assert fwk.plugin_names("preEnqueue") == [
        "SchedulingGates",
        "DynamicResources",
        "DefaultPreemption",
    ]
    assert "DefaultPreemption" not in fwk.skipped_plugins
    cluster.close()
