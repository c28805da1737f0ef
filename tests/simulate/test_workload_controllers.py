"""The workload controllers of ``serve`` and ``simulate``: what kube's controllers create and delete.

Expectations from ``kubernetes/kubernetes:pkg/controller/`` (v1.33):
``deployment/sync.go`` (``getNewReplicaSet``: ``<deployment>-<pod-template-hash>``,
the hash in the ReplicaSet's labels, selector and template), ``replicaset/replica_set.go``
(``manageReplicas``; ``getPodsToDelete``: unscheduled pods go first),
``statefulset/stateful_set_control.go`` (OrderedReady: ordinal *n* waits for
*n-1* Running and Ready; claims ``<template>-<set>-<ordinal>``),
``daemon/daemon_controller.go`` and ``daemon/util/daemonset_util.go``
(``NodeShouldRunDaemonPod``: untolerated NoSchedule taints exclude a node;
``ReplaceDaemonSetPodNodeNameNodeAffinity``: ``matchFields metadata.name In
[node]``; ``AddOrUpdateDaemonPodTolerations``), ``job/job_controller.go``
(``manageJob``: ``min(parallelism, completions - succeeded)`` active pods; the
``Complete`` condition) and the garbage collector's background deletion.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Binding, Node, Pod
from framework.objects.pod import PodStatus
from framework.objects.storage import PersistentVolumeClaim
from framework.objects.workloads import DaemonSet, Deployment, Job, ReplicaSet, StatefulSet
from framework.simulator.controllers import WorkloadControllers
from framework.simulator.inputs import load_inputs
from tests.simulate import workloads
from tests.simulate.workloads import GPU_TAINT, as_yaml, daemon_set, workload


def setup() -> tuple[APIServer, WorkloadControllers]:
    clock = FakeClock(1_700_000_000.0)
    api = APIServer(clock)
    return api, WorkloadControllers(api, clock)


def node(name: str, taints: list[dict[str, str]] | None = None) -> Node:
    return Node.from_dict(workloads.node(name, taints))


def pods(api: APIServer) -> list[Pod]:
    return list(api.list(Pod).items)


def set_phase(api: APIServer, pod: Pod, phase: str, ready: bool = False) -> None:
    """What a kubelet writes: the phase, and the Ready condition."""
    current = api.get(Pod, pod.name, pod.namespace)
    conditions = [{"type": "Ready", "status": "True"}] if ready else []
    status = PodStatus.from_dict(
        {**current.status.to_dict(), "phase": phase, "conditions": conditions}
    )
    api.update_status(dataclasses.replace(current, status=status))


def test_a_deployment_makes_a_replica_set_named_by_its_template_hash_and_three_pods() -> None:
    api, controllers = setup()
    api.create(Deployment.from_dict(workload("Deployment", "web", replicas=3)))
    controllers.sync()
    (rs,) = api.list(ReplicaSet).items
    pod_hash = rs.metadata.labels["pod-template-hash"]
    assert rs.name == f"web-{pod_hash}"
    assert rs.spec.selector is not None
    assert rs.spec.selector.match_labels["pod-template-hash"] == pod_hash
    assert rs.metadata.owner_references[0]["kind"] == "Deployment"
    made = pods(api)
    assert len(made) == 3
    for pod in made:
        assert pod.name.startswith(f"{rs.name}-") and len(pod.name) == len(rs.name) + 6
        assert pod.metadata.labels == {"app": "web", "pod-template-hash": pod_hash}
        assert pod.metadata.owner_references[0]["uid"] == rs.metadata.uid


def test_scaling_down_deletes_the_unscheduled_pods_first() -> None:
    api, controllers = setup()
    api.create(ReplicaSet.from_dict(workload("ReplicaSet", "web", replicas=3)))
    controllers.sync()
    api.create(node("n1"))
    bound = pods(api)[:2]
    for pod in bound:
        api.bind(
            Binding.from_dict(
                {"metadata": {"name": pod.name}, "target": {"kind": "Node", "name": "n1"}}
            )
        )
    rs = api.get(ReplicaSet, "web")
    api.update(dataclasses.replace(rs, spec=dataclasses.replace(rs.spec, replicas=2)))
    controllers.sync()
    assert sorted(p.name for p in pods(api)) == sorted(p.name for p in bound)
    assert api.get(ReplicaSet, "web").status["replicas"] == 2


def test_an_ordered_ready_statefulset_waits_for_each_ordinal_and_claims_its_volumes() -> None:
    api, controllers = setup()
    claim = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
             "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip
    api.create(
        StatefulSet.from_dict(
            workload("StatefulSet", "db", replicas=2, volumeClaimTemplates=[claim])
        )
    )
    controllers.sync()
    assert [p.name for p in pods(api)] == ["db-0"]
    assert [c.name for c in api.list(PersistentVolumeClaim).items] == ["data-db-0"]
    set_phase(api, pods(api)[0], "Running", ready=True)
    controllers.sync()
    assert [p.name for p in pods(api)] == ["db-0", "db-1"]
    assert pods(api)[1].metadata.labels["apps.kubernetes.io/pod-index"] == "1"


def test_a_daemonset_runs_one_pod_per_node_it_tolerates_pinned_by_match_fields() -> None:
    api, controllers = setup()
    api.create(node("n1"))
    api.create(node("gpu", [GPU_TAINT]))
    api.create(DaemonSet.from_dict(daemon_set()))
    controllers.sync()
    (pod,) = pods(api)
    terms = pod.spec.to_dict()["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert terms == [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
    ]
    keys = {(t.key, t.effect) for t in pod.spec.tolerations}
    assert ("node.kubernetes.io/unschedulable", "NoSchedule") in keys
    assert ("node.kubernetes.io/not-ready", "NoExecute") in keys
    api.create(node("n2"))
    controllers.sync()
    assert len(pods(api)) == 2
    assert api.get(DaemonSet, "agent").status["desiredNumberScheduled"] == 2


def test_a_job_keeps_parallelism_pods_until_its_completions_succeeded() -> None:
    api, controllers = setup()
    api.create(Job.from_dict(workload("Job", "pi", completions=3, parallelism=2)))
    controllers.sync()
    first = pods(api)
    assert len(first) == 2
    assert all(p.metadata.labels["batch.kubernetes.io/job-name"] == "pi" for p in first)
    # generateSelector: the selector is the Job's uid, which every pod carries.
    job = api.get(Job, "pi")
    assert job.spec.selector is not None
    assert dict(job.spec.selector.match_labels) == {
        "batch.kubernetes.io/controller-uid": job.metadata.uid
    }
    assert all(p.metadata.labels["controller-uid"] == job.metadata.uid for p in first)
    set_phase(api, first[0], "Succeeded")
    controllers.sync()
    assert len(pods(api)) == 3
    for pod in pods(api):
        if pod.status.phase != "Succeeded":
            set_phase(api, pod, "Succeeded")
    controllers.sync()
    status = api.get(Job, "pi").status
    assert status["succeeded"] == 3
    assert [c["type"] for c in status["conditions"]] == ["Complete"]
    assert len(pods(api)) == 3  # no pod more once complete


def test_deleting_a_deployment_deletes_its_replica_sets_and_pods() -> None:
    api, controllers = setup()
    api.create(Deployment.from_dict(workload("Deployment", "web", replicas=2)))
    controllers.sync()
    api.delete(Deployment, "web")
    controllers.sync()
    assert api.list(ReplicaSet).items == ()
    assert pods(api) == []


def test_simulate_expands_a_daemonset_with_the_same_controller() -> None:
    manifests = as_yaml(workloads.node("n1"), workloads.node("gpu", [GPU_TAINT]), daemon_set())
    inputs = load_inputs([manifests])
    made = [o.obj for o in inputs.objects if isinstance(o.obj, Pod)]
    assert len(made) == 1 and made[0].name.startswith("agent-")
    assert not [w for w in inputs.warnings if "DaemonSet" in w]


def test_serve_creates_the_controllers_of_its_files_and_their_controllers_the_pods(
    tmp_path: Path,
) -> None:
    from framework.cli.serve import _preload

    manifest = tmp_path / "work.yaml"
    manifest.write_text(
        as_yaml(
            workload("ReplicationController", "old", workloads.template("old"), replicas=2),
            workload("Deployment", "web", replicas=1),
        )
    )
    api, controllers = setup()
    _preload(api, [str(manifest)], None, None)
    assert pods(api) == []  # the controllers make them, not the loader
    controllers.sync()
    owners = sorted(p.metadata.owner_references[0]["kind"] for p in pods(api))
    assert owners == ["ReplicaSet", "ReplicationController", "ReplicationController"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=5))
def test_a_replica_set_always_settles_on_its_replica_count(counts: list[int]) -> None:
    api, controllers = setup()
    api.create(ReplicaSet.from_dict(workload("ReplicaSet", "web", replicas=1)))
    for count in counts:
        rs = api.get(ReplicaSet, "web")
        api.update(dataclasses.replace(rs, spec=dataclasses.replace(rs.spec, replicas=count)))
        controllers.sync()
        names = [p.name for p in pods(api)]
        assert len(names) == count == len(set(names))
        assert (api.get(ReplicaSet, "web").status or {}).get("replicas", 0) == count


def test_a_rolling_update_stays_within_max_surge_and_max_unavailable() -> None:
    # replicas 4, the default 25%: maxSurge 1 (rounded up), maxUnavailable 1 (rounded down).
    api, controllers = setup()
    api.create(Deployment.from_dict(workload("Deployment", "web", replicas=4)))

    def step() -> bool:
        """The controllers, then one pod started (the kubelet); False once all run."""
        controllers.sync()
        fresh = [p for p in pods(api) if p.status.phase != "Running"]
        if fresh:
            set_phase(api, fresh[0], "Running", ready=True)
        return bool(fresh)

    while step():
        pass
    deployment = api.get(Deployment, "web")
    template = workloads.template(image="nginx:1.27")
    spec = dataclasses.replace(deployment.spec, template=template)
    api.update(dataclasses.replace(deployment, spec=spec))
    for _ in range(30):  # never more than 4 + 1 pods, never fewer than 4 - 1 running
        rolling = step()
        live = pods(api)
        assert len(live) <= 5
        assert sum(1 for p in live if p.status.phase == "Running") >= 3
        if not rolling:
            break
    (new,) = [rs for rs in api.list(ReplicaSet).items if rs.spec.replicas]
    assert new.spec.replicas == 4
    assert {p.metadata.labels["pod-template-hash"] for p in pods(api)} == {
        new.metadata.labels["pod-template-hash"]
    }
    controllers.sync()
    status = api.get(Deployment, "web").status
    assert (status["updatedReplicas"], status["availableReplicas"]) == (4, 4)
