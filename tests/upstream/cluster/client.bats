#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The client suite: dra-watch and `kubectl dra` against the real kube-apiserver
# 1.37.2 (tests/upstream/cluster.sh), with deploy/'s own roles.  The claim and
# taint-eviction controllers are not run here: the tools' jobs do their work.
load helpers

setup_file() {
    export CLUSTER_CONTROLLERS=resourcequota-controller,serviceaccount-controller,namespace-controller,garbage-collector-controller
    # 1.36 serves DeviceTaintRules as resource.k8s.io/v1beta2 only, and only
    # with DRADeviceTaintRules and that API on (both off by default): the
    # tests of rules run on such a cluster, the tools given the gate too
    if [[ ${DRA_KUBERNETES_VERSION:-} == 1.36 ]]; then
        export CLUSTER_FEATURE_GATES=DRADeviceTaintRules=true
        export CLUSTER_RUNTIME_CONFIG=resource.k8s.io/v1beta2/devicetaintrules=true
    fi
    cluster_start "$BATS_FILE_TMPDIR/c"
}

teardown_file() {
    cluster_stop
}

setup() {
    export C=$BATS_FILE_TMPDIR/c KUBECONFIG=$BATS_FILE_TMPDIR/c/kubeconfig KUBECACHEDIR=$BATS_FILE_TMPDIR/c/kubecache
    W=$BATS_TEST_TMPDIR
    NS=t$BATS_TEST_NUMBER
}

teardown() {
    # the node test's example driver (tests/bats/rpc-helpers.bash)
    if [[ -n ${T:-} ]]; then rpc_teardown; fi
    # a test's background dra-watch, left running when the test failed
    # before its kill (it holds bats' output open: bats would never end)
    if [[ -n ${pid:-} ]]; then kill "$pid" 2>/dev/null || true; fi
}

# template NAME: a ResourceClaimTemplate in $NS, made with kubectl
template() {
    printf '%s' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"__NAME__"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}}}}' | sed "s/__NAME__/$1/" | "$KUBECTL" create -n "$NS" -f - >/dev/null
}

# the finished-pod scenario (a Succeeded pod, its generated claim allocated and
# reserved) in namespace $NS
load_finished_pod() {
    jq -c .object "$DATA/watch/finished-pod.rec.jsonl" | sed "s/\"namespace\":\"ml\"/\"namespace\":\"$NS\"/g" >"$W/objs.jsonl"
    load_objects "$W/objs.jsonl"
}

@test "deploy: apply -k applies cleanly, client- and server-side; every object is there" {
    run "$KUBECTL" apply --dry-run=server -k "$DEPLOY"
    assert_success
    # no warning (Pod Security "restricted" on dra-system warns about any pod
    # template it would refuse) but kubectl's own about the namespaces and
    # roles cluster.sh applied server-side
    [[ $(grep -c Warning <<<"$output" || true) == $(grep -c 'last-applied-configuration annotation' <<<"$output" || true) ]]
    run "$KUBECTL" apply -k "$DEPLOY"
    assert_success
    run "$KUBECTL" apply --server-side --force-conflicts -k "$DEPLOY"
    assert_success
    # every object of the kustomization, and the image it sets
    "$KUBECTL" kustomize "$DEPLOY" >"$W/all.yaml"
    run "$KUBECTL" get -f "$W/all.yaml" -o name
    assert_success
    assert_equal "${#lines[@]}" "$(grep -c '^kind: ' "$W/all.yaml")"
    assert_equal "${#lines[@]}" 14
    run "$KUBECTL" get -n dra-system deployment/dra-evict -o 'jsonpath={.spec.template.spec.containers[0].image}'
    assert_output dra-tools:0.1.0
    run "$KUBECTL" get -n dra-node daemonset/dra-node -o name
    assert_success
}

@test "deploy: apply -k works the first time: the namespaces come first" {
    # the kustomization under new names, on a server that has none of it
    "$KUBECTL" kustomize "$DEPLOY" | sed -e 's/dra-system/fresh-system/g; s/dra-node/fresh-node/g; s/name: dra-tools:/name: fresh:/g' >"$W/fresh.yaml"
    mkdir "$W/k" && cp "$W/fresh.yaml" "$W/k/fresh.yaml"
    printf 'resources:\n- fresh.yaml\n' >"$W/k/kustomization.yaml"
    run "$KUBECTL" get namespace fresh-system fresh-node
    assert_failure
    run "$KUBECTL" apply -k "$W/k"
    assert_success
    [[ ${lines[0]} == namespace/* ]]
    run "$KUBECTL" get -f "$W/fresh.yaml" -o name
    assert_success
    assert_equal "${#lines[@]}" 14
    "$KUBECTL" delete -f "$W/fresh.yaml" --wait=false >/dev/null
}

@test "deploy: Pod Security admits each workload's pod in its namespace, and the node agent's only in dra-node" {
    "$KUBECTL" kustomize "$DEPLOY" >"$W/all.yaml"
    # pod NS KIND: the pod of a workload's template, created as a dry run
    pod() {
        python3 -c '
import json, sys, yaml
ns, kind = sys.argv[1:3]
for d in yaml.safe_load_all(open(sys.argv[3])):
    if d and d["kind"] == kind:
        t = d["spec"]["jobTemplate"]["spec"]["template"] if kind == "CronJob" else d["spec"]["template"]
        t["spec"]["containers"][0]["args"] = ["dra-watch", "--version"]
        t["spec"].pop("serviceAccountName")  # the default one: dra-system has no dra-node
        print(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "psa-" + kind.lower(), "namespace": ns},
                          "spec": t["spec"]}))' "$1" "$2" "$W/all.yaml" | "$KUBECTL" create --dry-run=server -f - 2>&1
    }
    run pod dra-system CronJob
    assert_success
    run pod dra-system Deployment
    assert_success
    [[ $output != *Warning* ]]
    run pod dra-node DaemonSet
    assert_success
    # in dra-system the node agent is refused: hostPath and root need "privileged"
    run pod dra-system DaemonSet
    assert_failure
    [[ $output == *'violates PodSecurity "restricted:latest"'*'volumes "registry", "plugins", "state" use restricted volume type "hostPath"'* ]]
}

@test "get: the same objects as kubectl get -o json's items, in kubectl's order" {
    load_finished_pod
    for kind in pods resourceclaims resourceclaimtemplates; do
        run --separate-stderr "$DRA_BIN/dra-watch" get "$kind" -n "$NS"
        assert_success
        printf '%s\n' "$output" | jq -S . >"$W/ours"
        "$KUBECTL" get "$kind" -n "$NS" -o json | jq -S '.items[]' >"$W/theirs"
        diff -u "$W/theirs" "$W/ours"
    done
    # -A and a field selector the server evaluates
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --field-selector spec.nodeName=node-a
    assert_success
    assert_equal "$(jq -r .metadata.name <<<"$output")" trainer
    # paging: the tools page with limit/continue; the server's pages give the same list
    run --separate-stderr "$DRA_BIN/dra-watch" get namespaces
    assert_success
    assert_equal "$(jq -r .metadata.name <<<"$output" | sort)" "$("$KUBECTL" get namespaces -o name | sed 's|.*/||' | sort)"
}

@test "get: every DRA kind of examples/cluster as kubectl get -o json has it, defaults included" {
    load_objects "$EXAMPLES"/cluster/*.yaml
    for kind in nodes deviceclasses resourceslices resourceclaims resourceclaimtemplates devicetaintrules; do
        run --separate-stderr "$DRA_BIN/dra-watch" get "$kind" -A
        assert_success
        printf '%s\n' "$output" | jq -S 'select(. != null)' >"$W/ours"
        "$KUBECTL" get "$kind" -A -o json | jq -S '.items[]' >"$W/theirs"
        diff -u "$W/theirs" "$W/ours" || { echo "$kind differs"; false; }
    done
}

@test "snapshot and kubectl dra status/doctor/snapshot read the real server" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl -n "$NS"
    assert_success
    jq -r '.kind + " " + .metadata.name' <<<"$output" | sort >"$W/kinds"
    grep -qx "Pod trainer" "$W/kinds"
    grep -qx "ResourceClaim trainer-gpu-hn7g7" "$W/kinds"
    grep -qx "ResourceClaimTemplate single-gpu" "$W/kinds"
    PATH=$DRA_BIN:$UPSTREAM_BIN:$PATH
    cp "$ROOT/scripts/kubectl-dra" "$W/kubectl-dra"
    PATH=$W:$PATH run --separate-stderr "$KUBECTL" dra snapshot -n "$NS" -o jsonl
    assert_success
    assert_equal "$(jq -r '.kind + " " + .metadata.name' <<<"$output" | sort)" "$(cat "$W/kinds")"
    PATH=$W:$PATH run --separate-stderr "$KUBECTL" dra status -n "$NS"
    assert_success
    assert_output --partial trainer-gpu-hn7g7
    # the claim is still reserved for a pod that finished: doctor finds it
    PATH=$W:$PATH run --separate-stderr "$KUBECTL" dra doctor -n "$NS"
    assert_failure 1
    assert_output --partial trainer-gpu-hn7g7
}

@test "snapshot records the peer's release from its /version; the tools take it from the file" {
    # the control plane of each release is stamped with its version
    # (upstream.mk, upstream_goflags): 1.37.2, 1.36.3, 1.38.0-beta.0
    local rel=${DRA_KUBERNETES_VERSION:-1.37}
    "$KUBECTL" create namespace "$NS" >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl -n "$NS"
    assert_success
    printf '%s\n' "$output" >"$W/snap.jsonl"
    run jq -r 'select(.kind == "Snapshot") | .serverVersion | "\(.gitVersion) \(.major).\(.minor)"' "$W/snap.jsonl"
    assert_output --regexp "^v${rel//./\\.}\.[0-9]+(-[a-z]+\.[0-9]+)? $rel\$"
    run --separate-stderr env -u DRA_KUBERNETES_VERSION "${DRA_REAL_BIN:-$DRA_BIN}/dra-alloc" schedule -v "$W/snap.jsonl"
    assert_success
    [[ $stderr == *"dra-alloc: Kubernetes $rel's feature gates (the snapshot $W/snap.jsonl is of a v$rel."* ]]
}

@test "kubectl dra as a namespace-scoped user (a Role only): warnings naming the permission, not a 403 failure" {
    load_finished_pod
    "$KUBECTL" create serviceaccount ml-dev -n "$NS" >/dev/null
    "$KUBECTL" create role reader -n "$NS" --verb=get,list,watch --resource=pods,resourceclaims.resource.k8s.io,resourceclaimtemplates.resource.k8s.io >/dev/null
    "$KUBECTL" create rolebinding ml-dev -n "$NS" --role=reader --serviceaccount="$NS:ml-dev" >/dev/null
    "$KUBECTL" config view --raw --minify >"$W/kc-dev"
    "$KUBECTL" --kubeconfig "$W/kc-dev" config set-credentials ml-dev --token="$("$KUBECTL" create token ml-dev -n "$NS")" >/dev/null
    "$KUBECTL" --kubeconfig "$W/kc-dev" config set-context --current --user=ml-dev --namespace="$NS" >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl --kubeconfig "$W/kc-dev"
    assert_success
    [[ $stderr == *"User \"system:serviceaccount:$NS:ml-dev\" cannot list resource \"nodes\" in API group \"\" at the cluster scope"* ]]
    [[ $stderr == *'cannot list resource "resourceslices" in API group "resource.k8s.io" at the cluster scope'* ]]
    assert_output --partial '"name":"trainer-gpu-hn7g7"'
    PATH=$DRA_BIN:$ROOT/scripts:$UPSTREAM_BIN:$PATH
    run --separate-stderr "$KUBECTL" dra status --kubeconfig "$W/kc-dev"
    assert_success
    assert_output --partial trainer-gpu-hn7g7
    run --separate-stderr "$KUBECTL" dra why trainer --kubeconfig "$W/kc-dev"
    assert_success
    assert_output --regexp "^pod $NS/trainer is already bound to node node-a \(.*\): nothing to schedule$"
    [[ $stderr == *'cannot list resource "nodes"'* ]]
}

@test "get -w: ADDED, MODIFIED, DELETED as the server sends them" {
    "$KUBECTL" create namespace "$NS" >/dev/null
    "$DRA_BIN/dra-watch" get resourceclaimtemplates -n "$NS" -w >"$W/ev" 2>"$W/err" &
    local pid=$!
    sleep 1
    template a
    "$KUBECTL" label resourceclaimtemplate -n "$NS" a tier=gold >/dev/null
    "$KUBECTL" delete resourceclaimtemplate -n "$NS" a >/dev/null
    wait_for 20 grep -q DELETED "$W/ev" || { kill "$pid"; cat "$W/err"; false; }
    kill "$pid"
    wait "$pid" || true
    run jq -r '.type + " " + .object.metadata.name + " " + (.object.metadata.labels.tier // "-")' "$W/ev"
    assert_output "$(printf 'ADDED a -\nMODIFIED a gold\nDELETED a gold')"
}

@test "get -w: across an API server restart on the same etcd data nothing is missed or repeated" {
    "$KUBECTL" create namespace "$NS" >/dev/null
    template before
    "$DRA_BIN/dra-watch" get resourceclaimtemplates -n "$NS" -w --stats >"$W/ev" 2>"$W/err" &
    local pid=$!
    wait_for 20 grep -q before "$W/ev"
    "$CLUSTER_SH" stop "$C"
    "$CLUSTER_SH" start "$C" >/dev/null 2>&1
    template after
    wait_for 60 grep -q '"after"' "$W/ev" || { kill "$pid"; cat "$W/err"; false; }
    kill "$pid"
    wait "$pid" || true
    run jq -r '.type + " " + .object.metadata.name' "$W/ev"
    assert_output "$(printf 'ADDED before\nADDED after')"
}

@test "run --once --job claims with deploy/'s claims role: release, unfinalize, delete" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims -n "$NS" --stats -v --kubeconfig "$C/kubeconfig-claims"
    assert_success
    run grep -E '^dra-watch: (patch|delete) ' <<<"$stderr"
    assert_line --index 0 --partial "patch ResourceClaim $NS/trainer-gpu-hn7g7 status: "
    assert_line --index 1 --partial "remove finalizer"
    assert_line --index 2 --partial "delete ResourceClaim $NS/trainer-gpu-hn7g7: "
    [[ $stderr == *"writes=3 conflicts=0"* ]]
    run "$KUBECTL" get resourceclaims -n "$NS" -o name
    assert_output ""
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims -n "$NS" --stats --kubeconfig "$C/kubeconfig-claims"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "RBAC: the claims job under the evict role fails with exit 3 naming the permission" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --kubeconfig "$C/kubeconfig-evict"
    assert_failure 3
    assert_output ""
    [[ $stderr == *'"system:serviceaccount:dra-system:dra-evict" cannot list resource "resourceclaimtemplates" in API group "resource.k8s.io"'* ]]
    # kubectl's wording for the same refusal
    run "$KUBECTL" --kubeconfig "$C/kubeconfig-evict" get resourceclaimtemplates -A
    assert_failure 1
    [[ $stderr == *"$output"* || $output == *'cannot list resource "resourceclaimtemplates"'* ]]
}

@test "RBAC: the node role can list and watch pods but not write" {
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --kubeconfig "$C/kubeconfig-node"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceslices --kubeconfig "$C/kubeconfig-node"
    assert_failure 3
    [[ $stderr == *'cannot list resource "resourceslices" in API group "resource.k8s.io"'* ]]
}

@test "409: a concurrent writer between the read and the write is re-read, nothing is lost" {
    load_finished_pod
    # the pipeline's first run changes the claim behind the loop's back, then asks
    # for an update carrying the version it read: the server answers 409
    cat >"$W/stage" <<STAGE
#!/bin/sh
if [ ! -e "$W/once" ]; then
    : >"$W/once"
    "$KUBECTL" label resourceclaim -n $NS trainer-gpu-hn7g7 other=writer >/dev/null
fi
jq -c 'select(.kind == "ResourceClaim") | .metadata.labels.seen = "yes"'
STAGE
    chmod +x "$W/stage"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -v -n "$NS" -- "$W/stage"
    assert_success
    [[ $stderr == *"conflict on update ResourceClaim $NS/trainer-gpu-hn7g7"* ]]
    [[ $stderr == *"conflicts=1"* ]]
    run "$KUBECTL" get resourceclaim -n "$NS" trainer-gpu-hn7g7 -o json
    assert_equal "$(jq -c '.metadata.labels | {other, seen}' <<<"$output")" '{"other":"writer","seen":"yes"}'
}

@test "409: two claims jobs at the same time both succeed and the cluster ends right" {
    for i in 1 2 3 4 5; do
        jq -c ".object | select($i == 1 or .kind != \"ResourceClaimTemplate\")" "$DATA/watch/finished-pod.rec.jsonl" |
            sed -e "s/\"namespace\":\"ml\"/\"namespace\":\"$NS\"/g" -e "s/trainer/trainer$i/g" \
                -e "s/-00000000a001/-00000000a00$i/; s/-00000000c001/-00000000c00$i/"
    done >"$W/objs.jsonl"
    load_objects "$W/objs.jsonl"
    "$DRA_BIN/dra-watch" run --once --job claims --stats --kubeconfig "$C/kubeconfig-claims" >"$W/o1" 2>"$W/e1" &
    local p1=$!
    "$DRA_BIN/dra-watch" run --once --job claims --stats --kubeconfig "$C/kubeconfig-claims" >"$W/o2" 2>"$W/e2" &
    local p2=$! r1=0 r2=0
    wait "$p1" || r1=$?
    wait "$p2" || r2=$?
    assert_equal "$r1 $r2" "0 0"
    run "$KUBECTL" get resourceclaims -n "$NS" -o name
    assert_output ""
}

@test "server-side apply: the evict job's rule condition is applied as device-taint-eviction-controller" {
    # pod x's extendedResourceClaimStatus names a resource its containers do not
    # request: kube-apiserver refuses that status, so it is left out here
    jq '(.items // .) |= map(if .metadata.name == "x" then del(.status.extendedResourceClaimStatus) else . end)' \
        "$DATA/evict/claims-pods.json" >"$W/claims-pods.json"
    local rules=$DATA/evict/rules.yaml gates=()
    if [[ ${DRA_KUBERNETES_VERSION:-} == 1.36 ]]; then
        rules=$DATA/evict/rules-v1beta2.yaml gates=(--feature-gates DRADeviceTaintRules=true)
    fi
    load_objects "$DATA/evict/slices.yaml" "$rules" "$W/claims-pods.json"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --apply --now 2026-03-01T10:05:00Z --stats \
        --kubeconfig "$C/kubeconfig-evict" "${gates[@]}"
    assert_success
    [[ $stderr != *Forbidden* ]]
    # (1.36's v1beta2 comes with a deprecation warning on stderr)
    run --separate-stderr "$KUBECTL" get devicetaintrules -o json --show-managed-fields
    assert_success
    jq -e '.items[] | select(.status.conditions != null) | .metadata.managedFields[]
           | select(.manager == "device-taint-eviction-controller" and .operation == "Apply" and .subresource == "status")' \
        <<<"$output" >/dev/null
    # the next pass writes nothing
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --apply --now 2026-03-01T10:05:00Z --stats \
        --kubeconfig "$C/kubeconfig-evict" "${gates[@]}"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "quota: a claim beyond the namespace's ResourceQuota is refused by admission, the pod waits, exit 1" {
    load_finished_pod
    "$KUBECTL" create quota -n "$NS" claims --hard=count/resourceclaims.resource.k8s.io=1 >/dev/null
    wait_for 30 sh -c "\"$KUBECTL\" get quota -n $NS claims -o jsonpath='{.status.hard}' | grep -q resourceclaims"
    # the pod's claim exists; a second pod needs a claim from the template
    "$KUBECTL" create -n "$NS" -f - >/dev/null <<POD
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"second"},
 "spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]}}
POD
    PATH=$DRA_BIN:$PATH run --separate-stderr "$DRA_BIN/dra-watch" run --once -n "$NS" --stats -- 'dra-claim generate --patch'
    # refused for that pod alone, tried again on the next pass (as upstream's
    # claim controller retries the pod): a warning and exit 1, not a failure
    assert_failure 1
    [[ $stderr == *'exceeded quota: claims, requested: count/resourceclaims.resource.k8s.io=1, used: count/resourceclaims.resource.k8s.io=1, limited: count/resourceclaims.resource.k8s.io=1'*'(the pod waits; the next pass tries again)'* ]]
}

# etcd_compact: compact the cluster's etcd at its current revision (etcd's
# gRPC gateway on the client port), so that every older resourceVersion is gone
etcd_compact() {
    local url rev
    url=http://127.0.0.1:$(head -n 1 "$C/ports")
    rev=$(curl -sf -X POST "$url/v3/kv/range" -d '{"key":"AA=="}' | jq -r .header.revision)
    [[ $rev =~ ^[0-9]+$ ]] || return 1
    curl -sf -X POST "$url/v3/kv/compaction" -d "{\"revision\":\"$rev\",\"physical\":true}" >/dev/null
}

@test "get -w: resumed at a compacted resourceVersion, 410 Gone relists and each change is told once" {
    "$KUBECTL" create namespace "$NS" >/dev/null
    template a
    template gone
    "$DRA_BIN/dra-watch" get resourceclaimtemplates -n "$NS" -w --stats -v >"$W/ev" 2>"$W/err" &
    local pid=$!
    wait_for 20 grep -q '"gone"' "$W/ev"
    # the watch is cut while the client sleeps; what changes meanwhile is
    # compacted away, so its resume at the old version is refused with 410.
    # The restarted server's watch cache starts at etcd's revision of its
    # first list and serves any watch from that revision on, compacted or
    # not (k8s.io/apiserver storage/cacher/watch_cache_history.go,
    # GetIntervalLocked): a write the client cannot see, made before the
    # restart, puts that revision past the client's, whatever the server
    # itself writes when it starts (without it, 1.38's server once served
    # the resume from its cache: no 410, no change lost).
    kill -STOP "$pid"
    "$KUBECTL" create configmap -n "$NS" past-the-watch >/dev/null
    "$CLUSTER_SH" stop "$C"
    "$CLUSTER_SH" start "$C" >/dev/null 2>&1
    "$KUBECTL" label resourceclaimtemplate -n "$NS" a tier=gold >/dev/null
    template mid
    "$KUBECTL" delete resourceclaimtemplate -n "$NS" gone >/dev/null
    etcd_compact
    kill -CONT "$pid"
    wait_for 60 grep -q DELETED "$W/ev" || { kill "$pid"; cat "$W/err"; false; }
    sleep 1
    kill "$pid"
    wait "$pid" || true
    grep -q 'too old; relisting' "$W/err" || { cat "$W/err"; false; }
    [[ $(cat "$W/err") == *"relists=1"* ]]
    run jq -r '.type + " " + .object.metadata.name + " " + (.object.metadata.labels.tier // "-")' "$W/ev"
    assert_output "$(printf 'ADDED a -\nADDED gone -\nMODIFIED a gold\nADDED mid -\nDELETED gone -')"
}

@test "record, then replay: the replayed snapshot is the live server's" {
    load_finished_pod
    "$DRA_BIN/dra-watch" record "$W/rec.jsonl" -n "$NS" 2>"$W/err" &
    local pid=$!
    wait_for 20 grep -q trainer-gpu "$W/rec.jsonl"
    template later
    "$KUBECTL" label resourceclaim -n "$NS" trainer-gpu-hn7g7 seen=yes >/dev/null
    "$KUBECTL" delete resourceclaimtemplate -n "$NS" single-gpu >/dev/null
    wait_for 20 grep -q '"DELETED"' "$W/rec.jsonl" || { kill "$pid"; cat "$W/err"; false; }
    sleep 1
    kill "$pid"
    wait "$pid" || true
    run --separate-stderr "$DRA_BIN/dra-watch" run --once -n "$NS" -- "cat >'$W/live'"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-watch" run --once -n "$NS" --replay "$W/rec.jsonl" --replay-fast -- "cat >'$W/replayed'"
    assert_success
    jq -cS . "$W/live" | sort >"$W/live.s"
    jq -cS . "$W/replayed" | sort >"$W/replayed.s"
    grep -q '"seen":"yes"' "$W/live.s"
    grep -q '"name":"later"' "$W/live.s"
    refute grep -q '"name":"single-gpu"' "$W/live.s"
    diff -u "$W/live.s" "$W/replayed.s"
}

@test "run --job node with deploy/'s node role: prepares its pods' claims with the example driver" {
    load "$ROOT/tests/bats/rpc-helpers"
    rpc_setup
    jq -c . "$DATA/watch/node-agent.jsonl" | sed "s/\"namespace\":\"ml\"/\"namespace\":\"$NS\"/g; s/\"name\":\"ml\"/\"name\":\"$NS\"/" >"$W/objs.jsonl"
    load_objects "$W/objs.jsonl"
    local uid
    uid=$("$KUBECTL" get resourceclaim -n "$NS" trainer-gpu -o jsonpath='{.metadata.uid}')
    start_driver
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job node --node node-1 -n "$NS" --socket "$T/p/dra.sock" \
        --checkpoint "$T/state" --stats --kubeconfig "$C/kubeconfig-node"
    assert_success
    assert_equal "${#lines[@]}" 1
    assert_equal "$(jq -c '[.action, .namespace, .pod]' <<<"$output")" "[\"prepare\",\"$NS\",\"trainer\"]"
    [[ $(jq -r '.containers[0].cdiDevices[1]' <<<"$output") == "k8s.gpu.example.com/gpu=$uid-gpu-"* ]]
    grep -q "$uid" "$T/state"
    [[ $stderr == *"writes=0"* ]]
    # the pod finishes: the loop unprepares its claim
    "$KUBECTL" patch pod -n "$NS" trainer --subresource=status --type=merge -p '{"status":{"phase":"Succeeded"}}' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job node --node node-1 -n "$NS" --socket "$T/p/dra.sock" \
        --checkpoint "$T/state" --kubeconfig "$C/kubeconfig-node"
    assert_success
    assert_equal "$(jq -r .action <<<"$output")" unprepare
}

@test "run: the loop goes on across an API server restart and runs a pass for a change made after it" {
    "$KUBECTL" create namespace "$NS" >/dev/null
    template first
    "$DRA_BIN/dra-watch" run -n "$NS" --debounce 100ms --stats -v -- "jq -r 'select(.kind == \"ResourceClaimTemplate\") | .metadata.name' | sort | tr '\n' ' ' >>'$W/passes'; echo >>'$W/passes'" \
        >"$W/out" 2>"$W/err" &
    local pid=$!
    wait_for 20 grep -q first "$W/passes"
    "$CLUSTER_SH" stop "$C"
    "$CLUSTER_SH" start "$C" >/dev/null 2>&1
    template second
    wait_for 60 grep -q 'first second' "$W/passes" || { kill "$pid"; cat "$W/err"; false; }
    kill "$pid"
    wait "$pid" || true
    [[ $(cat "$W/err") != *"pass "*" failed"* ]] || { cat "$W/err"; false; }
}
