#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# kubectl's ways in dra-watch and `kubectl dra`: one-shot commands fail fast
# (--request-timeout), get KIND NAME, the context's namespace, kinds a
# namespace-scoped user may not list.
load helpers
load plugin-helpers

@test "one-shot commands: a refused connection fails at once, as kubectl, exit 3" {
    kc_to "https://127.0.0.1:1" >"$W/kc"
    local cmd t0 t1
    for cmd in "get pods" "get resourceclaims x" "snapshot" "record -"; do
        t0=$(date +%s%N)
        run --separate-stderr timeout 20 "$DRA_BIN/dra-watch" $cmd --kubeconfig "$W/kc"
        t1=$(date +%s%N)
        assert_failure 3
        assert_equal "$stderr" "dra-watch: The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"
        assert_output ""
        (( (t1 - t0) / 1000000 < 3000 ))
    done
}

@test "--request-timeout: kubectl's meaning; a server that never answers is given up on" {
    python3 -c 'import socket,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(8)
open("'"$W"'/port","w").write(str(s.getsockname()[1])); time.sleep(120)' &
    # shellcheck disable=SC2034 # teardown (plugin-helpers.bash) kills it
    HANG_PID=$!
    local i
    for ((i = 0; i < 50; i++)); do [[ -s $W/port ]] && break; sleep 0.1; done
    kc_to "https://127.0.0.1:$(cat "$W/port")" >"$W/kc"
    local t0 t1
    t0=$(date +%s%N)
    run --separate-stderr timeout 60 "$DRA_BIN/dra-watch" get pods --request-timeout 1 --kubeconfig "$W/kc"
    t1=$(date +%s%N)
    assert_failure 3
    [[ $stderr == *"unable to connect to the server https://127.0.0.1:"*"timed out"* ]]
    (( (t1 - t0) / 1000000 < 5000 ))
    run --separate-stderr timeout 60 "$DRA_BIN/dra-watch" snapshot --request-timeout 300ms --kubeconfig "$W/kc"
    assert_failure 3
    for bad in x -1s 1y; do
        run --separate-stderr "$DRA_BIN/dra-watch" get pods --request-timeout "$bad" --kubeconfig "$W/kc"
        assert_failure 2
        [[ $stderr == "dra-watch: --request-timeout: invalid duration \"$bad\""* ]]
    done
}

@test "dra-watch get KIND NAME: one object, as kubectl get; NotFound is exit 1 in kubectl's words" {
    start
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims trainer-gpu-hn7g7 -n ml -o json
    assert_success
    assert_equal "$(jq -r '.kind + "/" + .metadata.name' <<<"$output")" "ResourceClaim/trainer-gpu-hn7g7"
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaim/trainer-gpu-hn7g7 pod/trainer -n ml -o jsonl
    assert_success
    assert_equal "$(jq -r .kind <<<"$output" | tr '\n' ' ')" "ResourceClaim Pod "
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims x -n ml
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" 'dra-watch: Error from server (NotFound): resourceclaims.resource.k8s.io "x" not found'
    # the found ones are printed, the missing one is the answer
    run --separate-stderr "$DRA_BIN/dra-watch" get pods nope trainer -n ml -o jsonl
    assert_failure 1
    assert_equal "$(jq -r .metadata.name <<<"$output")" trainer
    [[ $stderr == *'pods "nope" not found'* ]]
    # the context's namespace
    run --separate-stderr "$DRA_BIN/dra-watch" get pod trainer --kubeconfig "$W/kc-ml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-watch" get pod trainer -A
    assert_failure 2
    [[ $stderr == *"a resource cannot be retrieved by name across all namespaces"* ]]
    assert_output ""
    # a cluster-scoped kind by name with -A: as kubectl, the object
    run --separate-stderr "$DRA_BIN/dra-watch" get node node-a -A -o jsonl
    assert_success
    assert_equal "$(jq -r .metadata.name <<<"$output")" node-a
    run --separate-stderr "$DRA_BIN/dra-watch" get deviceclasses gpu.example.com
    assert_success
}

@test "dra-watch snapshot and record: the context's namespace, -n, -A" {
    start
    apiserver_req POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}' >/dev/null
    # the admin's kubeconfig has no namespace: "default" has no claims
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl
    assert_success
    refute_output --partial '"kind":"ResourceClaim"'
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl --kubeconfig "$W/kc-ml"
    assert_success
    assert_output --partial '"kind":"ResourceClaim"'
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl -n ml
    assert_output --partial '"kind":"ResourceClaim"'
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl -A
    assert_output --partial '"kind":"ResourceClaim"'
    # a recording's initial list: one class, then nothing of namespace other
    run --separate-stderr timeout 20 "$DRA_BIN/dra-watch" record - --max-events 1 --kubeconfig "$W/kc-ml" -n other
    assert_success
    assert_output --partial '"kind":"DeviceClass"'
    run --separate-stderr timeout 20 "$DRA_BIN/dra-watch" record - --max-events 2 --kubeconfig "$W/kc-ml"
    assert_success
    assert_output --partial '"kind":"ResourceClaim"'
    # --for-pod NAME: in the context's namespace
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot --for-pod pending -o jsonl --kubeconfig "$W/kc-ml"
    assert_success
    assert_output --partial '"name":"pending"'
}

@test "dra-watch snapshot --kinds: only the lists asked for" {
    start
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -A --kinds resourceclaims,pod -o jsonl --stats
    assert_success
    assert_equal "$(jq -r .kind <<<"$output" | sort -u | tr '\n' ' ')" "Pod ResourceClaim Snapshot "
    local few=${stderr##*requests=}
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -A -o jsonl --stats
    local all=${stderr##*requests=}
    (( ${few%% *} + 6 <= ${all%% *} ))
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot --kinds deployments
    assert_failure 2
    [[ $stderr == *'--kinds: "deployments" is not a kind of the snapshot'* ]]
}

@test "a namespace-scoped user: the kinds it may not list are warnings naming the permission, not a failure" {
    start
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl --kubeconfig "$W/kc-dev"
    assert_success
    [[ $stderr == *'warning: Error from server (Forbidden): nodes is forbidden: User "ml-dev" cannot list resource "nodes" in API group "" at the cluster scope'* ]]
    [[ $stderr == *'"deviceclasses" in API group "resource.k8s.io" at the cluster scope'* ]]
    assert_output --partial '"kind":"ResourceClaim"'
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot --for-pod pending -o jsonl --kubeconfig "$W/kc-dev"
    assert_success
    [[ $stderr == *'cannot list resourceclaims at the cluster scope: devices that claims of other namespaces hold look free'* ]]
}


@test "kubectl dra why POD: the context's namespace, the answer on stdout; a bound pod in one sentence" {
    start
    kubectl_bin
    run --separate-stderr "$KUBECTL" dra why pending --kubeconfig "$W/kc-ml"
    assert_failure 1
    assert_line --index 0 "pod ml/pending: 0/1 nodes are available: 1 cannot allocate all claims."
    assert_equal "$stderr" ""
    run --separate-stderr "$KUBECTL" dra why trainer -n ml
    assert_success
    assert_output "pod ml/trainer is already bound to node node-a (Succeeded): nothing to schedule"
    run --separate-stderr "$KUBECTL" dra why ml/trainer
    assert_output "pod ml/trainer is already bound to node node-a (Succeeded): nothing to schedule"
    run --separate-stderr "$KUBECTL" dra why nope --kubeconfig "$W/kc-ml"
    assert_failure 1
    [[ $stderr == *"pod ml/nope not found"* ]]
}

@test "kubectl dra: status, doctor, capacity, evictions; the context's namespace, -A, tool options after --" {
    start
    kubectl_bin
    run --separate-stderr "$KUBECTL" dra status --kubeconfig "$W/kc-ml"
    assert_success
    assert_line --regexp '^ml +trainer-gpu-hn7g7 +reserved +gpu.example.com/node-a/gpu-1 +node-a +trainer$'
    run --separate-stderr "$KUBECTL" dra status
    assert_success
    refute_output --partial trainer
    run --separate-stderr "$KUBECTL" dra doctor -A -n default
    assert_failure 1
    assert_output --partial "reservedFor names pod trainer which is done (Succeeded)"
    run --separate-stderr "$KUBECTL" dra capacity -o json
    assert_success
    assert_equal "$(jq -r '.classes[0].class // .classes[0].name' <<<"$output")" gpu.example.com
    run --separate-stderr "$KUBECTL" dra capacity -- --by node
    assert_success
    assert_line --index 0 --regexp '^CLASS +NODE '
    run --separate-stderr "$KUBECTL" dra evictions -A
    assert_success
    assert_line --index 0 --regexp '^NAMESPACE +POD +CLAIM '
    run --separate-stderr "$KUBECTL" dra status --by node
    assert_failure 2
    [[ $stderr == *"unknown option '--by' (options of the tool go after --)"* ]]
}

@test "kubectl dra as a namespace-scoped user: warnings naming the permission, answers from what it may read" {
    start
    kubectl_bin
    run --separate-stderr "$KUBECTL" dra status --kubeconfig "$W/kc-dev"
    assert_success
    assert_equal "$stderr" ""
    assert_line --regexp '^ml +trainer-gpu-hn7g7 +reserved '
    run --separate-stderr "$KUBECTL" dra why pending --kubeconfig "$W/kc-dev"
    assert_failure 1
    [[ $stderr == *'cannot list resource "nodes" in API group "" at the cluster scope (HTTP 403); the snapshot has no nodes'* ]]
    [[ $stderr == *'cannot list resourceclaims at the cluster scope'* ]]
    assert_line --index 0 --partial "pod ml/pending: "
    run --separate-stderr "$KUBECTL" dra doctor --kubeconfig "$W/kc-dev"
    assert_failure 1
    [[ $stderr == *'"resourceslices" in API group "resource.k8s.io" at the cluster scope'* ]]
}

@test "kubectl dra: a refused connection and --request-timeout, as kubectl" {
    kubectl_bin
    kc_to "https://127.0.0.1:1" >"$W/kc"
    run --separate-stderr timeout 20 "$KUBECTL" dra status --kubeconfig "$W/kc" --request-timeout 5s
    assert_failure 3
    assert_equal "$stderr" "dra-watch: The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"
    run --separate-stderr "$KUBECTL" dra status --kubeconfig "$W/kc" --request-timeout=nope
    assert_failure 2
}

@test "kubectl dra: completion through kubectl_complete-dra, as kubectl asks for it" {
    start
    kubectl_bin
    run --separate-stderr "$KUBECTL" __complete dra ""
    assert_success
    assert_line why
    assert_line capacity
    assert_line ":4"
    run --separate-stderr "$KUBECTL" __complete dra why -n ""
    assert_line ml
    run --separate-stderr "$KUBECTL" __complete dra why -n ml ""
    assert_line pending
    assert_line trainer
    run --separate-stderr "$KUBECTL" __complete dra status --context ""
    assert_line test
    run --separate-stderr "$KUBECTL" __complete dra status --req
    assert_line --request-timeout
    # a cluster that cannot be reached: nothing, quietly
    kc_to "https://127.0.0.1:1" >"$W/kc"
    run --separate-stderr "$KUBECTL" __complete dra why --kubeconfig "$W/kc" -n ""
    assert_success
    refute_line ml
}

@test "test API server: scheduling.k8s.io priorityclasses (v1) and podgroups (v1beta1), as 1.37 serves them" {
    cat >"$W/sched.yaml" <<'Y'
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g1, namespace: default}
spec: {}
Y
    apiserver_start "$W/api" --load "$W/sched.yaml"
    kubectl_bin
    run --separate-stderr "$KUBECTL" get priorityclasses -o name
    assert_success
    assert_output "priorityclass.scheduling.k8s.io/high"
    run --separate-stderr "$KUBECTL" get podgroups -A -o jsonpath='{.items[0].apiVersion} {.items[0].metadata.name}'
    assert_success
    assert_output "scheduling.k8s.io/v1beta1 g1"
    run --separate-stderr "$KUBECTL" api-resources --api-group scheduling.k8s.io -o name
    assert_success
    assert_output "$(printf 'podgroups.scheduling.k8s.io\npriorityclasses.scheduling.k8s.io')"
}

# complete TOOL WORD...: what the tool's generated bash completion offers
# for the last word
complete_bash() {
    local tool=$1
    shift
    bash -c 'source <("$1" --completion bash); shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
             fn=_${COMP_WORDS[0]//-/_}; $fn; printf "%s\n" "${COMPREPLY[@]}"' _ "$DRA_BIN/$tool" "$tool" "$@"
}

@test "completion of values: contexts, namespaces and DeviceClasses through kubectl, gates from the tables" {
    start
    kubectl_bin
    mkdir -p "$W/kbin" && ln -s "$KUBECTL" "$W/kbin/kubectl"
    export PATH="$W/kbin:$PATH"
    run complete_bash dra-watch get pods -n ""
    assert_success
    assert_line ml
    assert_line default
    run complete_bash dra-watch snapshot --context ""
    assert_line test
    run complete_bash dra-alloc capacity --class ""
    assert_output gpu.example.com
    run complete_bash dra-select select --class gpu
    assert_output gpu.example.com
    run complete_bash dra-alloc schedule --feature-gates DRAAdminA
    assert_output "$(printf 'DRAAdminAccess=true\nDRAAdminAccess=false')"
    run complete_bash dra-alloc schedule --kubernetes-version ""
    assert_output "$(printf '1.36\n1.37\n1.38')"
    # no cluster: nothing, and nothing on stderr
    kc_to "https://127.0.0.1:1" >"$W/kc"
    KUBECONFIG=$W/kc run --separate-stderr complete_bash dra-watch get pods -n ""
    assert_success
    assert_output ""
    assert_equal "$stderr" ""
    # the committed completions are the generated ones
    local t
    for t in dra-watch dra-alloc dra-select; do
        diff <("$DRA_BIN/$t" --completion bash) "$BATS_TEST_DIRNAME/../../completions/$t.bash"
        diff <("$DRA_BIN/$t" --completion zsh) "$BATS_TEST_DIRNAME/../../completions/_$t"
        diff <("$DRA_BIN/$t" --completion fish) "$BATS_TEST_DIRNAME/../../completions/$t.fish"
    done
}
