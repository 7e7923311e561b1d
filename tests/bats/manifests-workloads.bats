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
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
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
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    [[ $output == "$first" ]]
}

@test "StatefulSet ordinals, Job parallelism, CronJob runs, DaemonSet one per matching node; others named" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v "$M/workloads.yaml" "$M/nodes.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    [[ $stderr == *"StatefulSet/ml/shard: expanded into 2 pods"* ]]
    [[ $stderr == *"Job/ml/finetune: expanded into 2 pods"* ]]        # min(parallelism 3, completions 2)
    [[ $stderr == *"CronJob/ml/nightly-eval: expanded into 1 pod"* ]]
    [[ $stderr == *"DaemonSet/ml/gpu-health: expanded into 2 pods"* ]] # cpu-only does not match
    [[ $stderr == *"warning: "*"MPIJob/ml/allreduce: MPIJob of kubeflow.org/v2beta1 embeds a pod template but is not expanded"* ]]
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
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml" "$T/bad-pod.yaml"
    echo "status $status: $stderr"
    if [[ $status -eq 2 ]]; then
        assert_output ""
    fi
}
