# Shared set-up of the cluster suites (tests/upstream/cluster/*.bats):
# a real control plane per file (tests/upstream/cluster.sh), the admin's
# kubeconfig exported, kubectl built from k8s.io/kubectl v0.37.2.
bats_load_library bats-support
bats_load_library bats-assert

: "${DRA_BIN:=$BATS_TEST_DIRNAME/../../../build/bin}"
: "${UPSTREAM_BIN:=$BATS_TEST_DIRNAME/../../../build/upstream/bin}"
export DRA_BIN UPSTREAM_BIN
ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
DATA=$ROOT/tests/data
EXAMPLES=$ROOT/examples
DEPLOY=$ROOT/deploy
CLUSTER_SH=$ROOT/tests/upstream/cluster.sh
KUBECTL=$UPSTREAM_BIN/kubectl
export LC_ALL=C.UTF-8
# dra-watch's retries shortened through its hidden options
if [[ -z ${DRA_REAL_BIN:-} ]]; then
    "$ROOT/tests/watch-backoff.sh" "$DRA_BIN" "$BATS_RUN_TMPDIR/watch-bin" 50 500
    export DRA_REAL_BIN=$DRA_BIN DRA_BIN=$BATS_RUN_TMPDIR/watch-bin
fi

# cluster_start DIR: start (or restart) the control plane; sets C and KUBECONFIG
cluster_start() {
    C=$1
    "$CLUSTER_SH" start "$C" >&3 2>&3 || return 1
    export C KUBECONFIG=$C/kubeconfig KUBECACHEDIR=$C/kubecache
}

cluster_stop() {
    [[ -n ${C:-} ]] && "$CLUSTER_SH" stop "$C"
}

# load FILE...: create the objects (statuses too) as the admin
load_objects() {
    python3 "$ROOT/tests/upstream/cluster/load.py" "$C" "$@"
}

# fresh_ns NAME: an empty namespace (deleted first, waiting for it to go)
fresh_ns() {
    "$KUBECTL" delete namespace "$1" --ignore-not-found --wait=true --timeout=60s >/dev/null
    "$KUBECTL" create namespace "$1" >/dev/null
}

# wait_for SECONDS CMD...: until CMD succeeds
wait_for() {
    local n=$(($1 * 10))
    shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        [[ $n -gt 0 ]] || return 1
        sleep 0.1
    done
}
