"""CoschedulingArgs: defaults, validation, and the configuration that carries them.

Expectations from ``kubernetes-sigs/scheduler-plugins``: the defaults of
``SetDefaults_CoschedulingArgs`` (``apis/config/v1/defaults.go``: 60 and 0),
the checks and wording of ``ValidateCoschedulingArgs``
(``apis/config/validation/validation_pluginargs.go``), and the strict
decoding of plugin args by the scheme (``apis/config/scheme/scheme_test.go``
decodes ``CoschedulingArgs`` from a v1 configuration).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.config import ConfigError, loads_config, out_of_tree_args
from framework.config.args_coscheduling import (
    CoschedulingArgs,
    InvalidArgsError,
    coscheduling_args_from,
)
from framework.config.framework_checks import FrameworkConfigError
from framework.plugins import coscheduling
from framework.runtime.build import new_framework
from tests.plugins.coscheduling.helpers import coscheduling_config, scheduler_plugins_registry

PROFILE = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    queueSort: {{enabled: [{{name: Coscheduling}}], disabled: [{{name: "*"}}]}}
  pluginConfig:
  - name: Coscheduling
    args: {args}
"""


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, CoschedulingArgs(60, 0)),
        ({}, CoschedulingArgs(60, 0)),
        ({"permitWaitingTimeSeconds": 10}, CoschedulingArgs(10, 0)),
        ({"podGroupBackoffSeconds": 30}, CoschedulingArgs(60, 30)),
        ({"permitWaitingTimeSeconds": 0, "podGroupBackoffSeconds": 0}, CoschedulingArgs(0, 0)),
        (
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "CoschedulingArgs",
                "permitWaitingTimeSeconds": 5,
            },
            CoschedulingArgs(5, 0),
        ),
        (CoschedulingArgs(7, 3), CoschedulingArgs(7, 3)),
    ],
    ids=[
        "nothing given",
        "empty",
        "the wait",
        "the backoff",
        "zeros are allowed",
        "with apiVersion and kind",
        "already args",
    ],
)
def test_args_are_defaulted(given: Any, expected: CoschedulingArgs) -> None:
    assert coscheduling_args_from(given) == expected


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"permitWaitingTimeSeconds": -1},
            "permitWaitingTimeSeconds: Invalid value: -1: must be greater than 0",
        ),
        (
            {"permitWaitingTimeSeconds": -1, "podGroupBackoffSeconds": -5},
            "[permitWaitingTimeSeconds: Invalid value: -1: must be greater than 0, "
            "podGroupBackoffSeconds: Invalid value: -5: must be greater than 0]",
        ),
        (
            {"permitWaitingTimeSeconds": "10"},
            "decoding CoschedulingArgs: permitWaitingTimeSeconds: expected an integer, got a "
            "string ('10')",
        ),
        (
            {"permitWaitingTime": 10},
            'decoding CoschedulingArgs: permitWaitingTime: unknown field "permitWaitingTime"; '
            'did you mean "permitWaitingTimeSeconds"? (field names are case-sensitive)',
        ),
        ([10], "want args to be of type CoschedulingArgs, got list"),
    ],
    ids=["a negative wait", "every problem at once", "a string", "a typo", "not a mapping"],
)
def test_bad_args_are_refused_with_the_field_and_the_value(given: Any, message: str) -> None:
    with pytest.raises(InvalidArgsError) as raised:
        coscheduling_args_from(given)
    assert str(raised.value) == message


def test_a_scheduler_plugins_configuration_defaults_the_args_of_an_enabled_coscheduling() -> None:
    config = coscheduling_config("{}")
    (args,) = [c.args for c in config.profiles[0].plugin_config if c.name == coscheduling.NAME]
    assert args == {"permitWaitingTimeSeconds": 60, "podGroupBackoffSeconds": 0}


def test_the_configuration_reports_bad_args_with_their_path() -> None:
    with pytest.raises(ConfigError) as raised:
        loads_config(
            PROFILE.format(args="{permitWaitingTimeSeconds: -1, podGroupBackoffSeconds: -2}"),
            args=out_of_tree_args(),
        )
    assert [(p.field, p.message) for p in raised.value.problems] == [
        (
            "profiles[0].pluginConfig[0].args.permitWaitingTimeSeconds",
            "Invalid value: -1: must be greater than 0",
        ),
        (
            "profiles[0].pluginConfig[0].args.podGroupBackoffSeconds",
            "Invalid value: -2: must be greater than 0",
        ),
    ]


def test_without_scheduler_plugins_args_the_factory_refuses_what_the_loader_let_through() -> None:
    # kube-scheduler alone passes an out-of-tree plugin's args through untouched.
    config = loads_config(PROFILE.format(args="{podGroupBackoffSeconds: -1}"))
    with pytest.raises(FrameworkConfigError) as raised:
        new_framework(scheduler_plugins_registry(), config.profiles[0])
    assert str(raised.value) == (
        'initializing plugin "Coscheduling": podGroupBackoffSeconds: Invalid value: -1: '
        "must be greater than 0"
    )


def test_the_factory_reads_its_args_from_the_profile() -> None:
    config = coscheduling_config("{permitWaitingTimeSeconds: 5, podGroupBackoffSeconds: 7}")
    fwk = new_framework(scheduler_plugins_registry(), config.profiles[0])
    (plugin,) = fwk.plugins["permit"]
    assert isinstance(plugin, coscheduling.Coscheduling)
    assert (plugin.schedule_timeout, plugin.pg_backoff) == (5.0, 7.0)
