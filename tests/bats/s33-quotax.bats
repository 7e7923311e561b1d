#!/usr/bin/env bats
# ResourceQuota admission as the API server applies it to ResourceClaims
# (k8s.io/kubernetes v1.37.2 pkg/quota/v1/evaluator/core/resource_claims.go,
# k8s.io/apiserver v0.37.2 pkg/admission/plugin/resourcequota/controller.go
# CheckRequest): the scheduler's claims for extended resources, and a
# quota's status.hard and status.used.
load helpers
bats_require_minimum_version 1.5.0

C="$EXAMPLES/cluster"

setup() {
    T=$BATS_TEST_TMPDIR
}

# Pod p of namespace $1 asking for $2 example.com/gpu.
gpu_pod() {
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: %s, uid: u-p}\n' "$1"
    printf 'spec: {containers: [{name: c, image: x, resources: {requests: {example.com/gpu: "%s"}, limits: {example.com/gpu: "%s"}}}]}\n' "$2" "$2"
}

# A pod asking for example.com/gpu (gpu.example.com's extendedResourceName)
# and the claim the scheduler made for it; $1: the pod's request, $2: the
# claim's devices.
ext_pod_and_claim() {
    gpu_pod ns "$1"
    cat <<Y
status:
  extendedResourceClaimStatus:
    resourceClaimName: p-ext
    requestMappings: [{containerName: c, resourceName: example.com/gpu, requestName: container-0-request-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: p-ext
  namespace: ns
  annotations: {resource.kubernetes.io/extended-resource-claim: "true"}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u-p, controller: true}]
spec:
  devices:
    requests:
    - name: container-0-request-0
      exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: $2}
Y
}

EXT_QUOTA='apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: ns}
spec:
  hard:
    requests.example.com/gpu: "1"
    requests.deviceclass.resource.kubernetes.io/gpu.example.com: "8"
    gpu.example.com.deviceclass.resource.k8s.io/devices: "8"'

@test "an extended-resource claim is charged what its pod does not request itself" {
    { ext_pod_and_claim 1 2; echo ---; echo "$EXT_QUOTA"; } >"$T/in.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -o json "$C/classes.yaml" "$T/in.yaml"
    assert_success
    # 2 devices: the pod's 1 example.com/gpu is the pod's; the implicit name is not in its requests
    run jq -c '.charged[0].usage' <<<"$output"
    assert_output '{"gpu.example.com.deviceclass.resource.k8s.io/devices":2,"requests.deviceclass.resource.kubernetes.io/gpu.example.com":2,"requests.example.com/gpu":1}'
}

@test "an extended-resource claim whose pod requests all of it charges no requests.<name>" {
    { ext_pod_and_claim 2 2; echo ---; echo "$EXT_QUOTA"; } >"$T/in.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -o json "$C/classes.yaml" "$T/in.yaml"
    assert_success
    run jq -c '.charged[0].usage | has("requests.example.com/gpu")' <<<"$output"
    assert_output false
}

@test "an extended-resource claim whose pod is not in the input is charged in full and refused" {
    ext_pod_and_claim 2 2 | sed '1,/^---$/d' >"$T/in.yaml"
    { echo ---; echo "$EXT_QUOTA"; } >>"$T/in.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota "$C/classes.yaml" "$T/in.yaml"
    assert_failure 1
    assert_equal "$stderr" 'dra-alloc: resourceclaims.resource.k8s.io "p-ext" is forbidden: exceeded quota: gpus, requested: requests.example.com/gpu=2, used: requests.example.com/gpu=0, limited: requests.example.com/gpu=1'
}

@test "an extended-resource claim of a pod with another UID, or naming another claim, is charged in full" {
    { ext_pod_and_claim 2 2 | sed 's/uid: u-p}/uid: u-other}/'; echo ---; echo "$EXT_QUOTA"; } >"$T/a.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota "$C/classes.yaml" "$T/a.yaml"
    assert_failure 1
    [[ $stderr == *'"p-ext" is forbidden: exceeded quota: gpus, requested: requests.example.com/gpu=2'* ]]
    { ext_pod_and_claim 2 2 | sed 's/resourceClaimName: p-ext/resourceClaimName: p-other/'; echo ---; echo "$EXT_QUOTA"; } >"$T/b.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota "$C/classes.yaml" "$T/b.yaml"
    assert_failure 1
    [[ $stderr == *'"p-ext" is forbidden: exceeded quota: gpus, requested: requests.example.com/gpu=2'* ]]
}

@test "a pod naming no claim exempts only its first extended-resource claim" {
    ext_pod_and_claim 2 2 | sed '/extendedResourceClaimStatus/,/requestMappings/d' >"$T/in.yaml"
    python3 - "$T/in.yaml" <<'PY2'
import sys, yaml, copy
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
claim = docs[1]
claim["metadata"]["creationTimestamp"] = "2026-01-01T00:00:01Z"
older = copy.deepcopy(claim)
older["metadata"]["name"] = "p-ext-older"
older["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
docs.append(older)
yaml.safe_dump_all(docs, open(sys.argv[1], "w"))
PY2
    { echo ---; echo "$EXT_QUOTA" | sed 's/gpu: "1"/gpu: "2"/'; } >>"$T/in.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -o json "$C/classes.yaml" "$T/in.yaml"
    assert_success
    # p-ext-older is the pod's own; p-ext, made after it, is charged in full
    run jq -c '[.charged[] | [.claim, .usage["requests.example.com/gpu"]]]' <<<"$output"
    assert_output '[["ns/p-ext",2],["ns/p-ext-older",null]]'
}

@test "capacity counts a quota's use of extended-resource claims as quota does, less what their pod requests" {
    gpu_pod ns 1 >"$T/in.yaml"
    for c in b-ext:02 a-ext:01 c-ext:01; do cat <<Y
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: ${c%%:*}
  namespace: ns
  creationTimestamp: "2026-01-01T00:00:${c#*:}Z"
  annotations: {resource.kubernetes.io/extended-resource-claim: "true"}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u-p, controller: true}]
spec:
  devices:
    requests:
    - name: container-0-request-0
      exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 2}
Y
    done >>"$T/in.yaml"
    { echo ---; echo "$EXT_QUOTA" | sed 's/"[18]"/"10"/'; } >>"$T/in.yaml"
    # a-ext, the pod's first claim, leaves out the pod's 1 example.com/gpu: 2 + 1 + 2
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -o json "$C/classes.yaml" "$T/in.yaml"
    assert_success
    run jq -c '.quotas[0].resources | map_values(.used)' <<<"$output"
    want='{"requests.example.com/gpu":5,"requests.deviceclass.resource.kubernetes.io/gpu.example.com":6,"gpu.example.com.deviceclass.resource.k8s.io/devices":6}'
    assert_output "$want"
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity -o json "$C/classes.yaml" "$T/in.yaml"
    assert_success
    run jq -c '.quotas[0].resources | map_values(.used)' <<<"$output"
    assert_output "$want"
}

# Two claims of one GPU each in namespace ns.
two_claims() {
    for n in a b; do cat <<Y
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: $n, namespace: ns}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}
Y
    done
}

@test "a quota whose status.used lacks a resource of status.hard refuses with the API server's 'status unknown'" {
    cat >"$T/q.yaml" <<'Y'
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: ns}
spec:
  hard: {count/resourceclaims.resource.k8s.io: "10", gpu.example.com.deviceclass.resource.k8s.io/devices: "4", cpu: "2"}
status:
  hard: {count/resourceclaims.resource.k8s.io: "10", gpu.example.com.deviceclass.resource.k8s.io/devices: "4", cpu: "2"}
  used: {count/resourceclaims.resource.k8s.io: "0", cpu: "0"}
Y
    two_claims >>"$T/q.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -v "$C/classes.yaml" "$T/q.yaml"
    assert_failure 1
    grep -qxF 'dra-alloc: resourceclaims.resource.k8s.io "a" is forbidden: status unknown for quota: q, resources: count/resourceclaims.resource.k8s.io,gpu.example.com.deviceclass.resource.k8s.io/devices' <<<"$stderr"
    grep -qxF 'dra-alloc: resourceclaims.resource.k8s.io "b" is forbidden: status unknown for quota: q, resources: count/resourceclaims.resource.k8s.io,gpu.example.com.deviceclass.resource.k8s.io/devices' <<<"$stderr"
    [[ $stderr == *'quota ns/q: status.hard lists gpu.example.com.deviceclass.resource.k8s.io/devices but status.used has no figure for it'* ]]
    # the same in dra-claim generate: the claim is not made
    run --separate-stderr "$DRA_BIN/dra-claim" generate -o jsonl "$C/pods.yaml" "$C/claims.yaml" "$C/classes.yaml" <(sed 's/namespace: ns/namespace: default/' "$T/q.yaml" | sed '/^---$/,$d')
    assert_failure 1
    [[ $stderr == *'pod default/trainer, PodResourceClaim gpu: resourceclaims.resource.k8s.io "trainer-gpu-2d5cs" is forbidden: status unknown for quota: q, resources: count/resourceclaims.resource.k8s.io,gpu.example.com.deviceclass.resource.k8s.io/devices'* ]]
}

# Quota q of ns with spec.hard of $1 GPUs and the status lines given on
# standard input, then two_claims.
gpu_quota() {
    printf 'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: ns}\n'
    printf 'spec: {hard: {gpu.example.com.deviceclass.resource.k8s.io/devices: "%s"}}\n' "$1"
    cat
    two_claims
}

@test "admission compares with status.hard, not spec.hard, when the quota has one" {
    printf 'status: {hard: {%s: "1"}, used: {%s: "0"}}\n' "gpu.example.com.deviceclass.resource.k8s.io/devices" \
        "gpu.example.com.deviceclass.resource.k8s.io/devices" | gpu_quota 4 >"$T/q.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -o json "$C/classes.yaml" "$T/q.yaml"
    assert_failure 1
    assert_equal "$stderr" 'dra-alloc: resourceclaims.resource.k8s.io "b" is forbidden: exceeded quota: q, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=1, used: gpu.example.com.deviceclass.resource.k8s.io/devices=1, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=1'
    run jq -r '.quotas[0].hardFrom' <<<"$output"
    assert_output status.hard
}

@test "a quota with no status.hard is counted as the quota controller will sync it: spec.hard, used from the claims" {
    gpu_quota 1 </dev/null >"$T/q.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -o json "$C/classes.yaml" "$T/q.yaml"
    assert_failure 1
    [[ $stderr == *'"b" is forbidden: exceeded quota: q'* ]]
    run jq -r '.quotas[0].hardFrom' <<<"$output"
    assert_output spec.hard
}

@test "requests.<name> counts only where a class serves the name, as the claims' evaluator matches" {
    # example.com/none: no class; a status.hard naming it alone does not make the quota match
    cat >"$T/q.yaml" <<'Y'
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: ns}
spec: {hard: {requests.example.com/none: "0"}}
status: {hard: {requests.example.com/none: "0"}}
Y
    two_claims >>"$T/q.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -v "$C/classes.yaml" "$T/q.yaml"
    assert_success
    [[ $stderr == *'quota ns/q skipped (scopes []): no DRA resource in status.hard'* ]]
}

# dra-watch run --job claims: the API server's quota admission refuses one
# claim (a 403 on the create); the job goes on with the other pods.
@test "run --job claims: a claim the API server's quota refuses leaves its pod waiting, the others go on" {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_start "$T/api"
    watch_backoff 50 500
    jq -c 'select(.object.kind == "ResourceClaimTemplate") | .object' "$DATA/watch/finished-pod.rec.jsonl" | jq -s . >"$T/t.json"
    apiserver_req POST /_test/objects "$(cat "$T/t.json")" >/dev/null
    local pods='[]' n
    for n in a b; do
        pods=$(jq -c --arg n "$n" '. + [{apiVersion: "v1", kind: "Pod", metadata: {name: $n, namespace: "ml", uid: ("3f0a9c1e-0000-4000-8000-00000000a0" + $n + "0")},
            spec: {containers: [{name: "c", image: "i"}], resourceClaims: [{name: "gpu", resourceClaimTemplateName: "single-gpu"}]},
            status: {phase: "Pending"}}]' <<<"$pods")
    done
    apiserver_req POST /_test/objects "$pods" >/dev/null
    apiserver_req POST /_test/faults '{"status":{"code":403,"verb":"create","path":"/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims","count":1,"message":"resourceclaims.resource.k8s.io \"a-gpu-x\" is forbidden: exceeded quota: gpus, requested: count/resourceclaims.resource.k8s.io=1, used: count/resourceclaims.resource.k8s.io=1, limited: count/resourceclaims.resource.k8s.io=1"}}' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --stats -v
    local claims status_a
    claims=$("$DRA_BIN/dra-watch" get resourceclaims -n ml | jq -r .metadata.name)
    status_a=$(apiserver_req GET /api/v1/namespaces/ml/pods/a | jq -c .status.resourceClaimStatuses)
    apiserver_stop
    [[ $claims == b-gpu-????? ]]
    assert_equal "$status_a" null
    assert_failure 1
    [[ $stderr == *'Error from server (Forbidden): '*'exceeded quota: gpus'*'(the pod waits; the next pass tries again)'* ]]
    [[ $stderr == *'skipped apply Pod ml/a: its claim was refused by quota'* ]]
    [[ $stderr == *"writes=3"* ]]
}

@test "schedule: the special claim for a pod's extended resources passes quota admission when the pod is bound" {
    gpu_pod xr 1 >"$T/xr.yaml"
    cat >>"$T/xr.yaml" <<'Y'
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: xr}
spec: {hard: {gpu.example.com.deviceclass.resource.k8s.io/devices: "0", requests.example.com/gpu: "0"}}
Y
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o jsonl "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/xr.yaml"
    assert_failure 1
    # only the pod, with the scheduler's PodScheduled=False: PreBind's error
    run jq -c '[.kind, .metadata.name, .spec.nodeName, (.status.conditions[] | .reason)]' <<<"$output"
    assert_output '["Pod","p",null,"SchedulerError"]'
    # the pod's own example.com/gpu is the pod's to pay: only the devices exceed
    assert_equal "$stderr" 'dra-alloc: pod xr/p: create claim for extended resources xr/: resourceclaims.resource.k8s.io "p-extended-resources-n4w7w" is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=1, used: gpu.example.com.deviceclass.resource.k8s.io/devices=0, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=0'
    # room for one device: the claim is made and the pod bound
    sed -i 's/devices: "0"/devices: "1"/' "$T/xr.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o jsonl "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/xr.yaml"
    assert_success
    run jq -c '[.kind, .metadata.name, .spec.nodeName]' <<<"$output"
    assert_output '["ResourceClaim","p-extended-resources-n4w7w",null]
["Pod","p","node-a"]'
}
