"""The Workload and the in-tree PodGroup: manifests in, validation naming object and field, served.

Facts from ``staging/src/k8s.io/api/scheduling/v1alpha1/types.go`` (v1.35-era
copy, index id 131553920) and ``.../v1alpha2/types.go`` (v1.36-era copy,
index id 53752766838); the pod's references from ``k8s.io/api/core/v1``
(``WorkloadReference`` of v1.35, ``PodSchedulingGroup`` of v1.36).
"""

from __future__ import annotations

import pytest

from framework.apiserver import APIServer, Invalid
from framework.apiserver.http.resources import api_group, resource_for_path
from framework.clock import FakeClock
from framework.objects import Namespace, ObjectMeta, PodGroup
from framework.objects.manifest import ManifestError, loads
from framework.objects.workload import SchedulingPodGroup, Workload, pod_group_key

V1ALPHA1_WORKLOAD = """
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: train, namespace: ml}
spec:
  controllerRef: {apiGroup: batch, kind: Job, name: train}
  podGroups:
  - {name: workers, policy: {gang: {minCount: 8}}}
  - {name: driver, policy: {basic: {}}}
"""

V1ALPHA2 = """
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: train, namespace: ml}
spec:
  podGroupTemplates:
  - {name: workers, schedulingPolicy: {gang: {minCount: 8}}}
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: train-workers-0, namespace: ml}
spec:
  podGroupTemplateRef: {workload: {workloadName: train, podGroupTemplateName: workers}}
  schedulingPolicy: {gang: {minCount: 8}}
---
apiVersion: v1
kind: Pod
metadata: {name: w0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: train-workers-0}
  containers: [{name: c, image: trainer}]
"""


def test_v1alpha1_workload_with_inline_groups_and_a_pod_reference():
    (wl,) = loads(V1ALPHA1_WORKLOAD)
    assert isinstance(wl, Workload)
    assert wl.api_version == "scheduling.k8s.io/v1alpha1"
    assert wl.policy_for("workers").gang.min_count == 8
    assert wl.policy_for("driver").basic is not None
    assert wl.policy_for("nobody") is None
    assert wl.spec.controller_ref.kind == "Job"
    assert Workload.from_dict(wl.to_dict()) == wl


def test_v1alpha2_templates_standalone_pod_group_and_scheduling_group():
    wl, pg, pod = loads(V1ALPHA2)
    assert wl.policy_for("workers").gang.min_count == 8
    assert isinstance(pg, SchedulingPodGroup) and pg.min_count == 8
    assert pg.spec.pod_group_template_ref.workload.workload_name == "train"
    assert pod.spec.scheduling_group.pod_group_name == "train-workers-0"
    assert pod_group_key(pod) == ("podgroup", "ml", "train-workers-0")
    assert pod.to_dict()["spec"]["schedulingGroup"] == {"podGroupName": "train-workers-0"}


def test_kind_pod_group_is_told_apart_by_its_group():
    objs = loads(
        "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: a}\n"
        "spec: {minMember: 2}\n---\n"
        "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: a}\n"
        "spec: {schedulingPolicy: {basic: {}}}\n"
    )
    assert [type(o) for o in objs] == [PodGroup, SchedulingPodGroup]
    assert objs[1].min_count == 1  # a basic group needs one pod (getMinCount)


def test_workload_reference_matches_whole():
    (pod,) = loads(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns1}\n"
        "spec:\n  workloadRef: {name: w1, podGroup: pg, podGroupReplicaKey: '3'}\n"
        "  containers: [{name: c, image: x}]\n"
    )
    assert pod_group_key(pod) == ("workload", "ns1", "w1", "pg", "3")


def test_a_version_not_served_names_the_ones_that_are():
    with pytest.raises(ManifestError) as err:
        loads("apiVersion: scheduling.k8s.io/v1\nkind: Workload\nmetadata: {name: w}\n")
    assert "does not serve kind Workload (use scheduling.k8s.io/v1alpha1 or" in str(err.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{podGroups: []}", "spec.podGroups: Required value"),
        (
            "{podGroups: [{name: a, policy: {gang: {minCount: 0}}}]}",
            "spec.podGroups[0].policy.gang.minCount: Invalid value: 0: must be greater than or equal to 1",
        ),
        (
            "{podGroups: [{name: a, policy: {}}]}",
            'spec.podGroups[0].policy: Invalid value: "": must specify exactly one of: `basic`, `gang`',
        ),
        (
            "{podGroups: [{name: a, policy: {basic: {}, gang: {minCount: 1}}}]}",
            "must specify exactly one of",
        ),
        (
            "{podGroups: [{name: a, policy: {basic: {}}}, {name: a, policy: {basic: {}}}]}",
            'spec.podGroups[1].name: Duplicate value: "a"',
        ),
        (
            "{podGroups: [{name: A_b, policy: {basic: {}}}]}",
            "spec.podGroups[0].name: Invalid value",
        ),
        (
            "{podGroups: ["
            + ", ".join(f"{{name: g{i}, policy: {{basic: {{}}}}}}" for i in range(9))
            + "]}",
            "spec.podGroups: Too many: 9: must have at most 8 items",
        ),
    ],
)
def test_the_api_server_refuses_an_invalid_workload_naming_object_and_field(spec, message):
    (wl,) = loads(
        f"apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {{name: w}}\nspec: {spec}\n"
    )
    with pytest.raises(Invalid) as err:
        APIServer().create(wl)
    assert 'Workload.scheduling.k8s.io "w" is invalid' in str(err.value)
    assert message in str(err.value)


def test_pod_reference_is_validated():
    (pod,) = loads(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec:\n  workloadRef: {name: w}\n  containers: [{name: c, image: x}]\n"
    )
    with pytest.raises(Invalid) as err:
        APIServer().create(pod)
    assert "spec.workloadRef.podGroup: Required value" in str(err.value)


def test_stored_and_listed_and_served_next_to_priority_classes():
    api = APIServer()
    api.create(Namespace(metadata=ObjectMeta(name="ml")))
    for obj in loads(V1ALPHA2):
        api.create(obj)
    assert [w.metadata.name for w in api.list(Workload).items] == ["train"]
    assert [p.metadata.name for p in api.list(SchedulingPodGroup).items] == ["train-workers-0"]
    assert api.list(PodGroup).items == ()  # scheduler-plugins' kind is another table
    assert (
        resource_for_path("scheduling.k8s.io", "v1alpha2", "podgroups").kind is SchedulingPodGroup
    )
    assert resource_for_path("scheduling.k8s.io", "v1alpha2", "workloads").kind is Workload
    group = api_group("scheduling.k8s.io")
    assert [v["version"] for v in group["versions"]] == ["v1", "v1alpha2"]
    assert group["preferredVersion"]["version"] == "v1"


def test_a_pod_groups_disruption_mode_is_single_or_all():
    # KEP-5710's DisruptionMode (Go's DisruptionModeSingle / DisruptionModeAll), unset: Single.
    api = APIServer(FakeClock())
    text = """
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: g, namespace: default}
spec: {schedulingPolicy: {gang: {minCount: 2}}, disruptionMode: %s}
"""
    [ok] = loads(text % "All")
    assert api.create(ok).spec.disruption_mode == "All"
    [bad] = loads((text % "Whole").replace("name: g", "name: h"))
    with pytest.raises(Invalid) as err:
        api.create(bad)
    assert 'spec.disruptionMode: Unsupported value: "Whole"' in str(err.value)
