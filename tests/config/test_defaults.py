"""Defaulting: what kube-scheduler fills in, from the default profile to each plugin's args."""

from __future__ import annotations

import pytest

from framework.config import (
    DEFAULT_MULTI_POINT,
    DEFAULT_SCHEDULER_NAME,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    Plugin,
    PluginConfig,
    default_plugin_args,
    default_plugins,
    loads_config,
    set_defaults,
)
from framework.config.defaults import (
    DEFAULT_CONTENT_TYPE,
    DEFAULT_LEASE_DURATION,
    DEFAULT_LOCK_NAME,
    DEFAULT_LOCK_NAMESPACE,
)
from framework.featuregate import new_feature_gates
from framework.plugins import names
from tests.config.helpers import HEADER, plugin_set, plugins


def test_an_empty_configuration_gets_kube_schedulers_numbers() -> None:
    config = set_defaults(KubeSchedulerConfiguration())
    assert config.parallelism == 16
    assert config.percentage_of_nodes_to_score == 0, "0 means adaptive"
    assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (1, 10)
    assert config.enable_profiling and config.enable_contention_profiling
    assert not config.delay_cache_until_active


def test_the_operational_settings_get_kube_schedulers_opinions() -> None:
    config = set_defaults(KubeSchedulerConfiguration())
    le = config.leader_election
    assert le.leader_elect and le.resource_lock == "leases"
    assert (le.resource_namespace, le.resource_name) == (DEFAULT_LOCK_NAMESPACE, DEFAULT_LOCK_NAME)
    assert (le.lease_duration, le.renew_deadline, le.retry_period) == ("15s", "10s", "2s")
    cc = config.client_connection
    assert (cc.content_type, cc.qps, cc.burst) == (DEFAULT_CONTENT_TYPE, 50.0, 100)


def test_a_zero_duration_is_defaulted_like_an_absent_one() -> None:
    config = loads_config(HEADER + "leaderElection: {leaseDuration: 0s}\n")
    assert config.leader_election.lease_duration == DEFAULT_LEASE_DURATION


def test_contention_profiling_follows_profiling_unless_set() -> None:
    off = loads_config(HEADER + "enableProfiling: false\n")
    assert (off.enable_profiling, off.enable_contention_profiling) == (False, False)
    explicit = loads_config(HEADER + "enableProfiling: false\nenableContentionProfiling: true\n")
    assert explicit.enable_contention_profiling is True


def test_no_profiles_means_one_default_scheduler_profile_with_the_default_plugins() -> None:
    (profile,) = set_defaults(KubeSchedulerConfiguration()).profiles
    assert profile.scheduler_name == DEFAULT_SCHEDULER_NAME
    assert profile.plugins == default_plugins()
    assert profile.plugins is not None
    # v1.37, the default release: DynamicResourceAllocation is GA, so DynamicResources is in.
    enabled = list(profile.plugins.multi_point.enabled)
    assert enabled.pop(enabled.index(Plugin(names.DYNAMIC_RESOURCES))) is not None
    assert tuple(enabled) == DEFAULT_MULTI_POINT
    v1_33 = new_feature_gates("1.33")
    (old,) = set_defaults(KubeSchedulerConfiguration(), feature_gates=v1_33).profiles
    assert old.plugins is not None
    assert old.plugins.multi_point.enabled == DEFAULT_MULTI_POINT


def test_the_scheduler_name_is_defaulted_only_when_there_is_a_single_profile() -> None:
    one = set_defaults(KubeSchedulerConfiguration(profiles=(KubeSchedulerProfile(),)))
    assert one.profiles[0].scheduler_name == DEFAULT_SCHEDULER_NAME
    two = set_defaults(
        KubeSchedulerConfiguration(profiles=(KubeSchedulerProfile(), KubeSchedulerProfile("b")))
    )
    assert [p.scheduler_name for p in two.profiles] == [None, "b"]


def test_the_default_line_up_of_v1_33_has_no_dynamic_resources_unless_the_gate_is_on() -> None:
    v1_33 = new_feature_gates("1.33")
    off = [p.name for p in default_plugins(feature_gates=v1_33).multi_point.enabled]
    on = [
        p.name
        for p in default_plugins(
            dynamic_resource_allocation=True, feature_gates=v1_33
        ).multi_point.enabled
    ]
    assert names.DYNAMIC_RESOURCES not in off
    assert on.index(names.DYNAMIC_RESOURCES) == on.index(names.DEFAULT_PREEMPTION) - 1
    assert [n for n in on if n != names.DYNAMIC_RESOURCES] == off
    # From v1.34 the gate is on by default (GA; locked from v1.35): the same line-up as "on".
    for version in ("1.34", "1.35", "1.36", "1.37"):
        gates = new_feature_gates(version)
        assert [p.name for p in default_plugins(feature_gates=gates).multi_point.enabled] == on


def test_the_default_line_up_has_the_v1_33_order_and_weights() -> None:
    assert [(p.name, p.weight) for p in DEFAULT_MULTI_POINT] == [
        ("SchedulingGates", None),
        ("PrioritySort", None),
        ("NodeUnschedulable", None),
        ("NodeName", None),
        ("TaintToleration", 3),
        ("NodeAffinity", 2),
        ("NodePorts", None),
        ("NodeResourcesFit", 1),
        ("VolumeRestrictions", None),
        ("NodeVolumeLimits", None),
        ("VolumeBinding", None),
        ("VolumeZone", None),
        ("PodTopologySpread", 2),
        ("InterPodAffinity", 2),
        ("DefaultPreemption", None),
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1),
        ("DefaultBinder", None),
    ]


def test_every_enabled_in_tree_plugin_with_args_gets_its_defaults_sorted_by_name() -> None:
    (profile,) = set_defaults(KubeSchedulerConfiguration()).profiles
    assert [(c.name, c.args) for c in profile.plugin_config] == [
        (
            "DefaultPreemption",
            {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
        ),
        ("InterPodAffinity", {"hardPodAffinityWeight": 1}),
        ("NodeAffinity", {}),
        (
            "NodeResourcesBalancedAllocation",
            {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]},
        ),
        (
            "NodeResourcesFit",
            {
                "scoringStrategy": {
                    "type": "LeastAllocated",
                    "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                }
            },
        ),
        ("PodTopologySpread", {"defaultingType": "System"}),
        ("VolumeBinding", {"bindTimeoutSeconds": 600}),
    ]


def test_a_disabled_plugin_gets_no_default_args_and_user_args_come_first() -> None:
    profile = KubeSchedulerProfile(
        "p",
        plugins=plugins(multiPoint=plugin_set(disabled=("NodeResourcesFit", "VolumeBinding"))),
        plugin_config=(PluginConfig("MyPlugin", {"x": 1}), PluginConfig("ImageLocality", None)),
    )
    (defaulted,) = set_defaults(KubeSchedulerConfiguration(profiles=(profile,))).profiles
    configured = [c.name for c in defaulted.plugin_config]
    assert configured[:2] == ["MyPlugin", "ImageLocality"]
    assert "NodeResourcesFit" not in configured and "VolumeBinding" not in configured
    assert configured[2:] == sorted(configured[2:])


@pytest.mark.parametrize(
    ("plugin", "given", "expected"),
    [
        (
            "NodeResourcesFit",
            {"scoringStrategy": {"type": "MostAllocated"}},
            {
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                }
            },
        ),
        (
            "NodeResourcesFit",
            {
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "resources": [{"name": "nvidia.com/gpu"}],
                }
            },
            {
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "resources": [{"name": "nvidia.com/gpu", "weight": 1}],
                }
            },
        ),
        (
            "NodeResourcesFit",
            {"scoringStrategy": {"resources": [{"name": "cpu", "weight": 3}]}},
            {"scoringStrategy": {"resources": [{"name": "cpu", "weight": 3}]}},
        ),
        (
            "NodeResourcesBalancedAllocation",
            {"resources": [{"name": "cpu", "weight": 0}, {"name": "memory", "weight": 2}]},
            {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 2}]},
        ),
        (
            "DefaultPreemption",
            {"minCandidateNodesAbsolute": 0},
            {"minCandidateNodesAbsolute": 0, "minCandidateNodesPercentage": 10},
        ),
        ("InterPodAffinity", {"hardPodAffinityWeight": 5}, {"hardPodAffinityWeight": 5}),
        ("PodTopologySpread", {"defaultingType": ""}, {"defaultingType": "System"}),
        ("VolumeBinding", {}, {"bindTimeoutSeconds": 600}),
        ("NodeAffinity", None, {}),
        (
            "DefaultPreemption",
            {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "DefaultPreemptionArgs"},
            {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
        ),
    ],
    ids=[
        "fit: a strategy without resources gets cpu and memory",
        "fit: a resource without weight gets weight 1",
        "fit: a strategy without type keeps no type (validation's business)",
        "balanced: weight 0 becomes 1",
        "preemption: an explicit 0 is kept, the missing field defaulted",
        "inter-pod affinity: an explicit weight is kept",
        "spread: an empty defaulting type means System",
        "volume binding: bind timeout 600",
        "node affinity: no args is an empty object",
        "apiVersion and kind are dropped once checked",
    ],
)
def test_user_args_are_completed_field_by_field_as_set_defaults_does(
    plugin: str, given: object, expected: object
) -> None:
    profile = KubeSchedulerProfile("p", plugin_config=(PluginConfig(plugin, given),))
    (defaulted,) = set_defaults(KubeSchedulerConfiguration(profiles=(profile,))).profiles
    assert defaulted.plugin_config[0] == PluginConfig(plugin, expected)


def test_defaulting_does_not_touch_the_callers_args() -> None:
    given = {"scoringStrategy": {"type": "MostAllocated"}}
    profile = KubeSchedulerProfile("p", plugin_config=(PluginConfig("NodeResourcesFit", given),))
    set_defaults(KubeSchedulerConfiguration(profiles=(profile,)))
    assert given == {"scoringStrategy": {"type": "MostAllocated"}}


def test_default_plugin_args_is_the_table_of_the_facts_sheet() -> None:
    assert default_plugin_args("VolumeBinding") == {"bindTimeoutSeconds": 600}
    assert default_plugin_args("PodTopologySpread") == {"defaultingType": "System"}
    assert default_plugin_args("ImageLocality") is None
    assert default_plugin_args("QOSSort") is None


def test_defaulting_twice_changes_nothing() -> None:
    text = HEADER + (
        "profiles:\n"
        "- schedulerName: a\n"
        "  plugins:\n"
        "    multiPoint: {enabled: [{name: Extra}], disabled: [{name: ImageLocality}]}\n"
        "    score: {enabled: [{name: NodeAffinity, weight: 7}]}\n"
    )
    once = loads_config(text)
    assert set_defaults(once) == once
