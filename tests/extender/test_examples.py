"""The example rule as an extender and as a plugin: the same decisions, by two roads.

The extender is :mod:`examples.extender.server`, on loopback; the plugin
:mod:`examples.extender.plugin`, loaded as an out-of-tree plugin. Below 100
nodes every node is evaluated, so both must place every pod on the same
node (``numFeasibleNodesToFind`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``, v1.33). No test
here asserts a time: the benchmark's figures are for reading, not for CI.
"""

from __future__ import annotations

from framework.bench.extender_compare import (
    compare,
    format_comparison,
    make_cluster,
    parse_node_counts,
)
from framework.objects import Node


def test_the_plugin_and_the_extender_place_every_pod_on_the_same_node() -> None:
    (row,) = compare([30], pods=40, seed=3, server="thread")
    assert row.plugin.placements == row.extender.placements
    assert all(row.plugin.placements.values())  # every pod was placed
    draining = {
        o.name
        for o in make_cluster(30, 0)
        if isinstance(o, Node) and o.metadata.labels.get("example.com/draining") == "true"
    }
    assert draining and not draining & set(row.plugin.placements.values())
    assert len(row.plugin.latencies_ms) == len(row.extender.latencies_ms) == 40
    report = format_comparison([row], 3)
    assert "    30    40 |" in report and report.rstrip().splitlines()[-3].endswith("yes")


def test_node_counts_are_read_from_a_comma_separated_list() -> None:
    assert parse_node_counts("100, 1000,5000") == [100, 1000, 5000]


def test_the_plugin_loads_as_any_out_of_tree_plugin() -> None:
    from framework.runtime.registry import load_factory

    factory = load_factory("examples.extender.plugin:new")
    assert factory(None, None).name() == "NodeLabelRule"
