#!/usr/bin/env bats
# dra-slice validate and the readers answer as the Kubernetes 1.37.2 API
# server does: JSON strings holding NUL (\u0000), declarative rules,
# limits, decoding.
bats_require_minimum_version 1.5.0
load helpers

R="$BATS_TEST_DIRNAME/../data/robustness"

# refuses JSON WANT...: dra-slice validate refuses the one-line document
# JSON (exit 2) and says each WANT.
refuses() {
    local f="$BATS_TEST_TMPDIR/doc.json" w
    printf '%s\n' "$1" >"$f"
    shift
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$f"
    assert_failure 2
    for w in "$@"; do
        [[ $stderr == *"$w"* ]] || { echo "lacks '$w': $stderr"; return 1; }
    done
}

@test "a JSON string holding NUL is read by every tool, as the API server reads it" {
    local r
    for r in "dra-slice validate" "dra-select lint" "dra-alloc schedule" "dra-claim status" "dra-evict"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$r "$R/cel-nul.json"
        [[ $stderr != *"JSON_ALLOW_NUL"* && $stderr != *Sanitizer* ]] || { echo "$r: $stderr"; false; }
        [[ $status -eq 0 ]] || { echo "$r: exit $status: $stderr"; false; }
    done
}

@test "a name holding NUL is invalid, named and quoted as Go's %q writes it" {
    refuses "$(cat "$R/json-nul.json")" \
        'DeviceClass/a\x00b: metadata.name: Invalid value: "a\x00b": a lowercase RFC 1123 subdomain'
}

@test "a NUL inside a selector's string literal is compared, not cut off" {
    local f="$BATS_TEST_TMPDIR/nul.jsonl"
    {
        printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","nodeName":"n","pool":{"name":"p","resourceSliceCount":1},"devices":[{"name":"d0","attributes":{"model":{"string":"a\u0000b"}}}]}}'
        printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a"},"spec":{"selectors":[{"cel":{"expression":"device.attributes[\"d.example.com\"].model == \"a\""}}]}}'
        printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"anulb"},"spec":{"selectors":[{"cel":{"expression":"device.attributes[\"d.example.com\"].model == \"a\\u0000b\""}}]}}'
    } >"$f"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$f"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-select" --class a "$f"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-select" --class anulb "$f"
    assert_success
    assert_output "d.example.com/p/d0"
    # lint: class a matches nothing (exit 1); anulb compiles
    run --separate-stderr "$DRA_BIN/dra-select" lint "$f"
    assert_failure 1
    [[ $stderr != *"does not compile"* && $stderr != *anulb* ]]
}

@test "at most 100 unknown fields of an object are reported, as the API server's decoder keeps" {
    local f="$BATS_TEST_TMPDIR/unknown.json"
    python3 -c '
import json
req = {"name": "r", "exactly": {"deviceClassName": "c"}}
for i in range(150):
    req["k%d" % i] = 1
print(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                  "metadata": {"name": "u", "namespace": "default"}, "spec": {"devices": {"requests": [req]}}}))' >"$f"
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v "$f"
    assert_failure 2
    [[ $(grep -c 'unknown field "spec.devices.requests\[0\].k' <<<"$stderr") -eq 100 ]]
    [[ $stderr == *'unknown field "spec.devices.requests[0].k99"'* && $stderr != *'.k100"'* ]]
}

@test "an unknown kind is quoted as the API server's NoKindMatchError quotes it (%q)" {
    refuses '{"apiVersion":"resource.k8s.io/v1","kind":"a\tb","metadata":{"name":"x"}}' \
        'kind: no matches for kind "a\tb" in version "resource.k8s.io/v1"'
}

@test "a null owner reference is Go's zero reference: its four names are required" {
    refuses '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default","ownerReferences":[null]},"spec":{}}' \
        "metadata.ownerReferences[0].apiVersion: Required value" "metadata.ownerReferences[0].kind: Required value" \
        "metadata.ownerReferences[0].name: Required value" "metadata.ownerReferences[0].uid: Required value"
}

@test "a request's tolerations have no limit (DeviceTolerationsMaxLength is checked nowhere upstream)" {
    local f="$BATS_TEST_TMPDIR/tol.json"
    python3 -c '
import json
t = {"operator": "Exists"}
print(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                  "metadata": {"name": "c", "namespace": "default"},
                  "spec": {"devices": {"requests": [{"name": "b", "exactly": {"deviceClassName": "c", "tolerations": [t] * 17}}]}}}))' >"$f"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$f"
    assert_success
}

@test "a Pod's schedulingGroup is dropped before validation while GenericWorkload is off" {
    local f="$BATS_TEST_TMPDIR/pg.json"
    printf '%s\n' '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","namespace":"default"},"spec":{"containers":[{"image":"x","name":"c"}],"schedulingGroup":{"podGroupName":"All"}}}' >"$f"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$f"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates GenericWorkload=true "$f"
    assert_failure 2
    [[ $stderr == *'spec.schedulingGroup.podGroupName: Invalid value: "All": a lowercase RFC 1123 subdomain'* ]]
}

@test "a container's resources of another type than object are refused, as the decoder refuses them" {
    refuses '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c","image":"x","resources":1},{"name":"d","image":"x","resources":[]}]}}' \
        'spec.containers[0].resources: Invalid value: 1: must be of type object' \
        'spec.containers[1].resources: Invalid value: []: must be of type object'
}

@test "a DeviceClass name too long is measured in bytes, as its declarative rule says" {
    local n
    n=$(printf 'a%.0s' {1..254})
    refuses '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"'"$n"'"},"spec":{}}' \
        "metadata.name: Invalid value: \"$n\": must be no more than 253 bytes"
}
