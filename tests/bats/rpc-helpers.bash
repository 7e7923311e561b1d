# Shared by the gRPC bats files: peers and the example driver started per
# test, sockets in a short temporary directory (unix socket paths are limited
# to 107 bytes), everything stopped by PID in teardown.
PEERS="$BATS_TEST_DIRNAME/../peers"
PY=/usr/bin/python3

rpc_setup_file() {
    export DRA_PEER_STUBS="$BATS_FILE_TMPDIR/stubs"
    "$PY" "$PEERS/dra_pb.py" >/dev/null
}

rpc_setup() {
    T=$(mktemp -d /tmp/dra-rpc.XXXXXX)
    mkdir -p "$T/reg"
    PIDS=()
}

rpc_teardown() {
    local p
    for p in "${PIDS[@]}"; do
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    rm -rf "$T"
}

# wait_until CMD...: poll for up to 30 s (sanitized builds and Python start slowly)
wait_until() {
    local i
    for ((i = 0; i < 300; i++)); do
        "$@" && return 0
        sleep 0.1
    done
    echo "timed out waiting for: $*" >&2
    return 1
}

# start_py [fake_driver.py options]: Python grpcio driver on $T/dra.sock, $T/reg/py-reg.sock
start_py() {
    # the old "ready" gone first: the background job truncates py.out only
    # once it runs, and a restart must not be taken for ready before that
    rm -f "$T/py.out"
    "$PY" "$PEERS/fake_driver.py" --socket "$T/dra.sock" --reg-socket "$T/reg/py-reg.sock" --log "$T/calls.log" "$@" \
        >"$T/py.out" 2>"$T/py.err" &
    PY_PID=$!
    PIDS+=("$PY_PID")
    wait_until grep -q ready "$T/py.out"
}

# start_driver [dra-example-driver options]: on $T/p/dra.sock, $T/reg/gpu.example.com-reg.sock
# (a stale socket left by a killed driver does not count: the new one must
# have replaced it)
start_driver() {
    local reg=$T/reg/gpu.example.com-reg.sock old
    old=$(stat -c '%i %z' "$reg" 2>/dev/null || true)
    "$DRA_BIN/dra-example-driver" --plugin-dir "$T/p" --registry-dir "$T/reg" --cdi-dir "$T/cdi" --node node-1 "$@" \
        2>>"$T/drv.err" &
    DRV_PID=$!
    PIDS+=("$DRV_PID")
    wait_until socket_replaced "$reg" "$old"
}
socket_replaced() { [[ -S $1 && $(stat -c '%i %z' "$1" 2>/dev/null) != "$2" ]]; }

# a ResourceClaim file for --claim
claim_file() { # NAME UID
    cat >"$T/$1.yaml" <<YAML
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {namespace: ns1, name: $1, uid: $2}
YAML
    echo "$T/$1.yaml"
}

# has_lines FILE N: FILE has at least N lines (for wait_until)
has_lines() { [[ -e $1 && $(wc -l <"$1") -ge $2 ]]; }

# reap PID: wait for a background process of this test; sets rc
# shellcheck disable=SC2034 # rc is for the caller
reap() { rc=0; wait "$1" || rc=$?; }

# Node scenarios for dra-prepare against the example driver (CK: the
# checkpoint path the test sets).

# pod NAME UID NODE [PHASE] [CLAIM...]: a pod with one template claim "own"
# (claim NAME-own) and optionally a shared claim "shared"
pod() {
    local name=$1 uid=$2 node=$3 phase=${4:-Running} shared=${5:-}
    cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: $name, namespace: ns1, uid: $uid}
spec:
  nodeName: $node
  containers:
  - name: main
    image: x
    resources:
      claims:
      - name: own
$([[ -n $shared ]] && printf '      - name: shared\n')
  resourceClaims:
  - {name: own, resourceClaimTemplateName: t}
$([[ -n $shared ]] && printf '  - {name: shared, resourceClaimName: %s}\n' "$shared")
status:
  phase: $phase
  resourceClaimStatuses:
  - {name: own, resourceClaimName: $name-own}
YAML
}

# claim NAME UID OWNER_UID RESERVED_UIDS...: allocated to gpu.example.com
claim() {
    local name=$1 uid=$2 owner=$3
    shift 3
    cat <<YAML
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: $name
  namespace: ns1
  uid: $uid
$([[ -n $owner ]] && printf '  ownerReferences:\n  - {apiVersion: v1, kind: Pod, name: x, uid: %s, controller: true}\n' "$owner")
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}
  reservedFor:
$(for u in "$@"; do printf '  - {resource: pods, name: x, uid: %s}\n' "$u"; done)
YAML
}

prep() { # prepare with the example driver's socket
    "$DRA_BIN/dra-prepare" "$@" --socket "$T/p/dra.sock" --checkpoint "$CK"
}
