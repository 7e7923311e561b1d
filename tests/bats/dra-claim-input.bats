#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-claim input: the shared load pipeline (versions, Lists, JSON Lines,
# unknown kinds, validation with file/object/field), exit codes, and the
# release safety options.
load helpers

setup() {
    C="$DATA/claim"
}

# Run one subcommand on the v1, v1beta1 (kubectl List JSON) and v1beta2 forms
# of a dump and compare; $1 = dump base name, rest = arguments.
same_on_all_versions() {
    local base=$1
    shift
    run "$DRA_BIN/dra-claim" "$@" "$C/$base.yaml"
    local v1=$output v1_status=$status
    run "$DRA_BIN/dra-claim" "$@" "$C/$base-v1beta1.json"
    assert_equal "$status" "$v1_status"
    assert_equal "${output//$base-v1beta1.json/$base.yaml}" "$v1"
    run "$DRA_BIN/dra-claim" "$@" "$C/$base-v1beta2.yaml"
    assert_equal "$status" "$v1_status"
    assert_equal "${output//$base-v1beta2.yaml/$base.yaml}" "$v1"
}

@test "versions: v1beta1 and v1beta2 dumps give the same answers as v1" {
    same_on_all_versions cluster generate -o json
    same_on_all_versions cluster status
    same_on_all_versions cluster status -o jsonl
    same_on_all_versions cluster doctor --now 2026-03-01T12:00:00Z
    same_on_all_versions cluster release --patch
    same_on_all_versions trainer-scheduled status
    same_on_all_versions trainer-scheduled doctor --now 2026-03-01T12:00:00Z
    same_on_all_versions trainer-scheduled release -o json
}

@test "versions: operations address the version the dump used, objects print as v1" {
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer --patch "$C/trainer-scheduled-v1beta1.json"
    assert_success
    assert_equal "$(jq -r .apiVersion <<<"$output")" resource.k8s.io/v1beta1
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer --patch "$C/trainer-scheduled.yaml"
    v1=$output
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer --patch "$C/trainer-scheduled-v1beta2.yaml"
    assert_equal "$(jq -c 'del(.apiVersion)' <<<"$output")" "$(jq -c 'del(.apiVersion)' <<<"$v1")"
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer -o json "$C/trainer-scheduled-v1beta1.json"
    assert_success
    assert_equal "$(jq -r .apiVersion <<<"$output")" resource.k8s.io/v1
    assert_equal "$(jq -c .spec.devices.requests[0].exactly.deviceClassName <<<"$output")" '"gpu.example.com"'
}

@test "formats: kubectl List JSON, JSON Lines, stdin" {
    run "$DRA_BIN/dra-claim" status "$C/cluster.yaml"
    want=$output
    jq -c '.items[]' "$C/cluster-v1beta1.json" > "$BATS_TEST_TMPDIR/dump.jsonl"
    run "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/dump.jsonl"
    assert_success
    assert_equal "$output" "$want"
    run "$DRA_BIN/dra-claim" status - < "$C/cluster-v1beta1.json"
    assert_success
    assert_equal "$output" "$want"
}

@test "unknown kinds: skipped, counted with --verbose; resource.k8s.io typos are errors" {
    { cat "$C/cluster.yaml"; printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: ml}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ml}\n'; } > "$BATS_TEST_TMPDIR/dump.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" status -v --kubernetes-version 1.37 "$BATS_TEST_TMPDIR/dump.yaml"
    assert_success
    # then -v's summary line (tests/bats/s35-deploy29.bats)
    assert_equal "$(sed '$d' <<<"$stderr")" "dra-claim: Kubernetes 1.37's feature gates (--kubernetes-version)
dra-claim: skipped 2 objects of kinds dra-claim does not use"
    [[ ${stderr_lines[-1]} == "dra-claim: "*" objects read, 0 errors, "*" s" ]]
    run --separate-stderr "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/dump.yaml"
    assert_success
    assert_equal "$stderr" ""
    printf 'apiVersion: resource.k8s.io/v2\nkind: ResourceClaim\nmetadata: {name: x, namespace: ml}\n' > "$BATS_TEST_TMPDIR/v2.yaml"
    run "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/v2.yaml"
    assert_failure 2
    assert_output --partial 'v2.yaml:2: ResourceClaim/ml/x: kind: no matches for kind "ResourceClaim" in version "resource.k8s.io/v2"'
    printf 'kind: Pod\nmetadata: {name: p}\n' > "$BATS_TEST_TMPDIR/nokind.yaml"
    run "$DRA_BIN/dra-claim" doctor "$BATS_TEST_TMPDIR/nokind.yaml"
    assert_failure 2
    assert_output --partial 'nokind.yaml:1: Pod/p: apiVersion: Required value: object has no apiVersion'
}

@test "invalid objects: exit 2, located by file:line, object and field" {
    cat > "$BATS_TEST_TMPDIR/bad.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: bad-cel, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.attributes["gpu.example.com"].model =='}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver'}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: Bad_Name, namespace: ml}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
YAML
    for cmd in generate status doctor release; do
        run "$DRA_BIN/dra-claim" $cmd "$BATS_TEST_TMPDIR/bad.yaml"
        assert_failure 2
        assert_output --partial 'bad.yaml:12: ResourceClaimTemplate/ml/bad-cel: spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "device.attributes[\"gpu.example.com\"].model ==": compilation failed: ERROR: <input>:1:46: Syntax error'
        assert_output --partial 'bad.yaml:19 (document 2): DeviceClass/gpu.example.com: spec.selectors[0].cel.expression: Invalid value: "device.driver": must evaluate to bool or the unknown type, not string'
        assert_output --partial 'bad.yaml:23 (document 3): ResourceClaim/ml/Bad_Name: metadata.name: Invalid value: "Bad_Name"'
    done
    cat "$C/cluster.yaml" "$C/cluster.yaml" > "$BATS_TEST_TMPDIR/twice.yaml"
    sed -i '0,/^apiVersion: v1$/! s/^apiVersion: v1$/---\napiVersion: v1/' "$BATS_TEST_TMPDIR/twice.yaml"
    run "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/twice.yaml"
    assert_success   # identical copies are one object
    sed -i '0,/deviceClassName: gpu.example.com/! s/deviceClassName: gpu.example.com/deviceClassName: other.example.com/' "$BATS_TEST_TMPDIR/twice.yaml"
    run "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/twice.yaml"
    assert_failure 2
    assert_output --partial 'duplicate object ResourceClaimTemplate/ml/single-gpu, first defined at'
}

@test "malformed files and reservedFor: exit 2 with the place" {
    printf '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p",}\n' > "$BATS_TEST_TMPDIR/bad.json"
    run "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/bad.json"
    assert_failure 2
    assert_output --partial "bad.json:1"
    run "$DRA_BIN/dra-claim" release "$C/bad-reservedfor.yaml"
    assert_failure 2
    assert_output --partial 'bad-reservedfor.yaml'
    assert_output --partial 'ResourceClaim/ml/broken: status.reservedFor'
    run "$DRA_BIN/dra-claim" status --now tomorrow "$C/cluster.yaml"
    assert_failure 2
    run "$DRA_BIN/dra-claim" doctor --now tomorrow "$C/cluster.yaml"
    assert_failure 2
    assert_output --partial 'parsing time "tomorrow" as "2006-01-02T15:04:05Z07:00": cannot parse "tomorrow" as "2006"'
    run "$DRA_BIN/dra-claim" doctor --feature-gates NoSuchGate=true "$C/cluster.yaml"
    assert_failure 2
}

@test "release: a namespace with reservations but no pods in the input is refused, --no-pods-ok overrides" {
    # pods of ml only, claims of ml and prod: prod's reservations must not be dropped
    jq '.metadata.namespace = "prod"' <(yq 'select(.kind == "ResourceClaim")' "$C/trainer-scheduled.yaml") \
        | jq '.status.reservedFor = [{"resource":"pods","name":"api","uid":"u-api"}]' > "$BATS_TEST_TMPDIR/prod.json"
    run "$DRA_BIN/dra-claim" release "$C/trainer-succeeded.yaml" "$BATS_TEST_TMPDIR/prod.json"
    assert_failure 2
    assert_output --partial "the input has no Pods in namespace prod, but claims there are reserved for pods"
    assert_output --partial "(see --no-pods-ok: release in namespaces that have reservations but no Pods in the input)"
    run "$DRA_BIN/dra-claim" release --no-pods-ok --patch "$C/trainer-succeeded.yaml" "$BATS_TEST_TMPDIR/prod.json"
    assert_success
    assert_output --partial '"namespace":"prod"'
}

@test "release: generated claims of missing pods are left to the garbage collector unless --delete-orphans" {
    yq 'select(.kind == "ResourceClaim") | del(.status.reservedFor)' "$C/trainer-scheduled.yaml" > "$BATS_TEST_TMPDIR/claim.json"
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"other","namespace":"ml","uid":"u-o"},"spec":{"containers":[{"name":"c","image":"i"}]}}\n' > "$BATS_TEST_TMPDIR/other.json"
    run "$DRA_BIN/dra-claim" release --patch "$BATS_TEST_TMPDIR/claim.json" "$BATS_TEST_TMPDIR/other.json"
    assert_success
    assert_output ""
    run "$DRA_BIN/dra-claim" release --delete-orphans --patch "$BATS_TEST_TMPDIR/claim.json" "$BATS_TEST_TMPDIR/other.json"
    assert_success
    assert_equal "$(jq -c '[.verb, .name, .body.preconditions.uid]' <<<"$output")" '["delete","trainer-gpu-hn7g7","9b2e6f10-0000-4000-8000-00000000c001"]'
    assert_output --partial "owner pod is gone"
}

@test "the example cluster runs cleanly" {
    run "$DRA_BIN/dra-claim" status "$EXAMPLES"/cluster/*.yaml
    assert_success
    run "$DRA_BIN/dra-claim" generate -o jsonl "$EXAMPLES"/cluster/*.yaml
    assert_success
    run "$DRA_BIN/dra-claim" release --patch "$EXAMPLES"/cluster/*.yaml
    assert_success
    # before the claims are generated, doctor points at dra-claim generate
    run "$DRA_BIN/dra-claim" doctor "$EXAMPLES"/cluster/*.yaml
    assert_failure 1
    assert_output --partial "fix: dra-claim generate --patch=kubectl"
}
