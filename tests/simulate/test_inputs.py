"""Reading the simulator's inputs: file order, kinds, controllers, the configuration, bad input.

The expectations about workload controllers come from the controllers that
create the pods in a cluster (``kubernetes/kubernetes:pkg/controller/``,
v1.33): ``replicaset/replica_set.go`` (``manageReplicas``, pods named
``<replicaset>-<5 random characters>``), ``deployment/sync.go``
(``getNewReplicaSet``: the ReplicaSet ``<deployment>-<pod-template-hash>``),
``statefulset/stateful_set_utils.go`` (``getPodName``: ``<set>-<ordinal>``)
and ``job/job_controller.go`` (``manageJob``: ``parallelism`` pods, at most
``completions``, none when suspended; ``<job>-<index>-`` for Indexed jobs).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from framework.objects import Namespace, Node, Pod
from framework.objects.workloads import ReplicaSet
from framework.simulator.controllers import expand_controller
from framework.simulator.inputs import SimulationInputError, load_inputs, understood_kinds

NAME_SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"

NODE = "kind: Node\nmetadata: {name: %s}\n"
POD = "kind: Pod\nmetadata: {name: %s}\nspec: {containers: [{name: c, image: nginx}]}\n"
TEMPLATE = """
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
"""


def key(obj: object) -> str:
    """``namespace/name`` as the API server will store it (``default`` when left out)."""
    meta = obj.metadata  # type: ignore[attr-defined]
    if isinstance(obj, Pod):
        return f"{meta.namespace or 'default'}/{meta.name}"
    return str(meta.name)


def names(text: str) -> list[str]:
    return [key(o.obj) for o in load_inputs([text]).objects]


def test_objects_keep_file_order_across_files_and_directories(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.yaml").write_text(POD % "p2" + "---\n" + NODE % "n2")
    (tmp_path / "b" / "1.yml").write_text(POD % "p1")
    (tmp_path / "b" / "ignored.txt").write_text("not a manifest")
    (tmp_path / "a.json").write_text('{"kind": "Node", "metadata": {"name": "n1"}}')
    inputs = load_inputs([tmp_path / "a.json", tmp_path / "b", POD % "p3"])
    assert [(key(o.obj), o.source) for o in inputs.objects] == [
        ("n1", str(tmp_path / "a.json")),
        ("default/p1", str(tmp_path / "b" / "1.yml")),  # a directory is read in sorted order
        ("default/p2", str(tmp_path / "b" / "2.yaml")),
        ("n2", str(tmp_path / "b" / "2.yaml")),
        ("default/p3", "<string 3>"),
    ]


def test_parsed_manifests_and_objects_are_sources_too() -> None:
    node = Node.from_dict({"metadata": {"name": "n1"}})
    inputs = load_inputs([node, {"kind": "Namespace", "metadata": {"name": "shop"}}])
    assert [type(o.obj) for o in inputs.objects] == [Node, Namespace]
    assert [o.source for o in inputs.objects] == ["<object 1>", "<object 2>"]


def test_an_unknown_kind_is_skipped_with_a_warning_naming_file_and_object(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(
        NODE % "n1" + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"
    )
    inputs = load_inputs([path])
    assert [key(o.obj) for o in inputs.objects] == ["n1"]
    (warning,) = inputs.warnings
    assert warning.startswith(f"{path}: ConfigMap default/settings: kind ConfigMap (v1) is not")
    assert "skipped" in warning


def test_the_understood_kinds_include_controllers_and_the_configuration() -> None:
    kinds = understood_kinds()
    for kind in ("Node", "Pod", "PriorityClass", "Namespace", "Deployment", "Job"):
        assert kind in kinds
    assert kinds[-1] == "KubeSchedulerConfiguration"


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        pytest.param(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web}\nspec:\n  replicas: 3"
            + TEMPLATE,
            [f"web-{NAME_SUFFIX}"] * 3,
            id="replicaset: replicas pods named <rs>-<5 chars>",
        ),
        pytest.param(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2"
            + TEMPLATE,
            [f"web-[bcdfghjklmnpqrstvwxz2456789]{{1,10}}-{NAME_SUFFIX}"] * 2,
            id="deployment: <deploy>-<template hash>-<5 chars>",
        ),
        pytest.param(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  replicas: 3"
            + TEMPLATE,
            ["db-0", "db-1", "db-2"],
            id="statefulset: ordinal names",
        ),
        pytest.param(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  parallelism: 2"
            + TEMPLATE,
            [f"pi-{NAME_SUFFIX}"] * 2,
            id="job: parallelism pods",
        ),
        pytest.param(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  parallelism: 5\n"
            "  completions: 2" + TEMPLATE,
            [f"pi-{NAME_SUFFIX}"] * 2,
            id="job: no more than completions",
        ),
        pytest.param(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  parallelism: 2\n"
            "  completionMode: Indexed" + TEMPLATE,
            [f"pi-0-{NAME_SUFFIX}", f"pi-1-{NAME_SUFFIX}"],
            id="indexed job: <job>-<index>-<5 chars>",
        ),
        pytest.param(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  suspend: true"
            + TEMPLATE,
            [],
            id="suspended job: no pods",
        ),
        pytest.param(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web}\nspec:" + TEMPLATE,
            [f"web-{NAME_SUFFIX}"],
            id="replicas defaults to 1",
        ),
    ],
)
def test_controllers_become_their_pods(manifest: str, expected: list[str]) -> None:
    pods = [o.obj for o in load_inputs([manifest]).objects if isinstance(o.obj, Pod)]
    assert len(pods) == len(expected)
    for pod, pattern in zip(pods, expected, strict=True):
        assert re.fullmatch(pattern, pod.name), pod.name
        assert pod.metadata.labels["app"] == "web"
        assert pod.metadata.namespace == "default"
    assert len({p.name for p in pods}) == len(pods)


def test_controller_pods_are_the_same_on_every_run_and_carry_the_controller_labels() -> None:
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  replicas: 2" + TEMPLATE
    )
    first, second = names(deployment), names(deployment)
    assert first == second
    replica_set, pod = (o.obj for o in load_inputs([deployment]).objects[:2])
    template_hash = pod.name.split("-")[1]
    # The Deployment is kept as the ReplicaSet it creates, for DefaultSelector to read.
    assert isinstance(replica_set, ReplicaSet)
    assert replica_set.metadata.name == f"web-{template_hash}"
    assert replica_set.metadata.namespace == "shop"
    assert replica_set.spec.selector is not None
    assert replica_set.spec.selector.match_labels["pod-template-hash"] == template_hash
    assert pod.metadata.labels["pod-template-hash"] == template_hash
    owner = pod.metadata.owner_references[0]
    assert (owner["kind"], owner["name"], owner["controller"]) == (
        "ReplicaSet",
        f"web-{template_hash}",
        True,
    )
    job = load_inputs(
        ["apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:" + TEMPLATE]
    ).objects[0]
    assert job.obj.metadata.labels["batch.kubernetes.io/job-name"] == "pi"


def test_a_controller_in_the_middle_of_a_file_keeps_its_place() -> None:
    text = (
        POD % "first"
        + "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n"
        + "  replicas: 2"
        + TEMPLATE
        + "---\n"
        + POD % "last"
    )
    # The StatefulSet itself is kept, before its pods.
    assert names(text) == ["default/first", "db", "default/db-0", "default/db-1", "default/last"]


def test_a_configuration_document_among_the_manifests_is_the_configuration() -> None:
    inputs = load_inputs(
        [
            NODE % "n1"
            + "---\napiVersion: kubescheduler.config.k8s.io/v1\n"
            + "kind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 30\n"
        ]
    )
    assert inputs.config is not None and inputs.config.percentage_of_nodes_to_score == 30
    assert inputs.config_source == "<string 1>"


CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
BAD_QUANTITY = (
    "kind: Pod\nmetadata: {name: web}\n"
    'spec: {containers: [{name: c, resources: {requests: {cpu: "1 core"}}}]}\n'
)
DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"


@pytest.mark.parametrize(
    ("files", "config", "where", "what"),
    [
        pytest.param(
            {"pods.yaml": BAD_QUANTITY},
            None,
            "pods.yaml",
            'Pod default/web: spec.containers[0].resources.requests.cpu: "1 core" is not a '
            "valid quantity",
            id="invalid quantity",
        ),
        pytest.param(
            {"broken.yaml": "kind: Pod\nmetadata: {name: web\n"},
            None,
            "broken.yaml",
            "invalid YAML at line 3",
            id="broken YAML",
        ),
        pytest.param(
            {"deploy.yaml": DEPLOYMENT + "  replicas: three" + TEMPLATE},
            None,
            "deploy.yaml",
            "Deployment default/web: spec.replicas: must be a non-negative integer, got 'three'",
            id="controller replicas",
        ),
        pytest.param(
            {
                "deploy.yaml": DEPLOYMENT
                + "  template:\n    spec: {containers: [{name: c, resources: {requests: "
                "{memory: lots}}}]}\n"
            },
            None,
            "deploy.yaml",
            "Deployment default/web: spec.template.spec.containers[0].resources.requests.memory: "
            '"lots" is not a valid quantity',
            id="controller template",
        ),
        pytest.param(
            {"pods.yaml": POD % "web"},
            CONFIG + "profiles:\n- plugins:\n    filter:\n      enabled: [{name: Nope}]\n",
            "sched.yaml",
            'KubeSchedulerConfiguration: profiles[0].plugins.filter.enabled[0].name: plugin "Nope" '
            "does not exist",
            id="unknown plugin in the config",
        ),
        pytest.param(
            {"pods.yaml": POD % "web"},
            CONFIG + "percentageOfNodesToScore: 200\n",
            "sched.yaml",
            "KubeSchedulerConfiguration: percentageOfNodesToScore: Invalid value: 200",
            id="invalid config value",
        ),
        pytest.param(
            {"pods.yaml": POD % "web" + "---\n" + CONFIG},
            CONFIG,
            "--config",
            "KubeSchedulerConfiguration: a scheduler configuration was already given in",
            id="two configurations",
        ),
    ],
)
def test_bad_input_is_one_line_naming_file_object_and_field(
    tmp_path: Path, files: dict[str, str], config: str | None, where: str, what: str
) -> None:
    from framework.simulator.inputs import plugin_registry

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    config_path = None
    if config is not None:
        config_path = tmp_path / "sched.yaml"
        config_path.write_text(config)
    with pytest.raises(SimulationInputError) as raised:
        load_inputs([tmp_path / n for n in files], config_path, plugin_registry())
    (problem,) = raised.value.problems
    source = where if where.startswith("--") else str(tmp_path / where)
    assert problem.startswith(f"{source}: {what}"), problem


def test_a_pod_naming_a_missing_priority_class_is_reported_at_its_field() -> None:
    text = "kind: Pod\nmetadata: {name: web}\nspec:\n  priorityClassName: gold\n  containers: [{name: c}]\n"
    with pytest.raises(SimulationInputError) as raised:
        load_inputs([text])
    assert raised.value.problems == [
        "<string 1>: Pod default/web: spec.priorityClassName: no PriorityClass with name gold "
        "was found"
    ]
    declared = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: gold}\nvalue: 10\n"
    assert len(load_inputs([declared, text]).objects) == 2


def test_every_problem_of_every_file_is_reported_together(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("kind: Pod\nmetadata: {name: a\n")
    (tmp_path / "b.yaml").write_text(
        "kind: Pod\nmetadata: {name: b}\nspec: {containers: [{name: c, resources: {requests: "
        "{cpu: x}}}]}\n"
    )
    with pytest.raises(SimulationInputError) as raised:
        load_inputs([tmp_path])
    assert [p.split(":")[0] for p in raised.value.problems] == [
        str(tmp_path / "a.yaml"),
        str(tmp_path / "b.yaml"),
    ]


def test_expand_controller_refuses_a_controller_without_a_template() -> None:
    from framework.objects import Unstructured
    from framework.simulator.controllers import ControllerError

    deployment = Unstructured.from_dict(
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}, "spec": {}}
    )
    with pytest.raises(ControllerError, match=r"spec\.template: is required"):
        expand_controller(deployment)
