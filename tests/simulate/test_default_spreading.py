"""End to end: a Deployment behind a Service spreads over zones by PodTopologySpread's System defaults.

kube-scheduler gives a pod without ``topologySpreadConstraints`` the System
pair (zone maxSkew 5, hostname maxSkew 3, both ScheduleAnyway) with the
selector of the Services and controller selecting it (``helper.DefaultSelector``,
``pkg/scheduler/framework/plugins/helper/spread.go``, v1.33). Zone ``a``'s
nodes are far larger, so NodeResourcesFit's LeastAllocated alone would put
every pod there; the spreading score pulls them over the zones.
"""

from __future__ import annotations

from collections import Counter

from framework.simulator import simulate

NODES = "\n".join(
    f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{topology.kubernetes.io/zone: {zone}, kubernetes.io/hostname: {name}}}
status:
  allocatable: {{cpu: "{cpu}", memory: {cpu}Gi, pods: "110"}}
"""
    for name, zone, cpu in [
        ("a1", "a", 64),
        ("a2", "a", 64),
        ("b1", "b", 8),
        ("b2", "b", 8),
        ("c1", "c", 8),
        ("c2", "c", 8),
    ]
)

TEMPLATE = """
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        resources: {requests: {cpu: 500m, memory: 512Mi}}
"""

BARE_PODS = "\n".join(
    f"""---
apiVersion: v1
kind: Pod
metadata: {{name: web-{i}, labels: {{app: web}}}}
spec:
  containers:
  - name: web
    image: nginx
    resources: {{requests: {{cpu: 500m, memory: 512Mi}}}}
"""
    for i in range(6)
)

SERVICE = """---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
"""

DEPLOYMENT = (
    """---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}"""
    + TEMPLATE
)


def zones(*sources: str) -> Counter[str]:
    result = simulate(NODES, *sources)
    assert all(result.placements.values()), result.placements
    return Counter(str(node)[0] for node in result.placements.values())


def test_bare_pods_without_a_service_pile_into_the_large_zone() -> None:
    assert zones(BARE_PODS) == {"a": 6}


def test_bare_pods_behind_a_service_spread_over_the_zones() -> None:
    spread = zones(SERVICE, BARE_PODS)
    assert set(spread) == {"a", "b", "c"}, spread


def test_a_deployment_behind_a_service_spreads_over_the_zones() -> None:
    spread = zones(SERVICE, DEPLOYMENT)
    assert set(spread) == {"a", "b", "c"}, spread


def test_a_deployment_alone_spreads_by_its_replicaset() -> None:
    # The simulator keeps the Deployment's ReplicaSet, whose selector DefaultSelector reads.
    spread = zones(DEPLOYMENT)
    assert set(spread) == {"a", "b", "c"}, spread
