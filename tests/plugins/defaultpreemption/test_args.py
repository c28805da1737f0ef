"""DefaultPreemptionArgs: defaults, validation, the configuration file, and the candidate count.

Validation cases from ``TestValidateDefaultPreemptionArgs`` in
``kubernetes/kubernetes:pkg/scheduler/apis/config/validation/validation_pluginargs_test.go``;
defaults from ``SetDefaults_DefaultPreemptionArgs`` (``pkg/scheduler/apis/config/v1/defaults.go``);
the candidate count from ``calculateNumCandidates`` and ``GetOffsetAndNumCandidates`` in
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` (v1.33).
"""

from __future__ import annotations

import random

import pytest

from framework.config import ConfigError, default_plugin_args, loads_config
from framework.config.args_defaultpreemption import (
    InvalidArgsError,
    default_preemption_args_from,
    validate_default_preemption_args,
)
from framework.plugins.defaultpreemption import DefaultPreemption, DefaultPreemptionArgs, new
from framework.runtime.framework import Framework

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
PERCENTAGE = "minCandidateNodesPercentage"
ABSOLUTE = "minCandidateNodesAbsolute"


def test_defaults_are_ten_percent_and_a_hundred_nodes() -> None:
    assert default_plugin_args("DefaultPreemption") == {PERCENTAGE: 10, ABSOLUTE: 100}
    assert default_preemption_args_from(None) == DefaultPreemptionArgs(10, 100)
    # Only a missing field is defaulted; a 0 written down stays 0.
    assert default_preemption_args_from({ABSOLUTE: 0}) == DefaultPreemptionArgs(10, 0)


@pytest.mark.parametrize(
    ("percentage", "absolute", "messages"),
    [
        (10, 100, []),
        (-1, 100, [f"{PERCENTAGE}: Invalid value: -1: not in valid range [0, 100]"]),
        (900, 100, [f"{PERCENTAGE}: Invalid value: 900: not in valid range [0, 100]"]),
        (20, -1, [f"{ABSOLUTE}: Invalid value: -1: not in valid range [0, inf)"]),
        (
            0,
            0,
            [
                f"{PERCENTAGE}: Invalid value: 0: cannot be zero at the same time as {ABSOLUTE}",
                f"{ABSOLUTE}: Invalid value: 0: cannot be zero at the same time as {PERCENTAGE}",
            ],
        ),
        (
            -1,
            -1,
            [
                f"{PERCENTAGE}: Invalid value: -1: not in valid range [0, 100]",
                f"{ABSOLUTE}: Invalid value: -1: not in valid range [0, inf)",
            ],
        ),
    ],
    ids=[
        "valid args (default)",
        "negative minCandidateNodesPercentage",
        "minCandidateNodesPercentage over 100",
        "negative minCandidateNodesAbsolute",
        "all zero",
        "both negative",
    ],
)
def test_validate_default_preemption_args(
    percentage: int, absolute: int, messages: list[str]
) -> None:
    causes = validate_default_preemption_args(DefaultPreemptionArgs(percentage, absolute))
    assert [str(c) for c in causes] == messages


def test_the_factory_refuses_bad_args() -> None:
    fwk = Framework("p")
    with pytest.raises(InvalidArgsError, match=r"not in valid range \[0, inf\)"):
        new({ABSOLUTE: -5}, fwk)
    with pytest.raises(InvalidArgsError, match="decoding DefaultPreemptionArgs"):
        new({"minCandidateNodesPercent": 5}, fwk)
    assert new({PERCENTAGE: 40}, fwk).args == DefaultPreemptionArgs(40, 100)


def test_a_configuration_file_is_validated_and_decoded_strictly() -> None:
    with pytest.raises(ConfigError) as raised:
        loads_config(
            HEADER + "profiles:\n- pluginConfig:\n"
            f"  - name: DefaultPreemption\n    args: {{{PERCENTAGE}: 0, {ABSOLUTE}: 0}}\n",
            "sched.yaml",
        )
    assert [(p.field, p.message) for p in raised.value.problems] == [
        (
            f"profiles[0].pluginConfig[0].args.{PERCENTAGE}",
            f"Invalid value: 0: cannot be zero at the same time as {ABSOLUTE}",
        ),
        (
            f"profiles[0].pluginConfig[0].args.{ABSOLUTE}",
            f"Invalid value: 0: cannot be zero at the same time as {PERCENTAGE}",
        ),
    ]
    with pytest.raises(ConfigError) as raised:
        loads_config(
            HEADER + "profiles:\n- pluginConfig:\n"
            f"  - name: DefaultPreemption\n    args: {{{PERCENTAGE}: ten}}\n",
            "sched.yaml",
        )
    assert [p.field for p in raised.value.problems] == [
        f"profiles[0].pluginConfig[0].args.{PERCENTAGE}"
    ]


@pytest.mark.parametrize(
    ("num_nodes", "percentage", "absolute", "expected"),
    [
        (0, 10, 100, 0),
        (10, 10, 100, 10),
        (5000, 10, 100, 500),
        (500, 10, 100, 100),
        (1000, 20, 30, 200),
        (1000, 1, 300, 300),
        (100, 10, 200, 100),
        (99, 10, 0, 9),
        (5, 40, 1, 2),
    ],
    ids=[
        "no nodes",
        "small cluster: every node",
        "large cluster: ten percent",
        "the absolute minimum wins over the percentage",
        "percentage above the minimum",
        "minimum above the percentage",
        "never more than the nodes",
        "the percentage rounds down",
        "the TestDryRunPreemption setting: 40% of 5",
    ],
)
def test_calculate_num_candidates(
    num_nodes: int, percentage: int, absolute: int, expected: int
) -> None:
    plugin = DefaultPreemption(Framework("p"), DefaultPreemptionArgs(percentage, absolute))
    assert plugin.calculate_num_candidates(num_nodes) == expected


def test_the_offset_comes_from_the_frameworks_seeded_rng() -> None:
    def offsets(seed: int) -> list[int]:
        plugin = DefaultPreemption(Framework("p", rng=random.Random(seed)))
        return [plugin.get_offset_and_num_candidates(7)[0] for _ in range(20)]

    assert offsets(3) == offsets(3)
    assert all(0 <= o < 7 for o in offsets(3))
    assert offsets(3) != offsets(4)
