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

# A 1.36 snapshot as dra-watch snapshot writes it (its /version first),
# with the rules at APIVERSION.
snapshot_136() { # APIVERSION
    jq -c '{apiVersion: "dra-tools.io/v1alpha1", kind: "Snapshot", metadata: {name: "snapshot"},
        serverVersion: {major: "1", minor: "36", gitVersion: "v1.36.3"}}' <<<'{}'
    yq -c . "$D/slices.yaml"
    yq -c . "$D/rules-v1beta2.yaml" | jq -c --arg v "$1" '.apiVersion = $v'
    jq -c '.items[]' "$D/claims-pods.json"
}

@test "a v1 DeviceTaintRule in a 1.36 snapshot, or a file under --kubernetes-version 1.36: left out, as 1.36 answers" {
    snapshot_136 resource.k8s.io/v1 >"$W/snap.jsonl"
    want='DeviceTaintRule/maintenance-node-b: kind: no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1": Kubernetes 1.36 does not serve it; left out'
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:05:00Z --rule-status -o json \
        --feature-gates DRADeviceTaintRules=true "$W/snap.jsonl"
    assert_success
    assert_equal "$(jq -r '.items | length' <<<"$output")" 0
    [[ $stderr == *"$W/snap.jsonl:5 (document 5): $want"* ]] || { echo "$stderr"; false; }
    # the same file told 1.37 (which serves v1): both rules
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:05:00Z --rule-status -o json \
        --kubernetes-version 1.37 "$W/snap.jsonl"
    assert_success
    assert_equal "$(jq -r '.items[].metadata.name' <<<"$output" | sort | tr '\n' ' ')" "maintenance-node-b what-if-all-gpus "
    [[ $stderr != *"does not serve"* ]]
    # a plain file under --kubernetes-version 1.36
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:05:00Z --rule-status -o json --kubernetes-version 1.36 \
        --feature-gates DRADeviceTaintRules=true "$D/slices.yaml" "$D/rules.yaml"
    assert_success
    assert_equal "$(jq -r '.items | length' <<<"$output")" 0
    [[ $stderr == *"rules.yaml:4: $want"* ]] || { echo "$stderr"; false; }
    # what 1.36's API server decodes (the validation peer), and dra-slice validate
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 "$D/rules.yaml"
    assert_failure 2
    [[ $stderr == *'DeviceTaintRule/maintenance-node-b: kind: no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1"'* ]]
    U=$BATS_TEST_DIRNAME/../../build/upstream/1.36/bin/upstream-validate
    [[ -x $U ]] || skip "the 1.36 upstream-validate is not built (make upstream-1.36)"
    run --separate-stderr "$U" "$D/rules.yaml"
    assert_failure 2
    [[ $stderr == *'DeviceTaintRule/maintenance-node-b: kind: no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1"'* ]]
}

@test "a v1beta2 DeviceTaintRule in a 1.36 snapshot still applies; 1.38 serves v1 as 1.37" {
    snapshot_136 resource.k8s.io/v1beta2 >"$W/snap.jsonl"
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:05:00Z --rule-status -o json \
        --feature-gates DRADeviceTaintRules=true "$W/snap.jsonl"
    assert_success
    assert_equal "$(jq -r '.items[].metadata.name' <<<"$output" | sort | tr '\n' ' ')" "maintenance-node-b what-if-all-gpus "
    [[ $stderr != *"does not serve"* ]]
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:05:00Z --rule-status -o json --kubernetes-version 1.38 \
        "$D/slices.yaml" "$D/rules.yaml"
    assert_success
    assert_equal "$(jq -r '.items[].metadata.name' <<<"$output" | sort | tr '\n' ' ')" "maintenance-node-b what-if-all-gpus "
    [[ $stderr != *"does not serve"* ]]
}

# run --job evict at 1.36 on a recording of the evict data with the rules
# at APIVERSION: the rules whose status the pass applies.
replay_rules() { # APIVERSION
    { yq -c . "$D/slices.yaml"; yq -c . "$D/rules-v1beta2.yaml" | jq -c --arg v "$1" '.apiVersion = $v'
        jq -c '.items[]' "$D/claims-pods.json"; } |
        jq -c '{time: "2026-03-01T10:00:00Z", type: "ADDED", object: .}' >"$W/ev.rec"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --kubernetes-version 1.36 \
        --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:05:00Z --replay "$W/ev.rec" --replay-fast
    assert_success
    rules=$(jq -r 'select(.kind == "DeviceTaintRule") | .name' <<<"$output" | sort | tr '\n' ' ')
}

@test "run --job evict at 1.36 on a recording: v1beta2 rules apply, v1 ones are left out" {
    replay_rules resource.k8s.io/v1beta2
    assert_equal "$rules" "maintenance-node-b what-if-all-gpus "
    [[ $stderr != *"does not serve"* ]]
    replay_rules resource.k8s.io/v1
    assert_equal "$rules" ""
    [[ $stderr == *'no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1": Kubernetes 1.36 does not serve it; left out'* ]]
}
