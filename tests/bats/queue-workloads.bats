#!/usr/bin/env bats
# dra-alloc schedule's queue order (priority, then queue time) and the pods
# workload kinds become.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    Q="$DATA/queue"
    W="$DATA/workloads"
    T="$BATS_TEST_TMPDIR"
}

# Upstream: k8s.io/kubernetes v1.37.2 pkg/scheduler/framework/plugins/queuesort/priority_sort.go
@test "the older high-priority pod gets the GPU, though a newer low-priority one is listed first" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T10:00:00Z "$Q/one-gpu.yaml" "$Q/priority.yaml"
    assert_failure 1
    [[ $stderr == *"pod default/a-batch: 0/1 nodes are available: 1 cannot allocate all claims."* ]]
    [[ $stderr != *"pod default/b-serving"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T10:00:00Z -o jsonl "$Q/one-gpu.yaml" "$Q/priority.yaml"
    [[ $(jq -r 'select(.kind == "Pod" and .spec.nodeName == "node-a") | .metadata.name' <<<"$output") == b-serving ]]
}

@test "--order input places pods as listed" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --order input --now 2026-03-01T10:00:00Z "$Q/one-gpu.yaml" "$Q/priority.yaml"
    assert_failure 1
    [[ $stderr == *"pod default/b-serving: 0/1 nodes are available"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --order fifo "$Q/one-gpu.yaml"
    assert_failure 2
    [[ $stderr == *"unknown order fifo (want queue or input)"* ]]
}

@test "--explain gives each pod's place in the queue and why" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain --now 2026-03-01T10:00:00Z "$Q/one-gpu.yaml" "$Q/priority.yaml"
    [[ $stderr == *"pod default/b-serving: node node-a (score 0)
  queue: #1, priority 1000 (PriorityClass high), created 2026-03-01T09:00:00Z"* ]]
    [[ $stderr == *"  queue: #2, priority 0 (no priorityClassName, no globalDefault PriorityClass), created 2026-03-01T09:30:00Z"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=json --now 2026-03-01T10:00:00Z "$Q/one-gpu.yaml" "$Q/priority.yaml"
    [[ $(jq -sc 'map([.pod, .queue.position, .queue.priority])' <<<"$stderr") == '[["default/b-serving",1,1000],["default/a-batch",2,0]]' ]]
}

@test "equal priorities go by creation time, then name; pods without one last, as listed" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=json --now 2026-03-01T10:00:00Z "$Q/one-gpu.yaml" "$Q/times.yaml"
    [[ $(jq -rs 'map(.pod) | join(" ")' <<<"$stderr") == "default/old default/same-a default/same-b default/z-unstamped default/a-unstamped" ]]
}

@test "globalDefault and system PriorityClasses set priorities as admission would" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=json --now 2026-03-01T10:00:00Z "$Q/one-gpu.yaml" "$Q/classes.yaml"
    [[ $(jq -rsc 'map([.pod, .queue.priority])' <<<"$stderr") == '[["kube-system/agent",2000001000],["default/admitted",500],["default/plain",100]]' ]]
    [[ $(jq -rs '.[2].queue.why' <<<"$stderr") == "priority 100 (globalDefault PriorityClass low-default), created 2026-03-01T08:00:00Z" ]]
}

@test "a pod naming a PriorityClass that is not there is warned about and queued at 0" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T10:00:00Z "$Q/one-gpu.yaml" "$Q/missing-class.yaml"
    assert_success
    [[ $stderr == *"warning: "*"missing-class.yaml:7: Pod/default/orphan: spec.priorityClassName: no PriorityClass with name gold was found: the API server would refuse this pod; queued with priority 0"* ]]
}

@test "a bound low-priority pod keeps its GPU: the queue does not preempt" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T10:00:00Z "$Q/one-gpu.yaml" "$Q/bound.yaml"
    assert_failure 1
    [[ $stderr == *"pod default/urgent: 0/1 nodes are available: 1 cannot allocate all claims."* ]]
}

@test "the README's example cluster gives the README's answer when kubectl lists pods by name" {
    C="$EXAMPLES/cluster"
    # trainer, inference, fast-path as written; by name (kubectl's order) that is reversed
    awk 'BEGIN { RS = "---\n" } { d[NR] = $0 } END { for (i = NR; i > 0; i--) printf "%s---\n", d[i] }' \
        "$C/pods.yaml" >"$T/by-name.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T12:00:00Z -o jsonl "$C/classes.yaml" "$C/claims.yaml" "$C/nodes.yaml" "$C/pods.yaml" "$C/slices.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/fast-path: 0/2 nodes are available: 2 cannot allocate all claims." ]]
    as_listed=$(jq -c 'select(.kind == "Pod") | [.metadata.name, .spec.nodeName]' <<<"$output" | sort)
    [[ $as_listed == *'["inference","node-b"]'* && $as_listed == *'["trainer","node-a"]'* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T12:00:00Z -o jsonl "$C/classes.yaml" "$C/claims.yaml" "$C/nodes.yaml" "$T/by-name.yaml" "$C/slices.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/fast-path: 0/2 nodes are available: 2 cannot allocate all claims." ]]
    [[ $(jq -c 'select(.kind == "Pod") | [.metadata.name, .spec.nodeName]' <<<"$output" | sort) == "$as_listed" ]]
}

# ---- workloads: the pods their controllers make --------------------------------------------

workload_run() {
    "$DRA_BIN/dra-slice" profile gpu --nodes 2 --devices 8 >"$T/fleet.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v --now 2026-03-01T10:00:00Z -o jsonl \
        "$W/claim-template.yaml" "$DATA/manifests/deviceclass.yaml" "$T/fleet.yaml" "$@"
}

pods_placed() {
    jq -r 'select(.kind == "Pod") | .metadata.name + " " + .spec.nodeName' <<<"$output" | tr '\n' ';'
}

# kubeflow/mpi-operator examples/v2beta1/pi/pi.yaml; naming: v2/pkg/controller/mpi_job_controller.go
@test "an MPIJob becomes its launcher Job's pod and workers <job>-worker-<i>" {
    workload_run "$W/mpijob.yaml"
    assert_success
    [[ $stderr == *"MPIJob/default/pi: expanded into 3 pods"* ]]
    [[ $(pods_placed) == "pi-worker-0 node-0;pi-worker-1 node-0;" ]]
}

# kubeflow/training-operator examples/pytorch/simple.yaml
@test "a PyTorchJob becomes <job>-<replica type>-<i> pods" {
    workload_run "$W/pytorchjob.yaml"
    assert_success
    [[ $(pods_placed) == "pytorch-simple-master-0 node-0;pytorch-simple-worker-0 node-0;" ]]
}

# ray-project/kuberay ray-operator/config/samples/ray-cluster.sample.yaml and ray-job.sample.yaml
@test "a RayCluster and a RayJob become head and worker-group pods named as KubeRay names them" {
    workload_run "$W/raycluster.yaml" "$W/rayjob.yaml"
    assert_success
    [[ $stderr == *"RayCluster/default/raycluster-kuberay: expanded into 2 pods"* ]]
    [[ $stderr == *"RayJob/default/rayjob-sample: expanded into 4 pods"* ]] # and its submitter Job's pod
    [[ $(pods_placed) =~ ^raycluster-kuberay-workergroup-worker-[bcdfghjklmnpqrstvwxz2456789]{5}\ node-0\;rayjob-sample-[bcdfghjklmnpqrstvwxz2456789]{5}-small-group-worker-[bcdfghjklmnpqrstvwxz2456789]{5}\ node-0\; ]]
}

# kubernetes-sigs/jobset site/static/examples/simple/paralleljobs.yaml
@test "a JobSet becomes replicas Jobs of indexed pods <jobset>-<job>-<i>-<index>-<5>" {
    workload_run "$W/jobset.yaml"
    assert_success
    [[ $stderr == *"JobSet/default/paralleljobs: expanded into 5 pods"* ]]
    [[ $(jq -r 'select(.kind == "Pod") | .metadata.name' <<<"$output" | sed 's/-[^-]*$//' | tr '\n' ' ') == \
       "paralleljobs-workers-0-0 paralleljobs-workers-0-1 paralleljobs-workers-1-0 paralleljobs-workers-1-1 " ]]
}

# kubernetes-sigs/lws docs/examples/sample/lws.yaml
@test "a LeaderWorkerSet becomes a leader <lws>-<g> and workers <lws>-<g>-<w> per group" {
    workload_run "$W/lws.yaml"
    assert_success
    [[ $(jq -r 'select(.kind == "Pod") | .metadata.name' <<<"$output" | tr '\n' ' ') == \
       "leaderworkerset-sample-0 leaderworkerset-sample-0-1 leaderworkerset-sample-0-2 leaderworkerset-sample-1 leaderworkerset-sample-1-1 leaderworkerset-sample-1-2 " ]]
}

# kubeflow/trainer manifests/base/runtimes/torch_distributed.yaml
@test "a TrainJob becomes its runtime's JobSet with numNodes pods; without the runtime a warning" {
    workload_run "$W/trainjob.yaml"
    assert_success
    [[ $stderr == *"TrainJob/default/pytorch-mnist: expanded into 2 pods"* ]]
    [[ $stderr != *"ClusterTrainingRuntime"*"not expanded"* ]]
    sed '/^---$/,$!d' "$W/trainjob.yaml" >"$T/no-runtime.yaml"
    workload_run "$T/no-runtime.yaml"
    [[ $stderr == *"warning: "*"TrainJob/default/pytorch-mnist: spec.runtimeRef: the pod templates are in the runtime torch-distributed, which is not in the input: not expanded"* ]]
}

@test "workloads with only generateName are named first, then their pods" {
    workload_run "$W/generatename.yaml"
    assert_success
    [[ $stderr =~ Job/default/finetune-\*:\ expanded\ into\ 2\ pods,\ itself\ named\ finetune-[bcdfghjklmnpqrstvwxz2456789]{5} ]]
    [[ $(pods_placed) =~ ^finetune-[a-z0-9]{5}-0-[a-z0-9]{5}\ node-0\;finetune-[a-z0-9]{5}-1-[a-z0-9]{5}\ node-0\;inference-[a-z0-9]{5}-[a-z0-9]+-[a-z0-9]{5}\ node-0\;$ ]]
}

@test "a kind nobody here knows with a claiming pod template is named with the template's path" {
    workload_run "$W/unknown.yaml"
    assert_success
    [[ $stderr == *"warning: "*"unknown.yaml:3: TrainingRun/default/run-1: TrainingRun of example.com/v1 holds a pod template with resourceClaims at spec.stages[0].podTemplate but is not expanded: its pods are not in this answer"* ]]
}

@test "a workload of more pods than are made says where it stopped" {
    workload_run "$W/big.yaml"
    assert_success
    [[ $stderr == *"warning: "*"LeaderWorkerSet/default/huge: spec.replicas: 12000 pods: only the first 10000 of a workload are made here"* ]]
}

@test "dra-claim generate makes the claims of an MPIJob's workers" {
    run --separate-stderr "$DRA_BIN/dra-claim" generate "$W/claim-template.yaml" "$W/mpijob.yaml"
    assert_success
    [[ $(grep -c '^kind: ResourceClaim$' <<<"$output") -eq 2 ]]
    assert_line '  - apiVersion: v1'
    [[ $output == *"name: pi-worker-0"* && $output == *"name: pi-worker-1"* ]]
}
