"""The real ``kubectl`` through what a cluster user does: each command's output checked.

What each command asks of the server, and the Kubernetes code (v1.33)
that answers it in a real cluster:

* ``apply -f`` of a multi-document file: discovery, the OpenAPI v3 document
  (``fieldValidation`` declared, so kubectl sends ``fieldValidation=Strict``),
  then POST (``handlers/create.go``); a misspelt field is ``strict decoding
  error: unknown field``, ``--validate=warn`` turns it into a ``Warning``;
* ``get pc``/``get pdb``: server-side Tables with the printer columns of
  ``pkg/printers/internalversion/printers.go``;
* ``get --sort-by``: a Table with ``includeObject=Object`` rows;
* ``get --watch``: a watch whose events carry one-row Tables (``as=Table``);
* ``drain`` with a PodDisruptionBudget: cordon (a strategic merge PATCH),
  then ``pods/eviction`` (``pkg/registry/core/pod/storage/eviction.go``),
  ``429`` while the budget forbids;
* ``explain pod.spec.tolerations``: the OpenAPI v3 schemas;
* a lowercase operator is ``422`` (``ValidateNodeSelectorRequirement``);
* bound pods become ``1/1 Running``: ``serve``'s kubelets admit and start them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.serve.helpers import KUBECTL, columns, kubectl, needs_kubectl, run, wait_until

pytestmark = needs_kubectl

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {zone: a}}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {zone: b}}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
description: for the pods that matter
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, labels: {app: web}}
spec:
  nodeSelector: {zone: a}
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 1.5}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, labels: {app: web}}
spec:
  nodeSelector: {zone: a}
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 500m}}}]
"""

TYPO = """\
apiVersion: v1
kind: Pod
metadata: {name: typo}
spec:
  nodeSelecter: {zone: a}
  containers: [{name: app, image: nginx}]
"""

LOWERCASE_OPERATOR = """\
apiVersion: v1
kind: Pod
metadata: {name: op}
spec:
  containers: [{name: app, image: nginx}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: in, values: [a]}]}]
"""


@pytest.fixture
def applied(kubeconfig: Path) -> Path:
    config = kubeconfig
    out = kubectl(config, "apply", "-f", "-", stdin=CLUSTER)
    assert out.split("\n")[:4] == [
        "node/node-a created",
        "node/node-b created",
        "priorityclass.scheduling.k8s.io/high created",
        "poddisruptionbudget.policy/web created",
    ]

    def both_running() -> bool:
        rows = columns(kubectl(config, "get", "pods", "-o", "wide", "--no-headers"))
        return len(rows) == 2 and all(
            r[1:3] == ["1/1", "Running"] and r[6] == "node-a" for r in rows
        )

    wait_until(both_running)  # bound by the scheduler, then started by the kubelets
    return config


def test_get_prints_the_printer_columns_of_pc_and_pdb(applied: Path) -> None:
    pcs = columns(kubectl(applied, "get", "pc"))
    assert pcs[0] == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    high = next(row for row in pcs if row[0] == "high")
    assert high[1:3] == ["1000", "false"] and high[4] == "PreemptLowerPriority"
    pdbs = columns(kubectl(applied, "get", "pdb"))
    assert pdbs[0] == ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"]
    assert pdbs[1][:4] == ["web", "1", "N/A", "1"]


def test_sort_by_sorts_on_a_field_of_the_whole_object(applied: Path) -> None:
    by_cpu = kubectl(
        applied,
        "get",
        "pods",
        "--sort-by=.spec.containers[0].resources.requests.cpu",
        "-o",
        "name",
    )
    assert by_cpu.split() == ["pod/web-2", "pod/web-1"]  # 500m before 1500m
    cpu = kubectl(
        applied,
        "get",
        "pod",
        "web-1",
        "-o",
        "jsonpath={.spec.containers[0].resources.requests.cpu}",
    )
    assert cpu == "1500m"  # 1.5, written back in canonical form


def test_watch_streams_table_rows(applied: Path) -> None:
    env = {**os.environ, "KUBECONFIG": str(applied)}
    watcher = subprocess.Popen(
        [str(KUBECTL), "get", "pods", "--watch", "--request-timeout=30s"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert watcher.stdout is not None
        header = watcher.stdout.readline().split()
        assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
        seen = [watcher.stdout.readline().split()[0], watcher.stdout.readline().split()[0]]
        assert sorted(seen) == ["web-1", "web-2"]
        kubectl(applied, "label", "pod", "web-2", "tier=front")
        row = watcher.stdout.readline().split()
        assert row[:3] == ["web-2", "1/1", "Running"]  # a MODIFIED event, as a table row
    finally:
        watcher.kill()
        watcher.communicate()


def test_drain_evicts_what_the_budget_allows_and_retries_the_rest(applied: Path) -> None:
    done = run(applied, "drain", "node-a", "--force", "--timeout=3s")
    assert done.returncode != 0
    assert "node/node-a cordoned" in done.stdout
    assert "Cannot evict pod as it would violate the pod's disruption budget." in done.stderr
    assert "evicted" in done.stdout  # the one the budget allowed
    left = kubectl(applied, "get", "pods", "-o", "name").split()
    assert len(left) == 1
    nodes = columns(kubectl(applied, "get", "nodes"))
    assert "SchedulingDisabled" in next(row for row in nodes if row[0] == "node-a")[1]
    assert columns(kubectl(applied, "get", "pdb"))[1][3] == "0"  # nothing more allowed
    assert "node/node-a uncordoned" in kubectl(applied, "uncordon", "node-a")


def test_explain_reads_the_served_schemas(kubeconfig: Path) -> None:
    config = kubeconfig
    out = kubectl(config, "explain", "pod.spec.tolerations")
    assert "FIELD: tolerations <[]Toleration>" in out
    assert "effect\t<string>" in out and "tolerationSeconds\t<integer>" in out
    assert "GROUP:      policy" in kubectl(config, "explain", "pdb")


def test_apply_refuses_a_misspelt_field_and_warns_when_asked(kubeconfig: Path) -> None:
    config = kubeconfig
    refused = run(config, "apply", "-f", "-", stdin=TYPO)
    assert refused.returncode == 1
    assert (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "spec.nodeSelecter"'
    ) in refused.stderr
    warned = run(config, "apply", "--validate=warn", "-f", "-", stdin=TYPO)
    assert warned.returncode == 0, warned.stderr
    assert 'Warning: unknown field "spec.nodeSelecter"' in warned.stderr
    spec = kubectl(config, "get", "pod", "typo", "-o", "jsonpath={.spec}")
    assert "nodeSelecter" not in spec  # dropped, as kube-apiserver drops it


def test_a_lowercase_operator_is_invalid(kubeconfig: Path) -> None:
    config = kubeconfig
    refused = run(config, "apply", "-f", "-", stdin=LOWERCASE_OPERATOR)
    assert refused.returncode == 1
    assert (
        'matchExpressions[0].operator: Invalid value: "in": not a valid selector operator'
        in refused.stderr
    )


def test_events_in_both_groups(applied: Path) -> None:
    core = kubectl(applied, "get", "events")
    assert "Scheduled" in core and "Successfully assigned default/web-1 to node-a" in core
    newer = kubectl(applied, "get", "events.v1.events.k8s.io", "-o", "jsonpath={.items[*].note}")
    assert "Successfully assigned default/web-1 to node-a" in newer
    assert "events.k8s.io/v1" in kubectl(applied, "api-resources", "--api-group=events.k8s.io")


STORAGE = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: manual
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/no-provisioner
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: manual
  hostPath: {path: /tmp/pv1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: orphan}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  resources: {requests: {storage: 5Gi}}
"""


def test_get_prints_the_printer_columns_of_pv_pvc_and_sc(kubeconfig: Path) -> None:
    """``printPersistentVolume``, ``printPersistentVolumeClaim`` and ``printStorageClass`` of
    ``pkg/printers/internalversion/printers.go`` (v1.33): a claim's phase is what a user reads
    there, so it must be a column (it was Name and Age only)."""
    kubectl(kubeconfig, "apply", "-f", "-", stdin=STORAGE)
    wait_until(lambda: "Bound" in kubectl(kubeconfig, "get", "pvc", "data"))
    pvcs = columns(kubectl(kubeconfig, "get", "pvc", "-o", "wide"))
    assert pvcs[0] == ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
                       "VOLUMEATTRIBUTESCLASS", "AGE", "VOLUMEMODE"]  # fmt: skip
    data = next(row for row in pvcs if row[0] == "data")
    assert data[:7] == ["data", "Bound", "pv1", "1Gi", "RWO,ROX", "manual", "<unset>"]
    assert data[-1] == "Filesystem"
    orphan = next(row for row in pvcs if row[0] == "orphan")
    assert orphan[:3] == ["orphan", "Pending", "manual"]  # no volume, capacity, modes: empty
    pvs = columns(kubectl(kubeconfig, "get", "pv"))
    assert pvs[0] == ["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM",
                      "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"]  # fmt: skip
    assert pvs[1][:8] == ["pv1", "1Gi", "RWO,ROX", "Retain", "Bound", "default/data", "manual",
                          "<unset>"]  # fmt: skip
    scs = columns(kubectl(kubeconfig, "get", "sc"))
    assert scs[0] == ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE",
                      "ALLOWVOLUMEEXPANSION", "AGE"]  # fmt: skip
    assert scs[1][:5] == ["manual (default)", "kubernetes.io/no-provisioner", "Delete",
                          "Immediate", "false"]  # fmt: skip
