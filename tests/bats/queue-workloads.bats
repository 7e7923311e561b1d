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
