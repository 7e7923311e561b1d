#!/usr/bin/env bats
# dra-prepare probe against a driver that looks its claims up: a made-up
# claim it does not know skips the claim checks instead of failing them.
load helpers
load rpc-helpers
bats_require_minimum_version 1.5.0

setup_file() { rpc_setup_file; }
setup() { rpc_setup; }
teardown() { rpc_teardown; }

@test "probe: a driver that does not know the made-up claim skips the claim checks" {
    start_driver --claims "$BATS_TEST_DIRNAME/../../examples/cluster/claims.yaml"
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --count 1
    assert_success
    assert_line --regexp '^connect +pass'
    assert_line --regexp '^prepare +skip +the driver looks claims up and does not know the probe.s made-up claim \(.*"dra-probe" not found\); give --claim FILE'
    refute_line --regexp ' fail '
    refute_line --regexp '^unprepare'
}

@test "probe: an unknown claim given with --claim still fails" {
    start_driver --claims "$BATS_TEST_DIRNAME/../../examples/cluster/claims.yaml"
    f=$(claim_file not-there 6f1e8b7a-0000-4000-8000-00000000dead)
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --count 1 --claim "$f"
    assert_failure 1
    assert_line --regexp '^prepare +fail +NodePrepareResources .*: UNKNOWN: .*"not-there" not found'
}

@test "validate: a slice's partitionTypeAttribute has the declarative name format, also where it may not be set" {
    # 1.37 on (1.36 has no such gate or field)
    export DRA_KUBERNETES_VERSION=1.37
    cat >"$BATS_TEST_TMPDIR/pta.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  partitionTypeAttribute: "Derived/numa"
  devices:
  - name: d
YAML
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates DRAPartitionableDevicesType=true,DRAResourcePoolStatus=true "$BATS_TEST_TMPDIR/pta.yaml"
    assert_failure 2
    # upstream-validate (k8s.io/kubernetes v1.37.2) answers these two, in this order
    [[ $stderr == *'spec.partitionTypeAttribute: Invalid value: "Derived/numa": may only be set on a slice which declares devices that consume counters'* ]]
    [[ $stderr == *'spec.partitionTypeAttribute: Invalid value: "Derived": prefix: a lowercase RFC 1123 subdomain'* ]]
}
