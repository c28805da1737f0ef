"""PodTopologySpreadArgs: defaulting, validation, and the configuration file's paths.

Follows ``TestValidatePodTopologySpreadArgs`` in
``kubernetes/kubernetes:pkg/scheduler/apis/config/validation/validation_pluginargs_test.go``
and ``TestPluginArgsDefaults`` ("PodTopologySpreadArgs empty") in
``pkg/scheduler/apis/config/v1/defaults_test.go`` (v1.33), in our own words.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.config import ConfigError, default_plugin_args, loads_config
from framework.config.args_noderesources import InvalidArgsError
from framework.config.args_podtopologyspread import (
    aggregate,
    decode_pod_topology_spread_args,
    validate_pod_topology_spread_args,
)
from framework.objects import TopologySpreadConstraint
from framework.plugins.podtopologyspread import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    PodTopologySpread,
    PodTopologySpreadArgs,
    new,
)

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def c(**fields: Any) -> TopologySpreadConstraint:
    return TopologySpreadConstraint.from_dict(fields)


def test_empty_args_default_to_system() -> None:
    assert default_plugin_args("PodTopologySpread") == {"defaultingType": "System"}
    plugin = new(None, None)
    assert plugin.system_defaulted
    assert plugin.default_constraints == SYSTEM_DEFAULT_CONSTRAINTS
    assert [(x.topology_key, x.max_skew) for x in SYSTEM_DEFAULT_CONSTRAINTS] == [
        ("kubernetes.io/hostname", 3),
        ("topology.kubernetes.io/zone", 5),
    ]


def test_list_defaulting_keeps_the_given_constraints() -> None:
    plugin = new(
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
            ],
        },
        None,
    )
    assert not plugin.system_defaulted
    assert [x.topology_key for x in plugin.default_constraints] == ["zone"]


VALID = c(maxSkew=1, topologyKey="node", whenUnsatisfiable="ScheduleAnyway")

CASES = [
    pytest.param(
        PodTopologySpreadArgs((VALID,), "List"),
        [],
        id="valid config",
    ),
    pytest.param(
        PodTopologySpreadArgs(
            (c(maxSkew=-1, topologyKey="node", whenUnsatisfiable="ScheduleAnyway"),), "List"
        ),
        ["defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"],
        id="maxSkew less than zero",
    ),
    pytest.param(
        PodTopologySpreadArgs((c(maxSkew=1, whenUnsatisfiable="ScheduleAnyway"),), "List"),
        ["defaultConstraints[0].topologyKey: Required value: can not be empty"],
        id="empty topology key",
    ),
    pytest.param(
        PodTopologySpreadArgs((c(maxSkew=1, topologyKey="node"),), "List"),
        [
            'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "": '
            'supported values: "DoNotSchedule", "ScheduleAnyway"'
        ],
        id="WhenUnsatisfiable is empty",
    ),
    pytest.param(
        PodTopologySpreadArgs((VALID, VALID), "List"),
        ['defaultConstraints[1]: Duplicate value: "{node, ScheduleAnyway}"'],
        id="duplicated constraints",
    ),
    pytest.param(
        PodTopologySpreadArgs(
            (
                c(
                    maxSkew=1,
                    topologyKey="node",
                    whenUnsatisfiable="ScheduleAnyway",
                    labelSelector={"matchLabels": {"foo": "bar"}},
                ),
            ),
            "List",
        ),
        [
            "defaultConstraints[0].labelSelector: Forbidden: "
            "constraint must not define a selector, as they deduced for each pod"
        ],
        id="label selector present",
    ),
    pytest.param(
        PodTopologySpreadArgs((VALID,), "System"),
        ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
        id="system defaulting with constraints",
    ),
    pytest.param(
        PodTopologySpreadArgs((), "Sometimes"),
        ['defaultingType: Unsupported value: "Sometimes": supported values: "System", "List"'],
        id="wrong defaulting type",
    ),
]


@pytest.mark.parametrize(("args", "want"), CASES)
def test_validation(args: PodTopologySpreadArgs, want: list[str]) -> None:
    assert [str(cause) for cause in validate_pod_topology_spread_args(args)] == want


def test_the_factory_refuses_invalid_args() -> None:
    with pytest.raises(InvalidArgsError, match="not in valid range"):
        PodTopologySpread(
            None,
            PodTopologySpreadArgs(
                (c(maxSkew=0, topologyKey="zone", whenUnsatisfiable="DoNotSchedule"),), "List"
            ),
        )
    with pytest.raises(InvalidArgsError, match="want args to be of type PodTopologySpreadArgs"):
        new("System", None)


def test_decoding_names_unknown_fields() -> None:
    with pytest.raises(Exception) as raised:
        decode_pod_topology_spread_args(
            {"defaultingtype": "List", "defaultConstraints": [{"maxSkew": 1, "topologykey": "z"}]}
        )
    assert 'unknown field "defaultingtype"' in str(raised.value)
    assert 'defaultConstraints[0].topologykey: unknown field "topologykey"' in str(raised.value)


def test_a_configuration_file_reports_problems_with_full_paths() -> None:
    with pytest.raises(ConfigError) as raised:
        loads_config(
            HEADER + "profiles:\n- pluginConfig:\n"
            "  - name: PodTopologySpread\n"
            "    args: {defaultingType: List, defaultConstraints: "
            "[{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}\n",
            "sched.yaml",
        )
    problems = [(p.field, p.message) for p in raised.value.problems]
    assert problems == [
        (
            "profiles[0].pluginConfig[0].args.defaultConstraints[0].maxSkew",
            "Invalid value: 0: not in valid range (0, inf)",
        )
    ]


def test_aggregate_prints_several_causes_in_brackets() -> None:
    causes = validate_pod_topology_spread_args(PodTopologySpreadArgs((VALID,), "Never"))
    assert aggregate(causes).startswith("defaultingType: Unsupported value")
