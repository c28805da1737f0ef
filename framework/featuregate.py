"""Versioned feature gates: which of kube-scheduler's gated behaviours a run has, per release.

Kubernetes ships a new behaviour behind a *feature gate*, a named switch
with a maturity that grows release by release: **Alpha** (off by default,
may change or vanish), **Beta** (usually on by default), **GA** (on, and
soon *locked*: it can no longer be turned off), and sometimes
**Deprecated** before the gate is removed. Since KEP-4330 (compatibility
versions) each gate carries its whole history as *versioned specs*, one
:class:`FeatureSpec` per release where its default or maturity changed, and
a component started with ``--emulated-version 1.33`` takes every gate's
default as it was in v1.33. ``--feature-gates Name=true,Other=false`` then
overrides single gates, except those locked to their default.

This module is that registry for the kube-scheduler gates this project
models or whose behaviour its chapters discuss (:data:`KUBE_SCHEDULER_FEATURES`;
not every gate kube-scheduler reads: DRA's others (``DRAConsumableCapacity``,
binding conditions...) and those of volumes other
than ``StorageCapacityScoring`` are left out, as is what they gate), and
:func:`new_feature_gates` turns an
emulated version and overrides into a frozen :class:`FeatureGates`. Nothing
here is global: a run builds its own gates and hands them to the scheduler,
whose frameworks hand them to the plugins (``handle.feature_gates``), as
Go's ``NewInTreeRegistry`` hands ``feature.Features`` to each plugin
factory; two simulations in one process can emulate different releases.

A gate with an empty :attr:`GateInfo.modelled` is recorded with its real
specs and changes nothing here. ``SchedulerAsyncAPICalls`` is modelled
(:mod:`framework.api_dispatcher`) and, here, changes when writes land, not
what the scheduler decides: this project's API calls take no simulated
time. No ``SchedulerPreEnqueuePodStatus`` is registered: its KEP names it,
but no kube_features.go read (v1.35-era, v1.37-era) nor the v1.37 docs page
has it.

Errors use component-base's wording: ``unrecognized feature gate: X``,
``cannot set feature gate X to false, feature is locked to true``, and an
emulated version outside the supported range names the range.

Mirrors ``FeatureSpec``, ``VersionedSpecs``, ``featureGate.Set`` /
``SetFromMap`` / ``Enabled`` and ``SetEmulationVersion`` in
``kubernetes/kubernetes:staging/src/k8s.io/component-base/featuregate/feature_gate.go``
(v1.33), and the scheduler's entries of ``defaultVersionedKubernetesFeatureGates`` in
``pkg/features/kube_features.go``, read in a v1.35-era and a v1.37-era copy
and checked against kubernetes.io's feature-gate reference for v1.37; each
entry names what it was read in (:attr:`GateInfo.source`). Only releases
since v1.33 can be emulated, as upstream a component emulates at most three
minor releases back (here four, to reach v1.33).
Imports nothing from ``framework``, so every layer may use it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ALL_ALPHA",
    "ALL_BETA",
    "DEFAULT_EMULATED_VERSION",
    "KUBE_SCHEDULER_FEATURES",
    "SUPPORTED_VERSIONS",
    "FeatureGateError",
    "FeatureGates",
    "FeatureSpec",
    "GateInfo",
    "PreRelease",
    "features_of",
    "gate_table",
    "new_feature_gates",
    "parse_feature_gates",
    "spec_at",
]

SUPPORTED_VERSIONS: tuple[str, ...] = ("1.33", "1.34", "1.35", "1.36", "1.37")
"""The releases ``--emulated-version`` accepts, oldest first."""

DEFAULT_EMULATED_VERSION = "1.37"
"""The release a run emulates when none is given."""

ALL_ALPHA = "AllAlpha"
ALL_BETA = "AllBeta"


class PreRelease(enum.Enum):
    """A gate's maturity at one release (``featuregate.prerelease``)."""

    ALPHA = "Alpha"
    BETA = "Beta"
    GA = "GA"
    DEPRECATED = "Deprecated"


@dataclass(frozen=True)
class FeatureSpec:
    """A gate's default and maturity from ``version`` on, until the next spec (``FeatureSpec``)."""

    version: str
    default: bool
    pre_release: PreRelease
    lock_to_default: bool = False


@dataclass(frozen=True)
class GateInfo:
    """One gate of the registry: its versioned specs, and what it changes in this project."""

    specs: tuple[FeatureSpec, ...]
    #: Where the specs come from, and whether they were checked against a readable source.
    source: str
    #: What the gate changes here; empty when this project does not model it yet.
    modelled: str = ""
    #: The first release without the gate; empty while the newest release still has it.
    removed: str = ""
    #: The gate that took over what it switched, from :attr:`removed` on.
    merged_into: str = ""

    def removed_at(self, version: str) -> bool:
        """Whether the gate is gone at ``version`` (a release on or after :attr:`removed`)."""
        return bool(self.removed) and _v(version) >= _v(self.removed)


def _v(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def _specs(
    *entries: tuple[str, bool, PreRelease] | tuple[str, bool, PreRelease, bool],
) -> tuple[FeatureSpec, ...]:
    return tuple(FeatureSpec(*entry) for entry in entries)


A, B, GA = PreRelease.ALPHA, PreRelease.BETA, PreRelease.GA
# Where the specs come from: defaultVersionedKubernetesFeatureGates in two copies of
# pkg/features/kube_features.go read through the search index (no tag or commit is
# attached to them there), named by their index ids: _KF35 is a v1.35-era copy (it has
# GangScheduling and GenericWorkload alpha in v1.35, SchedulerQueueingHints and
# SidecarContainers still registered), _KF37 a v1.37-era copy with the scheduler's
# gates (PodGroupPreemptionPolicy, KEP-5710, alpha in v1.37). _DOCS is kubernetes.io's
# "Feature Gates" reference page for v1.37 (index id 68805888270); where it disagrees
# with the Go source, the Go source wins and the source says so.
_KF35 = "pkg/features/kube_features.go, v1.35-era copy (index id 378079260)"
_KF37 = "pkg/features/kube_features.go, v1.37-era copy (index id 61706514746)"
# (_KF37 registers only part of the gates: ClearingNominatedNodeNameAfterBinding,
# SchedulerQueueingHints and SidecarContainers, still on the v1.37 docs page, are not in it.)
_DOCS = "kubernetes.io Feature Gates page for v1.37 (index id 68805888270)"

KUBE_SCHEDULER_FEATURES: Mapping[str, GateInfo] = {
    "DRAAdminAccess": GateInfo(
        _specs(("1.32", False, A), ("1.34", True, B), ("1.36", True, GA, True)),
        f"{_KF37}; {_KF35}",
        "a request with adminAccess may take devices in use, and holds none",
    ),
    "DRADeviceTaints": GateInfo(
        _specs(("1.33", False, A), ("1.36", True, B), ("1.37", True, GA)),
        f"{_KF37}; {_KF35}",
        "the allocator skips a device with a NoSchedule or NoExecute taint the request "
        "does not tolerate (DeviceTaintRules are not modelled)",
    ),
    "DRAExtendedResource": GateInfo(
        _specs(("1.34", False, A), ("1.36", True, B), ("1.37", True, GA, True)),
        f"{_KF37}; {_KF35}; KEP-5004; kubernetes#135048 (beta in v1.36)",
        "a DeviceClass's extendedResourceName (or deviceclass.resource.kubernetes.io/<class>) "
        "serves a container's extended resource on a node that does not advertise it: "
        "NodeResourcesFit leaves it to DynamicResources, which allocates and creates a claim "
        "for the pod; NodeResourcesFit and BalancedAllocation then sign no pod",
    ),
    "DRAPartitionableDevices": GateInfo(
        _specs(("1.33", False, A), ("1.36", True, B)),
        f"{_KF37}; {_KF35}; KEP-4815",
        "the allocator honours a pool's sharedCounters and its devices' consumesCounters; "
        "off, it leaves out slices with counter sets and never takes a device that consumes "
        "counters (per-device node selection is not modelled)",
    ),
    "DRAPrioritizedList": GateInfo(
        _specs(
            ("1.33", False, A), ("1.34", True, B), ("1.36", True, GA), ("1.37", True, GA, True)
        ),
        f"{_KF37}; {_KF35}; KEP-4816",
        "a request may list firstAvailable alternatives (off, PreFilter refuses such a claim); "
        "from v1.35 DynamicResources' Score prefers the node whose allocation takes the "
        "best-ranked ones (kubernetes#134711)",
    ),
    "DynamicResourceAllocation": GateInfo(
        _specs(
            ("1.26", False, A), ("1.32", False, B), ("1.34", True, GA), ("1.35", True, GA, True)
        ),
        f"{_KF37}; {_KF35}; {_DOCS} (which dates the alpha from v1.30); KEP-4381",
        "adds DynamicResources to the default profile (PreEnqueue, PreFilter, Filter, PostFilter, "
        "Reserve, PreBind, and Score from v1.35; chapter 7c)",
    ),
    "CompositePodGroup": GateInfo(
        _specs(("1.37", False, A)),
        f"{_KF37}; KEP-6012",
    ),
    "GangScheduling": GateInfo(
        _specs(("1.35", False, A)),
        f"{_KF35}; KEP-4671; gone from {_KF37} and from the v1.37 docs page: kubernetes/website's "
        "feature-gates/GangScheduling.md (index id 58218387801) has it alpha to 1.36, "
        '"removed: true", "removed in 1.37 and merged together with the GenericWorkload '
        'feature gate"',
        "adds GangScheduling (PreEnqueue, Reserve, Permit) to the default profile (from v1.37, "
        "with GenericWorkload)",
        removed="1.37",
        merged_into="GenericWorkload",
    ),
    "GenericWorkload": GateInfo(
        _specs(("1.35", False, A), ("1.37", False, B)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-4671",
        "Workload/PodGroup objects and pod references are read; from v1.36 the PodGroup "
        "scheduling cycle",
    ),
    "InPlacePodVerticalScaling": GateInfo(
        _specs(("1.27", False, A), ("1.33", True, B), ("1.35", True, GA, True)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-1287",
        "a running pod's requests are the largest of spec, allocated and actuated while a "
        "resize is in flight (NodeInfo totals, the resource scorers, the scale-down event); "
        "NodeResourcesFit requeues a pod when another shrinks",
    ),
    "InPlacePodVerticalScalingSchedulerPreemption": GateInfo(
        _specs(("1.37", False, A)),
        f"{_KF37}; {_DOCS}; KEP-5836; what it does read in "
        "test/integration/scheduler/preemption (TestDeferredResizePodPreemption)",
    ),
    "InterPodAffinityHostnameFastPath": GateInfo(
        _specs(("1.37", False, A)),
        f"{_KF37} (not on the docs page)",
    ),
    "MatchLabelKeysInPodTopologySpread": GateInfo(
        _specs(("1.25", False, A), ("1.27", True, B)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-3243",
        "PodTopologySpread merges matchLabelKeys into the selector",
    ),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": GateInfo(
        _specs(("1.34", True, B)),
        f"{_KF35}; {_DOCS} (still beta in v1.37); KEP-3243",
    ),
    "NodeDeclaredFeatures": GateInfo(
        _specs(("1.35", False, A), ("1.36", True, B), ("1.37", True, GA, True)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-5328",
    ),
    "NodeInclusionPolicyInPodTopologySpread": GateInfo(
        _specs(("1.25", False, A), ("1.26", True, B), ("1.33", True, GA, True)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-3094",
        "PodTopologySpread honours nodeAffinityPolicy / nodeTaintsPolicy",
    ),
    "NominatedNodeNameForExpectation": GateInfo(
        _specs(("1.34", False, A), ("1.35", True, B)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-5278",
        "the binding cycle nominates the pod to its node when it waits at Permit or PreBind has "
        "work (PreBindPreFlight)",
    ),
    "ClearingNominatedNodeNameAfterBinding": GateInfo(
        _specs(("1.34", False, A), ("1.35", True, B)),
        f"{_KF35}; {_DOCS} (still beta in v1.37); KEP-5278",
        "the API server's binding empties status.nominatedNodeName",
    ),
    "OpportunisticBatching": GateInfo(
        _specs(("1.35", True, B)),
        f"{_KF37}; {_KF35}; {_DOCS}: beta and on from v1.35, still beta in v1.37; KEP-5598",
    ),
    "PodGroupPreemptionPolicy": GateInfo(
        _specs(("1.37", False, A)),
        f"{_KF37}; KEP-5710 (a PodGroup's own preemptionPolicy)",
    ),
    "PodLevelResources": GateInfo(
        _specs(("1.32", False, A), ("1.34", True, B)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-2837",
        "spec.resources.requests (cpu, memory, hugepages) replace the containers' sum in "
        "NodeResourcesFit, the resource scorers, their signatures and the NodeInfo totals",
    ),
    "SchedulerAsyncAPICalls": GateInfo(
        _specs(("1.34", False, B)),
        f"{_KF37}; {_KF35}: beta and off from v1.34 (the docs page says on; the Go source "
        "wins); KEP-5229; the dispatcher read in pkg/scheduler/backend/api_dispatcher/"
        "call_queue.go and framework/api_calls (relevances: pod_status_patch 1, pod_binding 2)",
    ),
    "SchedulerAsyncPreemption": GateInfo(
        _specs(("1.32", False, A), ("1.33", True, B)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-4832",
        "DefaultPreemption evicts victims off the scheduling cycle and holds the preemptor "
        "at PreEnqueue (modelled in every version, as in v1.33)",
    ),
    "SchedulerPopFromBackoffQ": GateInfo(
        _specs(("1.33", True, B)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-5142; the gated code read in backoff_queue.go",
        "the queue pops a backing-off pod when activeQ is empty",
    ),
    "SchedulerPreQueueingHints": GateInfo(
        _specs(("1.37", False, A)),
        f"{_KF37}; KEP-6132 (not on the docs page)",
    ),
    "SchedulerQueueingHints": GateInfo(
        _specs(("1.28", False, B), ("1.32", True, B), ("1.34", True, GA, True)),
        f"{_KF35}; {_DOCS}: GA from v1.34 and still listed in v1.37 (the page has it on in "
        "v1.28 and off in v1.29-v1.31, where the Go specs start off in v1.28); "
        "kubernetes#131973",
        "plugins' queueing hints decide which events requeue a pod (modelled on in every version)",
    ),
    "SidecarContainers": GateInfo(
        _specs(("1.28", False, A), ("1.29", True, B), ("1.33", True, GA, True)),
        f'{_KF35} (GA and locked in v1.33, "remove in 1.36"); {_DOCS} (still listed, '
        "stable); KEP-753",
        "restartable init containers count in requests and host ports",
    ),
    "StorageCapacityScoring": GateInfo(
        _specs(("1.33", False, A), ("1.37", True, B)),
        f"{_KF37}; {_KF35}; {_DOCS}; KEP-4049",
    ),
    "TopologyAwareWorkloadScheduling": GateInfo(
        _specs(("1.36", False, A)),
        f"{_KF37}; KEP-5732",
        "the PodGroup cycle tries the group in each placement TopologyPlacement proposes and "
        "keeps the one PodGroupPodsCount scores best",
    ),
    "WorkloadAwarePreemption": GateInfo(
        _specs(("1.36", False, A)),
        "kubernetes.io's workload-aware-preemption page (v1.36 [alpha], disabled by default); "
        f"KEP-5710; gone from {_KF37} and from the v1.37 docs page: kubernetes/website's "
        "feature-gates/WorkloadAwarePreemption.md (index id 56317140883) has it alpha in 1.36 "
        'only, "removed: true", "removed in 1.37 and merged together with the GenericWorkload '
        'feature gate"',
        "a PodGroup that does not fit preempts as one; victims pod by pod, or whole groups of "
        "disruptionMode All (from v1.37, with GenericWorkload)",
        removed="1.37",
        merged_into="GenericWorkload",
    ),
    "TaintTolerationComparisonOperators": GateInfo(
        _specs(("1.35", False, A)),
        f"{_KF37}; {_KF35}; {_DOCS} (still alpha in v1.37); KEP-5471",
        "TaintToleration matches Lt/Gt tolerations numerically",
    ),
}
"""The gates kube-scheduler reads, with their versioned specs, by name."""


class FeatureGateError(ValueError):
    """A gate that does not exist, is locked, or a version or flag this registry cannot honour."""


def spec_at(specs: tuple[FeatureSpec, ...], version: str) -> FeatureSpec | None:
    """The spec in force at ``version``: the last one not newer than it; None before the first."""
    current = None
    for spec in sorted(specs, key=lambda s: _v(s.version)):
        if _v(spec.version) <= _v(version):
            current = spec
    return current


def _check_version(version: str) -> str:
    text = version[1:] if version.startswith("v") else version
    parts = text.split(".")
    if len(parts) == 3:  # a patch release emulates its minor release
        parts = parts[:2]
    text = ".".join(parts)
    if text not in SUPPORTED_VERSIONS:
        raise FeatureGateError(
            f"emulated version {version!r}: emulation version {text} is not between "
            f"[{SUPPORTED_VERSIONS[0]}, {SUPPORTED_VERSIONS[-1]}]; "
            f"use one of {', '.join(SUPPORTED_VERSIONS)}"
        )
    return text


def parse_feature_gates(text: str) -> dict[str, bool]:
    """``"A=true,B=false"`` as a mapping (kube's ``--feature-gates`` flag format).

    Values are Go's ``strconv.ParseBool`` spellings; names are checked later,
    against the registry, by :func:`new_feature_gates`.
    """
    result: dict[str, bool] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep:
            raise FeatureGateError(f"missing bool value for {name}")
        if value in ("1", "t", "T", "true", "TRUE", "True"):
            result[name] = True
        elif value in ("0", "f", "F", "false", "FALSE", "False"):
            result[name] = False
        else:
            raise FeatureGateError(
                f'invalid value of {name}={value}, err: strconv.ParseBool: parsing "{value}": '
                "invalid syntax"
            )
    return result


@dataclass(frozen=True)
class FeatureGates:
    """The gates of one run, frozen: each gate's value at the emulated version, after overrides.

    Read a gate with :meth:`enabled`; a name the registry does not have is
    an error, as Go's ``Enabled`` panics on one.
    """

    emulated_version: str
    values: Mapping[str, bool]
    #: The gates the user set, as given (after AllAlpha/AllBeta expansion).
    overrides: Mapping[str, bool] = field(default_factory=dict)

    def enabled(self, name: str) -> bool:
        """The gate's value; a gate the release no longer has reads as the one it merged into."""
        if name not in self.values:
            info = KUBE_SCHEDULER_FEATURES.get(name)
            if info is not None and info.removed_at(self.emulated_version):
                return self.enabled(info.merged_into)
        try:
            return self.values[name]
        except KeyError:
            raise FeatureGateError(
                f"feature {name!r} is not registered in FeatureGate; "
                f"known gates: {', '.join(sorted(self.values))}"
            ) from None

    def at_least(self, version: str) -> bool:
        """Whether the emulated release is ``version`` or later (for changes made without a gate)."""
        return _v(self.emulated_version) >= _v(version)

    def __iter__(self) -> Iterator[tuple[str, bool]]:
        return iter(sorted(self.values.items()))

    def flag(self) -> str:
        """The overrides in ``--feature-gates`` form (empty when none were given)."""
        return ",".join(
            f"{k}={'true' if v else 'false'}" for k, v in sorted(self.overrides.items())
        )

    def describe(self) -> str:
        """What a run prints about its gates: the release, the gates on, off, and those set."""
        on = [name for name, value in self if value]
        off = [name for name, value in self if not value]
        text = (
            f"Feature gates of kube-scheduler v{self.emulated_version} (--emulated-version): "
            f"on: {', '.join(on) or '-'}; off: {', '.join(off) or '-'}"
        )
        if self.overrides:
            text += f"; set by --feature-gates: {self.flag()}"
        return text + "."

    def to_dict(self) -> dict[str, Any]:
        """The trace's record of the gates: the version, the values, the user's overrides."""
        return {
            "emulatedVersion": self.emulated_version,
            "gates": dict(sorted(self.values.items())),
            "overrides": dict(sorted(self.overrides.items())),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FeatureGates:
        """The gates as a trace recorded them (:meth:`to_dict`), taken as they were."""
        return cls(
            str(data["emulatedVersion"]),
            {str(k): bool(v) for k, v in data["gates"].items()},
            {str(k): bool(v) for k, v in data.get("overrides", {}).items()},
        )


def new_feature_gates(
    emulated_version: str | None = None,
    feature_gates: Mapping[str, bool] | str | None = None,
) -> FeatureGates:
    """The gates at ``emulated_version`` (default :data:`DEFAULT_EMULATED_VERSION`) with overrides.

    ``feature_gates`` is a mapping or kube's flag text (``"A=true,B=false"``).
    ``AllAlpha`` / ``AllBeta`` set every unlocked Alpha / Beta gate first, as
    in component-base; named gates then win. Raises :class:`FeatureGateError`
    for an unknown gate, a locked one set against its lock, a gate not yet
    introduced at that version, or a version outside :data:`SUPPORTED_VERSIONS`.
    """
    version = _check_version(emulated_version or DEFAULT_EMULATED_VERSION)
    wanted = (
        parse_feature_gates(feature_gates)
        if isinstance(feature_gates, str)
        else dict(feature_gates or {})
    )
    removed = {n for n, info in KUBE_SCHEDULER_FEATURES.items() if info.removed_at(version)}
    at = {
        name: spec_at(info.specs, version)
        for name, info in KUBE_SCHEDULER_FEATURES.items()
        if name not in removed
    }
    values = {name: spec.default for name, spec in at.items() if spec is not None}
    values.update({name: False for name, spec in at.items() if spec is None})
    overrides: dict[str, bool] = {}
    for group, stage in ((ALL_ALPHA, PreRelease.ALPHA), (ALL_BETA, PreRelease.BETA)):
        if group in wanted:
            on = wanted.pop(group)
            for name, spec in at.items():
                if spec is not None and spec.pre_release is stage and not spec.lock_to_default:
                    overrides[name] = on
    for name in sorted(n for n in wanted if n in removed):
        info = KUBE_SCHEDULER_FEATURES[name]
        before = f"1.{_v(info.removed)[1] - 1}"
        raise FeatureGateError(
            f"unrecognized feature gate: {name} (removed in v{info.removed} and merged into "
            f"{info.merged_into}: set {info.merged_into} instead, or --emulated-version {before})"
        )
    unknown = sorted(n for n in wanted if n not in KUBE_SCHEDULER_FEATURES)
    if unknown:
        raise FeatureGateError(
            f"unrecognized feature gate: {unknown[0]} "
            f"(kube-scheduler's gates: {', '.join(sorted(KUBE_SCHEDULER_FEATURES))})"
        )
    for name, on in wanted.items():
        spec = at[name]
        if spec is None:
            first = KUBE_SCHEDULER_FEATURES[name].specs[0].version
            raise FeatureGateError(
                f"cannot set feature gate {name} to {str(on).lower()}, feature is PreAlpha at "
                f"emulated version {version} (it arrives in {first}; try --emulated-version {first})"
            )
        if spec.lock_to_default and on != spec.default:
            raise FeatureGateError(
                f"cannot set feature gate {name} to {str(on).lower()}, "
                f"feature is locked to {str(spec.default).lower()}"
            )
        overrides[name] = on
    values.update(overrides)
    return FeatureGates(version, dict(sorted(values.items())), dict(sorted(overrides.items())))


def features_of(handle: Any) -> FeatureGates:
    """The gates a plugin's handle carries; the defaults for a handle without any (unit tests)."""
    gates = getattr(handle, "feature_gates", None)
    return gates if isinstance(gates, FeatureGates) else new_feature_gates()


def gate_table() -> list[tuple[str, list[str]]]:
    """Each gate's default and maturity at every supported release, for the docs' table.

    A cell reads ``true (Beta)``; ``locked`` is added for a gate locked to
    its default, ``—`` marks a release before the gate existed, and
    ``removed (X)`` one that no longer has it, X having taken it over.
    """
    rows = []
    for name, info in sorted(KUBE_SCHEDULER_FEATURES.items()):
        cells = []
        for version in SUPPORTED_VERSIONS:
            if info.removed_at(version):
                cells.append(f"removed ({info.merged_into})")
                continue
            spec = spec_at(info.specs, version)
            if spec is None:
                cells.append("—")
                continue
            cell = f"{str(spec.default).lower()} ({spec.pre_release.value})"
            cells.append(cell + (", locked" if spec.lock_to_default else ""))
        rows.append((name, cells))
    return rows
