"""Pods, PodGroups, nodes and a plugin on a fake API server, built as scheduler-plugins' tests build them.

``make_pod`` mirrors ``st.MakePod().Name().Namespace().UID().Label(PodGroupLabel, ...)``
and ``make_node`` mirrors ``st.MakeNode().Name().Capacity(...)`` (which adds
32 pod slots) from ``kubernetes/kubernetes:pkg/scheduler/testing/wrappers.go``;
``make_pod_group`` mirrors ``tu.MakePodGroup()`` from
``kubernetes-sigs/scheduler-plugins:test/util/utils.go``. ``Setup`` plays the
fake client, the fake shared lister and the framework handle that
``pkg/coscheduling/coscheduling_test.go`` and ``core/core_test.go`` compose
for each case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from framework.apiserver import APIServer
from framework.cache.snapshot import new_snapshot
from framework.clock import FakeClock
from framework.config import loads_config, out_of_tree_args
from framework.config.types import KubeSchedulerConfiguration
from framework.cycle_state import PODS_TO_ACTIVATE_KEY, CycleState, PodsToActivate
from framework.featuregate import FeatureGates
from framework.objects import POD_GROUP_LABEL, Namespace, Node, ObjectMeta, Pod, PodGroup
from framework.plugins import coscheduling
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry, build_registry, with_plugin

NS = "ns"
START = 1_000_000.0


def make_pod(
    name: str,
    group: str = "",
    namespace: str = NS,
    node_name: str = "",
    priority: int | None = None,
    cpu: str | None = None,
    uid: str | None = None,
) -> Pod:
    labels = {POD_GROUP_LABEL: group} if group else {}
    container: dict[str, Any] = {"name": "c", "image": "busybox"}
    if cpu is not None:
        container["resources"] = {"requests": {"cpu": cpu}}
    spec: dict[str, Any] = {"containers": [container], "nodeName": node_name}
    if priority is not None:
        spec["priority"] = priority
    return Pod.from_dict(
        {
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": uid or name,
                "labels": labels,
            },
            "spec": spec,
        }
    )


def make_pod_group(
    name: str,
    min_member: int | None = None,
    namespace: str = NS,
    min_resources: Mapping[str, str] | None = None,
    schedule_timeout_seconds: int | None = None,
) -> PodGroup:
    spec: dict[str, Any] = {}
    if min_member is not None:
        spec["minMember"] = min_member
    if min_resources is not None:
        spec["minResources"] = dict(min_resources)
    if schedule_timeout_seconds is not None:
        spec["scheduleTimeoutSeconds"] = schedule_timeout_seconds
    return PodGroup.from_dict({"metadata": {"name": name, "namespace": namespace}, "spec": spec})


def make_node(name: str, cpu: str = "4", pods: int = 32) -> Node:
    return Node.from_dict(
        {"metadata": {"name": name}, "status": {"allocatable": {"cpu": cpu, "pods": str(pods)}}}
    )


@dataclass
class Setup:
    """An API server holding the case's objects, and a framework (the handle) with a snapshot."""

    pods: Sequence[Pod] = ()
    pod_groups: Sequence[PodGroup] = ()
    nodes: Sequence[Node] = ()
    snapshot_pods: Sequence[Pod] | None = None
    created: Mapping[str, float] = field(default_factory=dict)
    clock: FakeClock = field(default_factory=lambda: FakeClock(start=START))

    def __post_init__(self) -> None:
        # Stored pods keep the uids the case gave them, so that the test's objects are the
        # stored ones (the plugin tells a pod from its siblings by uid).
        self._uids: list[str] = []
        counter = iter(range(1, 1_000_000))
        self.api = APIServer(
            self.clock,
            uid_factory=lambda: self._uids.pop() if self._uids else f"uid-{next(counter)}",
        )
        namespaces = {o.metadata.namespace for o in (*self.pods, *self.pod_groups)}
        for namespace in sorted(namespaces - {"default", ""}):
            self.api.create(Namespace(metadata=ObjectMeta(name=namespace)))
        # PodGroups are created in order of ``created`` (seconds after START), as Time() sets them.
        for pg in sorted(self.pod_groups, key=lambda pg: self.created.get(pg.name, 0)):
            self.clock.set(START + self.created.get(pg.name, 0))
            self.api.create(pg)
        for pod in self.pods:
            self._uids.append(pod.metadata.uid)
            self.api.create(pod)
        self.fwk = Framework("default-scheduler", clock=self.clock, client=self.api)
        # The shared lister: the case's assigned pods on its nodes (all pods by default).
        on_nodes = self.pods if self.snapshot_pods is None else self.snapshot_pods
        self.fwk.snapshot = new_snapshot([p for p in on_nodes if p.spec.node_name], self.nodes)

    def plugin(self, args: Any = None) -> coscheduling.Coscheduling:
        """The plugin, built by its factory with this framework as its handle."""
        plugin = coscheduling.new(args, self.fwk)
        self.fwk.set_plugins(
            {
                "queueSort": [plugin],
                "preFilter": [plugin],
                "postFilter": [plugin],
                "reserve": [plugin],
                "permit": [plugin],
            },
            {},
        )
        return plugin


def cycle_state() -> CycleState:
    """A cycle state as the scheduling loop makes one: with an empty PodsToActivate."""
    state = CycleState()
    state.write(PODS_TO_ACTIVATE_KEY, PodsToActivate())
    return state


def pods_to_activate(state: CycleState) -> list[str]:
    return sorted(state.read_as(PODS_TO_ACTIVATE_KEY, PodsToActivate).map)


# --- a whole scheduler -------------------------------------------------------------------------

CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{{name: DefaultPreemption}}]
    queueSort:
      enabled: [{{name: Coscheduling}}]
      disabled: [{{name: "*"}}]
    preFilter: {{enabled: [{{name: Coscheduling}}]}}
    postFilter: {{enabled: [{{name: Coscheduling}}]}}
    permit: {{enabled: [{{name: Coscheduling}}]}}
    reserve: {{enabled: [{{name: Coscheduling}}]}}
  pluginConfig:
  - name: Coscheduling
    args: {args}
"""
"""scheduler-plugins' documented profile (``manifests/coscheduling/scheduler-config.yaml``),
in ``kubescheduler.config.k8s.io/v1``, on top of the default plugins, without DefaultPreemption
so that the gang's own PostFilter is the only one."""


def coscheduling_config(
    args: str = "{permitWaitingTimeSeconds: 10}", feature_gates: FeatureGates | None = None
) -> KubeSchedulerConfiguration:
    """The profile, defaulted as the release of ``feature_gates`` defaults it (as the scheduler
    that runs it must be: a v1.33 scheduler given v1.37's defaults would hold a disabled
    DynamicResources)."""
    return loads_config(
        CONFIG.format(args=args), args=out_of_tree_args(), feature_gates=feature_gates
    )


def scheduler_plugins_registry() -> Registry:
    """kube-scheduler's in-tree plugins plus this project's out-of-tree ones (QOSSort, Coscheduling)."""
    from framework.plugins.registry import out_of_tree_registry

    return build_registry(
        in_tree_registry(), *(with_plugin(n, f) for n, f in out_of_tree_registry().items())
    )
