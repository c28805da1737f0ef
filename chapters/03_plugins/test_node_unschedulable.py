"""Chapter 3: NodeUnschedulable keeps pods off cordoned nodes, unless they tolerate it.

The Filter cases follow ``TestNodeUnschedulable`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go``
(v1.33), in our own words; the toleration table follows Kubernetes'
``Toleration.ToleratesTaint`` (``staging/src/k8s.io/api/core/v1/toleration.go``).
A property compares the filter with a plain statement of the rule; the last
tests run the plugin in a profile built from configuration and in a
scheduler. Run against your code with
``python -m pytest chapters/03_plugins --exercise``.
"""

from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.cluster_event import QueueingHint
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Event, Node, Pod, Taint, Toleration
from framework.plugins.registry import in_tree_registry
from framework.runtime.build import new_framework
from framework.scheduler.scheduler import Scheduler
from framework.status import Code

pytestmark = pytest.mark.exercise(
    reference="framework.plugins.nodeunschedulable",
    skeleton="exercise.py",
    asks=["toleration_tolerates_taint", "NodeUnschedulable.filter"],
)

UNSCHEDULABLE_KEY = "node.kubernetes.io/unschedulable"
REASON = "node(s) were unschedulable"


def make_node(name: str = "n1", *, unschedulable: bool = False) -> Node:
    return Node.from_dict(
        {
            "metadata": {"name": name},
            "spec": {"unschedulable": unschedulable},
            "status": {"allocatable": {"cpu": "2", "pods": "110"}},
        }
    )


def make_pod(name: str = "p", tolerations: Any = ()) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {
                "containers": [{"name": "c", "image": "busybox"}],
                "tolerations": list(tolerations),
            },
        }
    )


def info(node: Node | None) -> NodeInfo:
    node_info = NodeInfo()
    if node is not None:
        node_info.set_node(node)
    return node_info


# --- Filter -------------------------------------------------------------------------------------

CORDON = {"key": UNSCHEDULABLE_KEY, "effect": "NoSchedule"}

FILTER_CASES = [
    # Kubernetes' cases
    pytest.param(
        make_pod(),
        make_node(unschedulable=True),
        False,
        id="Does not schedule pod to unschedulable node",
    ),
    pytest.param(make_pod(), make_node(), True, id="Schedule pod to normal node"),
    pytest.param(
        make_pod(tolerations=[CORDON]),
        make_node(unschedulable=True),
        True,
        id="Schedule pod with toleration to unschedulable node",
    ),
    # the edges
    pytest.param(
        make_pod(tolerations=[{"operator": "Exists"}]),
        make_node(unschedulable=True),
        True,
        id="a toleration of every taint tolerates the cordon",
    ),
    pytest.param(
        make_pod(tolerations=[{"key": UNSCHEDULABLE_KEY, "operator": "Exists"}]),
        make_node(unschedulable=True),
        True,
        id="a toleration of the key with any effect tolerates the cordon",
    ),
    pytest.param(
        make_pod(tolerations=[{**CORDON, "effect": "NoExecute"}]),
        make_node(unschedulable=True),
        False,
        id="a toleration of another effect does not",
    ),
    pytest.param(
        make_pod(tolerations=[{**CORDON, "value": "true"}]),
        make_node(unschedulable=True),
        False,
        id="Equal with a value does not: the taint has no value",
    ),
    pytest.param(
        make_pod(tolerations=[{"key": "dedicated", "operator": "Exists"}, CORDON]),
        make_node(unschedulable=True),
        True,
        id="one matching toleration among others is enough",
    ),
    pytest.param(
        make_pod(tolerations=[{"key": "dedicated", "operator": "Exists"}]),
        make_node(),
        True,
        id="tolerations do not matter on a normal node",
    ),
]


@pytest.mark.parametrize(("pod", "node", "passes"), FILTER_CASES)
def test_filter(impl: ModuleType, pod: Pod, node: Node, passes: bool) -> None:
    status = impl.NodeUnschedulable().filter(CycleState(), pod, info(node))
    if passes:
        assert status is None or status.code is Code.SUCCESS
    else:
        assert status is not None
        assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.message() == REASON == impl.ERR_REASON_UNSCHEDULABLE


def test_a_node_info_without_a_node_is_an_error(impl: ModuleType) -> None:
    status = impl.NodeUnschedulable().filter(CycleState(), make_pod(), info(None))
    assert status is not None and status.code is Code.ERROR


# --- Toleration matching -------------------------------------------------------------------------

TAINT = Taint(key="k", value="v", effect="NoSchedule")

TOLERATION_CASES = [
    pytest.param(
        Toleration("k", "Equal", "v", "NoSchedule"), True, id="key, value and effect equal"
    ),
    pytest.param(Toleration("k", "", "v", "NoSchedule"), True, id="no operator means Equal"),
    pytest.param(Toleration("k", "Equal", "w", "NoSchedule"), False, id="Equal, another value"),
    pytest.param(Toleration("k", "Equal", "", "NoSchedule"), False, id="Equal, no value"),
    pytest.param(Toleration("k", "Exists", "", "NoSchedule"), True, id="Exists ignores the value"),
    pytest.param(Toleration("k", "Exists", "", ""), True, id="no effect matches every effect"),
    pytest.param(Toleration("k", "Exists", "", "NoExecute"), False, id="another effect"),
    pytest.param(Toleration("j", "Exists", "", ""), False, id="another key"),
    pytest.param(
        Toleration("", "Exists", "", ""), True, id="Exists with no key matches everything"
    ),
    pytest.param(Toleration("", "Exists", "", "NoExecute"), False, id="no key, another effect"),
    pytest.param(Toleration("", "", "v", ""), True, id="no key, Equal: the value still decides"),
    pytest.param(Toleration("", "", "w", ""), False, id="no key, Equal, another value"),
    pytest.param(Toleration("k", "Gt", "v", ""), False, id="an unknown operator matches nothing"),
    pytest.param(Toleration("k", "exists", "", ""), False, id="operators are case-sensitive"),
]


@pytest.mark.parametrize(("toleration", "expected"), TOLERATION_CASES)
def test_toleration_tolerates_taint(
    impl: ModuleType, toleration: Toleration, expected: bool
) -> None:
    assert impl.toleration_tolerates_taint(toleration, TAINT) is expected


def test_the_cordon_taint_is_key_and_effect_without_a_value(impl: ModuleType) -> None:
    assert Taint(key=UNSCHEDULABLE_KEY, effect="NoSchedule") == impl.UNSCHEDULABLE_TAINT
    exists = Toleration(key=UNSCHEDULABLE_KEY, operator="Exists", effect="NoSchedule")
    assert impl.toleration_tolerates_taint(exists, impl.UNSCHEDULABLE_TAINT)


# `impl` is function-scoped but returns the same module every time, so sharing
# it across a property's examples is safe.
PROPERTY = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

TOLERATIONS = st.builds(
    Toleration,
    key=st.sampled_from(["", UNSCHEDULABLE_KEY, "node.kubernetes.io/not-ready", "dedicated"]),
    operator=st.sampled_from(["", "Equal", "Exists", "Gt"]),
    value=st.sampled_from(["", "true"]),
    effect=st.sampled_from(["", "NoSchedule", "NoExecute", "PreferNoSchedule"]),
)


def tolerates_the_cordon(t: Toleration) -> bool:
    """The rule for this one taint, written out: a model to compare with."""
    return (
        t.effect in ("", "NoSchedule")
        and t.key in ("", UNSCHEDULABLE_KEY)
        and (t.operator == "Exists" or (t.operator in ("", "Equal") and t.value == ""))
    )


@PROPERTY
@given(tolerations=st.lists(TOLERATIONS, max_size=4), cordoned=st.booleans())
def test_filter_agrees_with_the_rule_for_any_tolerations(
    impl: ModuleType, tolerations: list[Toleration], cordoned: bool
) -> None:
    pod = make_pod()
    pod = dataclasses.replace(
        pod, spec=dataclasses.replace(pod.spec, tolerations=tuple(tolerations))
    )
    status = impl.NodeUnschedulable().filter(
        CycleState(), pod, info(make_node(unschedulable=cordoned))
    )
    passes = status is None or status.code is Code.SUCCESS
    assert passes == (not cordoned or any(tolerates_the_cordon(t) for t in tolerations))


# --- The queueing hint that uses your function --------------------------------------------------


@pytest.mark.parametrize(
    ("added", "expected"),
    [
        pytest.param(CORDON, QueueingHint.QUEUE, id="the pod gains the cordon toleration"),
        pytest.param(
            {"key": "unrelated-key", "operator": "Exists"},
            QueueingHint.QUEUE_SKIP,
            id="the pod gains an unrelated toleration",
        ),
    ],
)
def test_a_new_toleration_requeues_the_pod_only_if_it_tolerates_the_cordon(
    impl: ModuleType, added: dict[str, str], expected: QueueingHint
) -> None:
    hint = impl.NodeUnschedulable().is_schedulable_after_pod_toleration_change
    assert hint(make_pod(), make_pod(), make_pod(tolerations=[added])) is expected


# --- In a profile, and in a scheduler --------------------------------------------------------------

CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: "*"}]
      enabled: [{name: PrioritySort}, {name: NodeUnschedulable}, {name: DefaultBinder}]
"""


def registry_with_yours(impl: ModuleType) -> Any:
    registry = in_tree_registry()
    registry.unregister("NodeUnschedulable")
    registry.register("NodeUnschedulable", impl.new)
    return registry


def test_your_plugin_in_a_profile_built_from_configuration(impl: ModuleType) -> None:
    fwk = new_framework(registry_with_yours(impl), loads_config(CONFIG).profiles[0])
    assert fwk.plugin_names("filter") == ["NodeUnschedulable"]
    cordoned = fwk.run_filter_plugins(
        CycleState(), make_pod(), info(make_node(unschedulable=True))
    )
    assert (cordoned.code, cordoned.plugin, cordoned.message()) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "NodeUnschedulable",
        REASON,
    )
    assert fwk.run_filter_plugins(CycleState(), make_pod(), info(make_node())).is_success()


def test_your_plugin_in_a_scheduler(impl: ModuleType) -> None:
    clock = FakeClock()
    api = APIServer(clock)
    api.create(make_node("cordoned", unschedulable=True))
    api.create(make_pod("web"))
    api.create(make_pod("daemon", tolerations=[CORDON]))
    scheduler = Scheduler(
        api, loads_config(CONFIG), registry_with_yours(impl), clock=clock, seed=0
    )
    scheduler.schedule_pending()
    scheduler.stop()
    hosts = {
        name: api.get(Pod, name, namespace="default").spec.node_name for name in ("web", "daemon")
    }
    assert hosts == {"web": "", "daemon": "cordoned"}
    failed = [e.message for e in api.list(Event).items if e.reason == "FailedScheduling"]
    assert failed == ["0/1 nodes are available: 1 node(s) were unschedulable."]
