#!/usr/bin/env bats
# dra-prepare prepare/unprepare/sync against real drivers on unix sockets:
# the example driver (C, writes CDI specs) and the Python grpcio fake driver,
# started per test and stopped by PID.  Faults: per-claim errors, claims
# missing from or unknown to the answer, a dead or slow driver, kill -9
# between the driver's answer and the checkpoint write, concurrent runs.
bats_require_minimum_version 1.5.0
load helpers
load rpc-helpers

setup_file() { rpc_setup_file; }
setup() {
    rpc_setup
    CK=$T/state
}
teardown() { rpc_teardown; }

# the CDI spec files of claims, not the example driver's common spec
# shellcheck disable=SC2010 # CDI spec names are plain words
claim_specs_ls() { ls "$T/cdi" | grep -v -- '-gpu_common\.yaml$' || true; }
claim_specs() { claim_specs_ls | wc -l; }

@test "node: prepare, what containers get, cdi of the driver's specs, unprepare" {
    start_driver
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } >"$T/snap.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    [[ $output == '{"namespace":"ns1","pod":"p1","container":"main","cdiDevices":["k8s.gpu.example.com/gpu=common","k8s.gpu.example.com/gpu=c-p1-gpu-'*'"]}' ]]
    [[ $(stat -c %a "$CK") == 600 ]]
    ls "$T/cdi"/k8s.gpu.example.com-gpu_c-p1.yaml
    # what the runtime would do with them
    run --separate-stderr bash -c "'$DRA_BIN/dra-prepare' cdi --cdi-dir '$T/cdi' -o jsonl <<<'$output'"
    assert_success
    [[ $output == *'"pod":"p1","container":"main","devices":["k8s.gpu.example.com/gpu=common","k8s.gpu.example.com/gpu=c-p1-gpu-'* ]]
    # the table
    run --separate-stderr prep prepare --pod ns1/p1 "$T/snap.yaml"
    assert_success
    assert_line --index 0 --regexp '^NAMESPACE +POD +CONTAINER +CDI DEVICES$'
    assert_line --index 1 --regexp '^ns1 +p1 +main +k8s.gpu.example.com/gpu=common,k8s.gpu.example.com/gpu=c-p1-gpu-[0-9]+$'
    run --separate-stderr prep unprepare --pod ns1/p1 -o jsonl
    assert_success
    assert_output '{"action":"unprepare","namespace":"ns1","claim":"p1-own","uid":"c-p1","pods":["u-p1"]}'
    run claim_specs_ls
    assert_output ""
}

@test "node: prepare is idempotent; a shared claim is prepared once and released by the last pod" {
    start_py
    { pod p1 u-p1 node-1 Running shared; pod p2 u-p2 node-1 Running shared
      claim p1-own c-p1 u-p1 u-p1; claim p2-own c-p2 u-p2 u-p2; claim shared c-sh "" u-p1 u-p2; } >"$T/snap.yaml"
    py() { "$DRA_BIN/dra-prepare" "$@" --socket "$T/dra.sock" --checkpoint "$CK"; }
    run --separate-stderr py prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    n1=$(grep -c NodePrepareResources "$T/calls.log")
    run --separate-stderr py prepare --pod ns1/p1 -o jsonl -v "$T/snap.yaml"
    assert_success
    [[ $(grep -c NodePrepareResources "$T/calls.log") -eq $n1 ]]
    [[ $stderr == *"ResourceClaim ns1/p1-own is prepared already"* ]]
    run --separate-stderr py prepare --pod ns1/p2 -o jsonl -v "$T/snap.yaml"
    assert_success
    [[ $stderr == *"ResourceClaim ns1/shared is prepared already"* ]]
    [[ $stderr == *"gpu.example.com: NodePrepareResources for 1 ResourceClaim"* ]]
    run --separate-stderr py unprepare --pod ns1/p1 -o jsonl
    assert_success
    assert_line --index 0 '{"action":"release","namespace":"ns1","claim":"shared","uid":"c-sh","pods":["u-p1"]}'
    assert_line --index 1 '{"action":"unprepare","namespace":"ns1","claim":"p1-own","uid":"c-p1","pods":["u-p1"]}'
    run --separate-stderr py unprepare --pod ns1/p2 -o jsonl
    assert_success
    [[ ${#lines[@]} -eq 2 ]]
    [[ $output == *'"action":"unprepare","namespace":"ns1","claim":"shared"'* ]]
}

@test "node: sync prepares running pods and unprepares finished, gone and moved ones" {
    start_driver
    { pod a u-a node-1; pod b u-b node-1; pod c u-c node-2
      claim a-own c-a u-a u-a; claim b-own c-b u-b u-b; claim c-own c-c u-c u-c; } >"$T/snap1.yaml"
    run --separate-stderr prep sync --node node-1 -o jsonl "$T/snap1.yaml"
    assert_success
    [[ ${#lines[@]} -eq 2 ]]
    [[ $(claim_specs) -eq 2 ]]
    # again: nothing to do
    run --separate-stderr prep sync --node node-1 -o jsonl -v "$T/snap1.yaml"
    assert_success
    [[ $stderr != *NodePrepareResources* ]]
    # a finished, b gone
    { pod a u-a node-1 Succeeded; claim a-own c-a u-a u-a; } >"$T/snap2.yaml"
    run --separate-stderr prep sync --node node-1 "$T/snap2.yaml"
    assert_success
    assert_line --index 0 --regexp '^ACTION +NAMESPACE +OBJECT +DETAILS$'
    assert_line --regexp '^unprepare +ns1 +resourceclaim/a-own +uid c-a, pod u-a$'
    assert_line --regexp '^unprepare +ns1 +resourceclaim/b-own +uid c-b, pod u-b$'
    run claim_specs_ls
    assert_output ""
}

@test "node: a refused pod is reported and the others are still prepared" {
    start_driver
    { pod a u-a node-1; pod b u-b node-1; claim a-own c-a u-a u-a; claim b-own c-b u-b u-other; } >"$T/snap.yaml"
    run --separate-stderr prep sync --node node-1 -o jsonl "$T/snap.yaml"
    assert_failure 1
    [[ $stderr == *"Pod/ns1/b: pod b (u-b) is not allowed to use ResourceClaim b-own (c-b)"* ]]
    [[ $output == *'"pod":"a"'* ]]
    [[ $(claim_specs) -eq 1 ]]
}

@test "node faults: per-claim error, skipped claim, unknown claim UID (upstream messages, exit 3)" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } >"$T/snap.yaml"
    start_driver --fail-claim "c-p1=device on fire"
    run --separate-stderr prep prepare --pod ns1/p1 "$T/snap.yaml"
    assert_failure 3
    [[ -z $output ]]
    [[ $stderr == *"NodePrepareResources failed for ResourceClaim p1-own: device on fire"* ]]
    kill "$DRV_PID"; wait "$DRV_PID" || true
    start_driver --omit-claim c-p1
    run --separate-stderr prep prepare --pod ns1/p1 "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"NodePrepareResources skipped 1 ResourceClaims"* ]]
    kill "$DRV_PID"; wait "$DRV_PID" || true
    start_driver --extra-claim c-zzz
    run --separate-stderr prep prepare --pod ns1/p1 "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"NodePrepareResources returned result for unknown claim UID c-zzz"* ]]
    # the claim stayed known (not prepared): sync without the pod unprepares it
    kill "$DRV_PID"; wait "$DRV_PID" || true
    start_driver
    run --separate-stderr prep sync --node node-1 -o jsonl /dev/null
    assert_success
    assert_output '{"action":"unprepare","namespace":"ns1","claim":"p1-own","uid":"c-p1","pods":["u-p1"]}'
}

@test "node faults: no driver, a stale socket, a driver past the deadline (exit 3)" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } >"$T/snap.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --socket "$T/none.sock" --checkpoint "$CK" "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"$T/none.sock"* ]]
    python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$T/stale.sock"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --socket "$T/stale.sock" --checkpoint "$CK" "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"$T/stale.sock"* ]]
    start_driver --delay 5s
    run --separate-stderr prep prepare --pod ns1/p1 --timeout 300ms "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *DEADLINE_EXCEEDED* ]]
}

@test "node faults: kill -9 between the driver's answer and the checkpoint write loses nothing" {
    start_driver
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } >"$T/snap.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --test-crash after-rpc \
        --socket "$T/p/dra.sock" --checkpoint "$CK" "$T/snap.yaml"
    [[ $status -eq 137 ]]
    [[ -z $output ]]
    # the driver prepared it; the checkpoint knows the claim, not yet prepared
    [[ $(claim_specs) -eq 1 ]]
    grep -q '\\"ClaimName\\":\\"p1-own\\"' "$CK"
    grep -q '\\"Prepared\\":false' "$CK"
    [[ ! -e $CK.tmp ]]
    # rerun: prepared (the driver is called again and answers the same)
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    grep -q '\\"Prepared\\":true' "$CK"
    # the crash again, then the pod goes away: sync unprepares the claim
    rm -f "$CK"
    run "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --test-crash after-rpc --socket "$T/p/dra.sock" --checkpoint "$CK" "$T/snap.yaml"
    [[ $status -eq 137 ]]
    run --separate-stderr prep sync --node node-1 -o jsonl /dev/null
    assert_success
    assert_output '{"action":"unprepare","namespace":"ns1","claim":"p1-own","uid":"c-p1","pods":["u-p1"]}'
    run claim_specs_ls
    assert_output ""
}

@test "node faults: two runs at once on one checkpoint are serialised" {
    start_py --delay 0.3
    { pod p1 u-p1 node-1 Running shared; pod p2 u-p2 node-1 Running shared
      claim p1-own c-p1 u-p1 u-p1; claim p2-own c-p2 u-p2 u-p2; claim shared c-sh "" u-p1 u-p2; } >"$T/snap.yaml"
    "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --socket "$T/dra.sock" --checkpoint "$CK" -o jsonl "$T/snap.yaml" >"$T/o1" 2>"$T/e1" &
    a=$!
    "$DRA_BIN/dra-prepare" prepare --pod ns1/p2 --socket "$T/dra.sock" --checkpoint "$CK" -o jsonl "$T/snap.yaml" >"$T/o2" 2>"$T/e2" &
    b=$!
    reap "$a"; [[ $rc -eq 0 ]] || { cat "$T/e1"; false; }
    reap "$b"; [[ $rc -eq 0 ]] || { cat "$T/e2"; false; }
    # the shared claim was sent to the driver once, and both pods are recorded
    [[ $(grep NodePrepareResources "$T/calls.log" | grep -c c-sh) -eq 1 ]]
    grep -q '\\"u-p1\\":{}' "$CK"
    grep -q '\\"u-p2\\":{}' "$CK"
    grep -q '\\"PodUIDs\\":{\\"u-p1\\":{},\\"u-p2\\":{}}' "$CK"
}

@test "node: drivers found through registration; one call per driver; an unknown driver is not registered" {
    start_driver
    start_py --name net.example.com
    cat >"$T/snap.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ns1, uid: u-p1}
spec:
  nodeName: node-1
  containers:
  - {name: main, image: x, resources: {claims: [{name: gpu}, {name: both, request: nic}]}}
  resourceClaims:
  - {name: gpu, resourceClaimName: c-gpu}
  - {name: both, resourceClaimName: c-both}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c-gpu, namespace: ns1, uid: uid-gpu}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}]}}
  reservedFor: [{resource: pods, name: p1, uid: u-p1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c-both, namespace: ns1, uid: uid-both}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}, {name: nic, exactly: {deviceClassName: net.example.com}}]}}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-1}
      - {request: nic, driver: net.example.com, pool: node-1, device: eth0}
  reservedFor: [{resource: pods, name: p1, uid: u-p1}]
YAML
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --registry-dir "$T/reg" --checkpoint "$CK" -o jsonl -v "$T/snap.yaml"
    assert_success
    [[ $stderr == *"gpu.example.com: NodePrepareResources for 2 ResourceClaims"* ]]
    [[ $stderr == *"net.example.com: NodePrepareResources for 1 ResourceClaim"* ]]
    # c-gpu: every device; c-both with request nic: the devices the drivers
    # reported without request names (both drivers report none)
    [[ $output == *'"k8s.gpu.example.com/gpu=uid-gpu-gpu-'* ]]
    [[ $output == *'"net.example.com/gpu=c-both"'* ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" unprepare --pod ns1/p1 --registry-dir "$T/reg" --checkpoint "$CK" -o jsonl
    assert_success
    [[ ${#lines[@]} -eq 2 ]]
    grep -q NodeUnprepareResources "$T/calls.log"
    # the conventional socket path without registration
    mkdir -p "$T/plugins"
    ln -s "$T/p" "$T/plugins/gpu.example.com"
    { pod p2 u-p2 node-1; claim p2-own c-p2 u-p2 u-p2; } >"$T/snap2.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p2 --plugins-dir "$T/plugins" --checkpoint "$CK" "$T/snap2.yaml"
    assert_success
    sed -i 's/driver: gpu.example.com/driver: other.example.com/' "$T/snap.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --registry-dir "$T/reg" --checkpoint "$CK" "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"DRA driver other.example.com is not registered"* ]]
}

@test "node: with --claims the example driver prepares the allocated devices, with the plugin helper's checks" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } >"$T/snap.yaml"
    sed 's/device: gpu-0/device: gpu-2/' "$T/snap.yaml" >"$T/claims.yaml"
    start_driver --claims "$T/claims.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    assert_output '{"namespace":"ns1","pod":"p1","container":"main","cdiDevices":["k8s.gpu.example.com/gpu=common","k8s.gpu.example.com/gpu=c-p1-gpu-2"]}'
    run grep -c 'GPU_DEVICE_2=gpu-2' "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml"
    assert_output 1
    run --separate-stderr prep unprepare --pod ns1/p1 -o jsonl
    assert_success
    assert_file_not_exists "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml"
    # the claim the driver reads was replaced, never allocated, gone, or names a device it does not have
    for case in 's/uid: c-p1/uid: c-other/|claim ns1/p1-own got replaced' \
        '/^  allocation:/,/^  reservedFor:/{/reservedFor/!d}|claim ns1/p1-own not allocated' \
        's/name: p1-own/name: elsewhere/|retrieve claim ns1/p1-own: resourceclaims.resource.k8s.io "p1-own" not found' \
        's/device: gpu-0/device: gpu-9/|error preparing devices for claim c-p1: prepare failed: requested device is not allocatable: gpu-9'; do
        sed "${case%%|*}" "$T/snap.yaml" | sed 's/device: gpu-0/device: gpu-2/' >"$T/claims.yaml"
        run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
        assert_failure 3
        [[ $stderr == *"${case#*|}"* ]] || { echo "want: ${case#*|}"; echo "got: $stderr"; false; }
    done
}

# skipclaim NAME UID OPS...: claim NAME of pod p1 (u-p1) allocated to
# gpu.example.com (gpu-0, with skipNodeOperations OPS when given) and
# gpu-1 (without), or only gpu-0 when OPS ends in "one"
skipsnap() {
    local ops=$1 two=${2:-}
    cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ns1, uid: u-p1}
spec:
  nodeName: node-1
  containers: [{name: main, image: x, resources: {claims: [{name: c}]}}]
  resourceClaims: [{name: c, resourceClaimName: c1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: ns1, uid: uid-c1}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0, skipNodeOperations: $ops}
$([[ -n $two ]] && printf '      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-1, skipNodeOperations: %s}\n' "$two")
  reservedFor: [{resource: pods, name: p1, uid: u-p1}]
YAML
}

@test "node: skipNodeOperations [\"*\"]: no driver looked up or called (DRAOptionalNodeOperations, KEP-5945)" {
    # DRAOptionalNodeOperations: 1.37 on (1.36 has no such gate)
    export DRA_KUBERNETES_VERSION=1.37
    mkdir -p "$T/reg"   # no driver registered at all
    skipsnap '["*"]' >"$T/snap.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --registry-dir "$T/reg" --checkpoint "$CK" \
        --feature-gates DRAOptionalNodeOperations=true -o jsonl -v "$T/snap.yaml"
    assert_success
    assert_output '{"namespace":"ns1","pod":"p1","container":"main","cdiDevices":[]}'
    [[ $stderr == *"gpu.example.com: NodePrepareResources skipped for 1 ResourceClaim (skipNodeOperations)"* ]]
    # the set is kept with the claim, so unprepare needs neither input nor driver
    run jq -r '.Data | fromjson | .Entries[0].DriverState["gpu.example.com"].SkipNodeOperations | join(",")' "$CK"
    assert_output "NodePrepareResources,NodeUnprepareResources"
    run jq -r '.Data | fromjson | .Entries[0].Prepared' "$CK"
    assert_output true
    run --separate-stderr "$DRA_BIN/dra-prepare" unprepare --pod ns1/p1 --registry-dir "$T/reg" --checkpoint "$CK" -o jsonl -v
    assert_success
    assert_output '{"action":"unprepare","namespace":"ns1","claim":"c1","uid":"uid-c1","pods":["u-p1"]}'
    [[ $stderr == *"gpu.example.com: NodeUnprepareResources skipped for 1 ResourceClaim (skipNodeOperations)"* ]]
    # sync too
    run --separate-stderr "$DRA_BIN/dra-prepare" sync --node node-1 --registry-dir "$T/reg" --checkpoint "$CK" \
        --feature-gates DRAOptionalNodeOperations=true -o jsonl "$T/snap.yaml"
    assert_success
    [[ $output == *'"action":"prepare","namespace":"ns1","pod":"p1"'* ]]
}

@test "node: skipNodeOperations with the gate off is refused before anything is written (upstream's text)" {
    # DRAOptionalNodeOperations: 1.37 on (1.36 has no such gate)
    export DRA_KUBERNETES_VERSION=1.37
    mkdir -p "$T/reg"
    skipsnap '["*"]' >"$T/snap.yaml"
    for gates in "" "--feature-gates DRAOptionalNodeOperations=false"; do
        run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --registry-dir "$T/reg" --checkpoint "$CK" $gates "$T/snap.yaml"
        assert_failure 1
        [[ -z $output ]]
        [[ $stderr == *"ResourceClaim c1: DRAOptionalNodeOperations feature gate is disabled on kubelet"* ]]
        [[ ! -s $CK ]] || [[ $(jq -r '.Data | fromjson | .Entries | length' "$CK") == 0 ]]
    done
    # an unknown value alone still asks for something the gate does not allow
    skipsnap '["SomethingNew"]' >"$T/snap.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --registry-dir "$T/reg" --checkpoint "$CK" "$T/snap.yaml"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 --registry-dir "$T/reg" --checkpoint "$CK" --feature-gates Bogus=true "$T/snap.yaml"
    assert_failure 2
    [[ $stderr == *"unrecognized feature gate: Bogus"* ]]
}

@test "node: a call is skipped only when every device of the driver skips it; unknown values are ignored" {
    # DRAOptionalNodeOperations: 1.37 on (1.36 has no such gate)
    export DRA_KUBERNETES_VERSION=1.37
    start_py
    py() { "$DRA_BIN/dra-prepare" "$@" --socket "$T/dra.sock" --checkpoint "$CK" --feature-gates DRAOptionalNodeOperations=true; }
    # NodeUnprepareResources only: prepared as usual, never unprepared by a call
    skipsnap '[NodeUnprepareResources]' >"$T/snap.yaml"
    run --separate-stderr py prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    [[ $(grep -c NodePrepareResources "$T/calls.log") -eq 1 ]]
    run --separate-stderr py unprepare --pod ns1/p1 -o jsonl
    assert_success
    refute grep -q NodeUnprepareResources "$T/calls.log"
    # one device of two skips everything: both calls are made
    skipsnap '["*"]' '[]' >"$T/snap.yaml"
    run --separate-stderr py prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    [[ $(grep -c NodePrepareResources "$T/calls.log") -eq 2 ]]
    run jq -r '.Data | fromjson | .Entries[0].DriverState["gpu.example.com"] | has("SkipNodeOperations")' "$CK"
    assert_output false
    run --separate-stderr py unprepare --pod ns1/p1 -o jsonl
    assert_success
    grep -q NodeUnprepareResources "$T/calls.log"
    # "*" and [NodePrepareResources, NodeUnprepareResources, SomethingNew]: both skipped
    skipsnap '["*"]' '[NodePrepareResources, NodeUnprepareResources, SomethingNew]' >"$T/snap.yaml"
    run --separate-stderr py prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    [[ $(grep -c NodePrepareResources "$T/calls.log") -eq 2 ]]
}

@test "node: a checkpoint whose SkipNodeOperations is not a list is an error naming the field" {
    printf '{"kind":"DRACheckpoint","apiVersion":"checkpoint.dra.kubelet.k8s.io/v1","Entries":[{"ClaimUID":"u","ClaimName":"c1","Namespace":"ns1","PodUIDs":{"u-p1":{}},"DriverState":{"d.example.com":{"Devices":[],"SkipNodeOperations":"*"}}}]}' >"$T/data"
    jq -n --rawfile d "$T/data" '{Data: ($d | rtrimstr("\n")), Checksum: 0}' >"$CK"
    python3 -c 'import json,zlib,sys; f=sys.argv[1]; o=json.load(open(f)); o["Checksum"]=zlib.crc32(o["Data"].encode()); json.dump(o,open(f,"w"))' "$CK"
    run --separate-stderr "$DRA_BIN/dra-prepare" unprepare --pod ns1/p1 --socket "$T/none.sock" --checkpoint "$CK"
    assert_failure 3
    [[ $stderr == *'Entries[0].DriverState[d.example.com].SkipNodeOperations'*'expected an array, got string'* ]]
}
