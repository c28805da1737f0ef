"""The example extender's rule as a plugin: the same verdicts, the same scale, the same placement.

The extender's answers (``examples/extender/server.py``) are the
expectations: a node in ``FailedAndUnresolvableNodes`` is, for a plugin,
``UnschedulableAndUnresolvable`` with the same reason
(``findNodesThatPassExtenders`` in kubernetes/kubernetes
``pkg/scheduler/schedule_one.go``, v1.33); an extender's score is multiplied
by ``MaxNodeScore / MaxExtenderPriority`` = 100 / 10 (``prioritizeNodes``,
same file), so the plugin's score is ten times the extender's.

Run against your code with
``python -m pytest chapters/00b_before_the_framework --exercise``.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from examples.extender.rule import REASON_DRAINING
from examples.extender.server import filter_nodes, prioritize_nodes
from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.status import Code

pytestmark = pytest.mark.exercise(
    reference="examples.extender.plugin",
    skeleton="exercise.py",
    asks=["NodeLabelRule.filter", "NodeLabelRule.score"],
)

LABELS = {
    "plain": {},
    "ssd": {"disktype": "ssd"},
    "draining": {"example.com/draining": "true"},
    "draining-ssd": {"example.com/draining": "true", "disktype": "ssd"},
}


def node(name: str) -> Node:
    allocatable = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return Node.from_dict(
        {
            "metadata": {"name": name, "labels": LABELS[name]},
            "status": {"allocatable": allocatable, "capacity": allocatable},
        }
    )


def node_info(name: str) -> NodeInfo:
    info = NodeInfo()
    info.set_node(node(name))
    return info


POD = Pod.from_dict(
    {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "app", "image": "nginx"}]}}
)


@pytest.mark.parametrize("name", list(LABELS))
def test_filter_agrees_with_the_extender(impl: ModuleType, name: str) -> None:
    answer = filter_nodes({"Pod": {}, "Nodes": {"items": [node(name).to_dict()]}})
    status = impl.new(None, None).filter(CycleState(), POD, node_info(name))
    if name in answer["FailedAndUnresolvableNodes"]:
        assert status is not None
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert list(status.reasons) == [REASON_DRAINING]
    else:
        assert status is None or status.is_success()


@pytest.mark.parametrize("name", list(LABELS))
def test_score_is_the_extenders_scaled_to_the_plugins_range(impl: ModuleType, name: str) -> None:
    ((answer,),) = [prioritize_nodes({"Pod": {}, "Nodes": {"items": [node(name).to_dict()]}})]
    score, status = impl.new(None, None).score(CycleState(), POD, node_info(name))
    assert status is None or status.is_success()
    assert score == answer["Score"] * 100 // 10


def test_a_scheduler_with_the_plugin_avoids_draining_nodes_and_prefers_ssd(
    impl: ModuleType,
) -> None:
    clock = FakeClock(1_700_000_000.0)
    api = APIServer(clock)
    for name in LABELS:
        api.create(node(name))
    api.create(POD)
    config = loads_config(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "profiles:\n"
        "- schedulerName: default-scheduler\n"
        "  plugins:\n"
        "    multiPoint:\n"
        "      enabled:\n"
        "      - name: NodeLabelRule\n"
        "        weight: 10\n"
    )
    registry = {**in_tree_registry(), "NodeLabelRule": impl.new}
    scheduler = Scheduler(api, config, registry, clock=clock, seed=0)
    scheduler.schedule_pending()
    scheduler.stop()
    assert api.get(Pod, "web").spec.node_name == "ssd"
