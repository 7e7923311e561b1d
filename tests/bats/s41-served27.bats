#!/usr/bin/env bats
# A 1.36 cluster serves DeviceTaintRules as resource.k8s.io/v1beta2 (and
# v1alpha3) only, every other DRA kind as v1: the tools' client keeps its
# rules at the version served, so that its snapshots, recordings and the
# loop's passes tell them from v1 rules, which such a cluster cannot hold.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    W="$BATS_TEST_TMPDIR"
    D="$DATA/evict"
    KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.33
    [[ -x $KUBECTL ]] || KUBECTL=/usr/bin/kubectl
}

teardown() {
    apiserver_stop
}

# A 1.36 server (v1, and v1beta2 where 1.36 has no v1) holding the
# evict data: two rules, slices, claims and pods.
start_136() {
    apiserver_start "$W/api" --server-version v1.36.3 --dra-versions v1,v1beta2
    { yq -c . "$D/slices.yaml"; yq -c . "$D/rules-v1beta2.yaml"; jq -c '.items[]' "$D/claims-pods.json"; } |
        jq -s . >"$W/objs.json"
    apiserver_req POST /_test/objects "$(cat "$W/objs.json")" >/dev/null
}

@test "a 1.36 server: get prints its rules at v1beta2, as kubectl does, and its slices at v1" {
    start_136
    run --separate-stderr "$DRA_BIN/dra-watch" get devicetaintrules
    assert_success
    assert_equal "$(jq -r '.apiVersion + " " + .metadata.name' <<<"$output" | sort | tr '\n' ' ')" \
        "resource.k8s.io/v1beta2 maintenance-node-b resource.k8s.io/v1beta2 what-if-all-gpus "
    if [[ -x $KUBECTL ]]; then
        assert_equal "$(jq -r .apiVersion <<<"$output" | sort -u)" \
            "$("$KUBECTL" get devicetaintrules -o json | jq -r '.items[].apiVersion' | sort -u)"
    fi
    run --separate-stderr "$DRA_BIN/dra-watch" get devicetaintrules -o json
    assert_success
    assert_equal "$(jq -r '[.items[].apiVersion] | unique | join(" ")' <<<"$output")" "resource.k8s.io/v1beta2"
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceslices
    assert_success
    assert_equal "$(jq -r .apiVersion <<<"$output" | sort -u)" "resource.k8s.io/v1"
    # 1.36 has no v1 DeviceTaintRule: the server does not know the path
    run apiserver_req GET /apis/resource.k8s.io/v1/devicetaintrules
    assert_failure 1
}

@test "a 1.36 server: the snapshot holds its rules as served, and dra-evict applies them" {
    start_136
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -A -o jsonl
    assert_success
    printf '%s\n' "$output" >"$W/snap.jsonl"
    assert_equal "$(jq -r 'select(.kind == "DeviceTaintRule") | .apiVersion' "$W/snap.jsonl" | sort -u)" \
        "resource.k8s.io/v1beta2"
    assert_equal "$(jq -r 'select(.kind == "ResourceSlice") | .apiVersion' "$W/snap.jsonl" | sort -u)" \
        "resource.k8s.io/v1"
    # the release comes from the snapshot (1.36: DRADeviceTaintRules is off unless turned on)
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:05:00Z --rule-status -o json \
        --feature-gates DRADeviceTaintRules=true "$W/snap.jsonl"
    assert_success
    assert_equal "$(jq -r '.items[].metadata.name' <<<"$output" | sort | tr '\n' ' ')" "maintenance-node-b what-if-all-gpus "
    [[ $stderr != *"does not serve"* ]]
}

@test "a 1.36 server: a recording holds its rules as served" {
    start_136
    run --separate-stderr "$DRA_BIN/dra-watch" record -A "$W/rec.jsonl" --max-events "$(jq length "$W/objs.json")"
    assert_success
    assert_equal "$(jq -r 'select(.object.kind == "DeviceTaintRule") | .object.apiVersion' "$W/rec.jsonl" | sort -u)" \
        "resource.k8s.io/v1beta2"
}

@test "a 1.36 server: run --job evict --apply takes the release from the server and writes the rules' status at v1beta2" {
    start_136
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --apply --feature-gates DRADeviceTaintRules=true \
        --now 2026-03-01T10:05:00Z -v
    local rc=$status err=$stderr
    "$DRA_BIN/dra-watch" get devicetaintrules >"$W/rules"
    [[ $err == *"the jobs use Kubernetes 1.36's feature gates"* ]] || { echo "$err"; false; }
    [[ $err != *"does not serve"* ]] || { echo "$err"; false; }
    assert_equal "$rc" 0
    assert_equal "$(jq -r 'select(.status.conditions[0].type == "EvictionInProgress") | .metadata.name' "$W/rules" |
        sort | tr '\n' ' ')" "maintenance-node-b what-if-all-gpus "
}

@test "a 1.36 server: a stage that prints a v1beta2 rule as v1 changes nothing" {
    start_136
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --dry-run -- \
        jq -c 'select(.kind == "DeviceTaintRule") | .apiVersion = "resource.k8s.io/v1"'
    assert_success
    assert_output ""
}
