"""Hypothesis strategies for manifests: valid Kubernetes objects with unknown fields sprinkled in.

Known fields only ever hold non-empty, non-default values here, because an
empty value is dropped on output by design (Go's ``omitempty``); that rule has
its own example test. Unknown keys (prefixed ``x``, which no Kubernetes field
is) may hold any JSON at all, nulls and empties included, and must come back
untouched.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from framework.objects import Quantity

NAMES = st.from_regex(r"[a-z]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
LABEL_VALUES = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,8}[A-Za-z0-9])?", fullmatch=True)
UNKNOWN_KEYS = st.from_regex(r"x[A-Z][A-Za-z0-9]{0,8}", fullmatch=True)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)

QUANTITIES = st.one_of(
    st.integers(1, 64),
    st.builds(
        lambda n, s: f"{n}{s}",
        st.integers(1, 4096),
        st.sampled_from(["", "m", "Ki", "Mi", "Gi", "k", "M", "G"]),
    ),
    st.builds(lambda n: f"{n}.5", st.integers(0, 16)),
).map(lambda q: Quantity.parse(q).canonical)  # written back canonical, as the API server does
RESOURCE_NAMES = st.sampled_from(["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "pods"])


def with_unknowns(
    strategy: st.SearchStrategy[dict[str, Any]],
) -> st.SearchStrategy[dict[str, Any]]:
    """Add up to two unknown keys holding arbitrary JSON to every generated object."""
    return st.builds(
        lambda known, unknown: {**known, **unknown},
        strategy,
        st.dictionaries(UNKNOWN_KEYS, JSON, max_size=2),
    )


def fixed_and_optional(
    required: dict[str, Any], optional: dict[str, Any]
) -> st.SearchStrategy[dict[str, Any]]:
    return with_unknowns(st.fixed_dictionaries(required, optional=optional))


LABELS = st.dictionaries(NAMES, LABEL_VALUES, min_size=1, max_size=3)
RESOURCE_LIST = st.dictionaries(RESOURCE_NAMES, QUANTITIES, min_size=1, max_size=3)

METADATA = fixed_and_optional(
    {"name": NAMES},
    {
        "namespace": NAMES,
        "labels": LABELS,
        "annotations": LABELS,
        "uid": NAMES,
        "resourceVersion": st.integers(1, 10**6).map(str),
        "generation": st.integers(1, 9),
        "creationTimestamp": st.just("2025-04-23T12:00:00Z"),
    },
)

REQUIREMENT = fixed_and_optional(
    {
        "key": NAMES,
        "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    },
    {"values": st.lists(LABEL_VALUES, min_size=1, max_size=3)},
)
LABEL_SELECTOR = fixed_and_optional(
    {}, {"matchLabels": LABELS, "matchExpressions": st.lists(REQUIREMENT, min_size=1, max_size=2)}
).filter(bool)
NODE_SELECTOR_TERM = fixed_and_optional(
    {"matchExpressions": st.lists(REQUIREMENT, min_size=1, max_size=2)},
    {"matchFields": st.lists(REQUIREMENT, min_size=1, max_size=1)},
)
POD_AFFINITY_TERM = fixed_and_optional(
    {"topologyKey": NAMES},
    {
        "labelSelector": LABEL_SELECTOR,
        "namespaces": st.lists(NAMES, min_size=1, max_size=2),
        "namespaceSelector": LABEL_SELECTOR,
        "matchLabelKeys": st.lists(NAMES, min_size=1, max_size=2),
    },
)
WEIGHTED_TERM = fixed_and_optional(
    {"weight": st.integers(1, 100), "podAffinityTerm": POD_AFFINITY_TERM}, {}
)
POD_AFFINITY = fixed_and_optional(
    {},
    {
        "requiredDuringSchedulingIgnoredDuringExecution": st.lists(
            POD_AFFINITY_TERM, min_size=1, max_size=2
        ),
        "preferredDuringSchedulingIgnoredDuringExecution": st.lists(
            WEIGHTED_TERM, min_size=1, max_size=2
        ),
    },
).filter(bool)
AFFINITY = fixed_and_optional(
    {},
    {
        "nodeAffinity": fixed_and_optional(
            {
                "requiredDuringSchedulingIgnoredDuringExecution": fixed_and_optional(
                    {"nodeSelectorTerms": st.lists(NODE_SELECTOR_TERM, min_size=1, max_size=2)}, {}
                )
            },
            {
                "preferredDuringSchedulingIgnoredDuringExecution": st.lists(
                    fixed_and_optional(
                        {"weight": st.integers(1, 100), "preference": NODE_SELECTOR_TERM}, {}
                    ),
                    min_size=1,
                    max_size=2,
                )
            },
        ),
        "podAffinity": POD_AFFINITY,
        "podAntiAffinity": POD_AFFINITY,
    },
).filter(bool)
TOLERATION = fixed_and_optional(
    {"key": NAMES, "operator": st.sampled_from(["Equal", "Exists"])},
    {
        "value": LABEL_VALUES,
        "effect": st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
        "tolerationSeconds": st.integers(1, 3600),
    },
)
SPREAD = fixed_and_optional(
    {
        "maxSkew": st.integers(1, 5),
        "topologyKey": NAMES,
        "whenUnsatisfiable": st.sampled_from(["DoNotSchedule", "ScheduleAnyway"]),
    },
    {
        "labelSelector": LABEL_SELECTOR,
        "minDomains": st.integers(1, 5),
        "nodeAffinityPolicy": st.sampled_from(["Honor", "Ignore"]),
        "nodeTaintsPolicy": st.sampled_from(["Honor", "Ignore"]),
        "matchLabelKeys": st.lists(NAMES, min_size=1, max_size=2),
    },
)
CONTAINER = fixed_and_optional(
    {"name": NAMES},
    {
        "image": NAMES,
        "resources": fixed_and_optional(
            {}, {"requests": RESOURCE_LIST, "limits": RESOURCE_LIST}
        ).filter(bool),
        "ports": st.lists(
            fixed_and_optional(
                {"containerPort": st.integers(1, 65535)},
                {
                    "hostPort": st.integers(1, 65535),
                    "protocol": st.sampled_from(["TCP", "UDP"]),
                    "hostIP": st.just("10.0.0.1"),
                    "name": NAMES,
                },
            ),
            min_size=1,
            max_size=2,
        ),
    },
)
POD_SPEC = fixed_and_optional(
    {"containers": st.lists(CONTAINER, min_size=1, max_size=2)},
    {
        "initContainers": st.lists(CONTAINER, min_size=1, max_size=2),
        "nodeName": NAMES,
        "nodeSelector": LABELS,
        "affinity": AFFINITY,
        "tolerations": st.lists(TOLERATION, min_size=1, max_size=2),
        "topologySpreadConstraints": st.lists(SPREAD, min_size=1, max_size=2),
        "schedulerName": NAMES,
        "priorityClassName": NAMES,
        "priority": st.integers(-10, 10**9).filter(bool),
        "preemptionPolicy": st.sampled_from(["PreemptLowerPriority", "Never"]),
        "schedulingGates": st.lists(
            fixed_and_optional({"name": NAMES}, {}), min_size=1, max_size=2
        ),
        "overhead": RESOURCE_LIST,
        "hostNetwork": st.just(True),
    },
)
POD_STATUS = fixed_and_optional(
    {},
    {
        "phase": st.sampled_from(["Pending", "Running"]),
        "nominatedNodeName": NAMES,
        "qosClass": st.sampled_from(["Guaranteed", "Burstable", "BestEffort"]),
        "conditions": st.lists(
            fixed_and_optional(
                {"type": NAMES, "status": st.sampled_from(["True", "False"])},
                {"reason": NAMES, "message": st.text(min_size=1, max_size=10)},
            ),
            min_size=1,
            max_size=2,
        ),
    },
).filter(bool)

POD = fixed_and_optional(
    {"apiVersion": st.just("v1"), "kind": st.just("Pod"), "metadata": METADATA, "spec": POD_SPEC},
    {"status": POD_STATUS},
)

NODE = fixed_and_optional(
    {"apiVersion": st.just("v1"), "kind": st.just("Node"), "metadata": METADATA},
    {
        "spec": fixed_and_optional(
            {},
            {
                "unschedulable": st.just(True),
                "taints": st.lists(
                    fixed_and_optional(
                        {
                            "key": NAMES,
                            "effect": st.sampled_from(
                                ["NoSchedule", "PreferNoSchedule", "NoExecute"]
                            ),
                        },
                        {"value": LABEL_VALUES},
                    ),
                    min_size=1,
                    max_size=2,
                ),
            },
        ).filter(bool),
        "status": fixed_and_optional(
            {},
            {
                "capacity": RESOURCE_LIST,
                "allocatable": RESOURCE_LIST,
                "images": st.lists(
                    fixed_and_optional(
                        {"names": st.lists(NAMES, min_size=1, max_size=2)},
                        {"sizeBytes": st.integers(1, 10**10)},
                    ),
                    min_size=1,
                    max_size=2,
                ),
                "conditions": st.lists(
                    fixed_and_optional({"type": NAMES, "status": st.just("True")}, {}),
                    min_size=1,
                    max_size=2,
                ),
            },
        ).filter(bool),
    },
)
