#!/usr/bin/env bash
# The live demo: this project's scheduler placing pods on a kind cluster, beside kube-scheduler.
#
#   demo/kind.sh              create (or reuse) the kind cluster "ksf", apply deploy/rbac.yaml,
#                             run the scheduler here, as its ServiceAccount, with the cluster's
#                             kubeconfig, apply deploy/examples/ and show where the pods landed
#   demo/kind.sh --in-cluster the same, but the scheduler runs in the cluster: the image of
#                             deploy/Dockerfile, loaded into kind, run by deploy/scheduler.yaml
#   demo/kind.sh --check      only check that kind, Docker and kubectl are there
#
# Environment: KSF_CLUSTER (default ksf), PYTHON (default .venv/bin/python, else python3).
# The cluster is left running; `kind delete cluster --name ksf` removes it.
#
# Without Docker there is no kind, but there is still a live demo: the fake API
# server over HTTP, with this scheduler on it, for kubectl (chapter 12):
#
#   python -m framework serve demo/nodes.yaml --config deploy/scheduler-config.yaml \
#       --kubeconfig /tmp/ksf.kubeconfig
#   # then, in another terminal:
#   KUBECONFIG=/tmp/ksf.kubeconfig kubectl apply -f deploy/examples/pods.yaml
#   KUBECONFIG=/tmp/ksf.kubeconfig kubectl get pods -o wide
set -euo pipefail

cluster="${KSF_CLUSTER:-ksf}"
mode=local
case "${1:-}" in
  "") ;;
  --in-cluster) mode=in-cluster ;;
  --check) mode=check ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "demo/kind.sh: unknown argument: $1 (try --help)" >&2
    exit 2
    ;;
esac

# Only bash builtins until the checks are done: they must work with any PATH.
here="${BASH_SOURCE[0]%/*}"
[[ "$here" == "${BASH_SOURCE[0]}" ]] && here=.
root="$(cd "$here/.." && pwd)"

no_docker_path() {
  local line
  while IFS= read -r line; do printf '%s\n' "$line"; done >&2 <<'TEXT'

Without Docker, try the live demo on the fake API server instead: the same
scheduler and configuration, served over HTTP for kubectl, no cluster needed:

  python -m framework serve demo/nodes.yaml --config deploy/scheduler-config.yaml \
      --kubeconfig /tmp/ksf.kubeconfig
  # in another terminal:
  export KUBECONFIG=/tmp/ksf.kubeconfig
  kubectl apply -f deploy/examples/pods.yaml
  kubectl get pods -o wide
  kubectl get events

(Chapter 12 of the book, "Going live", walks through both.)
TEXT
}

missing=()
if ! command -v kind >/dev/null 2>&1; then
  missing+=("kind: not found on PATH. Install it: https://kind.sigs.k8s.io/docs/user/quick-start/#installation")
fi
if ! command -v docker >/dev/null 2>&1; then
  missing+=("docker: not found on PATH. kind runs its nodes as Docker containers: install Docker Engine (https://docs.docker.com/engine/install/) or Docker Desktop.")
elif ! docker info >/dev/null 2>&1; then
  missing+=("Docker engine: not running or not reachable ('docker info' failed). The docker client is installed, but kind needs a running engine: start it (e.g. 'sudo systemctl start docker'), or check DOCKER_HOST and your permission on the socket.")
fi
if ! command -v kubectl >/dev/null 2>&1; then
  missing+=("kubectl: not found on PATH. Install it: https://kubernetes.io/docs/tasks/tools/")
fi
if ((${#missing[@]})); then
  echo "demo/kind.sh cannot run the kind demo; missing:" >&2
  for line in "${missing[@]}"; do
    echo "  - $line" >&2
  done
  no_docker_path
  exit 3
fi
if [[ "$mode" == check ]]; then
  echo "kind, a running Docker engine and kubectl are all there."
  exit 0
fi

python="${PYTHON:-}"
if [[ -z "$python" ]]; then
  if [[ -x "$root/.venv/bin/python" ]]; then python="$root/.venv/bin/python"; else python=python3; fi
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/ksf-kind.XXXXXX")"
admin="$work/admin.kubeconfig"
scheduler_pid=""
cleanup() {
  if [[ -n "$scheduler_pid" ]]; then
    kill -TERM "$scheduler_pid" 2>/dev/null || true
    wait "$scheduler_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

step "kind cluster '$cluster'"
if kind get clusters 2>/dev/null | grep -qx "$cluster"; then
  echo "reusing the existing cluster"
else
  kind create cluster --name "$cluster" --wait 120s
fi
kind get kubeconfig --name "$cluster" >"$admin"
k() { kubectl --kubeconfig "$admin" "$@"; }

step "RBAC: the scheduler's ServiceAccount and least-privilege ClusterRole (deploy/rbac.yaml)"
k apply -f "$root/deploy/rbac.yaml"

if [[ "$mode" == local ]]; then
  # The scheduler runs here, but as the ServiceAccount, not as cluster-admin: a token of
  # its own in a kubeconfig of its own, so the ClusterRole is really what it may do.
  sa="$work/scheduler.kubeconfig"
  cp "$admin" "$sa"
  token="$(k -n kube-system create token kube-scheduling-framework --duration=1h)"
  kubectl --kubeconfig "$sa" config set-credentials kube-scheduling-framework --token="$token" >/dev/null
  kubectl --kubeconfig "$sa" config set-context --current --user=kube-scheduling-framework >/dev/null

  step "the scheduler, locally: python -m framework run --kubeconfig ... --config deploy/scheduler-config.yaml"
  (cd "$root" && exec "$python" -m framework run --kubeconfig "$sa" \
    --config deploy/scheduler-config.yaml) >"$work/scheduler.log" 2>&1 &
  scheduler_pid=$!
  for _ in $(seq 1 60); do
    grep -q '^scheduling pods' "$work/scheduler.log" 2>/dev/null && break
    if ! kill -0 "$scheduler_pid" 2>/dev/null; then
      cat "$work/scheduler.log" >&2
      echo "the scheduler exited early; its log is above" >&2
      exit 1
    fi
    sleep 1
  done
  cat "$work/scheduler.log"
else
  step "the scheduler, in the cluster: build the image, load it into kind, apply deploy/scheduler.yaml"
  docker build -f "$root/deploy/Dockerfile" -t kube-scheduling-framework:dev "$root"
  kind load docker-image kube-scheduling-framework:dev --name "$cluster"
  k apply -f "$root/deploy/scheduler-configmap.yaml" -f "$root/deploy/scheduler.yaml"
  k -n kube-system rollout status deployment/kube-scheduling-framework --timeout=120s
fi

step "example pods and a Deployment with schedulerName: kube-scheduling-framework (deploy/examples/)"
k apply -f "$root/deploy/examples/"
k wait --for=condition=PodScheduled pod/hello-ksf pod/hello-default --timeout=60s
k wait --for=condition=PodScheduled pod -l app=web --timeout=60s
sleep 2 # let too-big's FailedScheduling event arrive

step "where they landed: kubectl get pods -o wide"
k get pods -o wide

step "who placed them: kubectl get events (Scheduled, FailedScheduling)"
k get events --sort-by=.lastTimestamp \
  -o custom-columns=REASON:.reason,POD:.involvedObject.name,FROM:.reportingComponent,MESSAGE:.message |
  grep -E '^(REASON|Scheduled|FailedScheduling)' || true

if [[ "$mode" == local ]]; then
  step "the scheduler's log"
  cat "$work/scheduler.log"
fi

cat <<TEXT

Done. The cluster '$cluster' is still running:
  kind get kubeconfig --name $cluster > /tmp/$cluster.kubeconfig
  KUBECONFIG=/tmp/$cluster.kubeconfig kubectl get pods -o wide
  python -m framework snapshot --kubeconfig /tmp/$cluster.kubeconfig > cluster.yaml
  python -m framework explain default/too-big cluster.yaml --config deploy/scheduler-config.yaml
Remove it with: kind delete cluster --name $cluster
TEXT
