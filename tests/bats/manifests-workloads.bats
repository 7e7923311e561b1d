#!/usr/bin/env bats
# Manifests as people have them (issue 9, engine side): workloads expanded
# into pods, assumed names and UIDs, validate's scope, no partial output.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    M="$DATA/manifests"
    T="$BATS_TEST_TMPDIR"
    "$DRA_BIN/dra-slice" profile gpu --nodes 2 --devices 4 >"$T/fleet.yaml"
}

@test "a Deployment's replicas are scheduled; pods get assumed names and UIDs" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v --now 2026-03-01T10:00:00Z "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    assert_success
    [[ $stderr == *"gpu-demo.yaml:22 (document 3): Deployment/gpu-demo/inference: expanded into 2 pods"* ]]
    [[ $stderr != *"no UID"* ]]
    # two pods of one ReplicaSet <deployment>-<hash>, each with its own claim and node
    [[ $(grep -c '^kind: Pod$' <<<"$output") -eq 2 ]]
    [[ $(grep -c '^kind: ResourceClaim$' <<<"$output") -eq 2 ]]
    [[ $(grep -c 'dra-tools/assumed: name,uid' <<<"$output") -eq 2 ]]
    assert_line --regexp '^  name: inference-[bcdfghjklmnpqrstvwxz2456789]+-[bcdfghjklmnpqrstvwxz2456789]{5}$'
    assert_line --regexp '^    kind: ReplicaSet$'
    assert_line '  nodeName: node-0'
    # the same answer every time
    first=$output
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T10:00:00Z "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    [[ $output == "$first" ]]
}

@test "StatefulSet ordinals, Job parallelism, CronJob runs, DaemonSet one per matching node; others named" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v --now 2026-03-01T10:00:00Z "$M/workloads.yaml" "$M/nodes.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    [[ $stderr == *"StatefulSet/ml/shard: expanded into 2 pods"* ]]
    [[ $stderr == *"Job/ml/finetune: expanded into 2 pods"* ]]        # min(parallelism 3, completions 2)
    [[ $stderr == *"CronJob/ml/nightly-eval: expanded into 1 pod"* ]]
    [[ $stderr == *"DaemonSet/ml/gpu-health: expanded into 2 pods"* ]] # cpu-only does not match
    # mpi-operator refuses an MPIJob without a Launcher: not expanded, and said so
    [[ $stderr == *"warning: "*"MPIJob/ml/allreduce: spec.mpiReplicaSpecs[Launcher].template.spec: Required value: not expanded"* ]]
    assert_line '  name: shard-1'
    assert_line '  name: shard-2'
    assert_line '    statefulset.kubernetes.io/pod-name: shard-1'
    # 4 GPUs on node-0 taken by the first four pods; the DaemonSet pod pinned
    # to node-0 cannot run, the one on node-1 can
    [[ $stderr == *"0/3 nodes are available: 1 cannot allocate all claims, 2 node(s) didn't match Pod's node affinity/selector."* ]]
    assert_failure 1
}

@test "dra-claim generate: claims for workload pods and generateName pods, never uid \"\" or an empty owner" {
    cat "$M/workloads.yaml" "$M/generatename-pods.yaml" >"$T/all.yaml"
    sed -i 's/^apiVersion: v1$/---\napiVersion: v1/' "$T/all.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate "$T/all.yaml"
    assert_success
    [[ $output != *'uid: ""'* ]]
    [[ $output != *'name: -'* ]]
    assert_line --regexp '^  name: notebook-[bcdfghjklmnpqrstvwxz2456789]{5}-gpu-[bcdfghjklmnpqrstvwxz2456789]{5}$'
    # two generateName pods: two names, two claims
    [[ $(grep -c '^  generateName: notebook-gpu-' <<<"$output") -eq 0 ]]
    [[ $(grep -cE '^  name: notebook-[a-z0-9]{5}$' <<<"$output") -eq 2 ]]
    # what generate printed is valid
    printf '%s\n' "$output" >"$T/generated.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/generated.yaml"
    assert_success
}

@test "dra-slice validate: DRA objects and the DRA parts of pods and templates; other kinds skipped" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v "$M/gpu-demo.yaml" "$M/workloads.yaml"
    assert_success
    [[ $stderr == *"skipped 1 object of kinds dra-slice does not use"* ]]
    # a bad claim reference inside a Deployment's template is found
    sed 's/- name: gpu$/- name: GPU_0/' "$M/gpu-demo.yaml" >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/bad.yaml"
    assert_failure 2
    [[ $stderr == *"bad.yaml:22 (document 3): Pod/gpu-demo/inference-"* ]]
}

@test "no partial output on an error exit" {
    cat >"$T/bad-pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  namespace: gpu-demo
  name: orphan
spec:
  containers:
  - name: app
    image: registry.example.com/app:1
    resources:
      claims: [{name: gpu}]
  resourceClaims:
  - name: gpu
    resourceClaimName: does-not-exist
YAML
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T10:00:00Z "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml" "$T/bad-pod.yaml"
    echo "status $status: $stderr"
    if [[ $status -eq 2 ]]; then
        assert_output ""
    fi
}

@test "DeviceTaintRule without deviceSelector: every device in 1.36's dra-alloc (warned), none in dra-evict" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 1 >"$T/one.yaml"
    cat >"$T/rule.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata:
  name: all-devices
spec:
  taint:
    key: example.com/upgrade
    effect: NoSchedule
YAML
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:00:00Z "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule.yaml"
    assert_failure 1
    [[ $stderr == *"warning: DeviceTaintRule all-devices has no deviceSelector: its taint applies to every device, as the scheduler of Kubernetes 1.36 applies it (kubernetes#141422)"* ]]
    [[ $stderr == *"cannot allocate all claims"* ]]
    run --separate-stderr "$DRA_BIN/dra-evict" --kubernetes-version 1.37 --now 2026-03-01T10:00:00Z "$T/one.yaml" "$T/rule.yaml"
    assert_success
    [[ $stderr == *"DeviceTaintRule all-devices has no deviceSelector: it selects no device"* ]]
}

@test "dra-select --claim NAME means namespace default; -n sets it" {
    cat >"$T/claims.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared-gpu}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
YAML
    run --separate-stderr "$DRA_BIN/dra-select" --claim shared-gpu "$T/claims.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    assert_success
    assert_line "gpu.example.com/node-0/gpu-0"
    run --separate-stderr "$DRA_BIN/dra-select" --claim shared-gpu -n ml "$T/claims.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    assert_failure 2
    [[ $stderr == *'resource claim "ml/shared-gpu" not found'* ]]
}

@test "dra-alloc --node unknown is said; --explain never prints an empty verdict and lists the pools" {
    cat >"$T/claim.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
YAML
    run --separate-stderr "$DRA_BIN/dra-alloc" --node gpu-node-7 --explain "$T/claim.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    assert_failure 1
    [[ $stderr == *"warning: node gpu-node-7 is not in the input"* ]]
    [[ $stderr == *"no resource pools are available on this node; the input's pools:"* ]]
    [[ $stderr == *"pool gpu.example.com/node-0: for node node-0"* ]]
    [[ $stderr == *"claim default/c: nothing allocated: no device is available on this node"* ]]
    ! grep -qE '^  claim [^ ]+:$' <<<"$stderr"
}

@test "dra-claim status: many devices stay readable, -o wide lists them; --no-validate on reports" {
    cat >"$T/big.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: all-gpus, namespace: ml, uid: 2c1d0e9f-8a7b-4c6d-9e0f-1a2b3c4d5e6f}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, allocationMode: All}
status:
  allocation:
    devices:
      results:
      - {request: gpus, driver: gpu.example.com, pool: node-0, device: gpu-0}
      - {request: gpus, driver: gpu.example.com, pool: node-0, device: gpu-1}
      - {request: gpus, driver: gpu.example.com, pool: node-0, device: gpu-2}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [node-0]}
YAML
    run --separate-stderr "$DRA_BIN/dra-claim" status "$T/big.yaml"
    assert_success
    assert_line --regexp '^ml +all-gpus +allocated +gpu.example.com/node-0/gpu-0 \(\+2 more, -o wide lists them\) +node-0'
    run --separate-stderr "$DRA_BIN/dra-claim" status -o wide "$T/big.yaml"
    assert_success
    assert_line --regexp 'gpu.example.com/node-0/gpu-0,gpu.example.com/node-0/gpu-1,gpu.example.com/node-0/gpu-2'
    sed 's/name: gpus$/name: GPUs/; s/request: gpus/request: GPUs/' "$T/big.yaml" >"$T/off.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$T/off.yaml"
    assert_failure 2
    run --separate-stderr "$DRA_BIN/dra-claim" status --no-validate "$T/off.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-evict" --no-validate --now 2026-03-01T10:00:00Z "$T/off.yaml"
    assert_success
}

@test "dra-claim doctor: missing template, tolerated taints, bound pod with an unallocated claim" {
    cat >"$T/stuck.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: notebook, namespace: ml, uid: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d}
spec:
  containers:
  - name: jupyter
    image: registry.example.com/notebook:7
    resources:
      claims: [{name: gpu}]
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: gpu-typo
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml, uid: 1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e}
spec:
  nodeName: node-0
  containers:
  - name: train
    image: registry.example.com/trainer:0.9
    resources:
      claims: [{name: gpu}]
  resourceClaims:
  - name: gpu
    resourceClaimName: shared-gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared-gpu, namespace: ml, uid: 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
YAML
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --now 2026-03-01T10:00:00Z "$T/stuck.yaml"
    assert_failure 1
    assert_line --partial "Pod/ml/notebook: pod claim gpu: ResourceClaimTemplate ml/gpu-typo does not exist, so no claim can be made; fix: kubectl create -n ml -f <ResourceClaimTemplate gpu-typo>"
    assert_line --partial "Pod/ml/trainer: is bound to node node-0 but its ResourceClaim shared-gpu is not allocated: the kubelet will not start it"
    refute_output --partial "dra-claim generate"
}

@test "dra-claim release states an unconditional delete; dra-evict --rule-status --patch never emits uid null" {
    cat >"$T/orphan.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: notebook-gpu-x7k2p
  namespace: ml
  annotations: {resource.kubernetes.io/pod-claim-name: gpu}
  ownerReferences:
  - {apiVersion: v1, kind: Pod, name: notebook, uid: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d, controller: true}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: ml, uid: 9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f}
spec:
  containers: [{name: c, image: registry.example.com/c:1}]
YAML
    run --separate-stderr "$DRA_BIN/dra-claim" release --delete-orphans --patch=kubectl "$T/orphan.yaml"
    assert_success
    [[ $output == *"UNCONDITIONAL: the input has no metadata.uid"* ]]
    cat >"$T/rule.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: drain-node-0}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-0}
  taint: {key: example.com/maintenance, effect: None}
YAML
    run --separate-stderr "$DRA_BIN/dra-evict" --rule-status --patch --now 2026-03-01T10:00:00Z "$T/fleet.yaml" "$T/rule.yaml"
    assert_success
    [[ $output != *'"uid": null'* && $output != *'"uid":null'* ]]
}

@test "schedule keeps the input's order: a Deployment's pod goes before a pod after it in the file" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 1 >"$T/one.yaml"
    cat >"$T/apps.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one, namespace: default}
spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: first, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: first}}
  template:
    metadata: {labels: {app: first}}
    spec:
      containers: [{name: c, image: x}]
      resourceClaims: [{name: g, resourceClaimTemplateName: one}]
---
apiVersion: v1
kind: Pod
metadata: {name: later, namespace: default}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: g, resourceClaimTemplateName: one}]
YAML
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T10:00:00Z "$M/deviceclass.yaml" "$T/one.yaml" "$T/apps.yaml"
    assert_failure 1
    [[ $stderr == *"pod default/later: 0/1 nodes are available"* ]]
    assert_line --regexp '^  name: first-[a-z0-9]+-[a-z0-9]{5}$'
    assert_line '  nodeName: node-0'
}
