#!/usr/bin/env bats
# Files the tools write are created or replaced atomically and never through
# a symbolic link planted at the file's name, a temporary name or a lock:
# dra-prepare's checkpoint, dra-example-driver's CDI specs, checkpoint and
# sockets, dra-watch's recordings.  The example driver's unprepare removes
# exactly the spec files its checkpoint says it wrote.
bats_require_minimum_version 1.5.0
load helpers
load rpc-helpers

setup_file() { rpc_setup_file; }
setup() {
    rpc_setup
    CK=$T/state
    printf 'precious\n' >"$T/victim"
    chmod 0644 "$T/victim"
}
teardown() { rpc_teardown; }

# the planted link's target kept its bytes and mode
victim_untouched() {
    [[ $(cat "$T/victim") == precious && $(stat -c %a "$T/victim") == 644 ]]
}

# a pod on node-1 with one claim allocated to gpu.example.com
snapshot() {
    cat <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ns1, uid: u-p1}
spec:
  nodeName: node-1
  containers:
  - {name: main, image: x, resources: {claims: [{name: own}]}}
  resourceClaims:
  - {name: own, resourceClaimName: p1-own}
status:
  phase: Running
  resourceClaimStatuses:
  - {name: own, resourceClaimName: p1-own}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: p1-own, namespace: ns1, uid: c-p1}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}
  reservedFor:
  - {resource: pods, name: p1, uid: u-p1}
YAML
}

prep() {
    "$DRA_BIN/dra-prepare" "$@" --socket "$T/p/dra.sock" --checkpoint "$CK"
}

@test "dra-prepare: a link at the checkpoint's old temporary name is not written through" {
    start_driver
    snapshot >"$T/snap.yaml"
    ln -s "$T/victim" "$CK.tmp"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    victim_untouched
    [[ -f $CK && ! -L $CK && $(stat -c %a "$CK") == 600 ]]
    grep -q '"ClaimUID\\":\\"c-p1\\"' "$CK"
    # no temporary file is left beside the checkpoint
    run bash -c "ls -A '$T' | grep -c '^\.state\.'"
    assert_output 0
}

@test "dra-prepare: a link at the checkpoint is replaced, its target untouched" {
    start_driver
    snapshot >"$T/snap.yaml"
    ln -s "$T/elsewhere" "$CK"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    [[ -f $CK && ! -L $CK ]]
    assert_file_not_exists "$T/elsewhere"
}

@test "dra-prepare: a link at the checkpoint lock is refused (exit 3), its target untouched" {
    start_driver
    snapshot >"$T/snap.yaml"
    ln -s "$T/victim" "$CK.lock"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"checkpoint lock $CK.lock is a symbolic link, which is not followed"* ]]
    assert_output ''
    victim_untouched
    assert_file_not_exists "$CK"
    # a dangling link: its target is not created
    rm "$CK.lock"
    ln -s "$T/made" "$CK.lock"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_failure 3
    assert_file_not_exists "$T/made"
}
