"""InterPodAffinityArgs: defaults, validation and the configuration file.

Cases from ``TestValidateInterPodAffinityArgs`` in
``kubernetes/kubernetes:pkg/scheduler/apis/config/validation/validation_pluginargs_test.go``
and ``SetDefaults_InterPodAffinityArgs`` in ``pkg/scheduler/apis/config/v1/defaults_test.go`` (v1.33).
"""

from __future__ import annotations

import pytest

from framework.config import ConfigError, default_plugin_args, loads_config
from framework.config.args_interpodaffinity import (
    InvalidArgsError,
    aggregate,
    inter_pod_affinity_args_from,
    validate_inter_pod_affinity_args,
)
from framework.plugins.interpodaffinity import InterPodAffinityArgs, new
from framework.runtime.framework import Framework

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def test_defaults_are_weight_1_and_existing_pods_counted() -> None:
    assert default_plugin_args("InterPodAffinity") == {"hardPodAffinityWeight": 1}
    args = inter_pod_affinity_args_from(None)
    assert args == InterPodAffinityArgs(1, False)
    # A weight written as 0 stays 0: only a missing (nil) weight is defaulted.
    assert inter_pod_affinity_args_from({"hardPodAffinityWeight": 0}).hard_pod_affinity_weight == 0


@pytest.mark.parametrize(
    ("weight", "message"),
    [
        (0, None),  # "valid args"
        (100, None),
        (-1, "hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"),
        (101, "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"),
    ],
)
def test_hard_pod_affinity_weight_must_be_0_to_100(weight: int, message: str | None) -> None:
    causes = validate_inter_pod_affinity_args(InterPodAffinityArgs(weight))
    assert (aggregate(causes) if causes else None) == message


def test_the_factory_refuses_bad_args() -> None:
    fwk = Framework("p")
    with pytest.raises(InvalidArgsError, match=r"not in valid range \[0, 100\]"):
        new({"hardPodAffinityWeight": 101}, fwk)
    with pytest.raises(InvalidArgsError, match="decoding InterPodAffinityArgs"):
        new({"hardPodAffinityWeigth": 1}, fwk)
    plugin = new({"ignorePreferredTermsOfExistingPods": True}, fwk)
    assert plugin.args == InterPodAffinityArgs(1, True)


def test_a_configuration_file_is_validated() -> None:
    with pytest.raises(ConfigError) as raised:
        loads_config(
            HEADER + "profiles:\n- pluginConfig:\n"
            "  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 200}\n",
            "sched.yaml",
        )
    problems = [(p.field, p.message) for p in raised.value.problems]
    assert problems == [
        (
            "profiles[0].pluginConfig[0].args.hardPodAffinityWeight",
            "Invalid value: 200: not in valid range [0, 100]",
        )
    ]


def test_a_configuration_file_gets_strict_decoding() -> None:
    with pytest.raises(ConfigError) as raised:
        loads_config(
            HEADER + "profiles:\n- pluginConfig:\n"
            "  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: x}\n",
            "sched.yaml",
        )
    assert [p.field for p in raised.value.problems] == [
        "profiles[0].pluginConfig[0].args.hardPodAffinityWeight"
    ]
