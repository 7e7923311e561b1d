#!/usr/bin/env bats
# Fields of disabled features as the API server treats them (list-typed
# attributes without DRAListTypeAttributes, derivedAttributes without
# DRADerivedAttributes), and derived attribute names.
load helpers
bats_require_minimum_version 1.5.0

G="$DATA/gated"

setup() {
    T=$BATS_TEST_TMPDIR
}

@test "list values are dropped with DRAListTypeAttributes off: one warning an attribute, the scalar left is what selectors see" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$G/list-selector.yaml"
    assert_success
    run jq -r '.status.allocation.devices.results[0].device' <<<"$output"
    assert_output gpu-0
    [[ $stderr == *"warning: "*"list-selector.yaml:24 (document 3): ResourceSlice/s: spec.devices[0].attributes[model]: list value strings dropped: the DRAListTypeAttributes feature gate is disabled"* ]]
    [ "$(grep -c 'DRAListTypeAttributes feature gate is disabled' <<<"$stderr")" -eq 2 ]
    # the same objects taken as stored keep their lists: the selector sees
    # the list, as the scheduler would
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --no-validate "$G/list-selector.yaml"
    assert_failure 1
}

@test "list values dropped with DRAListTypeAttributes off: validation runs on what is left" {
    printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","nodeName":"n","pool":{"name":"p","resourceSliceCount":1},"devices":[{"name":"d","attributes":{"a":{"ints":[1,2],"strings":[]},"b":{"bools":null,"bool":true}}}]}}' >"$T/s.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/s.json"
    assert_failure 2
    [[ $stderr == *'spec.devices[0].attributes[a]: list value ints, strings dropped: the DRAListTypeAttributes feature gate is disabled'* ]]
    [[ $stderr == *'spec.devices[0].attributes[a]: Invalid value: "": must specify one of:'* ]]
    [[ $stderr != *'attributes[b]'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates DRAListTypeAttributes=true "$T/s.json"
    assert_failure 2
    [[ $stderr != *dropped* ]]
}

@test "derivedAttributes are dropped with DRADerivedAttributes off, with a warning naming the gate" {
    # 1.37 on (1.36 has no such gate or field)
    export DRA_KUBERNETES_VERSION=1.37
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 "$DATA/alloc/derived.yaml"
    # created without them, the claim's constraint finds no such attribute
    assert_failure 1
    [[ $stderr == *'ResourceClaim/default/aligned: spec.devices.requests[0].exactly.derivedAttributes: field dropped: the DRADerivedAttributes feature gate is disabled'* ]]
    [[ $stderr == *'spec.devices.requests[1].exactly.derivedAttributes: field dropped'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$DATA/alloc/derived.yaml"
    assert_success
    [[ $stderr == *'derivedAttributes: field dropped: the DRADerivedAttributes feature gate is disabled'* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true "$DATA/alloc/derived.yaml"
    assert_success
    [[ $stderr != *dropped* ]]
}

derived_claim() { # derived_claim NAME: a claim whose derived attribute and constraint use NAME
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"x","derivedAttributes":[{"name":"%s","expression":"1"}]}}],"constraints":[{"matchAttribute":"%s"},{"requests":["r"],"distinctAttribute":"%s"}]}}}\n' "$1" "$1" "$1"
}

@test "derived attribute and constraint names: the declarative fully-qualified-name format the API server enforces" {
    # 1.37 on (1.36 has no such gate or field)
    export DRA_KUBERNETES_VERSION=1.37
    local gates=(--feature-gates DRADerivedAttributes=true)
    for name in derived/numa derived/Numa a.b.c/n a/b/c a/b/; do
        derived_claim "$name" >"$T/c.json"
        run --separate-stderr "$DRA_BIN/dra-slice" validate "${gates[@]}" "$T/c.json"
        assert_success
    done
    derived_claim Derived/numa >"$T/c.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "${gates[@]}" "$T/c.json"
    assert_failure 2
    [[ $stderr == *'spec.devices.requests[0].exactly.derivedAttributes[0].name: Invalid value: "Derived": prefix: a lowercase RFC 1123 subdomain must consist of'* ]]
    [[ $stderr == *'spec.devices.constraints[0].matchAttribute: Invalid value: "Derived": prefix: a lowercase RFC 1123 subdomain'* ]]
    [[ $stderr == *'spec.devices.constraints[1].distinctAttribute: Invalid value: "Derived": prefix: a lowercase RFC 1123 subdomain'* ]]
    derived_claim /numa >"$T/c.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "${gates[@]}" "$T/c.json"
    assert_failure 2
    [[ $stderr == *'spec.devices.constraints[0].matchAttribute: Invalid value: "": prefix must not be empty'* ]]
    derived_claim derived/ >"$T/c.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "${gates[@]}" "$T/c.json"
    assert_failure 2
    [[ $stderr == *'derivedAttributes[0].name: Invalid value: "": name must not be empty'* ]]
    derived_claim numa >"$T/c.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "${gates[@]}" "$T/c.json"
    assert_failure 2
    [[ $stderr == *'derivedAttributes[0].name: Invalid value: "numa": a fully qualified name must be a domain and a name separated by a slash'* ]]
}

@test "derived attributes: an empty list is a value; other results fail in upstream's words" {
    # 1.37 on (1.36 has no such gate or field)
    export DRA_KUBERNETES_VERSION=1.37
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRADerivedAttributes=true "$G/derived-empty-list.yaml"
    assert_success
    assert_equal "$(jq -r '.status.allocation.devices.results[0].device' <<<"$output")" gpu-0
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRADerivedAttributes=true,DRAListTypeAttributes=true "$G/derived-empty-list.yaml"
    assert_success
    assert_equal "$(jq -r '.status.allocation.devices.results[0].device' <<<"$output")" gpu-1
    local e
    for e in 'dyn(1.5)|unsupported CEL return type: float64' \
        'dyn([[1]])|unsupported list element type: []ref.Val' \
        '[dyn(1), dyn(\\"a\\")]|expected list element at index 1 to be int, got string' \
        'dyn(null)|unsupported CEL return type: structpb.NullValue'; do
        sed "s|expression: device.attributes\[\"gpu.example.com\"\].numa\$|expression: \"${e%%|*}\"|" "$DATA/alloc/derived.yaml" >"$T/e.yaml"
        run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true "$T/e.yaml"
        assert_failure 2
        [[ $stderr == *"evaluate derived attribute derived/numa on device gpu.example.com/node-1/gpu-0 failed: ${e#*|}"* ]]
    done
}

@test "matchAttribute compares versions as strings, build metadata included, as upstream" {
    # 1.37's: from 1.38 versions compare without build metadata
    export DRA_KUBERNETES_VERSION=1.37
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 "$G/version-build.yaml"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRAListTypeAttributes=true "$G/version-build.yaml"
    assert_failure 1
    sed 's|matchAttribute: gpu.example.com/v$|matchAttribute: gpu.example.com/vv|' "$G/version-build.yaml" >"$T/vv.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 "$T/vv.yaml"
    assert_success
}

@test "derived attribute and constraint names give upstream-validate's errors (validate-upstream/derived-names)" {
    # 1.37 on (1.36 has no such gate or field)
    export DRA_KUBERNETES_VERSION=1.37
    local U="$DATA/validate-upstream" n=derived-names args=()
    read -ra args <"$U/$n.args"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "${args[@]}" "$U/$n.jsonl"
    assert_failure 2
    local got want
    got=$(grep -v '^dra-slice: warning: ' <<<"$stderr" | sed "s|^dra-slice: $U/$n.jsonl:|dra-slice: FILE:|" | LC_ALL=C sort)
    want=$(cat "$U/$n.expected")
    [[ $got == "$want" ]] || { diff <(echo "$want") <(echo "$got"); false; }
}

@test "attribute names with two slashes are not checked, as the API server; the domain ends at the first" {
    # 1.37's: 1.38 refuses a second slash
    export DRA_KUBERNETES_VERSION=1.37
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$G/attribute-two-slashes.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$G/attribute-two-slashes.yaml"
    assert_success
    assert_equal "$(jq -c '[.status.allocation.devices.results[].device]' <<<"$output")" '["gpu-0","gpu-1"]'
    sed 's|matchAttribute: gpu.example.com/d/e$|matchAttribute: x.example.com/b/c|' "$G/attribute-two-slashes.yaml" >"$T/x.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 "$T/x.yaml"
    assert_failure 1
}
