"""The versioned feature-gate registry (component-base/featuregate, KEP-4330)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.featuregate import (
    KUBE_SCHEDULER_FEATURES,
    SUPPORTED_VERSIONS,
    FeatureGateError,
    FeatureSpec,
    PreRelease,
    gate_table,
    new_feature_gates,
    parse_feature_gates,
    spec_at,
)


def test_the_emulated_version_picks_each_gates_default():
    # kube_features.go: SchedulerQueueingHints {1.28 Beta off, 1.32 Beta on, 1.34 GA locked}.
    assert new_feature_gates("1.33").enabled("SchedulerQueueingHints")
    # NominatedNodeNameForExpectation: {1.34 Alpha off, 1.35 Beta on}.
    assert not new_feature_gates("1.34").enabled("NominatedNodeNameForExpectation")
    assert new_feature_gates("1.35").enabled("NominatedNodeNameForExpectation")
    # A gate not introduced yet at the emulated version is off.
    assert not new_feature_gates("1.33").enabled("OpportunisticBatching")
    assert new_feature_gates("1.35").enabled("OpportunisticBatching")


def test_overrides_in_kubes_flag_format():
    gates = new_feature_gates(
        "1.35", "TaintTolerationComparisonOperators=true,PodLevelResources=false"
    )
    assert gates.enabled("TaintTolerationComparisonOperators")
    assert not gates.enabled("PodLevelResources")
    assert gates.overrides == {
        "PodLevelResources": False,
        "TaintTolerationComparisonOperators": True,
    }
    assert gates.flag() == "PodLevelResources=false,TaintTolerationComparisonOperators=true"


def test_a_locked_gate_refuses_change_with_kubes_message():
    with pytest.raises(
        FeatureGateError,
        match="cannot set feature gate SchedulerQueueingHints to false, feature is locked to true",
    ):
        new_feature_gates("1.34", {"SchedulerQueueingHints": False})
    # Setting it to its locked value is allowed, as in component-base.
    assert new_feature_gates("1.34", {"SchedulerQueueingHints": True}).enabled(
        "SchedulerQueueingHints"
    )
    # Before the lock, it could be turned off.
    assert not new_feature_gates("1.33", {"SchedulerQueueingHints": False}).enabled(
        "SchedulerQueueingHints"
    )


def test_specs_follow_kube_features_go():
    # pkg/features/kube_features.go (v1.35- and v1.37-era copies, index ids 378079260 and
    # 61706514746): DynamicResourceAllocation {1.34 GA on, 1.35 GA locked};
    # InPlacePodVerticalScaling {1.33 Beta on, 1.35 GA locked}.
    for name in ("DynamicResourceAllocation", "InPlacePodVerticalScaling"):
        assert new_feature_gates("1.34", {name: False}).enabled(name) is False
        with pytest.raises(FeatureGateError, match=f"{name} to false, feature is locked to true"):
            new_feature_gates("1.35", {name: False})
    # OpportunisticBatching {1.35 Beta on} and nothing after: still beta in v1.37, so it
    # can be turned off there (the v1.37 docs page agrees).
    assert not new_feature_gates("1.37", "OpportunisticBatching=false").enabled(
        "OpportunisticBatching"
    )
    # SchedulerAsyncAPICalls {1.34 Beta off}: the Go source, not the docs page (which says on).
    assert not new_feature_gates("1.37").enabled("SchedulerAsyncAPICalls")
    # StorageCapacityScoring {1.33 Alpha off, 1.37 Beta on}; NodeDeclaredFeatures
    # {1.35 Alpha off, 1.36 Beta on, 1.37 GA locked}.
    assert not new_feature_gates("1.36").enabled("StorageCapacityScoring")
    assert new_feature_gates("1.37").enabled("StorageCapacityScoring")
    assert new_feature_gates("1.36", "NodeDeclaredFeatures=false").overrides
    with pytest.raises(FeatureGateError, match="NodeDeclaredFeatures to false"):
        new_feature_gates("1.37", "NodeDeclaredFeatures=false")


def test_scheduler_async_api_calls_is_beta_and_off_in_every_release_it_exists():
    # kube_features.go (v1.35- and v1.37-era copies): SchedulerAsyncAPICalls has one spec,
    # {1.34 Beta off}; before v1.34 it does not exist, and it can be turned on from v1.34.
    assert KUBE_SCHEDULER_FEATURES["SchedulerAsyncAPICalls"].specs == (
        FeatureSpec("1.34", False, PreRelease.BETA),
    )
    with pytest.raises(FeatureGateError, match=r"PreAlpha at emulated version 1\.33"):
        new_feature_gates("1.33", "SchedulerAsyncAPICalls=true")
    for version in ("1.34", "1.35", "1.36", "1.37"):
        assert not new_feature_gates(version).enabled("SchedulerAsyncAPICalls")
        assert new_feature_gates(version, "SchedulerAsyncAPICalls=true").enabled(
            "SchedulerAsyncAPICalls"
        )


def test_scheduler_pre_enqueue_pod_status_is_not_a_gate_of_any_release():
    # Its KEP names it, but neither kube_features.go copy registers it (SchedulerPopFromBackoffQ
    # is followed by SchedulerQueueingHints in the v1.35-era copy, by SchedulerPreQueueingHints
    # in the v1.37-era one), so kube-scheduler refuses it as unrecognized.
    assert "SchedulerPreEnqueuePodStatus" not in KUBE_SCHEDULER_FEATURES
    for version in SUPPORTED_VERSIONS:
        with pytest.raises(FeatureGateError, match="unrecognized feature gate"):
            new_feature_gates(version, "SchedulerPreEnqueuePodStatus=true")


def test_unknown_gates_versions_and_values_are_clear_errors():
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: NoSuchGate"):
        new_feature_gates("1.35", "NoSuchGate=true")
    with pytest.raises(FeatureGateError, match=r"not between \[1.33, 1.37\]"):
        new_feature_gates("1.32")
    with pytest.raises(FeatureGateError, match=r"PreAlpha at emulated version 1\.33"):
        new_feature_gates("1.33", "OpportunisticBatching=true")
    with pytest.raises(FeatureGateError, match="missing bool value for A"):
        parse_feature_gates("A")
    with pytest.raises(FeatureGateError, match="invalid value of A=maybe"):
        parse_feature_gates("A=maybe")
    with pytest.raises(FeatureGateError, match="not registered"):
        new_feature_gates("1.35").enabled("NoSuchGate")


def test_versions_are_accepted_with_v_prefix_and_patch():
    assert new_feature_gates("v1.35.2").emulated_version == "1.35"


def test_all_alpha_turns_on_every_unlocked_alpha_gate():
    gates = new_feature_gates("1.35", "AllAlpha=true")
    assert gates.enabled("TaintTolerationComparisonOperators")
    assert gates.enabled("SchedulerPopFromBackoffQ")  # beta: untouched by AllAlpha


def test_two_gate_sets_in_one_process_differ():
    old, new = new_feature_gates("1.33"), new_feature_gates("1.35")
    assert old.enabled("OpportunisticBatching") != new.enabled("OpportunisticBatching")


def test_the_table_has_a_cell_per_gate_and_release():
    rows = dict(gate_table())
    assert set(rows) == set(KUBE_SCHEDULER_FEATURES)
    assert rows["OpportunisticBatching"][:3] == ["—", "—", "true (Beta)"]
    assert rows["SchedulerQueueingHints"][1] == "true (GA), locked"
    assert rows["OpportunisticBatching"][4] == "true (Beta)"
    assert rows["DynamicResourceAllocation"][1:3] == ["true (GA)", "true (GA), locked"]


@given(st.sampled_from(sorted(KUBE_SCHEDULER_FEATURES)), st.sampled_from(SUPPORTED_VERSIONS))
def test_every_gate_reads_its_spec_at_the_version(name, version):
    spec = spec_at(KUBE_SCHEDULER_FEATURES[name].specs, version)
    expected = spec.default if spec is not None else False
    assert new_feature_gates(version).enabled(name) is expected


def test_spec_at_takes_the_last_spec_not_newer_than_the_version():
    specs = (
        FeatureSpec("1.30", False, PreRelease.ALPHA),
        FeatureSpec("1.34", True, PreRelease.BETA),
    )
    assert spec_at(specs, "1.29") is None
    assert spec_at(specs, "1.33") == specs[0]
    assert spec_at(specs, "1.36") == specs[1]


def test_workload_gates_per_release_follow_kube_features_go():
    # Issue 20 item 5. GenericWorkload {1.35 Alpha off, 1.37 Beta off} and GangScheduling
    # {1.35 Alpha off} (v1.35-era kube_features.go, index id 378079260; the v1.37-era copy,
    # index id 61706514746, has GenericWorkload's beta); TopologyAwareWorkloadScheduling
    # {1.36 Alpha off}, PodGroupPreemptionPolicy and CompositePodGroup {1.37 Alpha off} (the
    # v1.37-era copy); WorkloadAwarePreemption {1.36 Alpha off} (kubernetes.io's
    # workload-aware-preemption page: "v1.36 [alpha] (disabled by default)").
    from framework.featuregate import KUBE_SCHEDULER_FEATURES, FeatureSpec, PreRelease

    alpha, beta = PreRelease.ALPHA, PreRelease.BETA
    expected = {
        "GenericWorkload": (FeatureSpec("1.35", False, alpha), FeatureSpec("1.37", False, beta)),
        "GangScheduling": (FeatureSpec("1.35", False, alpha),),
        "TopologyAwareWorkloadScheduling": (FeatureSpec("1.36", False, alpha),),
        "WorkloadAwarePreemption": (FeatureSpec("1.36", False, alpha),),
        "PodGroupPreemptionPolicy": (FeatureSpec("1.37", False, alpha),),
        "CompositePodGroup": (FeatureSpec("1.37", False, alpha),),
    }
    for name, specs in expected.items():
        assert KUBE_SCHEDULER_FEATURES[name].specs == specs, name
    for version in ("1.35", "1.36", "1.37"):
        gates = new_feature_gates(version)
        assert not any(gates.enabled(name) for name in expected)
    with pytest.raises(FeatureGateError, match=r"PreAlpha at emulated version 1\.35"):
        new_feature_gates("1.35", "TopologyAwareWorkloadScheduling=true")
    assert new_feature_gates("1.36", "WorkloadAwarePreemption=true").enabled(
        "WorkloadAwarePreemption"
    )


@pytest.mark.parametrize("name", ["GangScheduling", "WorkloadAwarePreemption"])
def test_gangscheduling_and_workload_aware_preemption_are_gone_in_v1_37(name: str) -> None:
    # kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/
    # GangScheduling.md and WorkloadAwarePreemption.md (index ids 58218387801, 56317140883):
    # alpha, toVersion 1.36, "removed: true", "This feature gate was removed in 1.37 and merged
    # together with the `GenericWorkload` feature gate". kubernetes.io's v1.37 Feature Gates page
    # (index id 68805888270) lists neither, and the v1.37-era kube_features.go (index id
    # 61706514746) registers neither.
    from framework.featuregate import KUBE_SCHEDULER_FEATURES

    info = KUBE_SCHEDULER_FEATURES[name]
    assert (info.removed, info.merged_into) == ("1.37", "GenericWorkload")
    v137 = new_feature_gates("1.37")
    assert name not in dict(v137)  # not listed among the release's gates...
    assert not v137.enabled(name)  # ...and read as GenericWorkload, which is off
    assert new_feature_gates("1.37", "GenericWorkload=true").enabled(name)
    assert not new_feature_gates("1.36", "GenericWorkload=true").enabled(name)
    with pytest.raises(
        FeatureGateError,
        match=rf"unrecognized feature gate: {name} \(removed in v1\.37 and merged into "
        r"GenericWorkload: set GenericWorkload instead, or --emulated-version 1\.36\)",
    ):
        new_feature_gates("1.37", f"{name}=true")
    # AllAlpha does not bring it back.
    assert name not in dict(new_feature_gates("1.37", "AllAlpha=true"))
    table = dict(gate_table())
    assert table[name][SUPPORTED_VERSIONS.index("1.37")] == "removed (GenericWorkload)"
