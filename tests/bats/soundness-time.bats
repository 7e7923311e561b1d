#!/usr/bin/env bats
# Shapes validation refuses and times at the ends of Go's range.
bats_require_minimum_version 1.5.0
load helpers

slice() { # name generation resourceSliceCount
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s}\n' "$1"
    printf 'spec:\n  driver: d.example.com\n  pool: {name: p, generation: %s, resourceSliceCount: %s}\n' "$2" "$3"
    printf '  allNodes: true\n  devices:\n  - name: dev-%s\n---\n' "$1"
}

@test "lint: a pool whose every slice has a negative generation" {
    { slice a -1 2; slice b -1 2; } >"$BATS_TEST_TMPDIR/neg.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/neg.yaml"
    assert_failure 1
    assert_line "pool d.example.com/p: ResourceSlice/a: spec.pool.generation: Invalid value: -1: must be greater than or equal to zero"
    assert_line "pool d.example.com/p: ResourceSlice/b: spec.pool.generation: Invalid value: -1: must be greater than or equal to zero"
    [ "${#lines[@]}" -eq 2 ]
    [ -z "$stderr" ]
}

@test "lint: generations and counts past what validation accepts" {
    { slice a 9223372036854775807 0; slice b 99999999999999999999 1; slice c -9223372036854775808 -1; } >"$BATS_TEST_TMPDIR/edge.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/edge.yaml"
    assert_failure 1
    assert_line "pool d.example.com/p: ResourceSlice/a: spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"
    assert_line "pool d.example.com/p: ResourceSlice/b: spec.pool.generation: Invalid value: 1e20: must be of type integer"
    assert_line "pool d.example.com/p: ResourceSlice/c: obsolete: generation -9223372036854775808, the pool is at generation 9223372036854775807"
    refute_output --partial "ResourceSlice/b: obsolete"
}

@test "lint: a v1beta1 slice is linted as the cluster keeps it (v1)" {
    {
        printf 'apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: old}\nspec:\n'
        printf '  driver: d.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  allNodes: true\n'
        printf '  devices:\n  - name: dev-0\n    basic:\n      consumesCounters:\n      - counterSet: none\n        counters: {m: {value: "1"}}\n'
    } >"$BATS_TEST_TMPDIR/old.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/old.yaml"
    assert_failure 1
    assert_output "pool d.example.com/p: ResourceSlice/old: device dev-0: counter set none not found"
}

@test "lint: a ResourceSlice without apiVersion is an input error, not a crash" {
    printf 'kind: ResourceSlice\nmetadata: {name: a}\nspec: {driver: d.example.com}\n' >"$BATS_TEST_TMPDIR/noav.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/noav.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/noav.yaml:1: ResourceSlice/a: apiVersion: Required value: object has no apiVersion"
}

@test "lint: unknown fields as --validate says" {
    printf 'apiVersion: resource.k8s.io/v1beta2\nkind: ResourceSlice\nmetadata: {name: a}\nspec:\n  driver: d.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  allNodes: true\n  devices:\n  - name: d0\n    basic: {}\n' >"$BATS_TEST_TMPDIR/u.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/u.yaml"
    assert_failure 1
    assert_output 'pool d.example.com/p: ResourceSlice/a: unknown field "spec.devices[0].basic"'
    run --separate-stderr "$DRA_BIN/dra-slice" lint --validate warn "$BATS_TEST_TMPDIR/u.yaml"
    assert_success
    assert_output ""
    assert_equal "$stderr" "dra-slice: warning: $BATS_TEST_TMPDIR/u.yaml:10: ResourceSlice/a: unknown field \"spec.devices[0].basic\""
    run --separate-stderr "$DRA_BIN/dra-slice" lint --validate ignore "$BATS_TEST_TMPDIR/u.yaml"
    assert_success
    assert_equal "$stderr" ""
}

# ---- times past what nanoseconds since 1970 hold (1677-2262) ----

@test "dra-slice pool-status --now 2600: the condition's time is 2600" {
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2600-01-01T00:00:00Z --driver gpu.example.com "$DATA/slice/slices-ok.yaml"
    assert_success
    assert_line "    lastTransitionTime: \"2600-01-01T00:00:00Z\""
}

@test "dra-alloc schedule --now 2600: allocationTimestamp is 2600" {
    local C="$EXAMPLES/cluster"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2600-03-01T12:00:00Z -o json "$C/classes.yaml" "$C/claims.yaml" "$C/nodes.yaml" "$C/pods.yaml" "$C/slices.yaml"
    [[ $output == *'"allocationTimestamp": "2600-03-01T12:00:00Z"'* ]]
    [[ $output != *'"allocationTimestamp": "2015'* ]]
}

@test "dra-evict: a taint added in year 2600 is not due in 2026, tolerated or not" {
    # 1.37's: rules off by default in 1.36; from 1.38 pod d's toleration without effect tolerates
    export DRA_KUBERNETES_VERSION=1.37
    D="$DATA/evict"
    sed 's/timeAdded: "2026-03-01T10:00:00Z"/timeAdded: "2600-01-01T00:00:00Z"/' "$D/slices.yaml" >"$BATS_TEST_TMPDIR/s.yaml"
    local in=("$BATS_TEST_TMPDIR/s.yaml" "$D/rules.yaml" "$D/claims-pods.json")
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z -o jsonl "${in[@]}"
    assert_success
    # a tolerates the taint for 300 s, d not at all
    assert_equal "$(jq -r 'select(.pod.name == "a") | [.evictAt, .due] | @tsv' <<<"$output")" "$(printf '2600-01-01T00:05:00Z\tfalse')"
    assert_equal "$(jq -r 'select(.pod.name == "d") | [.evictAt, .due] | @tsv' <<<"$output")" "$(printf '2600-01-01T00:00:00Z\tfalse')"
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z "${in[@]}"
    assert_line --regexp '^ml +a +a-gpu .* 2600-01-01T00:05:00Z +in 5030150h3m0s '
    # what the controller does now: nothing to pods a and d
    run --separate-stderr "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:02:00Z --patch "${in[@]}"
    assert_success
    refute_output --partial '"name":"a"'
    refute_output --partial '"name":"d"'
    # and in 2600 it is due
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2600-01-01T00:05:00Z -o jsonl "${in[@]}"
    assert_equal "$(jq -r 'select(.pod.name == "a") | .due' <<<"$output")" true
}

@test "dra-evict: tolerationSeconds past Go's Duration wraps around as upstream's does" {
    D="$DATA/evict"
    jq '(.items[] | select(.kind == "ResourceClaim" and .metadata.name == "a-gpu") | .status.allocation.devices.results[0].tolerations[0].tolerationSeconds) = 10000000000' \
        "$D/claims-pods.json" >"$BATS_TEST_TMPDIR/c.json"
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z -o jsonl "$D/slices.yaml" "$D/rules.yaml" "$BATS_TEST_TMPDIR/c.json"
    assert_success
    # 2026-03-01T10:00:00Z + time.Duration(1e10) * time.Second (wrapped: -8446744073.709551616 s)
    assert_equal "$(jq -r 'select(.pod.name == "a") | [.evictAt, .due] | @tsv' <<<"$output")" "$(printf '1758-07-01T04:12:06Z\ttrue')"
    [[ $stderr == *"tolerationSeconds 10000000000 is past what Go's time.Duration holds"*"evicts at 1758-07-01T04:12:06Z"* ]]
}

@test "dra-evict: --now and --apply-at read what Go reads, years 0000 to 9999" {
    D="$DATA/evict"
    run --separate-stderr "$DRA_BIN/dra-evict" --now 9999-12-31T23:59:59Z -o jsonl "$D/slices.yaml" "$D/rules.yaml" "$D/claims-pods.json"
    assert_success
    assert_equal "$(jq -r 'select(.pod.name == "a") | .due' <<<"$output")" true
    run --separate-stderr "$DRA_BIN/dra-evict" --now 0000-01-01T00:00:00Z -o jsonl "$D/slices.yaml" "$D/rules.yaml" "$D/claims-pods.json"
    assert_success
    assert_equal "$(jq -r 'select(.pod.name == "a") | .due' <<<"$output")" false
    run --separate-stderr "$DRA_BIN/dra-evict" --now 10000-01-01T00:00:00Z "$D/slices.yaml"
    assert_failure 2
    assert_equal "$stderr" 'dra-evict: --now: parsing time "10000-01-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "0-01-01T00:00:00Z" as "-"'
}

@test "dra-watch run --job evict --now 2600: the taints of 2026 are due" {
    # 1.37's: rules off by default in 1.36; from 1.38 pod d's toleration without effect tolerates
    export DRA_KUBERNETES_VERSION=1.37
    D="$DATA/evict"
    { yq -c . "$D/slices.yaml"; yq -c . "$D/rules.yaml"; jq -c '.items[]' "$D/claims-pods.json"; } |
        jq -c '{time: "2026-03-01T10:00:00Z", type: "ADDED", object: .}' >"$BATS_TEST_TMPDIR/ev.rec"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --now 2600-01-01T00:00:00Z --replay "$BATS_TEST_TMPDIR/ev.rec" --replay-fast
    assert_success
    assert_equal "$(jq -r 'select(.verb == "delete") | .name' <<<"$output" | sort | tr '\n' ' ')" "a b d x "
}

@test "a file dated 2300 is read, its field lines found" {
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: a}\nspec:\n  driver: d.example.com\n  pool: {name: p, generation: -1, resourceSliceCount: 1}\n  allNodes: true\n' >"$BATS_TEST_TMPDIR/f.yaml"
    touch -d 2300-01-01T00:00:00Z "$BATS_TEST_TMPDIR/f.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/f.yaml"
    assert_failure 2
    [[ $stderr == *"f.yaml:6: ResourceSlice/a: spec.pool.generation: Invalid value: -1"* ]]
    [[ $stderr != *"runtime error"* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/f.yaml"
    assert_failure 1
    [[ $stderr != *"runtime error"* ]]
}

# ---- replay ----

rec_pod() { # TIME NAME
    printf '{"time":"%s","type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"ml"}}}\n' "$1" "$2"
}

@test "dra-watch --replay: records at years 0001 and 9999" {
    { rec_pod 0001-01-01T00:00:00Z p1; rec_pod 9999-12-31T23:59:59.999999999Z p2; rec_pod 0001-01-01T00:00:00Z p3; } >"$BATS_TEST_TMPDIR/r.rec"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -w --replay "$BATS_TEST_TMPDIR/r.rec" --replay-fast -A
    assert_success
    assert_equal "$(jq -r .object.metadata.name <<<"$output" | tr '\n' ' ')" "p1 p2 p3 "
    # paced: p2 is about 8000 years after p1, so it does not come now
    run --separate-stderr timeout -s TERM 2 "$DRA_BIN/dra-watch" get pods -w --replay "$BATS_TEST_TMPDIR/r.rec" -A
    assert_equal "$(jq -r .object.metadata.name <<<"$output" | tr '\n' ' ')" "p1 "
    [[ $stderr != *"runtime error"* ]]
    # going back in time is no wait
    { rec_pod 9999-12-31T23:59:59Z p1; rec_pod 0001-01-01T00:00:00Z p2; } >"$BATS_TEST_TMPDIR/b.rec"
    run --separate-stderr timeout 20 "$DRA_BIN/dra-watch" get pods -w --replay "$BATS_TEST_TMPDIR/b.rec" -A
    assert_success
    assert_equal "${#lines[@]}" 2
}

@test "dra-watch --replay: a time Go cannot read names the file, line and reason" {
    { rec_pod 2026-01-01T00:00:00Z p1; rec_pod 10000-01-01T00:00:00Z p2; } >"$BATS_TEST_TMPDIR/r.rec"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -w --replay "$BATS_TEST_TMPDIR/r.rec" --replay-fast -A
    assert_failure 2
    [[ $stderr == *"r.rec:2: time: parsing time \"10000-01-01T00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"0-01-01T00:00:00Z\" as \"-\""* ]]
    rec_pod 2026-01-01t00:00:00z p1 >"$BATS_TEST_TMPDIR/l.rec"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -w --replay "$BATS_TEST_TMPDIR/l.rec" --replay-fast -A
    assert_failure 2
    [[ $stderr == *"l.rec:1: time: parsing time \"2026-01-01t00:00:00z\""*"cannot parse \"t00:00:00z\" as \"T\""* ]]
}

# ---- exec credentials ----

teardown() {
    if [[ -n ${APISERVER_PID:-} ]]; then
        source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
        apiserver_stop
    fi
}

@test "exec credential: kept until it expires, for any year Go reads" {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_start "$BATS_TEST_TMPDIR/api"
    local W=$BATS_TEST_TMPDIR tok
    tok=$(cat "$APISERVER_DIR/admin.token")
    cat >"$W/plugin" <<PLUGIN
#!/bin/bash
echo \$(( \$(cat "$W/count" 2>/dev/null || echo 0) + 1 )) >"$W/count"
echo "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"$tok\",\"expirationTimestamp\":\"\$(cat $W/expiry)\"}}"
PLUGIN
    chmod +x "$W/plugin"
    sed -e "/^users:/,\$d" "$KUBECONFIG" >"$W/kc"
    printf 'users:\n- name: admin\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: %s\n      interactiveMode: Never\n' "$W/plugin" >>"$W/kc"
    # three lists and their requests: one run of the plugin while it is valid
    for exp in 2600-01-01T00:00:00Z 9999-12-31T23:59:59Z 0001-01-01T00:00:00Z; do
        echo "$exp" >"$W/expiry"
        rm -f "$W/count"
        run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims,pods,nodes -A --kubeconfig "$W/kc"
        assert_success
        assert_equal "$exp $(cat "$W/count")" "$exp 1"
    done
    # expired (0000 is before Go's zero time, which means no expiry): every request runs it
    for exp in 0000-01-01T00:00:00Z 2000-01-01T00:00:00Z; do
        echo "$exp" >"$W/expiry"
        rm -f "$W/count"
        run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims,pods,nodes -A --kubeconfig "$W/kc"
        assert_success
        (($(cat "$W/count") >= 3))
    done
}
