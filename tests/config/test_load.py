"""Reading a configuration: strict decoding, the API version, and every problem reported at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.config import (
    API_VERSION,
    ConfigError,
    KubeSchedulerConfiguration,
    config_from_dict,
    decode_config,
    load_config,
    loads_config,
)
from framework.config.strict import MSG_UNKNOWN_FIELD, parse_duration
from tests.config.helpers import HEADER


def problems_of(text: str) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as raised:
        loads_config(text, "sched.yaml")
    return [(p.field, p.message) for p in raised.value.problems]


def test_the_smallest_file_is_a_complete_configuration() -> None:
    config = loads_config(HEADER)
    assert isinstance(config, KubeSchedulerConfiguration)
    assert config.api_version == API_VERSION
    assert [p.scheduler_name for p in config.profiles] == ["default-scheduler"]


def test_a_file_path_and_json_text_load_the_same(tmp_path: Path) -> None:
    path = tmp_path / "sched.yaml"
    path.write_text(HEADER + "parallelism: 8\n")
    from_path = load_config(path)
    from_name = load_config(str(path))
    from_json = load_config(
        '{"apiVersion": "kubescheduler.config.k8s.io/v1", '
        '"kind": "KubeSchedulerConfiguration", "parallelism": 8}'
    )
    assert from_path == from_name == from_json
    assert from_path.parallelism == 8


def test_a_missing_file_is_a_config_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read file"):
        load_config(tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        (HEADER + "profiles:\n- plugin: {}\n", "profiles[0].plugin", 'did you mean "plugins"?'),
        (HEADER + "Parallelism: 4\n", "Parallelism", 'did you mean "parallelism"?'),
        (
            HEADER + "profiles:\n- plugins:\n    score:\n      enable: []\n",
            "profiles[0].plugins.score.enable",
            'did you mean "enabled"?',
        ),
        (HEADER + "zzz: 1\n", "zzz", "the known fields here are: apiVersion, clientConnection"),
        (HEADER + "healthzBindAddress: 0.0.0.0:10251\n", "healthzBindAddress", "--secure-port"),
        (
            HEADER + "leaderElection: {leaderElected: true}\n",
            "leaderElection.leaderElected",
            "leaderElect",
        ),
    ],
    ids=[
        "plugin for plugins",
        "wrong case",
        "enable for enabled",
        "nothing close",
        "a field v1 removed",
        "inside leaderElection",
    ],
)
def test_an_unknown_field_is_an_error_with_its_path_and_a_suggestion(
    text: str, field: str, message: str
) -> None:
    ((where, what),) = problems_of(text)
    assert where == field
    assert what.startswith(MSG_UNKNOWN_FIELD.format(field=field.rsplit(".", 1)[-1].split("]")[-1]))
    assert message in what


def test_a_key_written_twice_is_an_error_not_a_silent_overwrite() -> None:
    ((_, message),) = problems_of(HEADER + "parallelism: 4\nparallelism: 8\n")
    assert "invalid YAML" in message and "'parallelism' already defined" in message


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("kubescheduler.config.k8s.io/v1beta3", "was removed in Kubernetes v1.29"),
        ("kubescheduler.config.k8s.io/v1beta2", "was removed in Kubernetes v1.28"),
        ("kubescheduler.config.k8s.io/v1alpha1", "is registered for version"),
        ("v1", "is registered for version"),
    ],
    ids=["v1beta3", "v1beta2", "an alpha version", "the core group"],
)
def test_only_the_v1_api_version_is_read_and_old_ones_say_how_to_migrate(
    version: str, expected: str
) -> None:
    ((field, message),) = problems_of(f"apiVersion: {version}\nkind: KubeSchedulerConfiguration\n")
    assert field == "apiVersion"
    assert expected in message and f"{API_VERSION}" in message


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("apiVersion: kubescheduler.config.k8s.io/v1\n", "kind", "is required"),
        ("kind: KubeSchedulerConfiguration\n", "apiVersion", "is required"),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n",
            "kind",
            "not a scheduler configuration",
        ),
        ("", "", "expected an object, got an empty document"),
        ("- a\n- b\n", "", "expected an object, got list"),
        (HEADER + "---\n" + HEADER, "", "found 2 documents"),
    ],
    ids=["no kind", "no apiVersion", "another kind", "empty file", "a list", "two documents"],
)
def test_a_file_that_is_not_one_scheduler_configuration_is_refused(
    text: str, field: str, message: str
) -> None:
    problems = problems_of(text)
    assert any(f == field and message in m for f, m in problems), problems


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("parallelism: four", "parallelism", "expected an integer"),
        ("parallelism: 3000000000", "parallelism", "does not fit in this field's Go type int32"),
        ("enableProfiling: yes please", "enableProfiling", "expected true or false"),
        ("clientConnection: {qps: fast}", "clientConnection.qps", "expected a number"),
        (
            "leaderElection: {leaseDuration: 15}",
            "leaderElection.leaseDuration",
            "expected a string",
        ),
        ("leaderElection: {leaseDuration: '15'}", "leaderElection.leaseDuration", "missing unit"),
        (
            "leaderElection: {leaseDuration: 15 s}",
            "leaderElection.leaseDuration",
            "invalid duration",
        ),
        ("profiles: {}", "profiles", "expected a list"),
    ],
    ids=[
        "text for a number",
        "too big for int32",
        "text for a boolean",
        "text for a float",
        "a number for a duration",
        "a duration without unit",
        "a malformed duration",
        "an object for a list",
    ],
)
def test_a_value_of_the_wrong_type_is_an_error_at_its_path(
    line: str, field: str, message: str
) -> None:
    ((where, what),) = problems_of(HEADER + line + "\n")
    assert where == field and message in what


def test_a_weight_too_big_for_int32_is_reported_at_its_full_path() -> None:
    text = (
        HEADER
        + "profiles:\n- plugins:\n    score:\n      enabled:\n"
        + "      - {name: A}\n      - {name: B, weight: 2147483648}\n"
    )
    ((where, what),) = problems_of(text)
    assert where == "profiles[0].plugins.score.enabled[1].weight"
    assert "int32" in what


def test_every_decoding_problem_of_a_file_is_reported_together() -> None:
    text = HEADER + (
        "parallelism: many\n"
        "profiles:\n"
        "- schedulerName: a\n"
        "  plugin: {}\n"
        "  pluginConfig:\n"
        "  - name: NodeResourcesFit\n"
        "    args: {scoringStrateg: {}}\n"
        "- schedulerName: b\n"
        "  plugins: {score: {enabled: [{name: X, weight: x}]}}\n"
    )
    with pytest.raises(ConfigError) as raised:
        loads_config(text, "sched.yaml")
    fields = [p.field for p in raised.value.problems]
    assert fields == [
        "parallelism",
        "profiles[0].plugin",
        "profiles[1].plugins.score.enabled[0].weight",
        "profiles[0].pluginConfig[0].args.scoringStrateg",
    ]
    first = str(raised.value).splitlines()[0]
    assert first.startswith(
        "sched.yaml: KubeSchedulerConfiguration: parallelism: expected an integer"
    )


@pytest.mark.parametrize(
    ("args", "field", "message"),
    [
        (
            {"scoringStrateg": {}},
            "args.scoringStrateg",
            'unknown field "scoringStrateg" in NodeResourcesFitArgs',
        ),
        ({"kind": "DefaultPreemptionArgs"}, "args.kind", "were not of type NodeResourcesFitArgs"),
        ({"apiVersion": "kubescheduler.config.k8s.io/v1beta3"}, "args.apiVersion", "must be"),
        ([1, 2], "args", "expected an object (NodeResourcesFitArgs)"),
    ],
    ids=["unknown field", "another kind", "another version", "not an object"],
)
def test_in_tree_plugin_args_are_decoded_strictly(args: object, field: str, message: str) -> None:
    data = {
        "apiVersion": API_VERSION,
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": args}]}],
    }
    with pytest.raises(ConfigError) as raised:
        decode_config(data)
    ((problem),) = raised.value.problems
    assert problem.field == f"profiles[0].pluginConfig[0].{field}"
    assert message in problem.message


def test_out_of_tree_plugin_args_pass_through_untouched() -> None:
    args = {"anything": [1, {"goes": True}]}
    data = {
        "apiVersion": API_VERSION,
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"pluginConfig": [{"name": "MyGangPermit", "args": args}]}],
    }
    config = config_from_dict(data)
    assert config.profiles[0].args_for("MyGangPermit") == args


def test_a_configuration_round_trips_through_to_dict() -> None:
    config = loads_config(HEADER + "parallelism: 4\nprofiles:\n- schedulerName: a\n")
    again = config_from_dict(config.to_dict())
    assert again == config


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("0", 0.0), ("15s", 15.0), ("1m30s", 90.0), ("250ms", 0.25), ("1.5h", 5400.0), ("-2s", -2.0)],
)
def test_go_durations_parse_to_seconds(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "15", "s", "15x", "1m 30s", "m5"])
def test_malformed_go_durations_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="time: "):
        parse_duration(text)
