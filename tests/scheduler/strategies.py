"""Hypothesis strategies for small clusters, in the vocabulary of the default Filter plugins.

A :class:`Scenario` is a handful of nodes and pods described by plain,
frozen model objects (:class:`NodeModel`, :class:`PodModel`) whose numbers
are plain integers: millicores, bytes, counts. The model is what a test's
oracle reasons about; :meth:`NodeModel.manifest` and :meth:`PodModel.manifest`
render it into the manifests the fake API server stores and the scheduler
reads. So the oracle never parses a quantity or reads a framework object,
and a disagreement between the two sides shows up as a test failure.

What is drawn is what the default Filter plugins judge (v1.33): allocatable
cpu, memory, pods and an extended resource; zone, hostname and a few other
labels; NoSchedule, NoExecute and PreferNoSchedule taints; cordoned nodes;
containers', init containers' and sidecars' requests and the pod overhead;
host ports; node selectors and required node affinity (every operator);
tolerations; required pod (anti-)affinity; spread constraints (DoNotSchedule,
and ScheduleAnyway, which no filter may read); priority classes; and pods
bound at creation (``spec.nodeName``). Which of these a scenario uses at all
is drawn first (:class:`Features`).

Everything drawn is valid for the API server (``pkg/apis/core/validation``):
a toleration with no key uses ``Exists``; taints are unique per key and
effect; host ports are unique per pod; the extended resource's limit equals
its request; spread constraints are unique per topology key and
``whenUnsatisfiable``, with ``minDomains`` only on ``DoNotSchedule``.

Names are readable and ordered (``node-0``, ``pod-03``), and a scenario's
``repr`` is a short listing, one line per object, so a failing example
shrinks to something one can read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "CPU",
    "DISK",
    "GEN",
    "GPU",
    "HOSTNAME",
    "MEMORY",
    "PODS",
    "PRIORITY_CLASSES",
    "UNSCHEDULABLE_TAINT_KEY",
    "ZONE",
    "AffinityTermModel",
    "ContainerModel",
    "Features",
    "HostPortModel",
    "NodeModel",
    "PodModel",
    "Requirement",
    "Scenario",
    "SpreadConstraintModel",
    "TaintModel",
    "TolerationModel",
    "any_features",
    "scenarios",
]

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
GPU = "example.com/gpu"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
DISK = "example.com/disk"
GEN = "example.com/generation"
UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"
NAMESPACE = "default"

Mi = 1024 * 1024
PRIORITY_CLASSES = {"low": 10, "high": 1000}

# Small value sets, so that pods and nodes often meet on the same label.
ZONES = ("zone-a", "zone-b", "zone-c")
DISKS = ("ssd", "hdd")
GENERATIONS = ("1", "2", "3", "x")  # "x" is not an integer: Gt and Lt never match it
APPS = ("web", "db")
TAINT_KEYS = ("dedicated", "gpu")
TAINT_VALUES = ("", "a", "b")
TAINT_EFFECTS = ("NoSchedule", "NoExecute", "PreferNoSchedule")
HOST_IPS = ("127.0.0.1", "10.0.0.1")


def _mem(quantity: int) -> str:
    return f"{quantity // Mi}Mi"


def _cpu(millis: int) -> str:
    return f"{millis}m"


def _quantities(amounts: Mapping[str, int]) -> dict[str, str]:
    render = {CPU: _cpu, MEMORY: _mem}
    return {name: render.get(name, str)(value) for name, value in amounts.items()}


def _short(amounts: Mapping[str, int]) -> str:
    return ",".join(f"{k.split('/')[-1]}={v}" for k, v in _quantities(amounts).items()) or "-"


# --- nodes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaintModel:
    key: str
    value: str
    effect: str

    def __repr__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}"


@dataclass(frozen=True)
class NodeModel:
    name: str
    labels: Mapping[str, str]
    taints: tuple[TaintModel, ...]
    unschedulable: bool
    #: cpu in millicores, memory in bytes, pods and the extended resource as counts.
    allocatable: Mapping[str, int]

    def manifest(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"unschedulable": self.unschedulable}
        spec["taints"] = [
            {"key": t.key, "value": t.value, "effect": t.effect} for t in self.taints
        ]
        return {
            "metadata": {"name": self.name, "labels": dict(self.labels)},
            "spec": spec,
            "status": {"allocatable": _quantities(self.allocatable)},
        }

    def __repr__(self) -> str:
        labels = " ".join(
            f"{k.split('/')[-1]}={v}" for k, v in self.labels.items() if k != HOSTNAME
        )
        extras = [f"taints={list(self.taints)}"] if self.taints else []
        extras += ["cordoned"] if self.unschedulable else []
        return " ".join(
            p for p in [f"{self.name}:", _short(self.allocatable), labels, *extras] if p
        )


# --- pods ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class HostPortModel:
    port: int
    protocol: str  # "" means TCP
    host_ip: str  # "" means every address (0.0.0.0)

    def __repr__(self) -> str:
        return f"{self.host_ip or '*'}:{self.port}/{self.protocol or 'tcp'}"


@dataclass(frozen=True)
class ContainerModel:
    name: str
    requests: Mapping[str, int]
    host_ports: tuple[HostPortModel, ...] = ()
    #: An init container with ``restartPolicy: Always`` (Kubernetes 1.29+ sidecar).
    sidecar: bool = False

    def manifest(self) -> dict[str, Any]:
        resources: dict[str, Any] = {"requests": _quantities(self.requests)}
        if GPU in self.requests:  # extended resources cannot be overcommitted: limit = request
            resources["limits"] = {GPU: str(self.requests[GPU])}
        out: dict[str, Any] = {"name": self.name, "image": "busybox", "resources": resources}
        if self.host_ports:
            out["ports"] = [
                {"containerPort": p.port, "hostPort": p.port, "protocol": p.protocol or "TCP"}
                | ({"hostIP": p.host_ip} if p.host_ip else {})
                for p in self.host_ports
            ]
        if self.sidecar:
            out["restartPolicy"] = "Always"
        return out

    def __repr__(self) -> str:
        ports = f" ports={list(self.host_ports)}" if self.host_ports else ""
        return f"{'sidecar ' if self.sidecar else ''}{_short(self.requests)}{ports}"


@dataclass(frozen=True)
class Requirement:
    """A node selector requirement: ``key operator values``."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def __repr__(self) -> str:
        key = self.key.split("/")[-1]
        return (
            f"{key} {self.operator} {list(self.values)}"
            if self.values
            else f"{key} {self.operator}"
        )


@dataclass(frozen=True)
class TolerationModel:
    key: str
    operator: str
    value: str
    effect: str

    def __repr__(self) -> str:
        value = f"={self.value}" if self.operator == "Equal" else " Exists"
        return f"{self.key or '*'}{value}:{self.effect or '*'}"


@dataclass(frozen=True)
class AffinityTermModel:
    """A required pod (anti-)affinity term: pods with ``app=<app>`` in the same topology domain."""

    app: str
    topology_key: str

    def manifest(self) -> dict[str, Any]:
        return {
            "labelSelector": {"matchLabels": {"app": self.app}},
            "topologyKey": self.topology_key,
        }

    def __repr__(self) -> str:
        return f"app={self.app}@{self.topology_key.split('/')[-1]}"


@dataclass(frozen=True)
class SpreadConstraintModel:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    app: str
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "maxSkew": self.max_skew,
            "topologyKey": self.topology_key,
            "whenUnsatisfiable": self.when_unsatisfiable,
            "labelSelector": {"matchLabels": {"app": self.app}},
        }
        if self.min_domains is not None:
            out["minDomains"] = self.min_domains
        if self.node_affinity_policy is not None:
            out["nodeAffinityPolicy"] = self.node_affinity_policy
        if self.node_taints_policy is not None:
            out["nodeTaintsPolicy"] = self.node_taints_policy
        return out

    def __repr__(self) -> str:
        extras = [
            f"minDomains={self.min_domains}" if self.min_domains is not None else "",
            f"affinity={self.node_affinity_policy}" if self.node_affinity_policy else "",
            f"taints={self.node_taints_policy}" if self.node_taints_policy else "",
        ]
        return " ".join(
            [
                f"app={self.app}@{self.topology_key.split('/')[-1]} skew<={self.max_skew}",
                self.when_unsatisfiable,
                *filter(None, extras),
            ]
        )


@dataclass(frozen=True)
class PodModel:
    name: str
    labels: Mapping[str, str]
    containers: tuple[ContainerModel, ...]
    init_containers: tuple[ContainerModel, ...] = ()
    overhead: Mapping[str, int] = field(default_factory=dict)
    node_selector: Mapping[str, str] = field(default_factory=dict)
    #: Required node affinity: terms ORed, each a tuple of requirements ANDed; None if unset.
    required_node_affinity: tuple[tuple[Requirement, ...], ...] | None = None
    tolerations: tuple[TolerationModel, ...] = ()
    pod_affinity: tuple[AffinityTermModel, ...] = ()
    pod_anti_affinity: tuple[AffinityTermModel, ...] = ()
    spread: tuple[SpreadConstraintModel, ...] = ()
    priority_class: str | None = None
    #: Set at creation: the pod is bound from the start and never scheduled.
    node_name: str = ""

    def manifest(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "containers": [c.manifest() for c in self.containers],
            "initContainers": [c.manifest() for c in self.init_containers],
            "nodeSelector": dict(self.node_selector),
            "tolerations": [
                {"key": t.key, "operator": t.operator, "value": t.value, "effect": t.effect}
                for t in self.tolerations
            ],
            "topologySpreadConstraints": [c.manifest() for c in self.spread],
        }
        if self.overhead:
            spec["overhead"] = _quantities(self.overhead)
        if self.priority_class:
            spec["priorityClassName"] = self.priority_class
        if self.node_name:
            spec["nodeName"] = self.node_name
        affinity: dict[str, Any] = {}
        if self.required_node_affinity is not None:
            terms = [
                {
                    "matchExpressions": [
                        {"key": r.key, "operator": r.operator, "values": list(r.values)}
                        for r in term
                    ]
                }
                for term in self.required_node_affinity
            ]
            affinity["nodeAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
            }
        for key, terms_ in (
            ("podAffinity", self.pod_affinity),
            ("podAntiAffinity", self.pod_anti_affinity),
        ):
            if terms_:
                affinity[key] = {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        t.manifest() for t in terms_
                    ]
                }
        if affinity:
            spec["affinity"] = affinity
        return {
            "metadata": {"name": self.name, "namespace": NAMESPACE, "labels": dict(self.labels)},
            "spec": spec,
        }

    def __repr__(self) -> str:
        parts = [f"{self.name}:", " ".join(f"{k}={v}" for k, v in self.labels.items())]
        parts.append(f"containers={list(self.containers)}")
        optional: list[tuple[str, Any]] = [
            ("init", list(self.init_containers)),
            ("overhead", _short(self.overhead) if self.overhead else None),
            ("nodeSelector", dict(self.node_selector)),
            (
                "nodeAffinity",
                " OR ".join(str(list(t)) for t in self.required_node_affinity)
                if self.required_node_affinity is not None
                else None,
            ),
            ("tolerations", list(self.tolerations)),
            ("affinity", list(self.pod_affinity)),
            ("antiAffinity", list(self.pod_anti_affinity)),
            ("spread", list(self.spread)),
            ("priorityClass", self.priority_class),
            ("nodeName", self.node_name),
        ]
        parts += [f"{name}={value}" for name, value in optional if value]
        return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class Scenario:
    """A cluster to schedule: nodes, pods (in creation order) and the tie-breaking seed."""

    nodes: tuple[NodeModel, ...]
    pods: tuple[PodModel, ...]
    seed: int

    def __repr__(self) -> str:
        lines = [f"Scenario(seed={self.seed},"]
        lines += [f"  {n!r}" for n in self.nodes]
        lines += [f"  {p!r}" for p in self.pods]
        return "\n".join(lines) + ")"


# --- strategies -----------------------------------------------------------------------------
#
# The drawing helpers are plain functions of ``draw`` over cached strategies: building a
# strategy per draw costs more than the scheduling run it feeds.


@dataclass(frozen=True)
class Features:
    """Which features a scenario uses at all ("swarm testing").

    Drawing the switches first, once per scenario, gives many scenarios in
    which a few features meet often (spreading over tainted nodes, say)
    instead of every scenario holding a little of everything; and a failing
    example shrinks by switching features off.
    """

    taints: bool = False
    cordons: bool = False
    node_affinity: bool = False
    pod_affinity: bool = False
    anti_affinity: bool = False
    spread: bool = False
    host_ports: bool = False
    init_containers: bool = False
    overhead: bool = False
    extended: bool = False
    prebound: bool = False
    few_pods_per_node: bool = False


#: Every feature switched on or off at random.
any_features = st.builds(Features, *(st.booleans() for _ in range(12)))


@functools.cache
def _sampled(options: tuple[Any, ...], _types: tuple[type, ...]) -> st.SearchStrategy[Any]:
    # Keyed by the options' types too: (0, 1) == (False, True), but they draw different values.
    return st.sampled_from(options)


def _pick(draw: st.DrawFn, *options: Any) -> Any:
    """One of ``options`` (a repeated option is likelier; shrinks to the first)."""
    return draw(_sampled(options, tuple(map(type, options))))


def _some(draw: st.DrawFn, item: Callable[[], Any], *counts: int) -> list[Any]:
    """As many ``item()`` as one of ``counts`` says (shrinks to the first count)."""
    return [item() for _ in range(_pick(draw, *counts))]


def _unique(values: list[Any], key: Callable[[Any], Any]) -> list[Any]:
    """``values`` without the later ones whose ``key`` repeats an earlier one's."""
    seen: set[Any] = set()
    out = []
    for value in values:
        if key(value) not in seen:
            seen.add(key(value))
            out.append(value)
    return out


def _node(draw: st.DrawFn, index: int, on: Features) -> NodeModel:
    name = f"node-{index}"
    labels = {HOSTNAME: name}
    for key, values in ((ZONE, ZONES), (DISK, DISKS), (GEN, GENERATIONS)):
        value = _pick(draw, None, *values)
        if value is not None:
            labels[key] = value
    taints: list[TaintModel] = []
    if on.taints:

        def taint() -> TaintModel:
            keys, values, effects = TAINT_KEYS, TAINT_VALUES, TAINT_EFFECTS
            return TaintModel(_pick(draw, *keys), _pick(draw, *values), _pick(draw, *effects))

        taints = _unique(_some(draw, taint, 0, 1, 1, 2), lambda t: (t.key, t.effect))
    allocatable = {
        CPU: _pick(draw, 2000, 4000, 1000, 500),
        MEMORY: _pick(draw, 4096 * Mi, 2048 * Mi, 1024 * Mi, 512 * Mi),
        PODS: _pick(draw, 3, 2, 1) if on.few_pods_per_node else 110,
    }
    gpus = _pick(draw, None, 1, 2) if on.extended else None
    if gpus is not None:
        allocatable[GPU] = gpus
    unschedulable = on.cordons and _pick(draw, False, False, True)
    return NodeModel(name, labels, tuple(taints), unschedulable, allocatable)


def _requests(draw: st.DrawFn, on: Features) -> dict[str, int]:
    amounts = {
        CPU: _pick(draw, None, 100, 250, 0, 500),
        MEMORY: _pick(draw, None, 64 * Mi, 128 * Mi, 256 * Mi),
        GPU: _pick(draw, None, None, 1, 2) if on.extended else None,
    }
    return {name: value for name, value in amounts.items() if value is not None}


def _host_port(draw: st.DrawFn) -> HostPortModel:
    return HostPortModel(
        _pick(draw, 8080, 8081), _pick(draw, "", "TCP", "UDP"), _pick(draw, "", *HOST_IPS)
    )


def _requirement(draw: st.DrawFn, node_names: tuple[str, ...]) -> Requirement:
    key, values = _pick(
        draw, (ZONE, ZONES), (DISK, DISKS), (GEN, GENERATIONS), (HOSTNAME, node_names)
    )
    operators = ("In", "NotIn", "Exists", "DoesNotExist") + (("Gt", "Lt") if key == GEN else ())
    operator = _pick(draw, *operators)
    if operator in ("In", "NotIn"):
        chosen = _unique([_pick(draw, *values) for _ in range(_pick(draw, 1, 2))], str)
        return Requirement(key, operator, tuple(chosen))
    if operator in ("Gt", "Lt"):
        return Requirement(key, operator, (_pick(draw, "0", "1", "2", "3"),))
    return Requirement(key, operator)


def _toleration(draw: st.DrawFn) -> TolerationModel:
    key = _pick(draw, *TAINT_KEYS, UNSCHEDULABLE_TAINT_KEY, "")
    operator = _pick(draw, "Equal", "Exists") if key else "Exists"
    value = _pick(draw, *TAINT_VALUES) if operator == "Equal" else ""
    return TolerationModel(key, operator, value, _pick(draw, "", *TAINT_EFFECTS))


def _affinity_term(draw: st.DrawFn, own_app: str | None) -> AffinityTermModel:
    # Often the pod's own app: groups that attract or repel themselves.
    app = _pick(draw, *((own_app,) if own_app else ()), *APPS)
    return AffinityTermModel(app, _pick(draw, HOSTNAME, ZONE))


def _spread_constraint(draw: st.DrawFn, own_app: str | None) -> SpreadConstraintModel:
    when = _pick(draw, "DoNotSchedule", "DoNotSchedule", "ScheduleAnyway")
    return SpreadConstraintModel(
        max_skew=_pick(draw, 1, 1, 2),
        topology_key=_pick(draw, HOSTNAME, ZONE),
        when_unsatisfiable=when,
        app=_pick(draw, *((own_app,) * 4 if own_app else ()), *APPS),
        min_domains=_pick(draw, None, 1, 2, 3, 4) if when == "DoNotSchedule" else None,
        node_affinity_policy=_pick(draw, None, "Honor", "Ignore"),
        node_taints_policy=_pick(draw, None, "Honor", "Ignore"),
    )


def _with_unique_host_ports(containers: list[ContainerModel]) -> tuple[ContainerModel, ...]:
    # A pod may not ask twice for the same host port (validation: AccumulateUniqueHostPorts).
    seen: set[tuple[str, str, int]] = set()
    out = []
    for c in containers:
        ports = []
        for p in c.host_ports:
            key = (p.host_ip, p.protocol or "TCP", p.port)
            if key not in seen:
                seen.add(key)
                ports.append(p)
        out.append(ContainerModel(c.name, c.requests, tuple(ports)))
    return tuple(out)


def _pod(draw: st.DrawFn, index: int, node_names: tuple[str, ...], on: Features) -> PodModel:
    app = _pick(draw, *APPS, None)
    containers = [
        ContainerModel(
            f"c{i}",
            _requests(draw, on),
            tuple(_some(draw, lambda: _host_port(draw), 0, 1)) if on.host_ports else (),
        )
        for i in range(_pick(draw, 1, 2))
    ]
    n_init = _pick(draw, 0, 1, 2) if on.init_containers else 0
    init_containers = tuple(
        ContainerModel(f"init{i}", _requests(draw, on), sidecar=_pick(draw, False, True))
        for i in range(n_init)
    )
    overhead = {CPU: 100, MEMORY: 32 * Mi} if on.overhead and _pick(draw, False, True) else {}
    node_selector: dict[str, str] = {}
    required = None
    if on.node_affinity:
        node_selector = dict(_pick(draw, (), (), ((DISK, "ssd"),), ((ZONE, "zone-a"),)))
        if _pick(draw, False, True):

            def term() -> tuple[Requirement, ...]:
                return tuple(_some(draw, lambda: _requirement(draw, node_names), 1, 2))

            required = tuple(_some(draw, term, 1, 2))
    tolerations = ()
    if on.taints or on.cordons:
        tolerations = tuple(_some(draw, lambda: _toleration(draw), 0, 1, 2))
    affinity = ()
    if on.pod_affinity:
        affinity = tuple(_some(draw, lambda: _affinity_term(draw, app), 0, 0, 1))
    anti_affinity = ()
    if on.anti_affinity:
        terms = _some(draw, lambda: _affinity_term(draw, app), 0, 1, 2)
        anti_affinity = tuple(_unique(terms, lambda t: t))
    spread = ()
    if on.spread:
        constraints = _some(draw, lambda: _spread_constraint(draw, app), 0, 1, 1, 1, 2)
        spread = tuple(_unique(constraints, lambda c: (c.topology_key, c.when_unsatisfiable)))
    return PodModel(
        name=f"pod-{index:02d}",
        labels={"app": app} if app else {},
        containers=_with_unique_host_ports(containers),
        init_containers=init_containers,
        overhead=overhead,
        node_selector=node_selector,
        required_node_affinity=required,
        tolerations=tolerations,
        pod_affinity=affinity,
        pod_anti_affinity=anti_affinity,
        spread=spread,
        priority_class=_pick(draw, None, "low", "high"),
        node_name=_pick(draw, "", "", "", "", *node_names) if on.prebound else "",
    )


@st.composite
def scenarios(
    draw: st.DrawFn,
    features: st.SearchStrategy[Features] = any_features,
    max_nodes: int = 6,
    max_pods: int = 12,
) -> Scenario:
    """Between 1 and ``max_nodes`` nodes, 1 and ``max_pods`` pods, and a seed."""
    on = draw(features)
    cluster = tuple(_node(draw, i, on) for i in range(draw(st.integers(1, max_nodes))))
    names = tuple(n.name for n in cluster)
    workload = tuple(_pod(draw, i, names, on) for i in range(draw(st.integers(1, max_pods))))
    return Scenario(cluster, workload, draw(st.integers(0, 2**32 - 1)))
