"""NodeResourcesFitArgs: strict decoding, defaults, validation, and the same rules through a config file.

Validation cases port ``TestValidateFitArgs``,
``TestValidateLeastAllocatedScoringStrategy``,
``TestValidateMostAllocatedScoringStrategy`` and
``TestValidateRequestedToCapacityRatioScoringStrategy`` of
``kubernetes/kubernetes:pkg/scheduler/apis/config/validation/validation_pluginargs_test.go``;
defaults follow ``SetDefaults_NodeResourcesFitArgs`` in
``pkg/scheduler/apis/config/v1/defaults.go`` (v1.33).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.config import ConfigError, default_plugin_args, loads_config
from framework.config.args_noderesources import (
    DEFAULT_RESOURCES,
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    InvalidArgsError,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    aggregate,
    decode_node_resources_balanced_allocation_args,
    decode_node_resources_fit_args,
    set_defaults_node_resources_balanced_allocation_args,
    set_defaults_node_resources_fit_args,
    validate_node_resources_fit_args,
)
from framework.objects import ObjectInvalid
from framework.plugins.noderesources import fit

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
DEFAULT_STRATEGY = ScoringStrategy(LEAST_ALLOCATED, DEFAULT_RESOURCES)
QUALIFIED = "a qualified name must consist of alphanumeric characters"


# --- decoding ---------------------------------------------------------------------------------


def test_args_decode_from_their_camel_case_keys() -> None:
    args = decode_node_resources_fit_args(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "NodeResourcesFitArgs",
            "ignoredResources": ["example.com/foo"],
            "ignoredResourceGroups": ["example.org"],
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "resources": [{"name": "cpu", "weight": 2}],
                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 10}]},
            },
        }
    )
    assert args == NodeResourcesFitArgs(
        ("example.com/foo",),
        ("example.org",),
        ScoringStrategy(
            REQUESTED_TO_CAPACITY_RATIO,
            (ResourceSpec("cpu", 2),),
            RequestedToCapacityRatioParam((UtilizationShapePoint(0, 10),)),
        ),
    )


@pytest.mark.parametrize(
    ("data", "problems"),
    [
        (
            {"scoringStrategy": {"typ": "MostAllocated"}},
            [("scoringStrategy.typ", 'unknown field "typ"; did you mean "type"?')],
        ),
        (
            {"scoringStrategy": {"resources": [{"name": "cpu", "weight": "1"}]}},
            [("scoringStrategy.resources[0].weight", "expected an integer")],
        ),
        (
            {"scoringStrategy": {"requestedToCapacityRatio": {"shape": [{"score": 2**31}]}}},
            [("scoringStrategy.requestedToCapacityRatio.shape[0].score", "does not fit")],
        ),
        ({"ignoredResources": "example.com/foo"}, [("ignoredResources", "expected a list")]),
    ],
    ids=[
        "a misspelt key",
        "a weight that is a string",
        "a score beyond int32",
        "a string for a list",
    ],
)
def test_decoding_is_strict_and_names_each_bad_field(
    data: dict[str, Any], problems: list[tuple[str, str]]
) -> None:
    with pytest.raises(ObjectInvalid) as raised:
        decode_node_resources_fit_args(data)
    got = [(e.path, e.message) for e in raised.value.errors]
    assert [path for path, _ in got] == [path for path, _ in problems]
    assert all(want in message for (_, message), (_, want) in zip(got, problems, strict=True))


# --- defaults --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "want"),
    [
        pytest.param(
            NodeResourcesFitArgs(),
            DEFAULT_STRATEGY,
            id="no strategy: LeastAllocated on cpu and memory",
        ),
        pytest.param(
            NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(MOST_ALLOCATED)),
            ScoringStrategy(MOST_ALLOCATED, DEFAULT_RESOURCES),
            id="a strategy without resources gets cpu and memory",
        ),
        pytest.param(
            NodeResourcesFitArgs(
                scoring_strategy=ScoringStrategy(
                    MOST_ALLOCATED, (ResourceSpec("cpu", 0), ResourceSpec("example.com/gpu", 3))
                )
            ),
            ScoringStrategy(
                MOST_ALLOCATED, (ResourceSpec("cpu", 1), ResourceSpec("example.com/gpu", 3))
            ),
            id="a weight of 0 becomes 1",
        ),
        pytest.param(
            NodeResourcesFitArgs(
                scoring_strategy=ScoringStrategy(resources=(ResourceSpec("cpu", 2),))
            ),
            ScoringStrategy("", (ResourceSpec("cpu", 2),)),
            id="a strategy without a type keeps none (validation refuses it)",
        ),
    ],
)
def test_fit_args_defaults(given: NodeResourcesFitArgs, want: ScoringStrategy) -> None:
    defaulted = set_defaults_node_resources_fit_args(given)
    assert defaulted.scoring_strategy == want
    assert set_defaults_node_resources_fit_args(defaulted) == defaulted, "defaulting is idempotent"


def test_balanced_allocation_args_defaults() -> None:
    empty = NodeResourcesBalancedAllocationArgs()
    assert (
        set_defaults_node_resources_balanced_allocation_args(empty).resources == DEFAULT_RESOURCES
    )
    zero = NodeResourcesBalancedAllocationArgs((ResourceSpec("memory", 0),))
    assert set_defaults_node_resources_balanced_allocation_args(zero).resources == (
        ResourceSpec("memory", 1),
    )


@pytest.mark.parametrize("plugin", ["NodeResourcesFit", "NodeResourcesBalancedAllocation"])
def test_the_configuration_defaults_agree_with_the_typed_defaults(plugin: str) -> None:
    # framework.config.args defaults the dicts of a file; the typed functions, these classes.
    as_config = default_plugin_args(plugin)
    if plugin == "NodeResourcesFit":
        typed: Any = set_defaults_node_resources_fit_args(NodeResourcesFitArgs())
        assert decode_node_resources_fit_args(as_config) == typed
    else:
        typed = set_defaults_node_resources_balanced_allocation_args(
            NodeResourcesBalancedAllocationArgs()
        )
        assert decode_node_resources_balanced_allocation_args(as_config) == typed


# --- validation ----------------------------------------------------------------------------------


def with_strategy(**fields: Any) -> NodeResourcesFitArgs:
    return NodeResourcesFitArgs(scoring_strategy=DEFAULT_STRATEGY, **fields)


FIT_ARGS = [
    pytest.param(
        with_strategy(ignored_resources=("longvalue" + "a" * 64,)),
        "name part must be no more than 63 characters",
        id="IgnoredResources: too long value",
    ),
    pytest.param(
        with_strategy(ignored_resources=("example.com/",)),
        "name part must be non-empty",
        id="IgnoredResources: name is empty",
    ),
    pytest.param(
        with_strategy(ignored_resources=("example.com/aaa/bbb",)),
        QUALIFIED,
        id="IgnoredResources: name has too many slash",
    ),
    pytest.param(
        with_strategy(ignored_resources=("example.com",)), None, id="IgnoredResources: valid args"
    ),
    pytest.param(
        with_strategy(ignored_resource_groups=("example.com",)),
        None,
        id="IgnoredResourceGroups: valid args",
    ),
    pytest.param(
        with_strategy(ignored_resource_groups=("example.com/",)),
        "name part must be non-empty",
        id="IgnoredResourceGroups: illegal args",
    ),
    pytest.param(
        with_strategy(ignored_resource_groups=("a" * 64,)),
        "name part must be no more than 63 characters",
        id="IgnoredResourceGroups: name is too long",
    ),
    pytest.param(
        with_strategy(ignored_resource_groups=("example.com/aa",)),
        "resource group name can't contain '/'",
        id="IgnoredResourceGroups: name cannot be contain slash",
    ),
    pytest.param(
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("Invalid")),
        'Unsupported value: "Invalid"',
        id="ScoringStrategy: type is unsupported",
    ),
]


@pytest.mark.parametrize(("args", "expect"), FIT_ARGS)
def test_validate_fit_args(args: NodeResourcesFitArgs, expect: str | None) -> None:
    causes = validate_node_resources_fit_args(args)
    if expect is None:
        assert causes == []
    else:
        assert expect in aggregate(causes)


def strategy_errors(
    kind: str,
    resources: tuple[ResourceSpec, ...] = (),
    shape: tuple[tuple[int, int], ...] | None = None,
) -> list[tuple[str, str]]:
    rtcr = None
    if shape is not None:
        rtcr = RequestedToCapacityRatioParam(tuple(UtilizationShapePoint(u, s) for u, s in shape))
    args = NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(kind, resources, rtcr))
    return [(c.type, c.field) for c in validate_node_resources_fit_args(args)]


WEIGHT_CASES = [
    pytest.param((), [], id="default config"),
    pytest.param(
        (ResourceSpec("cpu", 1), ResourceSpec("memory", 10)), [], id="multi valid resources"
    ),
    pytest.param(
        (ResourceSpec("cpu", 0),),
        [("Invalid value", "scoringStrategy.resources[0].weight")],
        id="weight less than min",
    ),
    pytest.param(
        (ResourceSpec("cpu", 101),),
        [("Invalid value", "scoringStrategy.resources[0].weight")],
        id="weight greater than max",
    ),
    pytest.param(
        (ResourceSpec("cpu", 0), ResourceSpec("memory", 101)),
        [
            ("Invalid value", "scoringStrategy.resources[0].weight"),
            ("Invalid value", "scoringStrategy.resources[1].weight"),
        ],
        id="multi invalid resources",
    ),
]


@pytest.mark.parametrize("kind", [LEAST_ALLOCATED, MOST_ALLOCATED])
@pytest.mark.parametrize(("resources", "want"), WEIGHT_CASES)
def test_validate_strategy_weights(
    kind: str, resources: tuple[ResourceSpec, ...], want: list[tuple[str, str]]
) -> None:
    assert strategy_errors(kind, resources) == want


SHAPE = ((30, 3),)
SHAPE_CASES = [
    pytest.param((), None, [("Required value", "scoringStrategy.shape")], id="no shapes"),
    pytest.param(
        (ResourceSpec("cpu", 101),),
        SHAPE,
        [("Invalid value", "scoringStrategy.resources[0].weight")],
        id="weight greater than max",
    ),
    pytest.param(
        (ResourceSpec("cpu", 0),),
        SHAPE,
        [("Invalid value", "scoringStrategy.resources[0].weight")],
        id="weight less than min",
    ),
    pytest.param((), SHAPE, [], id="valid shapes"),
    pytest.param(
        (),
        ((-1, 3),),
        [("Invalid value", "scoringStrategy.shape[0].utilization")],
        id="utilization less than min",
    ),
    pytest.param(
        (),
        ((101, 3),),
        [("Invalid value", "scoringStrategy.shape[0].utilization")],
        id="utilization greater than max",
    ),
    pytest.param(
        (),
        ((10, 3), (10, 3)),
        [("Invalid value", "scoringStrategy.shape[1].utilization")],
        id="duplicated utilization values",
    ),
    pytest.param((), ((10, 3), (20, 3), (30, 3)), [], id="increasing utilization values"),
    pytest.param(
        (),
        ((10, 3), (20, 3), (15, 3)),
        [("Invalid value", "scoringStrategy.shape[2].utilization")],
        id="non-increasing utilization values",
    ),
    pytest.param(
        (),
        ((10, -1),),
        [("Invalid value", "scoringStrategy.shape[0].score")],
        id="score less than min",
    ),
    pytest.param(
        (),
        ((10, 11),),
        [("Invalid value", "scoringStrategy.shape[0].score")],
        id="score greater than max",
    ),
]


@pytest.mark.parametrize(("resources", "shape", "want"), SHAPE_CASES)
def test_validate_requested_to_capacity_ratio_strategy(
    resources: tuple[ResourceSpec, ...],
    shape: tuple[tuple[int, int], ...] | None,
    want: list[tuple[str, str]],
) -> None:
    # "no shapes" gives the strategy an empty shape, as Go's nil Shape inside a present param.
    assert strategy_errors(REQUESTED_TO_CAPACITY_RATIO, resources, shape or ()) == want


def test_every_problem_is_reported_with_kubernetes_wording() -> None:
    args = NodeResourcesFitArgs(
        ignored_resource_groups=("example.com/aa",),
        scoring_strategy=ScoringStrategy("Most", (ResourceSpec("cpu", 0),)),
    )
    assert aggregate(validate_node_resources_fit_args(args)) == (
        '[ignoredResourceGroups[0]: Invalid value: "example.com/aa": '
        "resource group name can't contain '/', "
        'scoringStrategy.type: Unsupported value: "Most": supported values: '
        '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio", '
        "scoringStrategy.resources[0].weight: Invalid value: 0: "
        "resource weight of cpu not in valid range (0, 100]]"
    )


# --- the factory and the configuration file --------------------------------------------------


def test_the_factory_decodes_and_defaults_plugin_config_args() -> None:
    plugin = fit.new({"scoringStrategy": {"type": "MostAllocated"}}, None)
    assert plugin.args.scoring_strategy == ScoringStrategy(MOST_ALLOCATED, DEFAULT_RESOURCES)
    assert plugin.scorer.name == MOST_ALLOCATED
    assert fit.new(None, None).scorer.name == LEAST_ALLOCATED


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"scoringStrategy": {"type": "Most"}}, 'scoringStrategy.type: Unsupported value: "Most"'),
        (
            {"scoringStrateg": {}},
            'decoding NodeResourcesFitArgs: scoringStrateg: unknown field "scoringStrateg"',
        ),
        ("LeastAllocated", "want args to be of type NodeResourcesFitArgs, got str"),
    ],
    ids=["invalid", "not decodable", "not an object"],
)
def test_the_factory_refuses_bad_args(args: Any, message: str) -> None:
    with pytest.raises(InvalidArgsError) as raised:
        fit.new(args, None)
    assert message in str(raised.value)


def test_a_typed_args_object_without_a_strategy_is_refused() -> None:
    """``NewFit`` does not default: typed args come from a decoder that already did."""
    with pytest.raises(InvalidArgsError, match=r"^scoring strategy not specified$"):
        fit.Fit(NodeResourcesFitArgs())


def config_problems(plugin_config: str) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as raised:
        loads_config(HEADER + "profiles:\n- pluginConfig:\n" + plugin_config, "sched.yaml")
    return [(p.field, p.message) for p in raised.value.problems]


def test_a_configuration_file_gets_nested_strict_decoding() -> None:
    problems = config_problems(
        "  - name: NodeResourcesFit\n"
        "    args: {scoringStrategy: {type: MostAllocated, resourcez: [], "
        "resources: [{name: cpu, weight: x}]}}\n"
    )
    assert [field for field, _ in problems] == [
        "profiles[0].pluginConfig[0].args.scoringStrategy.resourcez",
        "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight",
    ]


def test_a_configuration_file_gets_the_validation_with_full_paths() -> None:
    problems = config_problems(
        "  - name: NodeResourcesFit\n"
        "    args:\n"
        "      scoringStrategy:\n"
        "        type: RequestedToCapacityRatio\n"
        "        resources: [{name: cpu, weight: 200}]\n"
        "        requestedToCapacityRatio: {shape: [{utilization: 50, score: 1}, {utilization: 40, score: 11}]}\n"
        "  - name: NodeResourcesBalancedAllocation\n"
        "    args: {resources: [{name: cpu, weight: 2}, {name: cpu}]}\n"
    )
    assert problems == [
        (
            "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight",
            "Invalid value: 200: resource weight of cpu not in valid range (0, 100]",
        ),
        (
            "profiles[0].pluginConfig[0].args.scoringStrategy.shape[1].utilization",
            "Invalid value: 40: values must be sorted in increasing order",
        ),
        (
            "profiles[0].pluginConfig[0].args.scoringStrategy.shape[1].score",
            "Invalid value: 11: not in valid range [0, 10]",
        ),
        ("profiles[0].pluginConfig[1].args.resources[0].weight", "Invalid value: 2: must be 1"),
        ("profiles[0].pluginConfig[1].args.resources[1].name", 'Duplicate value: "cpu"'),
    ]


def test_a_valid_configuration_is_defaulted_field_by_field() -> None:
    config = loads_config(
        HEADER
        + "profiles:\n- pluginConfig:\n"
        + "  - {name: NodeResourcesFit, args: {scoringStrategy: {type: MostAllocated}}}\n"
    )
    assert config.profiles[0].args_for("NodeResourcesFit") == {
        "scoringStrategy": {
            "type": "MostAllocated",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        }
    }
