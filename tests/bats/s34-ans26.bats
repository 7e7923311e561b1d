#!/usr/bin/env bats
# Pool status as the ResourcePoolStatusRequest controller writes it, PodGroup
# conditions, the claims job's quota dry run, and kubelet-side housekeeping
# (dra-prepare probe/sync, dra-example-driver's default paths).
load helpers
load rpc-helpers
bats_require_minimum_version 1.5.0

setup_file() { rpc_setup_file; }
setup() { rpc_setup; }
teardown() { rpc_teardown; }

# a pool of one slice with two plain devices and no shared counters
plain_pool() {
    cat >"$T/plain.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {shape: {string: full}}}
  - {name: gpu-1}
YAML
}

@test "pool-status: a request's default partition attribute groups every device of the pool" {
    # upstream resolveDevicePartitions gives every device of a pool where no
    # slice declares partitionTypeAttribute the request's attribute; with no
    # shared counters the pool is flagged (computePoolViews)
    plain_pool
    cat >"$T/req.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1alpha3
kind: ResourcePoolStatusRequest
metadata: {name: r}
spec: {driver: gpu.example.com, defaultPartitionTypeAttribute: gpu.example.com/shape}
YAML
    run "$DRA_BIN/dra-slice" pool-status -o jsonl --now 2026-01-01T00:00:00Z "$T/plain.yaml" "$T/req.yaml"
    assert_success
    assert_output --partial '"validationError":"PartitionTypeMissing: pool gpu.example.com/node-a declares partitionTypeAttribute but publishes no sharedCounters"'
    assert_output --partial '"message":"Calculated status for 1 pools (1 incomplete)"'
    assert_output --partial '"totalDevices":2'
}

@test "pool-status and capacity: a pool short of slices is incomplete in both, no device free" {
    cat >"$T/short.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s-0}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 2, resourceSliceCount: 2}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s-old}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-9}]
YAML
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com -o jsonl --now 2026-01-01T00:00:00Z "$T/short.yaml"
    assert_success
    assert_equal "$(jq -c '.status.pools[0] | [.validationError, .totalDevices]' <<<"$output")" \
        '["PoolIncomplete: pool gpu.example.com/node-a is incomplete: observed 1/2 slices at generation 2",null]'
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity --by pool -o json "$T/short.yaml"
    assert_success
    assert_equal "$(jq -c '.classes[0].pools[0] | [.total, .unusable, .free, .unusableReason]' <<<"$output")" \
        '[1,1,0,"incomplete: 1 of 2 ResourceSlices at generation 2"]'
}

@test "probe: a failed prepare is not reported idempotent" {
    start_driver --fail-claim dra-probe-00000000-0000-4000-8000-000000000001=broken
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --count 1
    assert_failure
    assert_line --regexp '^prepare +fail +NodePrepareResources failed for ResourceClaim dra-probe: .*broken'
    assert_line --regexp '^prepare-again +skip +the first prepare failed: no answer to compare'
    refute_line --regexp '^prepare-again +pass'
}

@test "sync: reports only the pods whose claims it changed" {
    # shellcheck disable=SC2034 # read by rpc-helpers.bash
    CK=$T/state
    start_driver
    { pod a u-a node-1; claim a-own c-a u-a u-a; } >"$T/snap1.yaml"
    run --separate-stderr prep sync --node node-1 -o jsonl "$T/snap1.yaml"
    assert_success
    [[ ${#lines[@]} -eq 1 && ${lines[0]} == '{"action":"prepare","namespace":"ns1","pod":"a",'* ]]
    # b is new: only b is reported; a was left as it was
    { pod a u-a node-1; pod b u-b node-1; claim a-own c-a u-a u-a; claim b-own c-b u-b u-b; } >"$T/snap2.yaml"
    run --separate-stderr prep sync --node node-1 -o jsonl "$T/snap2.yaml"
    assert_success
    [[ ${#lines[@]} -eq 1 && ${lines[0]} == '{"action":"prepare","namespace":"ns1","pod":"b",'* ]]
    # nothing to do: nothing reported
    run --separate-stderr prep sync --node node-1 -o jsonl "$T/snap2.yaml"
    assert_success
    assert_output ""
}

@test "dra-example-driver: the kubelet's own directories only with --kubelet" {
    for args in "" "--plugin-dir $T/p" "--registry-dir $T/reg" "--node n --devices 2"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/dra-example-driver" $args
        assert_failure 2
        assert_equal "$stderr" "dra-example-driver: without --plugin-dir and --registry-dir the driver registers with the node's kubelet (/var/lib/kubelet/...): say so with --kubelet"
    done
    [[ ! -e $T/p && ! -e $T/reg/gpu.example.com-reg.sock ]]
    run "$DRA_BIN/dra-example-driver" --help
    assert_output --partial "--kubelet "
    grep -qxF -- '.B \-\-kubelet' "$BATS_TEST_DIRNAME/../../man/dra-example-driver.1"
    # both directories given: no --kubelet needed
    start_driver
    test -S "$T/p/dra.sock"
}

# The example cluster's pods, claims and classes and a quota of 2 GPUs in
# namespace default, loaded into the test API server.
load_quota_cluster() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_start "$T/api"
    cat >"$T/quota.yaml" <<'Y'
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: default}
spec:
  hard:
    count/resourceclaims.resource.k8s.io: "10"
    gpu.example.com.deviceclass.resource.k8s.io/devices: "2"
Y
    python3 -c 'import json, sys, yaml; print(json.dumps([d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f)) if d]))' \
        "$EXAMPLES/cluster/pods.yaml" "$EXAMPLES/cluster/claims.yaml" "$EXAMPLES/cluster/classes.yaml" "$T/quota.yaml" >"$T/load.json"
    apiserver_req POST /_test/objects "$(cat "$T/load.json")" >/dev/null
}

@test "run --job claims --dry-run: quota admission refuses the claims the API server would" {
    load_quota_cluster
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --dry-run --job claims
    apiserver_stop
    # as dra-claim generate with the quota: 2 GPUs for three pods of one
    # each (in the order the server lists them): two refused, one created
    assert_failure 1
    ops=$output
    run grep -c 'is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=1, used: gpu.example.com.deviceclass.resource.k8s.io/devices=2, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=2$' <<<"$stderr"
    assert_output 2
    run jq -c 'select(.verb == "create") | .kind' <<<"$ops"
    assert_output '"ResourceClaim"'
}

@test "deploy: the claims role may list resourcequotas, which the dry run reads" {
    run python3 -c 'import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "ClusterRole":
        for r in d["rules"]:
            if "resourcequotas" in r["resources"]:
                print(r["apiGroups"], sorted(r["verbs"]))' "$BATS_TEST_DIRNAME/../../deploy/claims-rbac.yaml"
    assert_output "[''] ['list']"
    # the dry run works under exactly that role
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    jq -c .object "$DATA/watch/finished-pod.rec.jsonl" >"$T/objs.jsonl"
    apiserver_start "$T/api" --load "$T/objs.jsonl" --rbac "$DATA/watch/rbac-users.yaml" \
        --rbac "$BATS_TEST_DIRNAME/../../deploy/claims-rbac.yaml"
    sed "s/token: .*/token: claims-sa-token/" "$KUBECONFIG" >"$T/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --dry-run --job claims --kubeconfig "$T/kc"
    apiserver_stop
    assert_success
    assert_equal "${#lines[@]}" 3
}

# k8s.io/kubernetes v1.37.2 pkg/scheduler/schedule_one_podgroup.go
# submitPodGroupAlgorithmResult, updatePodGroupCondition
@test "schedule: a pod group gets the PodGroupInitiallyScheduled condition the scheduler writes" {
    G="$DATA/groups"
    sched() { "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T11:00:00Z --feature-gates GenericWorkload=true -o jsonl "$@"; }
    cond() { jq -c 'select(.kind == "PodGroup") | [.metadata.name, .status.conditions]' "$1"; }
    # scheduled
    run --separate-stderr sched "$G/two-gpus.yaml" "$G/group.yaml"
    printf '%s\n' "$output" >"$T/out.jsonl"
    run cond "$T/out.jsonl"
    assert_output '["train",[{"type":"PodGroupInitiallyScheduled","status":"True","lastTransitionTime":"2026-03-01T11:00:00Z","reason":"Scheduled","message":""}]]'
    # a gang short of minCount: placements undone, the group unschedulable
    run --separate-stderr sched "$G/two-gpus.yaml" "$G/gang-undone.yaml"
    printf '%s\n' "$output" >"$T/out.jsonl"
    run cond "$T/out.jsonl"
    assert_output '["gang",[{"type":"PodGroupInitiallyScheduled","status":"False","lastTransitionTime":"2026-03-01T11:00:00Z","reason":"Unschedulable","message":"minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"}]]'
    # held back before any cycle (PreEnqueue): no condition
    run --separate-stderr sched "$G/two-gpus.yaml" "$G/gang-short.yaml"
    printf '%s\n' "$output" >"$T/out.jsonl"
    run cond "$T/out.jsonl"
    assert_output ""
    # a group scheduled once stays True; the same False again keeps its time
    sed 's/^metadata: {name: gang, namespace: default, uid: uid-pg-gang}$/metadata: {name: gang, namespace: default, uid: uid-pg-gang, generation: 3}\nstatus: {conditions: [{type: PodGroupInitiallyScheduled, status: "False", lastTransitionTime: "2026-03-01T09:00:00Z", reason: Unschedulable, message: old}]}/' \
        "$G/gang-undone.yaml" >"$T/again.yaml"
    run --separate-stderr sched "$G/two-gpus.yaml" "$T/again.yaml"
    printf '%s\n' "$output" >"$T/out.jsonl"
    run cond "$T/out.jsonl"
    assert_output '["gang",[{"type":"PodGroupInitiallyScheduled","status":"False","lastTransitionTime":"2026-03-01T09:00:00Z","reason":"Unschedulable","message":"minCount (2) cannot be satisfied: 1 scheduled, 0 remaining","observedGeneration":3}]]'
    sed -i 's/status: "False", lastTransitionTime/status: "True", lastTransitionTime/' "$T/again.yaml"
    run --separate-stderr sched "$G/two-gpus.yaml" "$T/again.yaml"
    printf '%s\n' "$output" >"$T/out.jsonl"
    run cond "$T/out.jsonl"
    assert_output ""
}
