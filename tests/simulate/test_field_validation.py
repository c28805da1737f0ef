"""``simulate`` and ``explain`` read manifests as strictly as ``kubectl apply`` sends them.

kubectl sends ``fieldValidation=Strict`` since v1.27, and kube-apiserver
then refuses an unknown field (``k8s.io/apiserver/pkg/endpoints/handlers/
create.go``: ``strict decoding error: unknown field "spec.nodeSelecter"``).
A misspelt field silently dropped changes where a pod goes: ``efect`` in a
toleration makes it tolerate every effect. kubectl finds no kind ``pod``
(``no matches for kind "pod" in version "v1"``: kinds are case-sensitive),
and ``kubectl apply -f`` of files holding no object says so (``error: no
objects passed to apply``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.__main__ import main

NODES = """\
apiVersion: v1
kind: Node
metadata: {name: plain}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: gpu}
spec: {taints: [{key: gpu, value: "true", effect: NoSchedule}]}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "4"}}
"""

TYPO = """\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeSelecter: {disk: ssd}
  tolerations: [{key: gpu, operator: Exists, efect: NoSchedule}]
  containers: [{name: app, image: nginx, resources: {requets: {cpu: 100m}}}]
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    return str(tmp_path / name)


def test_an_unknown_field_is_an_error_naming_file_object_and_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes, pods = write(tmp_path, "nodes.yaml", NODES), write(tmp_path, "pods.yaml", TYPO)
    code, out, err = run(capsys, "simulate", nodes, pods, "--no-progress")
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[:3] == [
        f'error: {pods}: Pod default/web: strict decoding error: unknown field "spec.nodeSelecter" '
        '(did you mean "nodeSelector"?)',
        f"error: {pods}: Pod default/web: strict decoding error: unknown field "
        '"spec.tolerations[0].efect" (did you mean "effect"?)',
        f"error: {pods}: Pod default/web: strict decoding error: unknown field "
        '"spec.containers[0].resources.requets" (did you mean "requests"?)',
    ]
    assert "--field-validation=Warn" in lines[3]
    code, _, err = run(capsys, "explain", "web", nodes, pods, "--no-progress")
    assert code == 2 and 'unknown field "spec.nodeSelecter"' in err


def test_warn_drops_the_field_with_a_warning_and_ignore_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes, pods = write(tmp_path, "nodes.yaml", NODES), write(tmp_path, "pods.yaml", TYPO)
    code, out, err = run(
        capsys, "simulate", nodes, pods, "--field-validation=Warn", "--no-progress"
    )
    assert code == 0
    assert f'warning: {pods}: Pod default/web: unknown field "spec.tolerations[0].efect"' in err
    assert "web" in out
    code, _, err = run(
        capsys, "simulate", nodes, pods, "--field-validation=Ignore", "--no-progress"
    )
    assert code == 0 and "unknown field" not in err


def test_a_kind_in_the_wrong_case_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = write(tmp_path, "nodes.yaml", NODES)
    pods = write(tmp_path, "pods.yaml", TYPO.replace("kind: Pod", "kind: pod"))
    code, _, err = run(capsys, "simulate", nodes, pods, "--no-progress")
    assert code == 2
    assert (
        f'error: {pods}: pod default/web: kind: no matches for kind "pod" in version "v1" '
        "(kinds are case-sensitive: kind: Pod)"
    ) in err
    # Without an apiVersion the version is empty, as kubectl prints it: not Python's None.
    bare = write(tmp_path, "bare.yaml", "kind: pod\nmetadata: {name: x}\n")
    code, _, err = run(capsys, "simulate", nodes, bare, "--no-progress")
    assert code == 2
    assert 'no matches for kind "pod" in version "" (kinds are case-sensitive' in err


def test_an_empty_manifest_set_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = write(tmp_path, "empty.yaml", "# nothing yet\n---\n")
    code, _, err = run(capsys, "simulate", empty, "--no-progress")
    assert code == 2
    assert f"error: no objects in {empty}" in err


def test_explain_of_an_unknown_pod_suggests_the_pods_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = write(tmp_path, "nodes.yaml", NODES)
    pods = write(
        tmp_path,
        "pods.yaml",
        "\n---\n".join(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: {ns}}}\n"
            "spec: {containers: [{name: app, image: nginx}]}"
            for name, ns in (("web-1", "default"), ("web-2", "default"), ("db", "team"))
        ),
    )
    code, _, err = run(capsys, "explain", "wbe-1", nodes, pods, "--no-progress")
    assert code == 2
    assert err.startswith("error: Pod default/wbe-1: not found among the 3 pods simulated; ")
    assert "did you mean default/web-1" in err and f"in {nodes}, {pods}" in err
    code, _, err = run(capsys, "explain", "db", nodes, pods, "--no-progress")
    assert "did you mean team/db?" in err  # the same name in another namespace
