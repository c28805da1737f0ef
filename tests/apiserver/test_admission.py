"""What the server does to an object before storing it: defaults, admission plugins, strategies."""

from __future__ import annotations

import dataclasses

import pytest

from framework.apiserver import APIServer, Forbidden, Invalid, NotFound
from framework.apiserver.admission import (
    DEFAULT_TOLERATION_SECONDS,
    MSG_GLOBAL_DEFAULT_EXISTS,
    MSG_NAMESPACE_UNDELETABLE,
    MSG_NO_PRIORITY_CLASS,
    MSG_POD_PREEMPTION_POLICY_MISMATCH,
    MSG_POD_PRIORITY_MISMATCH,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_UNREACHABLE,
)
from framework.apiserver.strategy import MSG_SCHEDULING_GATED, NAMESPACE_NAME_LABEL
from framework.objects import Namespace, ObjectMeta, Pod, PriorityClass, Toleration
from tests.apiserver.helpers import node, pod


def priority_class(name: str, value: int, **fields) -> PriorityClass:
    return PriorityClass(metadata=ObjectMeta(name=name), value=value, **fields)


def pod_with_resources(**resources) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "app", "image": "nginx", "resources": resources}]},
        }
    )


# --- defaulting ----------------------------------------------------------------------


def test_a_new_pod_gets_the_api_defaults(api: APIServer):
    stored = api.create(pod())
    assert stored.metadata.namespace == "default"
    assert stored.spec.scheduler_name == "default-scheduler"
    assert stored.spec.restart_policy == "Always"
    assert stored.spec.dns_policy == "ClusterFirst"
    assert stored.spec.termination_grace_period_seconds == 30
    assert stored.spec.preemption_policy == "PreemptLowerPriority"
    assert stored.spec.priority == 0
    assert stored.status.phase == "Pending"
    assert stored.status.qos_class == "BestEffort"
    assert stored.metadata.generation == 1


@pytest.mark.parametrize(
    ("resources", "requests", "qos"),
    [
        pytest.param(
            {"limits": {"cpu": "1", "memory": "1Gi"}},
            {"cpu": "1", "memory": "1Gi"},
            "Guaranteed",
            id="limits only become requests",
        ),
        pytest.param(
            {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}},
            {"cpu": "500m", "memory": "1Gi"},
            "Burstable",
            id="a given request is kept",
        ),
        pytest.param({"requests": {"cpu": "1"}}, {"cpu": "1"}, "Burstable", id="requests only"),
        pytest.param({}, {}, "BestEffort", id="nothing"),
    ],
)
def test_missing_requests_are_copied_from_limits(api: APIServer, resources, requests, qos):
    stored = api.create(pod_with_resources(**resources))
    got = stored.spec.containers[0].resources.requests
    assert {name: str(q) for name, q in got.items()} == requests
    assert stored.status.qos_class == qos


def test_host_network_pods_get_host_ports_equal_to_container_ports(api: APIServer):
    stored = api.create(
        Pod.from_dict(
            {
                "metadata": {"name": "dns"},
                "spec": {
                    "hostNetwork": True,
                    "containers": [{"name": "a", "image": "x", "ports": [{"containerPort": 53}]}],
                },
            }
        )
    )
    port = stored.spec.containers[0].ports[0]
    assert (port.host_port, port.protocol) == (53, "TCP")


def test_a_new_pods_status_is_reset_to_pending(api: APIServer):
    sent = pod()
    sent = dataclasses.replace(sent, status=dataclasses.replace(sent.status, phase="Running"))
    assert api.create(sent).status.phase == "Pending"


def test_node_allocatable_defaults_to_capacity(api: APIServer):
    stored = api.create(node("n1", capacity={"cpu": "4", "pods": "110"}))
    assert {k: str(v) for k, v in stored.status.allocatable.items()} == {"cpu": "4", "pods": "110"}
    kept = api.create(node("n2", capacity={"cpu": "4"}, allocatable={"cpu": "3"}))
    assert str(kept.status.allocatable["cpu"]) == "3"


def test_a_new_namespace_is_active_and_labelled_with_its_name(api: APIServer):
    ns = api.create(Namespace(metadata=ObjectMeta(name="team-a")))
    assert ns.status == {"phase": "Active"}
    assert ns.metadata.labels[NAMESPACE_NAME_LABEL] == "team-a"


# --- strategy ---------------------------------------------------------------------------


def test_a_gated_pod_says_why_it_is_not_scheduled(api: APIServer):
    stored = api.create(pod(schedulingGates=[{"name": "example.com/wait"}]))
    (condition,) = stored.status.conditions
    assert (condition.type, condition.status, condition.reason, condition.message) == (
        "PodScheduled",
        "False",
        "SchedulingGated",
        MSG_SCHEDULING_GATED,
    )


def test_match_label_keys_are_merged_into_the_affinity_selector(api: APIServer):
    term = {
        "topologyKey": "zone",
        "labelSelector": {"matchLabels": {"app": "web"}},
        "matchLabelKeys": ["version"],
        "mismatchLabelKeys": ["team"],
    }
    manifest = pod(
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    )
    manifest = manifest.with_metadata(labels={"app": "web", "version": "v2", "team": "blue"})
    stored = api.create(manifest)
    anti = stored.spec.affinity.pod_anti_affinity  # type: ignore[union-attr]
    expressions = anti.required_during_scheduling_ignored_during_execution[
        0
    ].label_selector.match_expressions  # type: ignore[union-attr]
    assert [(e.key, e.operator, e.values) for e in expressions] == [
        ("version", "In", ("v2",)),
        ("team", "NotIn", ("blue",)),
    ]


AFFINITY_WITHOUT_LABEL_KEYS = {
    "node affinity only": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
                ]
            }
        }
    },
    "pod anti-affinity without label keys": {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "web"}}}
            ]
        }
    },
    "label keys on a term without a selector": {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "podAffinityTerm": {"topologyKey": "zone", "matchLabelKeys": ["v"]}}
            ]
        }
    },
}


@pytest.mark.parametrize(
    "affinity", AFFINITY_WITHOUT_LABEL_KEYS.values(), ids=AFFINITY_WITHOUT_LABEL_KEYS.keys()
)
def test_an_affinity_with_nothing_to_merge_is_stored_as_sent(api: APIServer, affinity):
    # mutatePodAffinity (pkg/registry/core/pod/strategy.go) changes only terms that have a
    # selector and name matchLabelKeys or mismatchLabelKeys; the server skips the copy otherwise.
    manifest = pod(affinity=affinity).with_metadata(labels={"app": "web", "v": "1"})
    assert api.create(manifest).spec.affinity == manifest.spec.affinity


# --- NamespaceLifecycle ---------------------------------------------------------------------


def test_objects_cannot_be_created_in_a_namespace_that_does_not_exist(api: APIServer):
    with pytest.raises(NotFound) as caught:
        api.create(pod(namespace="nowhere"))
    assert caught.value.message == 'namespaces "nowhere" not found'


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_the_system_namespaces_cannot_be_deleted(api: APIServer, name: str):
    with pytest.raises(Forbidden) as caught:
        api.delete(Namespace, name)
    assert caught.value.message == f'namespaces "{name}" is forbidden: {MSG_NAMESPACE_UNDELETABLE}'


# --- DefaultTolerationSeconds -----------------------------------------------------------------

NOT_READY = Toleration(
    key=TAINT_NODE_NOT_READY, operator="Exists", effect="NoExecute", toleration_seconds=300
)
UNREACHABLE = Toleration(
    key=TAINT_NODE_UNREACHABLE, operator="Exists", effect="NoExecute", toleration_seconds=300
)


@pytest.mark.parametrize(
    ("given", "added"),
    [
        pytest.param([], [NOT_READY, UNREACHABLE], id="none tolerated"),
        pytest.param(
            [
                {
                    "key": TAINT_NODE_NOT_READY,
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 60,
                }
            ],
            [UNREACHABLE],
            id="not-ready tolerated already",
        ),
        pytest.param(
            [{"key": TAINT_NODE_UNREACHABLE, "operator": "Exists"}],
            [NOT_READY],
            id="any effect tolerates NoExecute",
        ),
        pytest.param([{"operator": "Exists"}], [], id="a wildcard tolerates everything"),
        pytest.param(
            [{"key": TAINT_NODE_NOT_READY, "operator": "Exists", "effect": "NoSchedule"}],
            [NOT_READY, UNREACHABLE],
            id="a NoSchedule toleration is not enough",
        ),
    ],
)
def test_default_toleration_seconds_adds_what_is_missing(api: APIServer, given, added):
    stored = api.create(pod(tolerations=given))
    assert list(stored.spec.tolerations[len(given) :]) == added
    assert DEFAULT_TOLERATION_SECONDS == 300


# --- Priority ----------------------------------------------------------------------------------


def test_a_pod_without_a_class_gets_priority_zero(api: APIServer):
    stored = api.create(pod())
    assert (stored.spec.priority_class_name, stored.spec.priority) == ("", 0)


def test_a_pod_without_a_class_gets_the_global_default(api: APIServer):
    api.create(priority_class("normal", 100, global_default=True, preemption_policy="Never"))
    stored = api.create(pod())
    assert (stored.spec.priority_class_name, stored.spec.priority) == ("normal", 100)
    assert stored.spec.preemption_policy == "Never"


@pytest.mark.parametrize(
    ("name", "value"),
    [("system-node-critical", 2_000_001_000), ("system-cluster-critical", 2_000_000_000)],
)
def test_the_system_classes_exist_from_the_start(api: APIServer, name: str, value: int):
    assert api.get(PriorityClass, name).value == value
    assert api.create(pod(priorityClassName=name)).spec.priority == value


def test_a_class_sets_priority_and_preemption_policy(api: APIServer):
    api.create(priority_class("batch", 10, preemption_policy="Never"))
    stored = api.create(pod(priorityClassName="batch"))
    assert (stored.spec.priority, stored.spec.preemption_policy) == (10, "Never")


def test_an_unknown_class_is_forbidden(api: APIServer):
    with pytest.raises(Forbidden) as caught:
        api.create(pod(priorityClassName="gold"))
    why = MSG_NO_PRIORITY_CLASS.format(name="gold")
    assert caught.value.message == f'pods "web" is forbidden: {why}'
    assert why == "no PriorityClass with name gold was found"


def test_a_priority_that_disagrees_with_the_class_is_forbidden(api: APIServer):
    api.create(priority_class("batch", 10))
    with pytest.raises(Forbidden) as caught:
        api.create(pod(priorityClassName="batch", priority=99))
    assert caught.value.why == MSG_POD_PRIORITY_MISMATCH.format(given=99, computed=10)
    assert api.create(pod(priorityClassName="batch", priority=10)).spec.priority == 10


def test_a_preemption_policy_that_disagrees_with_the_class_is_forbidden(api: APIServer):
    api.create(priority_class("batch", 10, preemption_policy="Never"))
    with pytest.raises(Forbidden) as caught:
        api.create(pod(priorityClassName="batch", preemptionPolicy="PreemptLowerPriority"))
    assert caught.value.why == MSG_POD_PREEMPTION_POLICY_MISMATCH.format(
        given="PreemptLowerPriority", computed="Never"
    )


def test_only_one_class_may_be_the_global_default(api: APIServer):
    api.create(priority_class("a", 1, global_default=True))
    with pytest.raises(Forbidden) as caught:
        api.create(priority_class("b", 2, global_default=True))
    assert caught.value.why == MSG_GLOBAL_DEFAULT_EXISTS.format(name="a")
    # Updating the default class itself is fine.
    current = api.get(PriorityClass, "a")
    api.update(dataclasses.replace(current, description="the default"))


def test_a_priority_class_defaults_its_preemption_policy(api: APIServer):
    assert api.create(priority_class("x", 1)).preemption_policy == "PreemptLowerPriority"


@pytest.mark.parametrize(
    ("pc", "cause"),
    [
        (
            priority_class("huge", 1_000_000_001),
            "value: Forbidden: maximum allowed value of a user defined priority is 1000000000",
        ),
        (
            priority_class("system-mine", 5),
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved",
        ),
        (
            priority_class("odd", 5, preemption_policy="Sometimes"),
            'preemptionPolicy: Unsupported value: "Sometimes"',
        ),
    ],
)
def test_invalid_priority_classes_are_refused(api: APIServer, pc: PriorityClass, cause: str):
    with pytest.raises(Invalid) as caught:
        api.create(pc)
    assert caught.value.message.startswith(
        f'PriorityClass.scheduling.k8s.io "{pc.name}" is invalid: '
    )
    assert cause in caught.value.message


def test_a_priority_class_value_cannot_change(api: APIServer):
    stored = api.create(priority_class("x", 1))
    with pytest.raises(Invalid, match=r"value: Forbidden: may not be changed in an update\."):
        api.update(dataclasses.replace(stored, value=2))


def test_priority_is_resolved_only_at_creation(api: APIServer):
    api.create(priority_class("batch", 10))
    stored = api.create(pod(priorityClassName="batch"))
    api.delete(PriorityClass, "batch")
    updated = api.update(stored.with_metadata(labels={"a": "b"}))
    assert updated.spec.priority == 10


# A PodGroup's spec.priorityClassName is resolved into spec.priority as a pod's is (v1.37-era
# PodGroupSpec in kubernetes/kubernetes:pkg/apis/scheduling/types.go, index id 54594585921:
# "The admission controller populates this field from PriorityClassName"; no class: the global
# default, or 0).


def _pod_group(**spec):
    from framework.objects.workload import SchedulingPodGroup

    return SchedulingPodGroup.from_dict(
        {
            "metadata": {"name": "train"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, **spec},
        }
    )


def test_a_pod_group_gets_its_class_priority_the_default_or_zero(api: APIServer):
    assert api.create(_pod_group()).spec.priority == 0
    api.create(priority_class("batch", 10))
    stored = api.create(
        dataclasses.replace(_pod_group(priorityClassName="batch"), metadata=ObjectMeta(name="b"))
    )
    assert (stored.spec.priority_class_name, stored.spec.priority) == ("batch", 10)
    api.create(priority_class("normal", 100, global_default=True))
    stored = api.create(dataclasses.replace(_pod_group(), metadata=ObjectMeta(name="c")))
    assert (stored.spec.priority_class_name, stored.spec.priority) == ("normal", 100)


def test_a_pod_group_with_an_unknown_class_or_a_wrong_priority_is_forbidden(api: APIServer):
    from framework.apiserver.admission import MSG_POD_GROUP_PRIORITY_MISMATCH

    with pytest.raises(Forbidden) as caught:
        api.create(_pod_group(priorityClassName="gold"))
    assert caught.value.message == (
        'podgroups.scheduling.k8s.io "train" is forbidden: no PriorityClass with name gold was found'
    )
    api.create(priority_class("batch", 10))
    with pytest.raises(Forbidden) as caught:
        api.create(_pod_group(priorityClassName="batch", priority=99))
    assert caught.value.why == MSG_POD_GROUP_PRIORITY_MISMATCH.format(given=99, computed=10)
