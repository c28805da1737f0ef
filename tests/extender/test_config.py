"""``extenders`` in KubeSchedulerConfiguration: kube's validation and what the scheduler builds.

Expectations come from ``validateExtenders`` and ``validateExtendedResourceName``
in ``kubernetes/kubernetes:pkg/scheduler/apis/config/validation/validation.go``
and ``buildExtenders`` in ``pkg/scheduler/scheduler.go`` (v1.33).
"""

from __future__ import annotations

import pytest

from framework.config import ConfigError, loads_config
from framework.config.validation import MSG_INVALID_EXTENDED_RESOURCE
from framework.extender import with_ignored_extended_resources

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("cpu", f'Invalid value: "cpu": {MSG_INVALID_EXTENDED_RESOURCE}'),
        (
            "kubernetes.io/gpu",
            f'Invalid value: "kubernetes.io/gpu": {MSG_INVALID_EXTENDED_RESOURCE}',
        ),
    ],
    ids=["a native resource", "a resource in the kubernetes.io domain"],
)
def test_a_managed_resource_must_be_an_extended_resource(name: str, message: str) -> None:
    text = (
        HEADER + f"extenders: [{{urlPrefix: 'http://e', managedResources: [{{name: {name}}}]}}]\n"
    )
    with pytest.raises(ConfigError) as raised:
        loads_config(text)
    assert [(p.field, p.message) for p in raised.value.problems] == [
        ("extenders[0].managedResources[0].name", message)
    ]


def test_an_extender_loads_with_kubes_field_names() -> None:
    config = loads_config(
        HEADER + "extenders:\n- urlPrefix: http://127.0.0.1:8888\n  filterVerb: filter\n"
        "  prioritizeVerb: prioritize\n  weight: 2\n  bindVerb: bind\n  preemptVerb: preempt\n"
        "  nodeCacheCapable: true\n  ignorable: true\n  httpTimeout: 1500ms\n"
        "  managedResources: [{name: example.com/gpu, ignoredByScheduler: true}]\n"
    )
    (extender,) = config.extenders
    assert (extender.filter_verb, extender.prioritize_verb, extender.weight) == (
        "filter",
        "prioritize",
        2,
    )
    assert (extender.bind_verb, extender.preempt_verb, extender.http_timeout) == (
        "bind",
        "preempt",
        "1500ms",
    )
    assert extender.node_cache_capable and extender.ignorable
    assert extender.managed_resources[0].ignored_by_scheduler


def test_resources_ignored_by_the_scheduler_are_ignored_by_node_resources_fit() -> None:
    config = loads_config(
        HEADER + "extenders:\n- urlPrefix: http://e\n  managedResources:\n"
        "  - {name: example.com/gpu, ignoredByScheduler: true}\n"
        "  - {name: example.com/fpga}\n"
    )
    changed = with_ignored_extended_resources(config)
    assert changed.profiles[0].args_for("NodeResourcesFit")["ignoredResources"] == [
        "example.com/gpu"
    ]
    assert with_ignored_extended_resources(loads_config(HEADER)) == loads_config(HEADER)
