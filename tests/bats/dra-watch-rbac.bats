#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# deploy/: each job works with exactly its ClusterRole, and fails clearly
# (exit 3, the missing permission named) with anything less.
load helpers

setup() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    W="$BATS_TEST_TMPDIR"
    DEPLOY="$BATS_TEST_DIRNAME/../../deploy"
    REC="$DATA/watch/finished-pod.rec.jsonl"
    jq -c .object "$REC" >"$W/objs.jsonl"
    watch_backoff 50 500
}

teardown() {
    apiserver_stop
}

# Start a server with the claims scenario and RBAC FILE...; kubeconfig $W/kc-TOKEN per token.
start() {
    local args=() f
    for f in "$@"; do args+=(--rbac "$f"); done
    apiserver_start "$W/api" --load "$W/objs.jsonl" --rbac "$DATA/watch/rbac-users.yaml" "${args[@]}"
    for t in claims-sa-token evict-sa-token; do
        sed "s/token: .*/token: $t/" "$KUBECONFIG" >"$W/kc-$t"
    done
}

@test "deploy: the claims job works with exactly the dra-tools:claims role" {
    start "$DEPLOY/claims-rbac.yaml"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --stats --kubeconfig "$W/kc-claims-sa-token"
    assert_success
    [[ $stderr == *"writes=3"* ]]
    run "$DRA_BIN/dra-watch" get resourceclaims -A
    assert_output ""
}

@test "deploy: the claims job under the evict role fails, naming the permission" {
    start "$DEPLOY/claims-rbac.yaml" "$DEPLOY/evict-rbac.yaml"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --kubeconfig "$W/kc-evict-sa-token"
    assert_failure 3
    [[ $stderr == *'Error from server (Forbidden): '*'"system:serviceaccount:dra-system:dra-evict" cannot list resource "resourceclaimtemplates" in API group "resource.k8s.io"'* ]]
}

@test "deploy: every verb of the claims role is needed: without one the job stops, naming it" {
    # rules as "resource verb" pairs the release pass uses; drop one at a time
    local pair res verb
    for pair in "resourceclaims/status patch" "resourceclaims patch" "resourceclaims delete" \
        "resourceclaims list" "pods list" "resourceclaimtemplates list"; do
        res=${pair% *} verb=${pair#* }
        python3 - "$DEPLOY/claims-rbac.yaml" "$res" "$verb" >"$W/less.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read().split("\n---\n")
out = []
for doc in text:
    if "kind: ClusterRole\n" in doc:
        lines, cur = doc.split("\n"), None
        for i, l in enumerate(lines):
            if l.startswith("  resources:"):
                cur = l
            if l.startswith("  verbs:") and cur and ('"%s"' % sys.argv[2]) in cur and cur.count('"') == 2:
                verbs = [v.strip().strip('"') for v in l.split("[")[1].rstrip("]").split(",")]
                verbs = [v for v in verbs if v != sys.argv[3]]
                lines[i] = "  verbs: [" + ", ".join('"%s"' % v for v in verbs) + "]"
        doc = "\n".join(lines)
    out.append(doc)
print("\n---\n".join(out))
PY
        ! cmp -s "$DEPLOY/claims-rbac.yaml" "$W/less.yaml" || { echo "rule $pair not found"; false; }
        start "$W/less.yaml"
        run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --kubeconfig "$W/kc-claims-sa-token"
        apiserver_stop
        rm -rf "$W/api"
        [[ $status == 3 ]] || { echo "without $verb $res: exit $status"; false; }
        [[ $stderr == *"cannot $verb resource \"$res\""* ]] || { echo "without $verb $res: $stderr"; false; }
    done
}

@test "deploy: the manifests are well-formed and name the image and jobs" {
    for f in "$DEPLOY"/*.yaml; do
        python3 -c 'import sys,json; sys.path.insert(0, sys.argv[2]); import kyaml; [d for d in kyaml.load_all(open(sys.argv[1]).read())]' "$f" "$BATS_TEST_DIRNAME/../apiserver" ||
            { echo "$f does not parse"; false; }
    done
    grep -q '"run", "--once", "--job", "claims"' "$DEPLOY/cronjob-claims.yaml"
    grep -q '"run", "--job", "evict", "--apply"' "$DEPLOY/deployment-evict.yaml"
    grep -q '"run", "--job", "node", "--node", "$(NODE_NAME)"' "$DEPLOY/daemonset-node.yaml"
}

# The taint scenario of tests/data/evict: devices tainted NoExecute by a slice and a
# DeviceTaintRule; pods a, b, d are due by 10:05.
start_evict() {
    local args=() f
    for f in "$@"; do args+=(--rbac "$f"); done
    apiserver_start "$W/api" --load "$DATA/evict/slices.yaml" --load "$DATA/evict/rules.yaml" \
        --load "$DATA/evict/claims-pods.json" --rbac "$DATA/watch/rbac-users.yaml" "${args[@]}"
    sed "s/token: .*/token: evict-sa-token/" "$KUBECONFIG" >"$W/kc-evict-sa-token"
}

# The Deployment's own arguments (deploy/deployment-evict.yaml), without the
# leading program name, its health endpoints on a free loopback port.
deployment_args() {
    grep -o 'args: \[.*\]' "$DEPLOY/deployment-evict.yaml" | sed 's/^args: //' |
        jq -r '.[1:] | map(if . == ":8080" then "127.0.0.1:0" else . end)[]'
}

@test "deploy: the evict Deployment evicts with exactly the dra-tools:evict role" {
    start_evict "$DEPLOY/evict-rbac.yaml"
    mapfile -t args < <(deployment_args)
    [[ ${args[*]} == "run --job evict --apply "* ]]
    # the Deployment's loop, one pass, the clock pinned, as 1.37 (from 1.38
    # pod d's toleration without effect tolerates the NoExecute taint)
    run --separate-stderr "$DRA_BIN/dra-watch" "${args[@]}" --kubernetes-version 1.37 --max-passes 1 --now 2026-03-01T10:05:00Z --stats \
        --kubeconfig "$W/kc-evict-sa-token"
    assert_success
    # DisruptionTarget and delete for 4 due pods (x by its extended-resource
    # claim), the EvictionInProgress condition of 2 rules
    [[ $stderr == *"writes=10"* ]]
    [[ $stderr != *"failed"* && $stderr != *"Forbidden"* ]]
    # DisruptionTarget and delete for the due pods; the rest stay
    run "$DRA_BIN/dra-watch" get pods -A
    assert_equal "$(jq -r .metadata.name <<<"$output" | sort | tr '\n' ' ')" "c e "
    run "$DRA_BIN/dra-watch" get devicetaintrules
    assert_equal "$(jq -c '[.metadata.name, .status.conditions[0].reason, .status.conditions[0].message]' <<<"$output" | head -1)" \
        '["maintenance-node-b","Completed","2 pods evicted since starting the controller."]'
    # the next pass, a minute later: nothing changed, nothing written (the count lives in the condition)
    run --separate-stderr "$DRA_BIN/dra-watch" "${args[@]}" --max-passes 1 --now 2026-03-01T10:06:00Z --stats \
        --kubeconfig "$W/kc-evict-sa-token"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "deploy: the evict job under the claims role fails, naming the permission" {
    start_evict "$DEPLOY/claims-rbac.yaml" "$DEPLOY/evict-rbac.yaml"
    sed "s/token: .*/token: claims-sa-token/" "$KUBECONFIG" >"$W/kc-claims-sa-token"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --apply --now 2026-03-01T10:05:00Z \
        --kubeconfig "$W/kc-claims-sa-token"
    assert_failure 3
    [[ $stderr == *'"system:serviceaccount:dra-system:dra-claims" cannot list resource "resourceslices" in API group "resource.k8s.io"'* ]]
    assert_output ""
}

@test "deploy: without delete on pods the evict pass stops, naming the permission" {
    sed 's/verbs: \["list", "watch", "delete"\]/verbs: ["list", "watch"]/' "$DEPLOY/evict-rbac.yaml" <"$DEPLOY/node-rbac.yaml" >"$W/less.yaml"
    refute cmp -s "$DEPLOY/evict-rbac.yaml" "$W/less.yaml"
    start_evict "$W/less.yaml"
    # the loop too: a missing permission is not retried
    run --separate-stderr timeout 60 "$DRA_BIN/dra-watch" run --job evict --apply --now 2026-03-01T10:05:00Z \
        --kubeconfig "$W/kc-evict-sa-token"
    assert_failure 3
    [[ $stderr == *'cannot delete resource "pods" in API group ""'* ]]
}

@test "run: a 403 on a relist during the loop stops it with exit 3, naming verb and resource" {
    start_evict "$DEPLOY/evict-rbac.yaml" "$DEPLOY/claims-rbac.yaml"
    "$DRA_BIN/dra-watch" run --job evict --now 2026-03-01T09:00:00Z --kubeconfig "$W/kc-evict-sa-token" \
        >"$W/out" 2>"$W/err" 3>&- &
    local pid=$! i
    # the first pass has run once the watches are open
    for ((i = 0; i < 150; i++)); do
        [[ $(apiserver_req GET /_test/stats | jq .watchesOpen) -ge 4 ]] && break
        sleep 0.1
    done
    # the token now belongs to the claims service account (no resourceslices), then every
    # version expires: the watches end with 410 and the relist is refused
    apiserver_req POST /_test/tokens '{"add":{"token":"evict-sa-token","user":"system:serviceaccount:dra-system:dra-claims"}}' >/dev/null
    apiserver_req POST /_test/faults '{"expireNow":true,"expireOpenWatches":true}' >/dev/null
    for ((i = 0; i < 300; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        cat "$W/err"
        false
    fi
    rc=0
    wait "$pid" || rc=$?
    assert_equal "$rc" 3
    # whichever request comes first: both kinds are outside the claims role,
    # and a watch that dropped before the expiry is resumed with the new
    # token (a loaded machine's idle timeout) and refused as the relist is
    grep -Eq 'Forbidden.*cannot (list|watch) resource "(resourceslices|devicetaintrules)" in API group "resource.k8s.io"' "$W/err" ||
        { cat "$W/err"; false; }
}

# The DaemonSet's own arguments (deploy/daemonset-node.yaml), for node-1 and
# this test's driver directories.
daemonset_args() {
    grep -o 'args: \[.*\]' "$DEPLOY/daemonset-node.yaml" | sed 's/^args: //' |
        jq -r --arg reg "$T/reg" --arg state "$T/state" \
            '.[1:] | map(if . == "$(NODE_NAME)" then "node-1" elif . == "/var/lib/kubelet/plugins_registry" then $reg
                         elif . == "/var/lib/dra-tools/dra_manager_state" then $state
                         elif . == ":8080" then "127.0.0.1:0" else . end)[]'
}

start_node() {
    local args=() f
    for f in "$@"; do args+=(--rbac "$f"); done
    apiserver_start "$W/api" --load "$DATA/watch/node-agent.jsonl" --rbac "$DATA/watch/rbac-users.yaml" "${args[@]}"
    sed "s/token: .*/token: node-sa-token/" "$KUBECONFIG" >"$W/kc-node-sa-token"
}

@test "deploy: the node DaemonSet prepares its node's claims with exactly the dra-tools:node role" {
    load rpc-helpers
    rpc_setup
    start_driver
    start_node "$DEPLOY/node-rbac.yaml"
    mapfile -t args < <(daemonset_args)
    [[ ${args[*]} == "run --job node --node node-1 --registry-dir $T/reg "* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" "${args[@]}" --max-passes 1 --stats --kubeconfig "$W/kc-node-sa-token"
    local st=$status out=$output err=$stderr
    rpc_teardown
    [[ $st == 0 ]] || { echo "exit $st: $err"; false; }
    [[ $err != *"Forbidden"* ]]
    assert_equal "$(jq -r .action <<<"$out")" prepare
    # without watch on claims the agent stops, naming the permission
    python3 -c 'import sys; t = sys.stdin.read(); print(t.replace("resources: [\"resourceclaims\"]\n  verbs: [\"list\", \"watch\"]", "resources: [\"resourceclaims\"]\n  verbs: [\"watch\"]"))' <"$DEPLOY/node-rbac.yaml" >"$W/less.yaml"
    refute cmp -s "$DEPLOY/node-rbac.yaml" "$W/less.yaml"
    apiserver_stop
    rm -rf "$W/api"
    start_node "$W/less.yaml"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job node --node node-1 --socket /nonexistent.sock \
        --kubeconfig "$W/kc-node-sa-token"
    assert_failure 3
    [[ $stderr == *'"system:serviceaccount:dra-node:dra-node" cannot list resource "resourceclaims" in API group "resource.k8s.io"'* ]]
}
