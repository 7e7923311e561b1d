#!/usr/bin/env bash
# dra-prepare sync of a node with 110 pods (the kubelet's default pod limit),
# one claim each, against the example driver: the first sync (110 claims
# prepared, checkpoint written before and after each pod's call), a second
# sync (nothing to do: no driver call, no write), and the sync after every pod
# is gone (110 claims unprepared).  Beside it, the Python grpcio client making
# the same 110 NodePrepareResources calls in one process.
set -uo pipefail
BIN=${DRA_BIN:-build/bin}
PY=/usr/bin/python3
PODS=${PODS:-110}
[[ -x $BIN/dra-example-driver ]] || { echo "bench-prepare: $BIN/dra-example-driver is not built; skipped"; exit 0; }
T=$(mktemp -d /tmp/dra-bench.XXXXXX)
drv=
cleanup() {
    [[ -n $drv ]] && kill "$drv" 2>/dev/null && wait "$drv" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/reg"
"$BIN/dra-example-driver" --plugin-dir "$T/p" --registry-dir "$T/reg" --cdi-dir "$T/cdi" --node node-1 --devices 8 2>"$T/drv.err" &
drv=$!
for _ in $(seq 300); do [[ -S $T/p/dra.sock ]] && break; sleep 0.1; done

{
    for i in $(seq 1 "$PODS"); do
        printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: job-%d, namespace: bench, uid: pod-%d}\n' "$i" "$i"
        printf 'spec:\n  nodeName: node-1\n  containers:\n  - name: c\n    image: x\n    resources: {claims: [{name: gpu}]}\n'
        printf '  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: one-gpu}\n'
        printf 'status:\n  resourceClaimStatuses:\n  - {name: gpu, resourceClaimName: job-%d-gpu}\n' "$i"
        printf -- '---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: job-%d-gpu\n  namespace: bench\n  uid: claim-%d\n' "$i" "$i"
        printf '  ownerReferences:\n  - {apiVersion: v1, kind: Pod, name: job-%d, uid: pod-%d, controller: true}\n' "$i" "$i"
        printf 'spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}\n'
        printf 'status:\n  allocation:\n    devices:\n      results:\n      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-%d}\n' $((i % 8))
        printf '  reservedFor:\n  - {resource: pods, name: job-%d, uid: pod-%d}\n' "$i" "$i"
    done
} >"$T/snap.yaml"

ms() { # command...: wall milliseconds of one run
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>"$T/err" || { echo "failed: $*" >&2; cat "$T/err" >&2; return 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
sync_() { "$BIN/dra-prepare" sync --node node-1 --socket "$T/p/dra.sock" --checkpoint "$T/state" -o jsonl "$@"; }

first=$(ms sync_ "$T/snap.yaml") || exit 1
again=$(ms sync_ "$T/snap.yaml") || exit 1
gone=$(ms sync_ /dev/null) || exit 1
printf 'dra-prepare sync, %d pods, 1 claim each:  prepare all %5d ms   again (no-op) %5d ms   all gone (unprepare) %5d ms\n' \
    "$PODS" "$first" "$again" "$gone"

# one pod, one claim: a whole prepare process (the first pod and its claim)
awk '/^---$/ { n++ } n <= 2' "$T/snap.yaml" >"$T/one.yaml"
one() { "$BIN/dra-prepare" prepare --pod bench/job-1 --socket "$T/p/dra.sock" --checkpoint "$T/one-state" -o jsonl "$T/one.yaml"; }
best=999999
for _ in 1 2 3 4 5; do
    rm -f "$T/one-state"
    m=$(ms one) || exit 1
    ((m < best)) && best=$m
done
printf 'dra-prepare prepare, 1 pod, 1 claim (process start to exit, best of 5): %d ms\n' "$best"

if "$PY" -c 'import grpc' 2>/dev/null && [[ -e tests/peers/client.py ]]; then
    export DRA_PEER_STUBS=$T/stubs # generated once, outside the timings
    "$PY" tests/peers/dra_pb.py >/dev/null
    pyone=$(ms "$PY" tests/peers/client.py --socket "$T/p/dra.sock" prepare bench/job-1-gpu/claim-1) || exit 1
    printf 'Python grpcio client, 1 claim (process start to exit):              %d ms   (ratio %.1fx)\n' \
        "$pyone" "$(awk -v a="$pyone" -v b="$best" 'BEGIN { print (b > 0 ? a / b : 0) }')"
    py110=$(ms "$PY" tests/peers/client.py --socket "$T/p/dra.sock" bench --calls "$PODS" --claims 1) || exit 1
    printf 'Python grpcio client, %d NodePrepareResources calls of 1 claim in one process (no checks, no checkpoint): %d ms\n' \
        "$PODS" "$py110"
else
    echo "Python grpcio or tests/peers/client.py missing: no comparison"
fi
