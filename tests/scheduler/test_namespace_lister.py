"""Plugins read namespaces from the scheduler's namespace informer, not with a request per pod.

kube-scheduler's InterPodAffinity reads the incoming pod's namespace labels
(``GetNamespaceLabelsSnapshot``) and a term's ``namespaceSelector`` through
the shared informer factory's namespace lister
(``pkg/scheduler/framework/plugins/interpodaffinity/plugin.go``, v1.33);
deploy/rbac.yaml grants list and watch on namespaces accordingly.
"""

from __future__ import annotations

import random

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Namespace, ObjectMeta, Pod
from framework.objects.manifest import loads
from framework.scheduler.scheduler import Scheduler

CLUSTER = """
apiVersion: v1
kind: Namespace
metadata: {name: team, labels: {tier: gold}}
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: team, labels: {app: db}}
spec: {nodeName: n2, containers: [{name: c, image: db}]}
"""

WEB = """
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: c, image: web}]
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector: {matchLabels: {app: db}}
        namespaceSelector: {matchLabels: {tier: gold}}
"""


class CountingAPI(APIServer):
    """An API server that counts the namespace reads it answers, by verb."""

    def __init__(self) -> None:
        super().__init__(FakeClock(), rng=random.Random(0))
        self.namespace_gets = 0
        self.namespace_lists = 0

    def get(self, kind, name, namespace=None):  # type: ignore[no-untyped-def]
        if kind is Namespace:
            self.namespace_gets += 1
        return super().get(kind, name, namespace)

    def list(self, kind, *args, **kwargs):  # type: ignore[no-untyped-def]
        if kind is Namespace:
            self.namespace_lists += 1
        return super().list(kind, *args, **kwargs)


def test_a_namespace_selector_is_unrolled_from_the_informer_without_a_request_per_pod() -> None:
    api = CountingAPI()
    for obj in loads(CLUSTER):
        api.create(obj)
    scheduler = Scheduler(api, clock=api._clock, seed=0)
    scheduler.schedule_pending()
    lists_at_start = api.namespace_lists  # the informer's first list
    (web,) = loads(WEB)
    api.create(web)
    scheduler.schedule_pending()
    # The term selects db's namespace by its labels, read from the informer: web joins db.
    assert api.get(Pod, "web", namespace="default").spec.node_name == "n2"
    assert api.namespace_gets == 0
    assert api.namespace_lists == lists_at_start


def test_a_namespace_created_later_reaches_the_lister() -> None:
    api = CountingAPI()
    scheduler = Scheduler(api, clock=api._clock, seed=0)
    scheduler.schedule_pending()
    api.create(Namespace(metadata=ObjectMeta(name="late", labels={"tier": "gold"})))
    scheduler.sync()
    lister = next(iter(scheduler.profiles.values())).namespace_lister()
    assert lister is not None
    assert lister.get("late").metadata.labels["tier"] == "gold"
