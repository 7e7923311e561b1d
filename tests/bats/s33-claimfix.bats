#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-watch run with pipelines of the plain tools (whatever they print: YAML,
# JSON, JSON Lines, operations), against the test API server; and doctor's
# fixes as a script whose commands compose.
load helpers

setup_file() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_start "$BATS_FILE_TMPDIR/api"
}

teardown_file() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_stop
}

setup() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    W="$BATS_TEST_TMPDIR"
    watch_backoff 50 1000
    apiserver_req POST /_test/reset '{"objects":true}' >/dev/null
    REC="$DATA/watch/finished-pod.rec.jsonl"
    # the scripts call kubectl: the one the other server suites use
    local k=/usr/lib/google-cloud-sdk/bin/kubectl.1.33
    [[ -x $k ]] || k=/usr/bin/kubectl
    mkdir -p "$W/path"
    ln -sf "$k" "$W/path/kubectl"
    export PATH="$W/path:$PATH"
}

load_objects() { # FILE (JSON Lines)
    apiserver_req POST /_test/objects "$(jq -s . "$1")" >/dev/null
}

# The recorded scenario: a Succeeded pod, its generated claim allocated,
# reserved for it and protected by the finalizer.
load_finished_pod() {
    jq -c .object "$REC" >"$W/objs.jsonl"
    load_objects "$W/objs.jsonl"
}

# A running pod and a claim of its own reserved for it and for two pods that
# are gone: only those two entries go.
load_stale_pair() {
    local rf='[{"resource":"pods","name":"gone1","uid":"u-1"},{"resource":"pods","name":"keep","uid":"u-keep"},{"resource":"pods","name":"gone2","uid":"u-2"}]'
    jq -c --argjson rf "$rf" 'select(.object.kind == "ResourceClaim") | .object
        | .metadata.name = "shared" | del(.metadata.ownerReferences, .metadata.annotations)
        | .status.reservedFor = $rf' "$REC" >"$W/stale.jsonl"
    printf '%s\n' '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"keep","namespace":"ml","uid":"u-keep"},"spec":{"nodeName":"node-a","containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimName":"shared"}]},"status":{"phase":"Running"}}' >>"$W/stale.jsonl"
    load_objects "$W/stale.jsonl"
}

# end state of the claims: name, reservedFor names, allocated, finalizers
claims_state() {
    "$DRA_BIN/dra-watch" get resourceclaims -A |
        jq -c '[.metadata.name, [.status.reservedFor[]?.name], (.status.allocation != null), (.metadata.finalizers // [])]'
}

@test "run -- 'dra-claim release': plain YAML objects reach the claims job's end state" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" run --once -v --stats -- "$DRA_BIN/dra-claim release"
    assert_success
    # upstream's order: the status (reservations, allocation), the finalizer, the delete
    run grep -E '^dra-watch: (update|delete) ' <<<"$stderr"
    assert_line --index 0 --partial "update ResourceClaim ml/trainer-gpu-hn7g7 status: status changed"
    assert_line --index 1 --partial "update ResourceClaim ml/trainer-gpu-hn7g7: object changed"
    assert_line --index 2 --partial "delete ResourceClaim ml/trainer-gpu-hn7g7: deleted"
    [[ $stderr == *"writes=3 conflicts=0"* ]]
    run claims_state
    assert_output ""
    # nothing left to do
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -- "$DRA_BIN/dra-claim release"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "run -- 'dra-claim release' in every output format and as operations: one end state" {
    for out in "" "-o json" "-o jsonl" "-o yaml" "--patch" "--patch=json"; do
        apiserver_req POST /_test/reset '{"objects":true}' >/dev/null
        load_finished_pod
        load_stale_pair
        run --separate-stderr "$DRA_BIN/dra-watch" run --once -- "$DRA_BIN/dra-claim release $out"
        assert_success
        run claims_state
        assert_output '["shared",["keep"],true,["resource.kubernetes.io/delete-protection"]]'
    done
}

@test "run -- pipeline: the same end state as --job claims, and a second pass writes nothing" {
    load_finished_pod
    load_stale_pair
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims
    assert_success
    claims_state >"$W/job"
    apiserver_req POST /_test/reset '{"objects":true}' >/dev/null
    load_finished_pod
    load_stale_pair
    run --separate-stderr "$DRA_BIN/dra-watch" run --once -- "$DRA_BIN/dra-claim release -o json"
    assert_success
    run claims_state
    assert_output "$(cat "$W/job")"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -- "$DRA_BIN/dra-claim release -o json"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "run --dry-run -- 'dra-claim release': the writes plain objects make, in order" {
    load_finished_pod
    local rv
    rv=$("$DRA_BIN/dra-watch" get resourceclaims -n ml | jq -r .metadata.resourceVersion)
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --dry-run -- "$DRA_BIN/dra-claim release"
    assert_success
    run jq -r '[.verb, .subresource // "-", (.body.metadata.resourceVersion // .body.preconditions.resourceVersion)] | join(" ")' <<<"$output"
    assert_output "$(printf 'update status %s\nupdate - %s\ndelete - %s' "$rv" "$rv" "$rv")"
    run claims_state
    assert_output '["trainer-gpu-hn7g7",["trainer"],true,["resource.kubernetes.io/delete-protection"]]'
}

@test "run -- pipeline: a document without verb or kind fails the pass naming line and document" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" run --once -- 'printf "a: 1\n---\nb: 2\n"'
    assert_failure 3
    [[ $stderr == *"pipeline:1: document 1 has neither verb nor kind"* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --once -- 'printf "kind: [\n"'
    assert_failure 3
    [[ $stderr == *"pipeline:2:1: invalid YAML: "* ]]
    run claims_state
    assert_output '["trainer-gpu-hn7g7",["trainer"],true,["resource.kubernetes.io/delete-protection"]]'
}

@test "run -- pipeline: an object to delete that is gone already needs no write" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -- \
        'printf "%s\n" "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"nope\",\"namespace\":\"ml\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"}}"'
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "dra-claim release -o yaml: a deleted claim is printed as being deleted, and named on stderr" {
    jq -c .object "$REC" >"$W/objs.jsonl"
    run --separate-stderr "$DRA_BIN/dra-claim" release --now 2026-03-01T10:00:00Z -o json "$W/objs.jsonl"
    assert_success
    assert_equal "$(jq -c '[.metadata.deletionTimestamp, .metadata.finalizers, .status]' <<<"$output")" '["2026-03-01T10:00:00Z",null,{}]'
    [[ $stderr == *"deleted ResourceClaim/ml/trainer-gpu-hn7g7"* ]]
}

# the dump doctor reads, as kubectl gives it
dump() {
    kubectl get pods,resourceclaims -A -o yaml >"$W/dump.yaml"
}

@test "doctor --patch=kubectl: two stale reservations of one claim both go, and a rerun changes nothing" {
    load_stale_pair
    dump
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --patch=kubectl "$W/dump.yaml"
    assert_failure 1
    printf '%s\n' "$output" >"$W/fix.sh"
    assert_equal "$(grep -c '^kubectl patch resourceclaim shared -n ml --subresource=status' "$W/fix.sh")" 2
    run sh "$W/fix.sh"
    assert_success
    run claims_state
    assert_output '["shared",["keep"],true,["resource.kubernetes.io/delete-protection"]]'
    # the whole script again: the first precondition fails, nothing changes
    "$DRA_BIN/dra-watch" get resourceclaims -A >"$W/before"
    run sh "$W/fix.sh"
    assert_failure
    "$DRA_BIN/dra-watch" get resourceclaims -A >"$W/after"
    run diff "$W/before" "$W/after"
    assert_success
}

@test "doctor: each finding's fix, run in order, applies after the ones before it" {
    load_stale_pair
    dump
    run --separate-stderr "$DRA_BIN/dra-claim" doctor "$W/dump.yaml"
    assert_failure 1
    assert_equal "${#lines[@]}" 2
    sed 's/^.*; fix: //' <<<"$output" >"$W/fixes.sh"
    run sh -e "$W/fixes.sh"
    assert_success
    run claims_state
    assert_output '["shared",["keep"],true,["resource.kubernetes.io/delete-protection"]]'
    run sh -e "$W/fixes.sh"
    assert_failure
    run claims_state
    assert_output '["shared",["keep"],true,["resource.kubernetes.io/delete-protection"]]'
}

@test "doctor --patch: operations dra-watch run applies, pass after pass, until nothing is left" {
    load_finished_pod
    # the pod is gone (another one stays in the namespace): a stale user and an orphan
    apiserver_req DELETE /api/v1/namespaces/ml/pods/trainer >/dev/null
    apiserver_req POST /_test/objects '[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"ml","uid":"u-web"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Running"}}]' >/dev/null
    dump
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --patch "$W/dump.yaml"
    assert_failure 1
    run jq -r '[.verb, .subresource // "-"] | join(" ")' <<<"$output"
    assert_output "$(printf 'patch status\ndelete -')"
    # exit 1 is a verdict: the operations are applied
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -- "$DRA_BIN/dra-claim doctor --patch"
    assert_failure 1
    [[ $stderr == *"writes=2"* ]]
    # being deleted, held by the finalizer without users: the next pass deallocates and releases it
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -- "$DRA_BIN/dra-claim doctor --patch"
    assert_failure 1
    [[ $stderr == *"writes=2"* ]]
    run claims_state
    assert_output ""
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -- "$DRA_BIN/dra-claim doctor --patch"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "doctor --patch: the operations in order; findings fixed otherwise on stderr; a bad format is a usage error" {
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --patch --now 2026-03-01T12:00:00Z "$DATA/claim/doctor.yaml"
    assert_failure 1
    run jq -r '[.verb, .name, .subresource // "-", (if .verb == "patch" then [.body[].path] | join(",") else .body.preconditions.uid end)] | join(" ")' <<<"$output"
    assert_output "$(printf '%s\n' \
        'patch stale status /metadata/uid,/status/reservedFor/0/uid,/status/reservedFor/0' \
        'patch stale status /metadata/uid,/status/reservedFor/0/uid,/status/reservedFor/0' \
        'patch stuck status /metadata/uid,/status/allocation' \
        'patch stuck - /metadata/uid,/metadata/finalizers/0,/metadata/finalizers/0' \
        'patch vanished status /metadata/uid,/status/allocation' \
        'delete orphan - u-orphan')"
    [[ $stderr == *"dra-claim: not fixed by --patch: ResourceClaim/ml/hot: device gpu.example.com/node-a/gpu-0 has NoExecute taint"*"; fix: dra-evict "* ]]
    [[ $stderr == *"dra-claim: not fixed by --patch: Pod/ml/lost: pod claim data references ResourceClaim missing which does not exist"* ]]
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --patch=kubectl --now 2026-03-01T12:00:00Z "$DATA/claim/doctor.yaml"
    assert_failure 1
    assert_line --index 0 "set -e"
    assert_line --index 1 "# ResourceClaim/ml/stale: reservedFor names pod ghost (uid u-ghost) which does not exist"
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --patch=yaml "$DATA/claim/doctor.yaml"
    assert_failure 2
    assert_output ""
}

@test "run -- release and generate on one snapshot: plain objects make the claim and the pod's status" {
    jq -c 'select(.object.kind == "ResourceClaimTemplate") | .object' "$REC" >"$W/t.jsonl"
    load_objects "$W/t.jsonl"
    apiserver_req POST /_test/objects '[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a00b"},"spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]},"status":{"phase":"Pending"}}]' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -v -- "cat >'$W/snap.jsonl'; $DRA_BIN/dra-claim release '$W/snap.jsonl'; $DRA_BIN/dra-claim generate '$W/snap.jsonl'"
    assert_success
    [[ $stderr == *"writes=2"* ]]
    claim=$("$DRA_BIN/dra-watch" get resourceclaims -n ml | jq -r .metadata.name)
    [[ $claim == web-gpu-????? ]]
    run apiserver_req GET /api/v1/namespaces/ml/pods/web
    assert_equal "$(jq -c .status.resourceClaimStatuses <<<"$output")" "[{\"name\":\"gpu\",\"resourceClaimName\":\"$claim\"}]"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -- "cat >'$W/snap.jsonl'; $DRA_BIN/dra-claim release '$W/snap.jsonl'; $DRA_BIN/dra-claim generate '$W/snap.jsonl'"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}
