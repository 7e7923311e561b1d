# Shared set-up for every bats file: `load helpers`.
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

: "${DRA_BIN:=$BATS_TEST_DIRNAME/../../build/bin}"
export DRA_BIN
# shellcheck disable=SC2034 # for the bats files that load this one
DATA="$BATS_TEST_DIRNAME/../data"
# shellcheck disable=SC2034
EXAMPLES="$BATS_TEST_DIRNAME/../../examples"

# The tools never print ANSI escapes or use a pager; keep locale stable.
export LC_ALL=C.UTF-8

# watch_backoff BASE_MS CAP_MS: from here on the test's dra-watch retries
# after BASE_MS (doubling, jittered) up to CAP_MS instead of client-go's
# waits: DRA_BIN becomes a folder of the test made by tests/watch-backoff.sh.
watch_backoff() {
    local real=${DRA_REAL_BIN:-$DRA_BIN}
    "$BATS_TEST_DIRNAME/../watch-backoff.sh" "$real" "$BATS_TEST_TMPDIR/watch-bin" "$1" "$2"
    DRA_REAL_BIN=$real DRA_BIN=$BATS_TEST_TMPDIR/watch-bin
    export DRA_BIN DRA_REAL_BIN
}

# validates TEXT [OPTION...]: dra-slice validate (with the options) of a
# file holding TEXT (named doc.json, or doc.yaml when TEXT is not JSON),
# its status and standard error
validates() {
    local f="$BATS_TEST_TMPDIR/doc.json"
    [[ $1 == '{'* || $1 == '['* ]] || f="$BATS_TEST_TMPDIR/doc.yaml"
    printf '%s\n' "$1" >"$f"
    shift
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$@" "$f"
}

# One reading command per tool: each loads (and validates) every object.
# shellcheck disable=SC2034 # read by the files that load this one
READERS=(
    "dra-slice validate"
    "dra-select lint"
    "dra-alloc schedule"
    "dra-claim status"
    "dra-evict"
)

# pod_group_setup: the PodGroup tests' names: CI the cluster suite's inputs,
# T the test's directory, NOW and ON the --now and GenericWorkload flags.
# shellcheck disable=SC2034 # read by the test files that call it
pod_group_setup() {
    CI="$BATS_TEST_DIRNAME/../upstream/cluster/inputs"
    T="$BATS_TEST_TMPDIR"
    NOW="--now 2026-03-01T11:00:00Z"
    ON="--feature-gates GenericWorkload=true"
}

# YAML documents of the scheduling tests, each followed by "---".
# yaml_node [NAME]: a Node (node-1).
yaml_node() {
    printf 'apiVersion: v1\nkind: Node\nmetadata: {name: %s}\n---\n' "${1:-node-1}"
}

# yaml_gpu_class: the DeviceClass gpu, the devices of driver gpu.example.com.
yaml_gpu_class() {
    cat <<'EOF'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
EOF
}

# yaml_gpu_slice DEVICES-YAML [COUNT]: the ResourceSlice devs of
# gpu.example.com's pool p on node-1, one of COUNT (1), with the devices given.
yaml_gpu_slice() {
    cat <<EOF
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: devs}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: ${2:-1}}
  devices:
$1
---
EOF
}
