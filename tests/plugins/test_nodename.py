"""NodeName: only the node the pod names in ``spec.nodeName``.

The Filter table follows ``TestNodeName`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodename/node_name_test.go``
(v1.33), and the events ``EventsToRegister`` there, in our own words.
"""

from __future__ import annotations

import pytest

from framework.cluster_event import ActionType, ClusterEvent, EventResource
from framework.cycle_state import CycleState
from framework.interface import EnqueueExtensions, FilterPlugin
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.plugins import nodename
from framework.plugins.nodename import ERR_REASON, NodeName, fits
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import Framework
from framework.status import Code


def make_pod(node_name: str = "") -> Pod:
    return Pod.from_dict({"metadata": {"name": "pod1"}, "spec": {"nodeName": node_name}})


def info(name: str | None) -> NodeInfo:
    node_info = NodeInfo()
    if name is not None:
        node_info.set_node(Node.from_dict({"metadata": {"name": name}}))
    return node_info


CASES = [
    pytest.param("", "foo", None, id="no host specified"),
    pytest.param("foo", "foo", None, id="host matches"),
    pytest.param("bar", "foo", ERR_REASON, id="host doesn't match"),
]


@pytest.mark.parametrize(("wanted", "node", "reason"), CASES)
def test_filter(wanted: str, node: str, reason: str | None) -> None:
    status = NodeName().filter(CycleState(), make_pod(wanted), info(node))
    if reason is None:
        assert status is None
        assert fits(make_pod(wanted), info(node))
    else:
        assert status is not None
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,))
        assert not fits(make_pod(wanted), info(node))


def test_the_reason_is_kubernetes_exact_words() -> None:
    assert ERR_REASON == "node(s) didn't match the requested node name"


def test_a_node_info_without_a_node_is_an_error() -> None:
    status = NodeName().filter(CycleState(), make_pod("foo"), info(None))
    assert status is not None and status.code is Code.ERROR


def test_only_a_new_node_can_help_and_needs_no_hint() -> None:
    (registration,) = NodeName().events_to_register()
    assert registration.event == ClusterEvent(EventResource.NODE, ActionType.ADD)
    assert registration.queueing_hint_fn is None


def test_through_the_runner_the_rejection_names_the_plugin() -> None:
    fwk = Framework.from_plugins("default-scheduler", {"filter": [NodeName()]})
    status = fwk.run_filter_plugins(CycleState(), make_pod("bar"), info("foo"))
    assert (status.code, status.plugin, status.message()) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "NodeName",
        ERR_REASON,
    )


def test_the_plugin_is_a_filter_registered_in_tree() -> None:
    plugin = nodename.new(None, None)
    assert isinstance(plugin, FilterPlugin) and isinstance(plugin, EnqueueExtensions)
    assert plugin.name() == nodename.NAME == "NodeName"
    assert in_tree_registry()["NodeName"] is nodename.new
