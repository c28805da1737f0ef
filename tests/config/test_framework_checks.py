"""What NewFramework does with a profile: multiPoint expansion, weights, and its refusals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.config import (
    EXTENSION_POINTS,
    FrameworkConfigError,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    PluginConfig,
    PluginRef,
    build_plugin_lists,
    expand_multi_point,
    loads_config,
    score_weights,
    set_defaults,
)
from framework.config.framework_checks import (
    MSG_ALREADY_REGISTERED,
    MSG_DIFFERENT_QUEUE_SORT,
    MSG_DIFFERENT_QUEUE_SORT_ARGS,
    MSG_DOES_NOT_EXIST,
    MSG_DOES_NOT_EXTEND,
    MSG_NO_BIND_PLUGIN,
    MSG_NO_WEIGHT,
    MSG_ONE_QUEUE_SORT,
    MSG_PLUGINS_REQUIRED,
    MSG_REPEATED_CONFIG,
    MSG_SCORE_OVERFLOW,
    check_profiles_share_queue_sort,
    check_score_weights,
)
from framework.featuregate import new_feature_gates
from tests.config.helpers import HEADER, PluginTable, plugin_set, plugins

# The facts sheet's lists are kube-scheduler v1.33's: before DynamicResources joined the
# default profile (v1.34), whose points this table does not know.
V1_33 = new_feature_gates("1.33")

TABLE = PluginTable(
    {
        "MyGangPermit": {"reserve", "permit"},
        "Both": {"filter", "score"},
        "X": {"filter", "score"},
        "Y": {"filter", "score"},
        "Z": {"filter", "score"},
        "QOSSort": {"queueSort"},
    }
)

# kube-scheduler's documented per-point lists for v1.28-v1.30 (facts sheet §9.2),
# minus the three cloud volume-limit plugins removed in v1.31/v1.32, plus DefaultPreemption at
# PreEnqueue, which it implements since v1.32 (default_preemption.go: async preemption's gate).
DEFAULT_LISTS = {
    "preEnqueue": ["SchedulingGates", "DefaultPreemption"],
    "queueSort": ["PrioritySort"],
    "preFilter": [
        "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
        "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity",
    ],
    "filter": [
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
        "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone",
        "PodTopologySpread", "InterPodAffinity",
    ],
    "postFilter": ["DefaultPreemption"],
    "preScore": [
        "TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
        "InterPodAffinity", "NodeResourcesBalancedAllocation",
    ],
    "score": [
        "TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
        "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality",
    ],
    "reserve": ["VolumeBinding"],
    "permit": [],
    "preBind": ["VolumeBinding"],
    "bind": ["DefaultBinder"],
    "postBind": [],
}  # fmt: skip

DEFAULT_WEIGHTS = {
    "TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "VolumeBinding": 1,
    "PodTopologySpread": 2, "InterPodAffinity": 2, "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}  # fmt: skip

FACTS_EXAMPLE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 0          # adaptive
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 10
profiles:
- schedulerName: default-scheduler   # all defaults
- schedulerName: binpacking-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: MyGangPermit           # hypothetical out-of-tree plugin, expanded to every point it implements
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
      enabled:
      - name: ImageLocality
        weight: 5                    # overrides default weight 1
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 10
      minCandidateNodesAbsolute: 100
"""


def names(lists: dict[str, list[PluginRef]]) -> dict[str, list[str]]:
    return {point: [ref.name for ref in refs] for point, refs in lists.items()}


def default_profile() -> KubeSchedulerProfile:
    return set_defaults(KubeSchedulerConfiguration(), feature_gates=V1_33).profiles[0]


def test_the_default_profile_expands_to_kube_schedulers_per_point_lists() -> None:
    lists = build_plugin_lists(default_profile(), TABLE, TABLE.names)
    assert list(lists) == list(EXTENSION_POINTS)
    assert names(lists) == DEFAULT_LISTS
    assert {ref.name: ref.weight for ref in lists["score"]} == DEFAULT_WEIGHTS
    assert all(
        ref.weight is None
        for point in EXTENSION_POINTS
        if point != "score"
        for ref in lists[point]
    )


def test_the_facts_sheet_example_loads_and_expands_per_profile() -> None:
    config = loads_config(FACTS_EXAMPLE, "example.yaml", feature_gates=V1_33)
    default, binpacking = (build_plugin_lists(p, TABLE, TABLE.names) for p in config.profiles)
    assert names(default) == DEFAULT_LISTS
    # An explicit score entry comes before the multiPoint-only plugins (rule 1 of expansion),
    # so ImageLocality moves to the front with its weight 5; BalancedAllocation is gone from
    # Score but still runs its PreScore, where it was not disabled.
    assert [(r.name, r.weight) for r in binpacking["score"]] == [
        ("ImageLocality", 5),
        ("TaintToleration", 3),
        ("NodeAffinity", 2),
        ("NodeResourcesFit", 1),
        ("VolumeBinding", 1),
        ("PodTopologySpread", 2),
        ("InterPodAffinity", 2),
    ]
    assert names(binpacking)["preScore"] == DEFAULT_LISTS["preScore"]
    assert names(binpacking)["reserve"] == ["VolumeBinding", "MyGangPermit"]
    assert names(binpacking)["permit"] == ["MyGangPermit"]
    others = {"score", "reserve", "permit"}
    assert {k: v for k, v in names(binpacking).items() if k not in others} == {
        k: v for k, v in DEFAULT_LISTS.items() if k not in others
    }
    fit = config.profiles[1].args_for("NodeResourcesFit")
    assert fit["scoringStrategy"]["type"] == "MostAllocated"
    assert [c.name for c in config.profiles[1].plugin_config] == [
        "NodeResourcesFit",
        "DefaultPreemption",
        "InterPodAffinity",
        "NodeAffinity",
        "NodeResourcesBalancedAllocation",
        "PodTopologySpread",
        "VolumeBinding",
    ]


@pytest.mark.parametrize(
    ("point_sets", "expected"),
    [
        ({"multiPoint": plugin_set("X", "Y", "Z")}, ["X", "Y", "Z"]),
        ({"multiPoint": plugin_set("X", "Y"), "filter": plugin_set("Y", "X")}, ["Y", "X"]),
        ({"multiPoint": plugin_set("X", "Y"), "filter": plugin_set("Z", "Y")}, ["Y", "X", "Z"]),
        ({"multiPoint": plugin_set("X", "Y"), "filter": plugin_set("Z")}, ["X", "Y", "Z"]),
        ({"multiPoint": plugin_set("X", "Y"), "filter": plugin_set("Z", disabled=("*",))}, ["Z"]),
        ({"multiPoint": plugin_set("X", "Y"), "filter": plugin_set(disabled=("X",))}, ["Y"]),
        (
            {"multiPoint": plugin_set("X", "Y"), "filter": plugin_set("X", disabled=("X",))},
            ["Y", "X"],
        ),
        ({"multiPoint": plugin_set("X", "Y", disabled=("*",))}, ["X", "Y"]),
        (
            {"multiPoint": plugin_set("X", "Y", "Z"), "filter": plugin_set("Z", "X")},
            ["Z", "X", "Y"],
        ),
    ],
    ids=[
        "multiPoint alone keeps its order",
        "explicitly listed multiPoint plugins follow the explicit order",
        "both-listed first, then multiPoint-only, then explicit-only",
        "explicit-only plugins come last",
        "disabled * at a point keeps multiPoint out",
        "disabling one name removes just it",
        "enabled and disabled at one point: still enabled, but as explicit-only",
        "disabled * in multiPoint itself does not stop expansion",
        "both-listed keep the explicit order even against multiPoint order",
    ],
)
def test_multi_point_expansion_at_one_point(
    point_sets: dict[str, object], expected: list[str]
) -> None:
    lists = expand_multi_point(plugins(**point_sets), TABLE)  # type: ignore[arg-type]
    assert names(lists)["filter"] == expected


def test_a_plugin_only_reaches_the_points_it_implements() -> None:
    lists = names(expand_multi_point(plugins(multiPoint=plugin_set("MyGangPermit")), TABLE))
    assert {point for point, found in lists.items() if found} == {"reserve", "permit"}


@pytest.mark.parametrize(
    ("point_sets", "weights"),
    [
        ({"multiPoint": plugin_set(("X", 4), "Y")}, {"X": 4, "Y": 1}),
        ({"multiPoint": plugin_set(("X", 4)), "score": plugin_set(("X", 9))}, {"X": 9}),
        ({"multiPoint": plugin_set(("X", 4)), "score": plugin_set("X")}, {"X": 1}),
        ({"score": plugin_set(("X", 0))}, {"X": 1}),
        ({"score": plugin_set(("X", -2))}, {"X": -2}),
    ],
    ids=[
        "multiPoint weight, unset means 1",
        "an explicit score weight overrides the multiPoint weight",
        "an explicit score entry without weight resets it to 1",
        "weight 0 means 1",
        "a negative weight is kept, as kube-scheduler keeps it",
    ],
)
def test_score_weights(point_sets: dict[str, object], weights: dict[str, int]) -> None:
    configured = plugins(**point_sets)  # type: ignore[arg-type]
    assert score_weights(configured, TABLE) == weights
    lists = expand_multi_point(configured, TABLE)
    assert {ref.name: ref.weight for ref in lists["score"]} == weights


def test_re_enabling_taint_toleration_at_score_without_weight_drops_its_weight_to_one() -> None:
    config = loads_config(
        HEADER + "profiles:\n- plugins: {score: {enabled: [{name: TaintToleration}]}}\n",
        feature_gates=V1_33,
    )
    lists = build_plugin_lists(config.profiles[0], TABLE, TABLE.names)
    assert lists["score"][0] == PluginRef("TaintToleration", 1)


def with_plugins(**point_sets: object) -> KubeSchedulerProfile:
    base = default_profile()
    assert base.plugins is not None
    configured = base.plugins
    for point, value in point_sets.items():
        configured = configured.with_point(point, value)  # type: ignore[arg-type]
    return KubeSchedulerProfile("p", plugins=configured)


@pytest.mark.parametrize(
    ("profile", "message"),
    [
        (
            KubeSchedulerProfile(
                "p", plugins=plugins(), plugin_config=(PluginConfig("A"), PluginConfig("A"))
            ),
            MSG_REPEATED_CONFIG.format(name="A"),
        ),
        (
            with_plugins(filter=plugin_set("Nope")),
            MSG_DOES_NOT_EXIST.format(interface="FilterPlugin", name="Nope"),
        ),
        (
            with_plugins(multiPoint=plugin_set("Nope")),
            MSG_DOES_NOT_EXIST.format(interface="PreFilterPlugin", name="Nope"),
        ),
        (
            with_plugins(bind=plugin_set("ImageLocality")),
            MSG_DOES_NOT_EXTEND.format(name="ImageLocality", interface="BindPlugin"),
        ),
        (
            with_plugins(filter=plugin_set("X", "X")),
            MSG_ALREADY_REGISTERED.format(name="X", interface="FilterPlugin"),
        ),
        (
            with_plugins(multiPoint=plugin_set("X", "X")),
            MSG_ALREADY_REGISTERED.format(name="X", interface="FilterPlugin"),
        ),
        (
            with_plugins(queueSort=plugin_set("QOSSort")),
            MSG_ONE_QUEUE_SORT.format(profile="p", count=2),
        ),
        (
            with_plugins(queueSort=plugin_set(disabled=("*",))),
            MSG_ONE_QUEUE_SORT.format(profile="p", count=0),
        ),
        (
            with_plugins(bind=plugin_set(disabled=("DefaultBinder",))),
            MSG_NO_BIND_PLUGIN.format(profile="p"),
        ),
    ],
    ids=[
        "a plugin configured twice",
        "an unknown plugin at a point",
        "an unknown plugin in multiPoint is reported at the first point",
        "a plugin at a point it does not implement",
        "a plugin twice at one point",
        "a plugin twice in multiPoint",
        "two queue sort plugins",
        "no queue sort plugin",
        "no bind plugin",
    ],
)
def test_new_framework_refuses_a_profile_with_kube_schedulers_message(
    profile: KubeSchedulerProfile, message: str
) -> None:
    with pytest.raises(FrameworkConfigError) as raised:
        build_plugin_lists(profile, TABLE, TABLE.names)
    assert str(raised.value) == message


def test_errors_come_in_new_frameworks_order_explicit_points_before_multi_point() -> None:
    profile = with_plugins(multiPoint=plugin_set("X", "X"), permit=plugin_set("ImageLocality"))
    with pytest.raises(FrameworkConfigError, match="does not extend PermitPlugin plugin"):
        build_plugin_lists(profile, TABLE, TABLE.names)


def test_without_a_registry_unknown_names_are_left_to_implements() -> None:
    lists = expand_multi_point(plugins(multiPoint=plugin_set("Unheard")), TABLE)
    assert all(not refs for refs in lists.values())


def test_a_profile_without_plugins_builds_nothing_and_the_profile_map_refuses_it() -> None:
    bare = KubeSchedulerProfile("bare")
    assert all(not refs for refs in build_plugin_lists(bare, TABLE).values())
    with pytest.raises(FrameworkConfigError, match=MSG_PLUGINS_REQUIRED.format(profile="bare")):
        check_profiles_share_queue_sort([(bare, [])])


def test_score_weights_are_checked_against_the_names_plugins_report() -> None:
    check_score_weights({"X": 1}, ["X"])
    with pytest.raises(FrameworkConfigError, match=MSG_NO_WEIGHT.format(name="Renamed")):
        check_score_weights({"X": 1}, ["Renamed"])
    with pytest.raises(FrameworkConfigError, match=MSG_SCORE_OVERFLOW):
        check_score_weights({"X": 2**62, "Y": 2**62}, ["X", "Y"])


def test_profiles_built_separately_must_still_share_one_queue_sort() -> None:
    a = with_plugins()
    b = KubeSchedulerProfile("b", plugins=a.plugins)
    queue_sort = [PluginRef("PrioritySort")]
    check_profiles_share_queue_sort([(a, queue_sort), (b, queue_sort)])
    with pytest.raises(FrameworkConfigError) as raised:
        check_profiles_share_queue_sort([(a, queue_sort), (b, [PluginRef("QOSSort")])])
    assert str(raised.value) == MSG_DIFFERENT_QUEUE_SORT.format(
        profile="b", plugin="QOSSort", first="PrioritySort"
    )
    c = KubeSchedulerProfile(
        "c", plugins=a.plugins, plugin_config=(PluginConfig("PrioritySort", {"x": 1}),)
    )
    with pytest.raises(
        FrameworkConfigError, match=MSG_DIFFERENT_QUEUE_SORT_ARGS.format(profile="c")
    ):
        check_profiles_share_queue_sort([(a, queue_sort), (c, queue_sort)])


POOL = ["X", "Y", "Z", "Both"]


@given(
    multi=st.lists(st.sampled_from(POOL), unique=True),
    explicit=st.lists(st.sampled_from(POOL), unique=True),
    disabled=st.sets(st.sampled_from([*POOL, "*"])),
)
def test_expansion_matches_the_three_part_model_of_the_facts_sheet(
    multi: list[str], explicit: list[str], disabled: set[str]
) -> None:
    configured = plugins(
        multiPoint=plugin_set(*multi),
        filter=plugin_set(*explicit, disabled=tuple(sorted(disabled))),
    )
    result = names(expand_multi_point(configured, TABLE))["filter"]
    expands = [] if "*" in disabled else [n for n in multi if n not in disabled]
    both = [n for n in explicit if n in expands]
    only_multi = [n for n in expands if n not in explicit]
    only_explicit = [n for n in explicit if n not in both]
    assert result == both + only_multi + only_explicit
