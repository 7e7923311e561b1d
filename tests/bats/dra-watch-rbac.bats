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
    export DRA_BACKOFF_BASE_MS=50 DRA_BACKOFF_CAP_MS=500
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
}
