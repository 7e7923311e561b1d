#!/usr/bin/env bats
# dra-alloc: allocation on one node with the real CEL engine.
load helpers
bats_require_minimum_version 1.5.0

A="$DATA/alloc"

setup() {
    # 1.37's gates unless a test names another release
    export DRA_KUBERNETES_VERSION=1.37
    T=$BATS_TEST_TMPDIR
}

claim() { # claim NAME REQUESTS-YAML [EXTRA-DEVICES-YAML]
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s, namespace: default, uid: uid-%s}\nspec:\n  devices:\n%s\n---\n' "$1" "$1" "$2"
}

devices() { # devices CLAIM-OUTPUT: "claim: dev dev" lines from jsonl output
    jq -r '.metadata.name + ": " + ([.status.allocation.devices.results[] | .request + "=" + .device] | join(" "))'
}

@test "one claim gets the first matching device" {
    run "$DRA_BIN/dra-alloc" --node node-1 "$A/basic.yaml"
    assert_success
    assert_output --partial "device: gpu-0"
    assert_output --partial "source: FromClass"
    assert_output --partial "- node-1"
}

@test "claims are allocated together, in input order, with constraints and claim config" {
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$A/basic.yaml" "$A/two-claims.yaml"
    assert_success
    run devices <<<"$output"
    assert_output $'one: gpu=gpu-0\ntwo: a=gpu-1 a=gpu-2'
}

@test "another node: cannot allocate, exit 1 with upstream's reason" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-2 "$A/basic.yaml"
    assert_failure 1
    [[ $stderr == *"dra-alloc: cannot allocate all claims" ]]
    # a node the input does not know is said to be unknown
    [[ $stderr == *"warning: node node-2 is not in the input: no Node object and no ResourceSlice names it"* ]]
}

@test "no pending claims: nothing to do" {
    grep -v '^$' "$A/partitionable.yaml" >"$T/in.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 "$T/in.yaml"
    assert_success
    assert_output ""
}

@test "--node is required" {
    run "$DRA_BIN/dra-alloc" "$A/basic.yaml"
    assert_failure 2
    assert_output --partial "--node is required"
}

@test "unknown class is fatal with upstream's text" {
    run "$DRA_BIN/dra-alloc" --node node-1 "$A/basic.yaml" "$A/bad-unknown-class.yaml"
    assert_failure 2
    assert_output --partial 'claim default/lost, request gpu: could not retrieve device class no-such-class: deviceclass.resource.k8s.io "no-such-class" not found'
}

@test "invalid pool: reported only when nothing fits" {
    claim c "    requests:
    - name: gpu
      exactly: {deviceClassName: gpu, count: 4}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 "$A/basic.yaml" "$A/bad-duplicate-devices.yaml" "$T/c.yaml"
    assert_failure 1
    assert_output "dra-alloc: invalid resource pools were encountered (gpu.example.com/dup: duplicate device name gpu-0)"
    claim c "    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 "$A/basic.yaml" "$A/bad-duplicate-devices.yaml" "$T/c.yaml"
    assert_success
}

@test "All on an incomplete pool is fatal" {
    claim c "    requests:
    - name: gpu
      exactly: {deviceClassName: gpu, allocationMode: All}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 "$A/basic.yaml" "$A/incomplete.yaml" "$T/c.yaml"
    assert_failure 2
    assert_output --partial "asks for all devices, but resource pool gpu.example.com/updating is currently being updated"
    # from 1.38 the node is unsuitable, the run not fatal
    run "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 "$A/basic.yaml" "$A/incomplete.yaml" "$T/c.yaml"
    assert_failure 1
    assert_output --partial "asks for all devices, but resource pool gpu.example.com/updating is currently being updated"
}

@test "more than 32 devices per claim is fatal" {
    claim c "    requests:
    - name: gpu
      exactly: {deviceClassName: gpu, count: 20}
    - name: more
      exactly: {deviceClassName: gpu, count: 13}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 --no-validate "$A/basic.yaml" "$T/c.yaml"
    assert_failure 2
    assert_output --partial "claim default/c, request more: adding 13 devices exceeds the claim limit of 32, with 20 already accounted for"
}

@test "identical duplicates are one object; conflicting ones are input errors" {
    run "$DRA_BIN/dra-alloc" --node node-1 "$A/basic.yaml" "$A/basic.yaml"
    assert_success
    sed 's/count: 1$/count: 2/' "$A/basic.yaml" >"$T/changed.yaml"
    if ! cmp -s "$A/basic.yaml" "$T/changed.yaml"; then
        run "$DRA_BIN/dra-alloc" --node node-1 "$A/basic.yaml" "$T/changed.yaml"
        assert_failure 2
        assert_output --partial "duplicate object"
    fi
}

@test "firstAvailable falls back and names the subrequest" {
    claim c "    requests:
    - name: gpu
      firstAvailable:
      - {name: h100, deviceClassName: gpu, count: 2, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"h100\"'}}]}
      - {name: any, deviceClassName: gpu}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$A/basic.yaml" "$T/c.yaml"
    assert_success
    run devices <<<"$output"
    assert_output $'one: gpu=gpu-0\nc: gpu/any=gpu-1'
}

@test "CEL runtime errors are fatal with upstream's text and hint" {
    # gpu-0 goes to claim "one" first; in-use devices are skipped before selectors run.
    claim c "    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].memory > 0'}}]" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 "$A/basic.yaml" "$T/c.yaml"
    assert_failure 2
    assert_output --partial "claim default/c: selector #0 on device gpu.example.com/node-1/gpu-1: CEL runtime error: no such key: memory. consider using CEL optional chaining"
}

@test "partitionable devices: backtracking frees counters" {
    claim a "    requests:
    - {name: gpu, exactly: {deviceClassName: gpu}}" >"$T/c.yaml"
    claim b "    requests:
    - {name: gpu, exactly: {deviceClassName: gpu}}" >>"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$A/partitionable.yaml" "$T/c.yaml"
    assert_success
    run devices <<<"$output"
    assert_output $'a: gpu=gpu-0-half-0\nb: gpu=gpu-0-half-1'
    # the gate can be turned off until 1.37 (GA and locked in 1.38)
    run "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 --feature-gates DRAPartitionableDevices=false "$A/partitionable.yaml" "$T/c.yaml"
    assert_failure 1
}

@test "regression #140436: counters of a rejected branch do not leak" {
    # The first pick (the full GPU) dead-ends on the constraint; after backtracking
    # both halves must still fit.
    claim c "    requests:
    - {name: a, exactly: {deviceClassName: gpu}}
    - {name: b, exactly: {deviceClassName: gpu}}
    constraints:
    - {matchAttribute: gpu.example.com/half}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$A/partitionable.yaml" "$T/c.yaml"
    assert_success
    run devices <<<"$output"
    assert_output "c: a=gpu-0-half-0 b=gpu-0-half-1"
}

@test "consumable capacity: shared device, policy rounding, deterministic shareID" {
    claim a "    requests:
    - {name: net, exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: 2500Mi}}}}" >"$T/c.yaml"
    claim b "    requests:
    - {name: net, exactly: {deviceClassName: nic}}" >>"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 --now 2026-03-01T12:00:00Z -o jsonl "$A/nic.yaml" "$T/c.yaml"
    assert_success
    first=$output
    run jq -r '.status.allocation.devices.results[0] | .device + " " + .consumedCapacity.bandwidth + " " + (.shareID|length|tostring)' <<<"$first"
    assert_output $'nic-0 3Gi 36\nnic-0 1Gi 36'
    run "$DRA_BIN/dra-alloc" --node node-1 --now 2026-03-01T12:00:00Z -o jsonl "$A/nic.yaml" "$T/c.yaml"
    assert_output "$first"
}

@test "regression #133705: capacity of a rejected branch is released" {
    claim c "    requests:
    - {name: a, exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: 6Gi}}}}
    - {name: b, exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: 4Gi}}}}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$A/nic.yaml" "$T/c.yaml"
    assert_success
    claim d "    requests:
    - {name: a, exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: 6Gi}}}}
    - {name: b, exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: 5Gi}}}}" >"$T/d.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 "$A/nic.yaml" "$T/d.yaml"
    assert_failure 1
}

@test "taints: untolerated devices are skipped, tolerations copied, DeviceTaintRules apply" {
    cat >"$T/rule.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: maintenance}
spec:
  deviceSelector: {driver: gpu.example.com, device: gpu-0}
  taint: {key: maintenance, value: planned, effect: NoSchedule}
EOF
    claim c "    requests:
    - {name: gpu, exactly: {deviceClassName: gpu}}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$A/basic.yaml" "$T/rule.yaml" "$T/c.yaml"
    assert_success
    run devices <<<"$output"
    assert_output $'one: gpu=gpu-1\nc: gpu=gpu-2'
    claim t "    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        tolerations: [{key: maintenance, operator: Exists, effect: NoSchedule}]" >"$T/t.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$A/basic.yaml" "$T/rule.yaml" "$T/t.yaml"
    assert_success
    run jq -c 'select(.metadata.name == "t") | .status.allocation.devices.results[0] | [.device, .tolerations[0].operator]' <<<"$output"
    assert_output '["gpu-0","Exists"]'
}

@test "regression #131730/#130593: 32 devices where 31 exist fails fast" {
    claim c "    requests:
    - {name: gpu, exactly: {deviceClassName: gpu, count: 32}}
    constraints:
    - {matchAttribute: gpu.example.com/numa}" >"$T/c.yaml"
    # no stopwatch (a busy or sanitized machine is slow): an exhaustive search
    # over 31 devices never ends, so a generous outer limit tells the two apart
    run timeout 60 "$DRA_BIN/dra-alloc" --node node-1 "$A/max-minus-one.json" "$T/c.yaml"
    assert_failure 1
    assert_output "dra-alloc: cannot allocate all claims"
}

@test "--timeout ends an exhaustive search with upstream's text" {
    claim c "    requests:
    - {name: gpu, exactly: {deviceClassName: gpu, count: 16}}
    - {name: more, exactly: {deviceClassName: gpu, count: 16}}
    constraints:
    - {requests: [more], distinctAttribute: gpu.example.com/numa}" >"$T/c.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 --no-prune --timeout 0.2 "$A/max-minus-one.json" "$T/c.yaml"
    assert_failure 2
    assert_output --partial "timed out trying to allocate devices"
}

@test "--explain prints why devices were rejected" {
    claim c "    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        count: 2
        selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"a100\"'}}]
    constraints:
    - {matchAttribute: gpu.example.com/numa}" >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain "$A/basic.yaml" "$T/c.yaml"
    assert_failure 1
    [[ $stderr == *"gpu.example.com/node-1/gpu-1: constraint: matchAttribute gpu.example.com/numa: {\"int\":1} differs from {\"int\":0}"* ]]
    [[ $stderr == *"gpu.example.com/node-1/gpu-2: request-selector: request selector #0 is false"* ]]
    [[ $stderr == *"search: "*"backtracks"* ]]
}

@test "--explain=json is machine-readable" {
    claim c "    requests:
    - {name: gpu, exactly: {deviceClassName: gpu, count: 4}}" >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain=json "$A/basic.yaml" "$T/c.yaml"
    assert_failure 1
    run jq -r '.outcome + " " + .pools[0].status + " " + (.stats.invocations|tostring)' <<<"${stderr%dra-alloc:*}"
    assert_success
    assert_output --regexp '^unschedulable usable [0-9]+$'
}

@test "node selector slices: labels matter and the result carries the selector" {
    cat >"$T/in.yaml" <<'EOF'
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {rack: r1}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2, labels: {rack: r2}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: fpga}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: rack-1}
spec:
  driver: fpga.example.com
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions: [{key: rack, operator: In, values: [r1]}]
  pool: {name: rack-1, generation: 1, resourceSliceCount: 1}
  devices: [{name: fpga-0}]
---
EOF
    claim c "    requests:
    - {name: f, exactly: {deviceClassName: fpga}}" >>"$T/in.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$T/in.yaml"
    assert_success
    run jq -c '.status.allocation.nodeSelector' <<<"$output"
    assert_output '{"nodeSelectorTerms":[{"matchExpressions":[{"key":"rack","operator":"In","values":["r1"]}]}]}'
    run "$DRA_BIN/dra-alloc" --node node-2 "$T/in.yaml"
    assert_failure 1
}

@test "in-use claims hold their devices; admin access still gets them" {
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$A/basic.yaml"
    echo "$output" >"$T/used.jsonl"
    sed -e 's/name: one/name: two/' -e 's/1111-111111111111/1111-222222222222/' "$A/basic.yaml" | awk '/^kind: ResourceClaim/,0' | sed '1i apiVersion: resource.k8s.io/v1' >"$T/c.yaml"
    grep -v '^kind: ResourceClaim' "$A/basic.yaml" | awk 'BEGIN{RS="---\n"; ORS="---\n"} !/name: one/' >"$T/base.yaml"
    run "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$T/base.yaml" "$T/used.jsonl" "$T/c.yaml"
    assert_success
    run jq -r '.status.allocation.devices.results[0].device' <<<"$output"
    assert_output "gpu-1"
}

@test "completion and help" {
    run "$DRA_BIN/dra-alloc" allocate --help
    assert_success
    assert_output --partial "--explain"
    run "$DRA_BIN/dra-alloc" --completion bash
    assert_success
}

# ---- schedule: pods across nodes ------------------------------------------------

NOW="--now 2026-02-01T00:00:00Z"

placed() { # "pod: node" lines from jsonl output
    jq -r 'select(.kind == "Pod") | .metadata.name + ": " + (.spec.nodeName // "-")'
}

@test "schedule: template claims, pods compete, node name order decides ties" {
    run "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl "$A/sched-cluster.yaml" "$A/sched-pods.yaml"
    assert_success
    out=$output
    run placed <<<"$out"
    assert_output $'p1: node-a\np2: node-a\np3: node-b'
    run jq -r 'select(.kind == "ResourceClaim") | .metadata.name + " " + .status.allocation.devices.results[0].device + " " + .status.reservedFor[0].name + " " + .metadata.finalizers[0]' <<<"$out"
    assert_output $'p1-gpu-r86mp gpu-0 p1 resource.kubernetes.io/delete-protection\np2-gpu-lzc9n gpu-1 p2 resource.kubernetes.io/delete-protection\np3-gpu-m625m gpu-0 p3 resource.kubernetes.io/delete-protection'
    run jq -r 'select(.kind == "Pod") | .status.resourceClaimStatuses[0].resourceClaimName' <<<"$out"
    assert_output $'p1-gpu-r86mp\np2-gpu-lzc9n\np3-gpu-m625m'
}

@test "schedule: the same input gives the same output" {
    "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-cluster.yaml" "$A/sched-pods.yaml" >"$T/a"
    "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-pods.yaml" "$A/sched-cluster.yaml" >"$T/b"
    run diff "$T/a" "$T/b"
    assert_success
}

@test "schedule: a shared claim already allocated pins the pod to its node; a pod that fits nowhere is summarised" {
    run "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl "$A/sched-cluster.yaml" "$A/sched-shared.yaml"
    assert_failure 1
    assert_output --partial "dra-alloc: pod default/greedy: 0/3 nodes are available: 3 cannot allocate all claims."
    out=$(grep '^{' <<<"$output")
    run placed <<<"$out"
    # greedy stays pending, with the scheduler's PodScheduled=False
    assert_output "second: node-b
greedy: -"
    run jq -r 'select(.kind == "ResourceClaim") | [.status.reservedFor[].name] | join(",")' <<<"$out"
    assert_output "first,second"
}

@test "schedule: mixed reasons are counted and sorted like the scheduler's FitError" {
    cat >"$T/pods.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: both, namespace: default, uid: uid-both}
spec:
  containers: [{name: c}]
  resourceClaims:
  - {name: a, resourceClaimName: shared}
  - {name: b, resourceClaimName: one}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one, namespace: default, uid: uid-one}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: big-gpu}
YAML
    run "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-cluster.yaml" "$A/sched-shared.yaml" "$T/pods.yaml"
    assert_failure 1
    assert_output --partial "pod default/both: 0/3 nodes are available: 1 resourceclaim not available on the node, 2 cannot allocate all claims."
}

@test "schedule: extended resources backed by DRA, explicit and implicit names" {
    run "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl "$A/sched-cluster.yaml" "$A/sched-ext.yaml"
    assert_success
    out=$output
    run placed <<<"$out"
    assert_output $'ext-explicit: node-a\next-implicit: node-c'
    run jq -r 'select(.kind == "Pod") | .status.extendedResourceClaimStatus | .resourceClaimName + " " + ([.requestMappings[] | .containerName + "=" + .requestName] | join(","))' <<<"$out"
    assert_output $'ext-explicit-extended-resources-4bwqz main=container-1-request-1,init=container-1-request-1\next-implicit-extended-resources-zfcsl main=container-0-request-0'
    run jq -r 'select(.kind == "ResourceClaim") | .metadata.annotations["resource.kubernetes.io/extended-resource-claim"] + " " + (.spec.devices.requests[0].exactly.count | tostring) + " " + .spec.devices.requests[0].exactly.deviceClassName' <<<"$out"
    assert_output $'true 2 gpu\ntrue 1 big-gpu'
}

@test "schedule: node allocatable for the same name takes precedence (device plugin)" {
    sed 's/node-c/node-0/g' "$A/sched-cluster.yaml" >"$T/c.yaml"
    cat >"$T/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: dp, namespace: default, uid: uid-dp}
spec:
  containers:
  - name: main
    resources: {requests: {example.com/gpu: "3"}}
YAML
    # node-0 (first by name) serves example.com/gpu from its allocatable: no
    # claim is made, although the resource also maps to class gpu.
    run "$DRA_BIN/dra-alloc" schedule $NOW --explain -o jsonl "$T/c.yaml" "$T/pod.yaml"
    assert_success
    assert_output --partial "pod default/dp: node node-0"
    refute_output --partial '"kind":"ResourceClaim"'
}

@test "schedule: a node's allocatable for the name is checked by NodeResourcesFit" {
    sed 's/node-c/node-0/g' "$A/sched-cluster.yaml" >"$T/c.yaml"
    pod() { # name count [node [phase]]
        printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default, uid: uid-%s}\nspec:\n' "$1" "$1"
        [[ -z ${3:-} ]] || printf '  nodeName: %s\n' "$3"
        printf '  containers:\n  - name: main\n    resources: {requests: {example.com/gpu: "%s"}}\n' "$2"
        [[ -z ${4:-} ]] || printf 'status: {phase: %s}\n' "$4"
        printf -- '---\n'
    }
    { pod old 2 node-0; pod ended 2 node-0 Succeeded; pod three 3; pod two 2; pod more 1; } >"$T/pods.yaml"
    # node-0 lists 4 example.com/gpu: old holds 2 of them (ended no more),
    # three's 3 do not fit there, two's 2 do, and then more's 1 does not:
    # it goes to DRA on node-a
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl "$T/c.yaml" "$T/pods.yaml"
    assert_failure 1
    [[ $stderr == *"pod default/three: 0/3 nodes are available: 1 Insufficient example.com/gpu, 2 cannot allocate all claims."* ]]
    run placed <<<"$output"
    assert_output $'three: -\ntwo: node-0\nmore: node-a'
}

@test "schedule: firstAvailable preference scores nodes; explain shows the scores" {
    run "$DRA_BIN/dra-alloc" schedule $NOW --explain -o jsonl "$A/sched-cluster.yaml" "$A/sched-first-available.yaml"
    assert_success
    assert_output --partial "pod default/fa: node node-c (score 100)"
    assert_output --partial "node-a: fits, score 7"
    assert_output --partial "node-c: fits, score 8"
    assert_output --partial '"request":"gpu/big"'
}

@test "schedule: explain=json has one record per pod with per-node reasons" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --explain=json "$A/sched-cluster.yaml" "$A/sched-shared.yaml"
    assert_failure 1
    run jq -r 'select(.pod == "default/greedy") | .outcome + " " + ([.nodes[] | .node + "=" + .reason] | join(","))' <<<"$stderr"
    assert_output "unschedulable node-a=cannot allocate all claims,node-b=cannot allocate all claims,node-c=cannot allocate all claims"
}

@test "schedule: missing template and missing claim keep the pod pending with upstream's texts" {
    cat >"$T/pods.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: lost, namespace: default, uid: uid-lost}
spec:
  containers: [{name: c}]
  resourceClaims: [{name: g, resourceClaimName: nowhere}]
---
apiVersion: v1
kind: Pod
metadata: {name: notmpl, namespace: default, uid: uid-notmpl}
spec:
  containers: [{name: c}]
  resourceClaims: [{name: g, resourceClaimTemplateName: nowhere}]
YAML
    run "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-cluster.yaml" "$T/pods.yaml"
    assert_failure 1
    assert_output --partial 'pod default/lost: 0/3 nodes are available: resourceclaim.resource.k8s.io "nowhere" not found.'
    assert_output --partial 'pod default/notmpl: 0/3 nodes are available: pod "default/notmpl": ResourceClaim not created yet.'
    assert_output --partial "warning: $T/pods.yaml:8 (document 2): pod default/notmpl, PodResourceClaim g"
}

@test "schedule: unknown class is unschedulable before any node is tried" {
    run "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-cluster.yaml" "$A/bad-unknown-class.yaml" <(printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: u, namespace: default, uid: uid-u}\nspec:\n  containers: [{name: c}]\n  resourceClaims: [{name: g, resourceClaimName: lost}]\n')
    assert_failure 1
    assert_output --partial "pod default/u: 0/3 nodes are available: request gpu: device class no-such-class does not exist."
}

@test "1.37 gates: locked GA gates, new alpha gates, unknown gates" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRAAdminAccess=false "$A/basic.yaml"
    assert_failure 2
    [[ $stderr == *"cannot set feature gate DRAAdminAccess to false, feature is locked to true"* ]]
    for g in DRAExtendedResource DRAResourceClaimDeviceStatus DRAPrioritizedList; do
        run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates "$g=false" "$A/basic.yaml"
        assert_failure 2
        [[ $stderr == *"cannot set feature gate $g to false, feature is locked to true"* ]]
    done
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true,DRADeviceCompatibilityGroups=true,DRAWorkloadResourceClaims=true,GenericWorkload=true,DRAFractionalCapacityRange=true "$A/basic.yaml"
    assert_success
    # a gate whose dependency is off (kube_features.go's dependencies)
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRAWorkloadResourceClaims=true "$A/basic.yaml"
    assert_failure 2
    [[ $stderr == *"DRAWorkloadResourceClaims is enabled, but depends on features that are disabled: [GenericWorkload]"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRANoSuchGate=true "$A/basic.yaml"
    assert_failure 2
    [[ $stderr == *"unrecognized feature gate: DRANoSuchGate"* ]]
}

@test "skipNodeOperations is copied into results with DRAOptionalNodeOperations on a node that declares it" {
    sed 's/^  driver: gpu.example.com$/  driver: gpu.example.com\n  skipNodeOperations: ["*"]/' "$A/basic.yaml" >"$T/skip.yaml"
    grep -q skipNodeOperations "$T/skip.yaml"
    # the node does not declare DRAOptionalNodeOperations: nothing fits (KEP-5945)
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRAOptionalNodeOperations=true "$T/skip.yaml"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain --feature-gates DRAOptionalNodeOperations=true "$T/skip.yaml"
    assert_failure 1
    [[ $output$stderr == *"node-1 does not declare DRAOptionalNodeOperations"* ]]
    # declared in status.declaredFeatures: allocated, the set copied
    yq_node='/^kind: Node$/,/^---/ s/^metadata:$/status: {declaredFeatures: [DRAOptionalNodeOperations]}\nmetadata:/'
    sed "$yq_node" "$T/skip.yaml" >"$T/skip-decl.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRAOptionalNodeOperations=true "$T/skip-decl.yaml"
    assert_success
    run jq -c '.status.allocation.devices.results[0].skipNodeOperations' <<<"$output"
    assert_output '["*"]'
    # gate off: the scheduler runs the incubating allocator, which does not
    # look at the field (allocated, nothing copied), unless another feature
    # needs the experimental one, which refuses such devices
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$T/skip-decl.yaml"
    assert_success
    run jq -c '.status.allocation.devices.results[0].skipNodeOperations' <<<"$output"
    assert_output 'null'
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRAListTypeAttributes=true "$T/skip-decl.yaml"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain --feature-gates DRAListTypeAttributes=true "$T/skip-decl.yaml"
    [[ $output$stderr == *"DRAOptionalNodeOperations off"* ]]
}

@test "derived attributes: a GPU and a NIC on one NUMA node through derivedAttributes (DRADerivedAttributes)" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRADerivedAttributes=true "$A/derived.yaml"
    assert_success
    run devices <<<"$output"
    assert_output 'aligned: gpu=gpu-0 nic=nic-1'
    # gpu-1 is NUMA 1 and so is nic-0: with gpu-0 taken by an earlier claim the pair moves there
    {
        claim first "    requests:
    - {name: g, exactly: {deviceClassName: gpu.example.com}}"
        cat "$A/derived.yaml"
    } >"$T/two.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRADerivedAttributes=true "$T/two.yaml"
    assert_success
    run devices <<<"$output"
    assert_line 'aligned: gpu=gpu-1 nic=nic-0'
}

@test "derived attributes: with the gate off a stored claim that has them is an error" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --no-validate "$A/derived.yaml"
    assert_failure
    [[ $stderr == *"claim default/aligned, request gpu: cannot handle request with derived attributes, the feature is disabled"* ]]
}

@test "derived attributes: a runtime error aborts the allocation; a result that is no attribute value is an error" {
    sed 's/\.numa$/.nosuch/' "$A/derived.yaml" >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true "$T/bad.yaml"
    assert_failure
    [[ $stderr == *"evaluate derived attribute derived/numa on device gpu.example.com/node-1/gpu-0 failed: no such key: nosuch"* ]]
    sed 's/expression: device.attributes\["gpu.example.com"\].numa$/expression: "dyn({\\"a\\": 1})"/' "$A/derived.yaml" >"$T/map.yaml"
    grep -q '"a' "$T/map.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true "$T/map.yaml"
    assert_failure
    [[ $stderr == *"derived attribute derived/numa on device gpu.example.com/node-1/gpu-0 failed: unsupported CEL return type: map[ref.Val]ref.Val"* ]]
}

@test "derived attributes: validation of names and expressions with the gate on" {
    sed 's/- name: derived\/numa$/- name: "not a name"/; s/expression: int(.*$/expression: ""/' "$A/derived.yaml" >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates DRADerivedAttributes=true "$T/bad.yaml"
    assert_failure 2
    [[ $stderr == *"spec.devices.requests[0].exactly.derivedAttributes[0].name"* ]]
    [[ $stderr == *"spec.devices.requests[1].exactly.derivedAttributes[0].expression: Required value"* ]]
    # the NIC's expression splits a string of unknown length: too complex
    # for the API server (as a selector too), and so is the claim's total
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates DRADerivedAttributes=true "$A/derived.yaml"
    assert_failure 2
    [[ $stderr == *"spec.devices.requests[1].exactly.derivedAttributes[0].expression: Forbidden: too complex, exceeds cost limit"* ]]
    [[ $stderr == *"spec.devices: Forbidden: too complex, total cost of derived attribute CEL expressions in the claim exceeds cost limit"* ]]
    [[ $stderr != *"requests[0]"* ]]
}

@test "--explain reports the final state, not branches the search abandoned" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --explain "$DATA/alloc/explain-final.yaml"
    assert_success
    run devices <<<"$output"
    assert_output 'pair: gpu=gpu-1 nic=nic-0'
    # nic-0 and nic-1 differed from gpu-0 in the abandoned branch only
    [[ $stderr != *"differs"* ]]
    [[ $stderr == *"allocated nic -> net.example.com/node-1/nic-0"* ]]
    # when the search fails, the reasons are those of the last branch tried
    sed '/name: node-1-nic/,/kind: ResourceClaim/ s/{int: 1}/{int: 3}/' "$DATA/alloc/explain-final.yaml" >"$T/none.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain "$T/none.yaml"
    assert_failure 1
    [[ $stderr == *'net.example.com/node-1/nic-0: constraint: matchAttribute example.com/numa: {"int":3} differs from {"int":1}'* ]]
}

@test "DRAFractionalCapacityRange: milli-unit rounding for a fractional range, integer rounding without the gate" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRAFractionalCapacityRange=true "$A/fractional.yaml"
    assert_success
    run jq -r '.status.allocation.devices.results[0].consumedCapacity.cpu' <<<"$output"
    assert_output '750m'
    # off by default until 1.37 (on in 1.38)
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 -o jsonl "$A/fractional.yaml"
    assert_success
    run jq -r '.status.allocation.devices.results[0].consumedCapacity.cpu' <<<"$output"
    assert_output '1'
    # 600m takes 750m: seven claims (5250m) do not fit into 4 cores, five (3750m) do
    for i in 1 2 3 4 5 6; do claim "c$i" '    requests:
    - {name: cpu, exactly: {deviceClassName: cpu, capacity: {requests: {cpu: 600m}}}}'; done >"$T/more.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRAFractionalCapacityRange=true "$A/fractional.yaml" "$T/more.yaml"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRAFractionalCapacityRange=true "$A/fractional.yaml" <(head -n 32 "$T/more.yaml")
    assert_success
}

@test "--explain: twelve one-device requests competing for eleven devices are cut, and the cut is explained" {
    {
        printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  selectors:\n  - cel: {expression: "device.attributes[\\"gpu.example.com\\"].index < 11"}\n---\n'
        printf 'apiVersion: v1\nkind: Node\nmetadata: {name: node-0}\n---\n'
        printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c12, namespace: default}\nspec:\n  devices:\n    requests:\n'
        for i in $(seq 0 11); do printf '    - {name: r%d, exactly: {deviceClassName: gpu}}\n' "$i"; done
    } >"$T/c12.yaml"
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 12 >"$T/fleet.yaml"
    for ex in "" --explain; do
        run --separate-stderr "$DRA_BIN/dra-alloc" --node node-0 $ex "$T/c12.yaml" "$T/fleet.yaml"
        assert_failure 1
        [[ $stderr != *"timed out"* ]]
    done
    [[ $stderr == *"search cut where request r0 and the ones after it need 12 devices; 11 could serve them"* ]]
    [[ $stderr == *"gpu.example.com/node-0/gpu-11: class-selector: class gpu selector #0 is false"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-0 --explain=json "$T/c12.yaml" "$T/fleet.yaml"
    assert_failure 1
    run jq -c '.claims[0].cut' <<<"${stderr%dra-alloc:*}"
    assert_success
    assert_output '{"request":"r0","laterRequests":true,"need":12,"available":11}'
    # no device was tried, yet each request the cut spans gives gpu-11's reason
    run jq -r '.claims[0].requests[] | .request + " " + (.rejected | map(.device + " " + .reason) | join(","))' <<<"${stderr%dra-alloc:*}"
    assert_line --index 0 'r0 gpu.example.com/node-0/gpu-11 class-selector'
    assert_line --index 11 'r11 gpu.example.com/node-0/gpu-11 class-selector'
}

@test "schedule: a pod sharing an allocated claim goes to its node, or says why every node refused" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 5 --devices 1 >"$T/fleet.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$A/shared-claim.yaml" "$T/fleet.yaml"
    assert_failure 1
    [[ $stderr == *"pod ns/second: 0/5 nodes are available: 1 cannot allocate all claims, 4 resourceclaim not available on the node."* ]]
    # without claim b the second pod joins the first on its node
    sed 's/, {name: z, resourceClaimName: b}//' "$A/shared-claim.yaml" >"$T/two.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$T/two.yaml" "$T/fleet.yaml"
    assert_success
    [ "$(jq -r 'select(.kind == "Pod") | .spec.nodeName' <<<"$output" | sort -u | wc -l)" -eq 1 ]
}

@test "schedule: a claim allocated with skipNodeOperations is for nodes that declare DRAOptionalNodeOperations" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z --feature-gates DRAOptionalNodeOperations=true -o jsonl "$A/skip-allocated.yaml"
    assert_failure 1
    [[ $stderr == *"pod ns/user: 0/1 nodes are available: 1 resourceclaim not available on the node."* ]]
    sed 's/^metadata: {name: node-1}$/metadata: {name: node-1}\nstatus: {declaredFeatures: [DRAOptionalNodeOperations]}/' "$A/skip-allocated.yaml" >"$T/declared.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z --feature-gates DRAOptionalNodeOperations=true -o jsonl "$T/declared.yaml"
    assert_success
    [ "$(jq -r 'select(.kind == "Pod") | .spec.nodeName' <<<"$output")" = node-1 ]
    # gate off: not checked
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$A/skip-allocated.yaml"
    assert_success
}

@test "schedule: without Node objects the slices' node names are the nodes; a matchAttribute constraint reads packed devices" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 3 --devices 2 >"$T/fleet.yaml"
    cat >"$T/pods.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "LATEST-GPU-MODEL"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: pair, namespace: default}
spec:
  spec:
    devices:
      requests:
      - {name: a, exactly: {deviceClassName: gpu}}
      - {name: b, exactly: {deviceClassName: gpu}}
      constraints:
      - {requests: [a, b], matchAttribute: gpu.example.com/model}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default, uid: uid-p1}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: g, resourceClaimTemplateName: pair}]
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: default, uid: uid-p2}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: g, resourceClaimTemplateName: pair}]
YAML
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl "$T/fleet.yaml" "$T/pods.yaml"
    assert_success
    [[ $stderr == *"no Node objects in the input; using the 3 node names of the ResourceSlices (no labels)"* ]]
    run placed <<<"$output"
    assert_output $'p1: node-0\np2: node-1'
}

@test "schedule: a claim made from one pod's template, named by later pods, is theirs too (a claim held as text comes back)" {
    cat >"$T/in.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: d.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: g0}, {name: g1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p0, namespace: ns, uid: u0}
spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]}
---
apiVersion: v1
kind: Pod
metadata: {name: q, namespace: ns, uid: uq}
spec: {containers: [{name: c}], resourceClaims: [{name: x, resourceClaimName: p0-gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ns, uid: u1}
spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimTemplateName: t}, {name: z, resourceClaimName: p0-gpu}]}
YAML
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --name-suffix none -o jsonl "$T/in.yaml"
    assert_success
    [ "${#lines[@]}" -eq 5 ]
    [[ ${lines[0]} == *'"name":"p0-gpu"'*'"device":"g0"'*'"reservedFor":[{"resource":"pods","name":"p0","uid":"u0"},{"resource":"pods","name":"q","uid":"uq"},{"resource":"pods","name":"p1","uid":"u1"}]'* ]]
    [[ ${lines[1]} == *'"name":"p1-gpu"'*'"device":"g1"'*'"reservedFor":[{"resource":"pods","name":"p1","uid":"u1"}]'* ]]
    run placed <<<"$output"
    assert_output $'p0: n1\nq: n1\np1: n1'
}
