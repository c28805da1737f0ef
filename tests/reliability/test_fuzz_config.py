"""Hostile KubeSchedulerConfigurations: a loaded configuration or one ConfigError naming file and field.

:func:`framework.config.loads_config` and :func:`~framework.config.load_config`
decode strictly, default and validate, as ``kube-scheduler --config`` does
(``cmd/kube-scheduler/app/options/configfile.go``, the strict codecs of
``pkg/scheduler/apis/config/scheme``, ``pkg/scheduler/apis/config/validation``,
v1.33). Whatever they are given, they return a configuration or raise
:class:`~framework.config.errors.ConfigError` (never another exception),
whose every problem names the file and, when it is about a field, the
field's path (``profiles[0].plugins.score.enabled[0].weight``).
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.config import load_config, loads_config
from framework.config.errors import ConfigError
from framework.config.types import KubeSchedulerConfiguration
from tests.reliability.conftest import report
from tests.reliability.test_fuzz_manifests import HOSTILE, delete_at, paths, set_at

SOURCE = "fuzz-config.yaml"
HEADER = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}

VALID: list[dict[str, Any]] = [
    {**HEADER},
    {
        **HEADER,
        "parallelism": 8,
        "percentageOfNodesToScore": 50,
        "podInitialBackoffSeconds": 2,
        "podMaxBackoffSeconds": 20,
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "score": {
                        "enabled": [{"name": "NodeResourcesFit", "weight": 3}],
                        "disabled": [{"name": "ImageLocality"}],
                    }
                },
                "pluginConfig": [
                    {
                        "name": "NodeResourcesFit",
                        "args": {
                            "scoringStrategy": {
                                "type": "RequestedToCapacityRatio",
                                "resources": [{"name": "cpu", "weight": 1}],
                                "requestedToCapacityRatio": {
                                    "shape": [
                                        {"utilization": 0, "score": 0},
                                        {"utilization": 100, "score": 10},
                                    ]
                                },
                            }
                        },
                    },
                    {
                        "name": "DefaultPreemption",
                        "args": {
                            "minCandidateNodesPercentage": 10,
                            "minCandidateNodesAbsolute": 100,
                        },
                    },
                ],
            }
        ],
    },
    {
        **HEADER,
        "profiles": [
            {"schedulerName": "default-scheduler"},
            {
                "schedulerName": "spread",
                "plugins": {"multiPoint": {"enabled": [{"name": "PodTopologySpread"}]}},
                "pluginConfig": [
                    {
                        "name": "PodTopologySpread",
                        "args": {
                            "defaultingType": "List",
                            "defaultConstraints": [
                                {
                                    "maxSkew": 1,
                                    "topologyKey": "zone",
                                    "whenUnsatisfiable": "ScheduleAnyway",
                                }
                            ],
                        },
                    },
                    {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 5}},
                ],
            },
        ],
    },
]


@st.composite
def mutated_configs(draw: st.DrawFn) -> Any:
    doc = copy.deepcopy(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        if not isinstance(doc, dict | list):
            break
        path = draw(st.sampled_from(list(paths(doc))))
        action = draw(st.sampled_from(["value", "value", "delete", "unknown", "deep"]))
        if action == "value":
            doc = set_at(doc, path, draw(HOSTILE))
        elif action == "delete" and path:
            doc = delete_at(doc, path)
        elif action == "unknown":
            target: Any = doc
            for part in path:
                target = target[part]
            if isinstance(target, dict):
                target[draw(st.text(min_size=1, max_size=6))] = draw(HOSTILE)
        elif action == "deep":
            nested: Any = draw(HOSTILE)
            for _ in range(draw(st.sampled_from([10, 3000]))):
                nested = {"a": nested}
            doc = set_at(doc, path, nested)
    return doc


@pytest.fixture(scope="module")
def tried() -> Iterator[Counter[str]]:
    counts: Counter[str] = Counter()
    yield counts
    report("configuration fuzzing", counts)


def check(text: str, tried: Counter[str]) -> KubeSchedulerConfiguration | None:
    tried["inputs"] += 1
    try:
        config = loads_config(text, SOURCE)
    except ConfigError as error:
        assert error.problems, "a ConfigError with no problem in it"
        for problem in error.problems:
            assert problem.source == SOURCE, problem
            assert problem.message, problem
            assert str(problem).startswith(f"{SOURCE}: KubeSchedulerConfiguration: ")
        tried["refused with ConfigError"] += 1
        return None
    assert isinstance(config, KubeSchedulerConfiguration)
    assert config.profiles, "a loaded configuration is defaulted: it has a profile"
    tried["loaded"] += 1
    return config


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(doc=mutated_configs(), how=st.sampled_from(["yaml", "json"]))
def test_a_mutated_configuration_loads_or_fails_with_one_config_error(
    tried: Counter[str], doc: Any, how: str
) -> None:
    try:
        text = json.dumps(doc) if how == "json" else yaml.safe_dump(doc, sort_keys=False)
    except (RecursionError, ValueError):
        return
    check(text, tried)


@settings(max_examples=200)
@given(
    text=st.text(
        alphabet=st.sampled_from([*"apiVersion: kind\n{}[]&*!-'\",#|>%", "\x00"]),
        max_size=80,
    )
)
def test_garbage_is_refused_with_one_config_error(tried: Counter[str], text: str) -> None:
    check(text, tried)


NEAR_VALID = [
    (("profiles", 0, "plugins", "score", "enabled", 0, "weight"), "heavy",
     "profiles[0].plugins.score.enabled[0].weight", "expected an integer"),
    (("profiles", 0, "plugins", "score", "enabled", 0, "weight"), 2**40,
     "profiles[0].plugins.score.enabled[0].weight", "does not fit in this field's Go type int32"),
    (("parallelism",), 0, "parallelism", "should be an integer value greater than zero"),
    (("percentageOfNodesToScore",), 101, "percentageOfNodesToScore", "not in valid range [0-100]"),
    (("profiles", 0, "pluginConfig", 0, "args", "scoringStrategy", "type"), "Fancy",
     "profiles[0].pluginConfig[0].args.scoringStrategy.type", "Unsupported value"),
    (("profiles", 0, "pluginConfig", 1, "args", "minCandidateNodesPercentage"), "ten",
     "profiles[0].pluginConfig[1].args.minCandidateNodesPercentage", "expected an integer"),
    (("profiles", 0, "schedulerName"), ["default"], "profiles[0].schedulerName", "expected a string"),
    (("kind",), "Scheduler", "kind", "is not a scheduler configuration"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "value", "field", "says"), NEAR_VALID, ids=[f for _, _, f, _ in NEAR_VALID]
)
def test_a_near_valid_configuration_names_the_file_and_the_field(
    path: tuple[Any, ...], value: Any, field: str, says: str
) -> None:
    doc = set_at(copy.deepcopy(VALID[1]), path, value)
    with pytest.raises(ConfigError) as caught:
        loads_config(yaml.safe_dump(doc, sort_keys=False), SOURCE)
    problems = [p for p in caught.value.problems if p.field == field]
    assert problems, caught.value.problems
    assert all(p.source == SOURCE for p in caught.value.problems)
    assert says in problems[0].message


def test_an_unknown_field_is_named_with_the_known_ones() -> None:
    doc = copy.deepcopy(VALID[1])
    doc["profiles"][0]["plugin"] = {}
    with pytest.raises(ConfigError) as caught:
        loads_config(yaml.safe_dump(doc), SOURCE)
    (problem,) = caught.value.problems
    assert problem.field == "profiles[0].plugin"
    assert 'unknown field "plugin"' in problem.message


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe\x00k\x00i\x00n\x00d", b"apiVersion: \xc3\x28\n"],
    ids=["UTF-16 bytes", "invalid UTF-8"],
)
def test_a_file_that_is_not_utf8_is_one_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "sched.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    (problem,) = caught.value.problems
    assert problem.source == str(path)
    assert problem.message.startswith("cannot read file")


@pytest.mark.parametrize(
    "text",
    [
        "a: &a [*a]\n",
        "? [a, b]\n: 1\n",
        "x: " + "[" * 5000 + "]" * 5000,
        "a: &a ['lol','lol','lol','lol','lol','lol','lol','lol','lol','lol']\n"
        + "".join(
            f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n"
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ],
    ids=["recursive alias", "a key that is a list", "deep nesting", "a billion laughs"],
)
def test_yaml_tricks_are_one_config_error(tried: Counter[str], text: str) -> None:
    assert check(text, tried) is None
