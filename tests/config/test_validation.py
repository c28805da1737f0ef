"""Validation: kube-scheduler's rules, its field paths and words, every problem at once."""

from __future__ import annotations

import pytest

from framework.config import ArgsRegistry, ArgsSpec, ConfigError, in_tree_args, loads_config
from framework.config.validation import (
    MSG_BINDERS,
    MSG_EXTENDER_WEIGHT,
    MSG_GREATER_THAN_ZERO,
    MSG_INITIAL_BACKOFF,
    MSG_MAX_BACKOFF,
    MSG_ONLY_ONE_QUEUE_SORT,
    MSG_PARALLELISM,
    MSG_PERCENTAGE,
    MSG_QUEUE_SORT_ARGS,
    MSG_QUEUE_SORT_SAME,
    MSG_REMOVED_PLUGIN,
    MSG_RESOURCE_LOCK,
)
from tests.config.helpers import HEADER

REMOVED = MSG_REMOVED_PLUGIN.format(
    removed_in="kubescheduler.config.k8s.io/v1", version="kubescheduler.config.k8s.io/v1"
)


def problems_of(body: str, args: ArgsRegistry | None = None) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as raised:
        loads_config(HEADER + body, "sched.yaml", args=args)
    return [(p.field, p.message) for p in raised.value.problems]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ("parallelism: 0", "parallelism", f"Invalid value: 0: {MSG_PARALLELISM}"),
        (
            "percentageOfNodesToScore: 101",
            "percentageOfNodesToScore",
            f"Invalid value: 101: {MSG_PERCENTAGE}",
        ),
        (
            "percentageOfNodesToScore: -1",
            "percentageOfNodesToScore",
            f"Invalid value: -1: {MSG_PERCENTAGE}",
        ),
        (
            "podInitialBackoffSeconds: 0",
            "podInitialBackoffSeconds",
            f"Invalid value: 0: {MSG_INITIAL_BACKOFF}",
        ),
        (
            "podMaxBackoffSeconds: 0",
            "podMaxBackoffSeconds",
            f"Invalid value: 0: {MSG_MAX_BACKOFF}",
        ),
        (
            "profiles: [{percentageOfNodesToScore: 200}]",
            "profiles[0].percentageOfNodesToScore",
            f"Invalid value: 200: {MSG_PERCENTAGE}",
        ),
        (
            "profiles: [{schedulerName: ''}]",
            "profiles[0].schedulerName",
            "Required value",
        ),
        (
            "profiles: [{schedulerName: a, plugins: {filter: {enabled: [{name: EBSLimits}]}}}]",
            "profiles[0].plugins.filter.enabled[0]",
            f'Invalid value: "EBSLimits": {REMOVED}',
        ),
        (
            "profiles: [{schedulerName: a, pluginConfig: [{name: GCEPDLimits}]}]",
            "profiles[0].pluginConfig[0]",
            f'Invalid value: "GCEPDLimits": {REMOVED}',
        ),
        (
            "clientConnection: {burst: -1}",
            "clientConnection.burst",
            "Invalid value: -1: must be non-negative",
        ),
        (
            "leaderElection: {resourceLock: configmaps}",
            "leaderElection.resourceLock",
            f'Invalid value: "configmaps": {MSG_RESOURCE_LOCK}',
        ),
        (
            "leaderElection: {retryPeriod: -1s}",
            "leaderElection.retryPeriod",
            f'Invalid value: "-1s": {MSG_GREATER_THAN_ZERO}',
        ),
        (
            "leaderElection: {leaseDuration: 5s, renewDeadline: 10s}",
            "leaderElection.leaseDuration",
            'Invalid value: "10s": LeaseDuration must be greater than RenewDeadline',
        ),
        (
            "extenders: [{urlPrefix: 'http://e', prioritizeVerb: prioritize}]",
            "extenders[0].weight",
            f"Invalid value: 0: {MSG_EXTENDER_WEIGHT}",
        ),
        (
            "extenders: [{urlPrefix: 'http://a', bindVerb: bind}, {urlPrefix: 'http://b', bindVerb: bind}]",
            "extenders",
            f'Invalid value: "found 2 extenders implementing bind": {MSG_BINDERS}',
        ),
        (
            "extenders: [{urlPrefix: 'http://e', "
            "managedResources: [{name: example.com/gpu}, {name: example.com/gpu}]}]",
            "extenders[0].managedResources[1].name",
            'Invalid value: "example.com/gpu": duplicate extender managed resource name',
        ),
    ],
    ids=[
        "parallelism 0",
        "percentage above 100",
        "percentage below 0",
        "initial backoff 0",
        "max backoff below initial",
        "profile percentage out of range",
        "empty scheduler name",
        "a plugin removed from v1",
        "args for a plugin removed from v1",
        "negative burst",
        "a resource lock other than leases",
        "a negative duration",
        "lease not longer than renew deadline",
        "a prioritizing extender without weight",
        "two binding extenders",
        "an extender resource named twice",
    ],
)
def test_each_rule_reports_kube_schedulers_path_and_message(
    body: str, field: str, message: str
) -> None:
    assert (field, message) in problems_of(body + "\n")


def test_with_two_profiles_each_must_be_named_and_names_must_be_unique() -> None:
    problems = problems_of(
        "profiles:\n- {}\n- schedulerName: b\n- schedulerName: b\n- schedulerName: b\n"
    )
    assert problems == [
        ("profiles[0].schedulerName", "Required value"),
        (
            "profiles[2].schedulerName",
            'Duplicate value: "b" (already used by profiles[1].schedulerName)',
        ),
        (
            "profiles[3].schedulerName",
            'Duplicate value: "b" (already used by profiles[2].schedulerName)',
        ),
    ]


def test_a_plugin_configured_twice_in_a_profile_is_a_duplicate() -> None:
    body = (
        "profiles:\n- schedulerName: a\n  pluginConfig:\n"
        "  - {name: NodeResourcesFit, args: {}}\n"
        "  - {name: NodeResourcesFit, args: {}}\n"
    )
    assert problems_of(body) == [
        ("profiles[0].pluginConfig[1]", 'Duplicate value: "NodeResourcesFit"')
    ]


def test_profiles_must_share_their_queue_sort_plugins() -> None:
    body = (
        "profiles:\n"
        "- schedulerName: a\n"
        "- schedulerName: b\n"
        "  plugins: {queueSort: {enabled: [{name: QOSSort}], disabled: [{name: '*'}]}}\n"
    )
    ((field, message),) = problems_of(body)
    assert field == "profiles[1].plugins.queueSort"
    assert message.startswith("Invalid value: {") and message.endswith(MSG_QUEUE_SORT_SAME)


def test_profiles_must_share_their_queue_sort_args() -> None:
    body = (
        "profiles:\n"
        "- schedulerName: a\n"
        "  plugins: {queueSort: {enabled: [{name: QOSSort}], disabled: [{name: '*'}]}}\n"
        "  pluginConfig: [{name: QOSSort, args: {x: 1}}]\n"
        "- schedulerName: b\n"
        "  plugins: {queueSort: {enabled: [{name: QOSSort}], disabled: [{name: '*'}]}}\n"
        "  pluginConfig: [{name: QOSSort, args: {x: 2}}]\n"
    )
    assert problems_of(body) == [
        ("profiles[1].pluginConfig.args", f'Invalid value: {{"x":2}}: {MSG_QUEUE_SORT_ARGS}')
    ]


def test_the_first_profile_may_enable_only_one_queue_sort() -> None:
    body = "profiles:\n- schedulerName: a\n  plugins: {queueSort: {enabled: [{name: A}, {name: B}]}}\n"
    assert problems_of(body) == [
        ("profiles[0].plugins.queueSort.Enabled", f"Invalid value: 2: {MSG_ONLY_ONE_QUEUE_SORT}")
    ]


def test_a_negative_score_weight_is_accepted_because_kube_scheduler_accepts_it() -> None:
    config = loads_config(
        HEADER + "profiles:\n- plugins: {score: {enabled: [{name: ImageLocality, weight: -3}]}}\n"
    )
    assert config.profiles[0].plugins is not None
    assert config.profiles[0].plugins.score.enabled[0].weight == -3


def test_every_validation_problem_of_a_file_is_reported_together_in_kube_schedulers_order() -> (
    None
):
    body = (
        "parallelism: 0\n"
        "percentageOfNodesToScore: 150\n"
        "podInitialBackoffSeconds: 5\n"
        "podMaxBackoffSeconds: 2\n"
        "profiles:\n"
        "- schedulerName: a\n"
        "  pluginConfig: [{name: VolumeBinding}, {name: VolumeBinding}]\n"
        "- schedulerName: a\n"
    )
    with pytest.raises(ConfigError) as raised:
        loads_config(HEADER + body, "sched.yaml")
    assert str(raised.value).splitlines() == [
        f"sched.yaml: KubeSchedulerConfiguration: parallelism: Invalid value: 0: {MSG_PARALLELISM}",
        'sched.yaml: KubeSchedulerConfiguration: profiles[0].pluginConfig[1]: Duplicate value: "VolumeBinding"',
        "sched.yaml: KubeSchedulerConfiguration: profiles[1].schedulerName: "
        'Duplicate value: "a" (already used by profiles[0].schedulerName)',
        f"sched.yaml: KubeSchedulerConfiguration: percentageOfNodesToScore: Invalid value: 150: {MSG_PERCENTAGE}",
        f"sched.yaml: KubeSchedulerConfiguration: podMaxBackoffSeconds: Invalid value: 2: {MSG_MAX_BACKOFF}",
    ]


def test_a_plugins_args_hook_validates_its_defaulted_args() -> None:
    def validate_fit(args: object, path: str) -> list[tuple[str, str]]:
        assert isinstance(args, dict)
        strategy = args["scoringStrategy"]
        if strategy.get("type") not in (
            "LeastAllocated",
            "MostAllocated",
            "RequestedToCapacityRatio",
        ):
            return [
                (f"{path}.scoringStrategy.type", f'Unsupported value: "{strategy.get("type")}"')
            ]
        return []

    registry = ArgsRegistry()
    for name in in_tree_args():
        spec = in_tree_args().get(name)
        assert spec is not None
        if name == "NodeResourcesFit":
            spec = ArgsSpec(spec.plugin, spec.fields, spec.defaults, validate_fit)
        registry.register(spec)
    body = "profiles:\n- pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: Most}}}]\n"
    assert problems_of(body, registry) == [
        ("profiles[0].pluginConfig[0].args.scoringStrategy.type", 'Unsupported value: "Most"')
    ]


def test_an_args_type_is_registered_once() -> None:
    registry = in_tree_args()
    spec = registry.get("VolumeBinding")
    assert spec is not None
    with pytest.raises(ValueError, match="already registered as VolumeBindingArgs"):
        registry.register(spec)
