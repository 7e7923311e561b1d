#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-evict input: the shared load pipeline (versions, Lists, JSON Lines,
# unknown kinds, validation), selector safety, defaulted timeAdded, the
# extended-resource gap, exit codes.
load helpers

setup() {
    # 1.37's rules: DRADeviceTaintRules is off by default in 1.36, which
    # also counts no extended-resource claim; 1.38 tolerates pod d.
    export DRA_KUBERNETES_VERSION=1.37
    D="$DATA/evict"
    IN=("$D/slices.yaml" "$D/rules.yaml" "$D/claims-pods.json")
}

@test "versions: v1beta1 (JSON Lines) and v1beta2 give the same answers as v1" {
    for args in "--now 2026-03-01T10:02:00Z" "--now 2026-03-01T10:02:00Z -o jsonl" "--now 2026-03-01T10:02:00Z --rule-status" \
        "--apply-at 2026-03-01T10:05:00Z --patch" "--apply-at 2026-03-01T10:05:00Z -o json" "--all --now 2026-03-01T12:00:00Z"; do
        run "$DRA_BIN/dra-evict" $args "${IN[@]}"
        v1=$output
        run "$DRA_BIN/dra-evict" $args "$D/v1beta1.jsonl"
        assert_success
        assert_equal "$output" "$v1"
        run "$DRA_BIN/dra-evict" $args "$D/v1beta2.yaml"
        assert_success
        assert_equal "$output" "$v1"
    done
}

@test "versions: rule status operations address the served version" {
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z --rule-status --patch "$D/v1beta1.jsonl"
    assert_success
    assert_equal "$(jq -r '[.apiVersion, .body.apiVersion] | @tsv' <<<"${lines[0]}")" "$(printf 'resource.k8s.io/v1alpha3\tresource.k8s.io/v1alpha3')"
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z --rule-status --patch "$D/v1beta2.yaml"
    assert_equal "$(jq -r .apiVersion <<<"${lines[0]}")" resource.k8s.io/v1beta2
}

@test "formats: a kubectl List on stdin; unknown kinds skipped and counted with --verbose" {
    run "$DRA_BIN/dra-evict" --kubernetes-version 1.37 --now 2026-03-01T10:02:00Z "${IN[@]}"
    want=$output
    run "$DRA_BIN/dra-evict" --kubernetes-version 1.37 --now 2026-03-01T10:02:00Z "$D/slices.yaml" "$D/rules.yaml" - < "$D/claims-pods.json"
    assert_success
    assert_equal "$output" "$want"
    printf '{"apiVersion":"v1","kind":"Event","metadata":{"name":"e1","namespace":"ml"}}\n{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ml"}}\n' > "$BATS_TEST_TMPDIR/other.jsonl"
    run --separate-stderr "$DRA_BIN/dra-evict" -v --kubernetes-version 1.37 --now 2026-03-01T10:02:00Z "${IN[@]}" "$BATS_TEST_TMPDIR/other.jsonl"
    assert_success
    assert_equal "$output" "$want"
    assert_equal "$stderr" "dra-evict: Kubernetes 1.37's feature gates (--kubernetes-version)
dra-evict: skipped 2 objects of kinds dra-evict does not use"
}

@test "rule selectors: removed fields, empty selector, invalid values" {
    cat > "$BATS_TEST_TMPDIR/r.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: cel-rule}
spec:
  deviceSelector:
    driver: gpu.example.com
    selectors:
    - cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}
  taint: {key: example.com/bad, effect: NoExecute, timeAdded: "2026-03-01T10:00:00Z"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: class-rule}
spec:
  deviceSelector: {deviceClassName: gpu.example.com}
  taint: {key: example.com/bad, effect: NoExecute, timeAdded: "2026-03-01T10:00:00Z"}
YAML
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z "$D/slices.yaml" "$BATS_TEST_TMPDIR/r.yaml" "$D/claims-pods.json"
    assert_failure 2
    assert_output --partial 'r.yaml:7: DeviceTaintRule/cel-rule: unknown field "spec.deviceSelector.selectors"'
    assert_output --partial 'r.yaml:15 (document 2): DeviceTaintRule/class-rule: unknown field "spec.deviceSelector.deviceClassName"'
    # an empty selector {} selects every allocated device (E7-1), unlike a missing one;
    # in 1.37 d's toleration without effect does not tolerate it (it does from 1.38)
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: all}\nspec:\n  deviceSelector: {}\n  taint: {key: example.com/drain, effect: NoExecute, timeAdded: "2026-03-01T11:00:00Z"}\n' > "$BATS_TEST_TMPDIR/all.yaml"
    run "$DRA_BIN/dra-evict" --kubernetes-version 1.37 --now 2026-03-01T12:00:00Z -o jsonl "$D/slices.yaml" "$BATS_TEST_TMPDIR/all.yaml" "$D/claims-pods.json"
    assert_success
    assert_equal "$(jq -r 'select(.source == "DeviceTaintRule all") | .pod.name' <<<"$output" | sort | tr '\n' ' ')" "a b c d e x "
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: bad}\nspec:\n  deviceSelector: {pool: "-x-", device: "GPU_0"}\n  taint: {key: "bad key!", effect: Sometimes}\n' > "$BATS_TEST_TMPDIR/bad.yaml"
    run "$DRA_BIN/dra-evict" "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    assert_output --partial 'DeviceTaintRule/bad: spec.deviceSelector.device: Invalid value: "GPU_0"'
    assert_output --partial 'DeviceTaintRule/bad: spec.taint.effect: Unsupported value: "Sometimes"'
}

@test "a taint without timeAdded gets --now, as the API server stamps it on create" {
    jq 'del(.spec.taint.timeAdded)' <(yq 'select(.metadata.name == "maintenance-node-b")' "$D/rules.yaml") > "$BATS_TEST_TMPDIR/r.json"
    run "$DRA_BIN/dra-evict" --now 2026-03-01T12:00:00Z -o jsonl "$D/slices.yaml" "$BATS_TEST_TMPDIR/r.json" "$D/claims-pods.json"
    assert_success
    assert_equal "$(jq -r 'select(.pod.name == "b") | .evictAt' <<<"$output")" "2026-03-01T12:00:00Z"
}

@test "extended-resource claims: evicted and counted like spec claims (PodClaims)" {
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:06:00Z -o jsonl "${IN[@]}"
    assert_equal "$(jq -r 'select(.pod.name == "x") | .note // "-"' <<<"$output")" "-"
    run "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:06:00Z --patch "${IN[@]}"
    assert_success
    assert_output --partial '"name":"x"'
    run "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:06:00Z -o jsonl "${IN[@]}"
    assert_output --partial '"name":"x"'
}

@test "usage errors: exit 2" {
    run "$DRA_BIN/dra-evict" --patch "${IN[@]}"
    assert_failure 2
    assert_output --partial "--patch needs --apply-at or --rule-status"
    run "$DRA_BIN/dra-evict" --apply-at never "${IN[@]}"
    assert_failure 2
    run "$DRA_BIN/dra-evict" --feature-gates DRADeviceTaints=maybe "${IN[@]}"
    assert_failure 2
    run "$DRA_BIN/dra-evict" /nonexistent.yaml
    assert_failure 2
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRul\nmetadata: {name: r}\n' > "$BATS_TEST_TMPDIR/typo.yaml"
    run "$DRA_BIN/dra-evict" "$BATS_TEST_TMPDIR/typo.yaml"
    assert_failure 2
    assert_output --partial 'no matches for kind "DeviceTaintRul" in version "resource.k8s.io/v1"'
}

@test "the example cluster runs cleanly" {
    run "$DRA_BIN/dra-evict" --now 2026-03-01T12:00:00Z "$EXAMPLES"/cluster/*.yaml
    assert_success
    assert_line --index 0 --regexp '^NAMESPACE +POD +CLAIM +DEVICE +TAINT +EVICT-AT +WHEN +SOURCE$'
    run "$DRA_BIN/dra-evict" --now 2026-03-01T12:00:00Z --rule-status "$EXAMPLES"/cluster/*.yaml
    assert_success
}
