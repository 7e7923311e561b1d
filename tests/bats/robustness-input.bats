#!/usr/bin/env bats
# Hostile and sloppy input, fed to every tool: broken syntax, odd encodings,
# YAML tricks, absurd nesting and sizes, wrong shapes.  The contract: a clear
# message on stderr naming the file and line (and the object and field when
# there is one), exit 2, nothing on stdout, never a crash or a sanitizer
# report (run under `make check SANITIZE=address,undefined` too).
bats_require_minimum_version 1.5.0
load helpers

R="$BATS_TEST_DIRNAME/../data/robustness"
C="$EXAMPLES/cluster"

no_sanitizer_report() {
    if [[ $stderr =~ (Sanitizer|\.c:[0-9]+:[0-9]+:\ runtime\ error) ]]; then
        echo "sanitizer report: $stderr"
        return 1
    fi
}

# fails_cleanly CODE WANT CMD...: exit CODE, empty stdout, WANT in stderr.
fails_cleanly() {
    local code=$1 want=$2
    shift 2
    run --separate-stderr "$@"
    no_sanitizer_report
    if [[ $status -ne $code ]]; then
        echo "$*: exit $status, want $code; stderr: ${stderr:0:2000}"
        return 1
    fi
    if [[ -n $output ]]; then
        echo "$*: stdout not empty on failure: ${output:0:500}"
        return 1
    fi
    if [[ $stderr != *"$want"* ]]; then
        echo "$*: stderr lacks '$want': ${stderr:0:2000}"
        return 1
    fi
}

# every_reader_fails CODE WANT FILE...: the same clean failure from every tool.
every_reader_fails() {
    local code=$1 want=$2
    shift 2
    local r
    for r in "${READERS[@]}"; do
        # shellcheck disable=SC2086
        fails_cleanly "$code" "$want" "$DRA_BIN/"$r "$@" || return 1
        [[ $stderr == "${r%% *}: "* ]] || { echo "message not prefixed by the tool: $stderr"; return 1; }
    done
}

@test "empty, blank, comment-only and '---'-only files are no objects, not errors" {
    for f in empty.yaml comments.yaml null-doc.yaml; do
        for r in "dra-slice validate" "dra-select lint" "dra-claim status" "dra-evict"; do
            # shellcheck disable=SC2086
            run --separate-stderr "$DRA_BIN/"$r "$R/$f"
            no_sanitizer_report
            [[ $status -eq 0 ]] || { echo "$r $f: exit $status: $stderr"; false; }
        done
    done
    printf '\n\n   \n' >"$BATS_TEST_TMPDIR/blank.yaml"
    printf -- '---\n---\n...\n' >"$BATS_TEST_TMPDIR/seps.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/blank.yaml" "$BATS_TEST_TMPDIR/seps.yaml"
    assert_success
}

@test "dra-alloc schedule of no objects is clean (no sanitizer report on no nodes)" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$R/empty.yaml"
    no_sanitizer_report
    assert_success
}

@test "dra-slice lint of no slices is clean (no sanitizer report on an empty pool set)" {
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$R/empty.yaml"
    no_sanitizer_report
    assert_success
    [[ -z $output ]]
}

@test "binary garbage is an input error naming file:line:col" {
    every_reader_fails 2 "garbage.bin:1:1: invalid YAML" "$R/garbage.bin"
}

@test "random bytes never crash a reader" {
    head -c 65536 /dev/urandom >"$BATS_TEST_TMPDIR/random.bin"
    for r in "${READERS[@]}"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$r "$BATS_TEST_TMPDIR/random.bin"
        no_sanitizer_report
        [[ $status -eq 2 || $status -eq 0 ]] || { echo "$r: exit $status"; false; }
        [[ $status -eq 0 || -z $output ]]
    done
}

@test "a NUL byte inside YAML is an input error" {
    every_reader_fails 2 "nul-mid.yaml:1:1: invalid YAML: control characters are not allowed" "$R/nul-mid.yaml"
}

@test "a file of NUL bytes is an input error" {
    head -c 4096 /dev/zero >"$BATS_TEST_TMPDIR/zeros.yaml"
    every_reader_fails 2 "zeros.yaml:1:1: invalid YAML" "$BATS_TEST_TMPDIR/zeros.yaml"
}

@test "truncated YAML names the line and document where it breaks" {
    every_reader_fails 2 "truncated.yaml:76:1 (document 3): invalid YAML" "$R/truncated.yaml"
}

@test "truncated JSON names line and column" {
    every_reader_fails 2 "json-trunc.json:1:71: invalid JSON: premature end of input" "$R/json-trunc.json"
}

@test "a UTF-8 byte order mark is ignored" {
    run --separate-stderr "$DRA_BIN/dra-select" -e 'true' "$R/bom.yaml"
    assert_success
    bom=$output
    run --separate-stderr "$DRA_BIN/dra-select" -e 'true' "$C/slices.yaml"
    [[ $output == "$bom" ]]
}

@test "CRLF line endings give the same answer as LF" {
    run --separate-stderr "$DRA_BIN/dra-select" -o json -e 'device.driver == "gpu.example.com"' "$R/crlf.yaml"
    assert_success
    crlf=$output
    run --separate-stderr "$DRA_BIN/dra-select" -o json -e 'device.driver == "gpu.example.com"' "$C/slices.yaml"
    [[ $output == "$crlf" ]]
    [[ $crlf != *$'\r'* ]]
}

@test "tabs used for YAML indentation name the line" {
    every_reader_fails 2 "tabs.yaml:6:1: invalid YAML: found character that cannot start any token" "$R/tabs.yaml"
}

@test "duplicate mapping keys in YAML are an error naming the key" {
    every_reader_fails 2 "dupkey.yaml:3:1: duplicate field \"kind\"" "$R/dupkey.yaml"
}

@test "duplicate object keys in JSON are an error" {
    every_reader_fails 2 "dupkey.json:1:85: duplicate field \"metadata.name\"" "$R/dupkey.json"
}

@test "anchors, aliases and merge keys are expanded" {
    run --separate-stderr "$DRA_BIN/dra-select" -e 'device.attributes["gpu.example.com"].model == "LATEST-GPU-MODEL"' "$R/anchors-merge.yaml"
    assert_success
    assert_output $'gpu.example.com/node-x/gpu-0\ngpu.example.com/node-x/gpu-1'
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$R/anchors-merge.yaml"
    assert_success
}

@test "an undefined or self-referencing alias is an input error" {
    every_reader_fails 2 "alias-undefined.yaml:1:4: unknown anchor 'nope' referenced" "$R/alias-undefined.yaml"
    every_reader_fails 2 "alias-self.yaml:2:6: unknown anchor 'x' referenced" "$R/alias-self.yaml"
}

@test "a merge key on a non-mapping is an input error" {
    every_reader_fails 2 "merge-nonmap.yaml:3:3: map merge requires a map" "$R/merge-nonmap.yaml"
}

@test "an alias bomb (billion laughs) is refused quickly" {
    SECONDS=0
    every_reader_fails 2 "laughs.yaml:6:8: YAML aliases expand to more than 100000 nodes" "$R/laughs.yaml"
    ((SECONDS < 20))
}

@test "100000 nested flow sequences (YAML, as kubectl reads a [ file) are refused, not a stack overflow" {
    { head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; } >"$BATS_TEST_TMPDIR/deep.json"
    every_reader_fails 2 "deep.json:1:65: nesting deeper than 64 levels" "$BATS_TEST_TMPDIR/deep.json"
}

@test "a million unclosed JSON brackets are refused" {
    head -c 1000000 /dev/zero | tr '\0' '[' >"$BATS_TEST_TMPDIR/open.json"
    fails_cleanly 2 "open.json:1:65: nesting deeper than 64 levels" "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/open.json"
}

@test "deep YAML block nesting is refused at 64 levels" {
    awk 'BEGIN { for (i = 0; i < 3000; i++) { printf "%*sa:\n", i, "" } printf "%*sb: 1\n", 3000, "" }' >"$BATS_TEST_TMPDIR/deep.yaml"
    every_reader_fails 2 "deep.yaml:65:65: nesting deeper than 64 levels" "$BATS_TEST_TMPDIR/deep.yaml"
}

@test "JSON nesting past 64 levels inside an object is refused" {
    every_reader_fails 2 "depth65.json:1:1: nesting deeper than 64 levels" "$R/depth65.json"
}

@test "a 20 MB line (a huge name) is an input error, not a crash" {
    { printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: '; head -c 20000000 /dev/zero | tr '\0' a; printf '\n'; } >"$BATS_TEST_TMPDIR/huge.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/huge.yaml"
    no_sanitizer_report
    assert_failure 2
    [[ -z $output ]]
    [[ $stderr == *"huge.yaml:4: DeviceClass/aaaa"*"metadata.name: Invalid value"* ]]
}

@test "JSON followed by trailing garbage names the second document" {
    every_reader_fails 2 "json-trailing.json:1:88 (document 2): invalid JSON: '[' or '{' expected near 'garbage'" "$R/json-trailing.json"
}

@test "a JSON document continued with YAML documents reads on as YAML, as kubectl does" {
    # kubectl's YAMLOrJSONDecoder (k8s.io/apimachinery@v0.37.2
    # pkg/util/yaml/decoder.go): a stream is JSON for good only after two
    # JSON documents; here the rest after the first is YAML
    local r
    for r in "${READERS[@]}"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$r "$R/mixed.yaml"
        assert_success
    done
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v "$R/mixed.yaml"
    [[ $stderr == *"2 objects read, 0 errors"* ]]
}

@test "JSON and YAML files mix freely on one command line" {
    run --separate-stderr "$DRA_BIN/dra-select" --class gpu.example.com "$R/kubectl-all-kinds.json" <(printf '# nothing\n')
    assert_success
    assert_output --partial "gpu.example.com/node-a/gpu-0"
}

@test "a List with non-object items names the item" {
    every_reader_fails 2 "list-nonobj.yaml:1: items[0]: expected an object" "$R/list-nonobj.yaml"
}

@test "a List whose items is not a list is an error of the List" {
    every_reader_fails 2 "list-items-str.yaml:1: List: items: must be a list of objects" "$R/list-items-str.yaml"
}

@test "a List with null or missing items is empty" {
    for f in list-items-null.yaml list-noitems.yaml; do
        for r in "dra-slice validate" "dra-select lint" "dra-claim status" "dra-evict"; do
            # shellcheck disable=SC2086
            run --separate-stderr "$DRA_BIN/"$r "$R/$f"
            [[ $status -eq 0 ]] || { echo "$r $f: exit $status: $stderr"; false; }
        done
    done
}

@test "kubectl List output with every kind at once gives the same answer as separate files" {
    # allocationTimestamp is "now": pin it, or a second boundary between the runs differs
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T12:00:00Z -o json "$C/classes.yaml" "$C/claims.yaml" "$C/nodes.yaml" "$C/pods.yaml" "$C/slices.yaml"
    separate=$output
    [[ $separate == *'"allocationTimestamp": "2026-03-01T12:00:00Z"'* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-03-01T12:00:00Z -o json "$R/kubectl-all-kinds.json"
    assert_failure 1 # fast-path fits nowhere
    [[ $output == "$separate" ]]
}

@test "a document that is a number, a string or a list of scalars is refused" {
    every_reader_fails 2 "int-doc.json:1: document is a number; expected an object or a List" "$R/int-doc.json"
    every_reader_fails 2 "scalar-doc.yaml:1: document is a string" "$R/scalar-doc.yaml"
    every_reader_fails 2 "array-doc.json:1: document is a list; expected an object or a List" "$R/array-doc.json"
}

@test "objects without metadata or name are named by kind and field" {
    every_reader_fails 2 "no-meta.yaml:1: <unnamed DeviceClass>: metadata.name: Required value" "$R/no-meta.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$R/no-meta.yaml"
    [[ $stderr == *"no-meta.yaml:5 (document 2): <unnamed ResourceSlice>: metadata.name: Required value"* ]]
    [[ $stderr == *"(document 3): <unnamed ResourceClaim>: metadata.name: Required value"* ]]
}

@test "objects without kind or apiVersion are input errors" {
    every_reader_fails 2 "no-kind.yaml:1: object/x: kind: Required value: object has no kind" "$R/no-kind.yaml"
}

@test "an unknown version or kind of resource.k8s.io is an error, not a silently missing object" {
    READERS=("dra-slice validate" "dra-select lint" "dra-claim status" "dra-evict")
    every_reader_fails 2 'wrong-api.yaml:2: DeviceClass/x: kind: no matches for kind "DeviceClass" in version "resource.k8s.io/v9"' "$R/wrong-api.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$R/wrong-api.yaml"
    [[ $stderr == *'(document 3): Frobnicator/f: kind: no matches for kind "Frobnicator"'* ]]
    # other API groups are skipped, as in a cluster dump
    [[ $stderr != *Deployment* ]]
}

@test "dra-alloc: an unknown version of a DRA kind is an error, not a silently missing object" {
    fails_cleanly 2 'wrong-api.yaml:2: DeviceClass/x: kind: no matches for kind "DeviceClass" in version "resource.k8s.io/v9"' \
        "$DRA_BIN/dra-alloc" schedule "$R/wrong-api.yaml"
}

@test "unicode names are quoted back in the error" {
    every_reader_fails 2 'unicode.yaml:3: DeviceClass/gpü-☃-😀: metadata.name: Invalid value: "gpü-☃-😀"' "$R/unicode.yaml"
}

@test "numbers too large for JSON are refused where they stand" {
    # YAML: 1e400 is a string (go-yaml v2), .nan has no JSON
    every_reader_fails 2 "numbers.yaml:14:16: .nan cannot be represented in JSON" "$R/numbers.yaml"
    # JSON: read as Go's json.Number, refused by the field's type
    every_reader_fails 2 "numbers2.json:1: ResourceSlice/s: spec.pool.generation: Invalid value: 1e400: must be of type integer" "$R/numbers2.json"
}

@test "count: 9223372036854775807 is valid but cannot be allocated" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$R/count-max.yaml"
    assert_success
    fails_cleanly 2 "claim default/c, request r: adding 9223372036854775807 devices exceeds the claim limit of 32, with 0 already accounted for" \
        "$DRA_BIN/dra-alloc" --node node-a "$R/count-max.yaml" "$C/slices.yaml" "$C/classes.yaml"
}

@test "a negative count and a count past 2^64 name the field" {
    every_reader_fails 2 "count-neg.yaml:8: ResourceClaim/default/c: spec.devices.requests[0].exactly.count: Invalid value: -9223372036854775808: must be greater than zero" "$R/count-neg.yaml"
    every_reader_fails 2 "count-overflow.yaml:8: ResourceClaim/default/c: spec.devices.requests[0].exactly.count: Invalid value: 18446744073709552000: must be of type integer" "$R/count-overflow.yaml"
}

@test "100,000 requests in one claim are refused by the API limit" {
    {
        printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default}\nspec:\n  devices:\n    requests:\n'
        awk 'BEGIN { for (i = 0; i < 100000; i++) printf "    - {name: r%d, exactly: {deviceClassName: gpu.example.com}}\n", i }'
    } >"$BATS_TEST_TMPDIR/many.yaml"
    every_reader_fails 2 "many.yaml:6: ResourceClaim/default/c: spec.devices.requests: Too many: 100000: must have at most 32 items" "$BATS_TEST_TMPDIR/many.yaml"
}

@test "a CEL selector longer than 10240 bytes is refused without compiling it" {
    {
        printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec:\n  selectors:\n  - cel:\n      expression: "true'
        awk 'BEGIN { for (i = 0; i < 5000; i++) printf " || true" }'
        printf '"\n'
    } >"$BATS_TEST_TMPDIR/long.yaml"
    every_reader_fails 2 "long.yaml:7: DeviceClass/c: spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes" "$BATS_TEST_TMPDIR/long.yaml"
}

@test "a CEL selector nested past the parser's recursion limit is an input error" {
    {
        printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec:\n  selectors:\n  - cel:\n      expression: "'
        head -c 4000 /dev/zero | tr '\0' '('
        printf true
        head -c 4000 /dev/zero | tr '\0' ')'
        printf '"\n'
    } >"$BATS_TEST_TMPDIR/deepcel.yaml"
    fails_cleanly 2 "deepcel.yaml:7: DeviceClass/c: spec.selectors[0].cel.expression: Invalid value" "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/deepcel.yaml"
    [[ $stderr == *"recursion limit exceeded"* ]]
    run --separate-stderr "$DRA_BIN/dra-select" --class c "$BATS_TEST_TMPDIR/deepcel.yaml" "$C/slices.yaml"
    no_sanitizer_report
    assert_failure 2
}

@test "CEL with invalid UTF-8 is refused at parse time" {
    every_reader_fails 2 "cel-badutf8.yaml:1:1: invalid YAML: invalid trailing UTF-8 octet" "$R/cel-badutf8.yaml"
    every_reader_fails 2 "yaml-badutf8.yaml:1:1: invalid YAML: invalid leading UTF-8 octet" "$R/yaml-badutf8.yaml"
    # JSON: Go's encoding/json reads such bytes, and a lone surrogate, as U+FFFD
    every_reader_fails 2 $'json-badutf8.json:1: DeviceClass/a\ufffd\ufffdb: metadata.name: Invalid value: "a\ufffd\ufffdb"' "$R/json-badutf8.json"
    every_reader_fails 2 $'json-surrogate.json:1: DeviceClass/\ufffd: metadata.name: Invalid value: "\ufffd"' "$R/json-surrogate.json"
}

@test "dra-slice validate compiles selectors as the API server does" {
    fails_cleanly 2 'cel-syntax-error.yaml:6: DeviceClass/c: spec.selectors[0].cel.expression: Invalid value: "x +": compilation failed: ERROR: <input>:1:4: Syntax error' \
        "$DRA_BIN/dra-slice" validate "$R/cel-syntax-error.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$C/classes.yaml" "$C/claims.yaml"
    assert_success
}

@test "strings where objects belong are named by field path" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$R/strings-everywhere.yaml"
    no_sanitizer_report
    assert_failure 2
    [[ -z $output ]]
    [[ $stderr == *'strings-everywhere.yaml:9 (document 2): ResourceClaim/d/c: spec.devices.requests: Invalid value: "all": must be of type array'* ]]
    [[ $stderr == *'(document 3): DeviceClass/k: spec.selectors: Invalid value: "x": must be of type array'* ]]
    [[ $stderr == *'(document 4): Pod/d/p: spec.resourceClaims: Invalid value: "x": must be of type array'* ]]
    [[ $stderr == *'(document 4): Pod/d/p: spec.containers: Invalid value: "y": must be of type array'* ]]
}

@test "a string, number, null, list or empty object at any level of every kind never crashes a tool" {
    # Each field of the example cluster, one at a time, replaced by each wrong shape.
    command -v jq >/dev/null || skip "jq not installed"
    local n=0 shape path doc
    for kind in ResourceSlice DeviceClass ResourceClaimTemplate ResourceClaim Pod Node; do
        obj=$(jq -c --arg k "$kind" '[.items[] | select(.kind == $k)][0]' "$R/kubectl-all-kinds.json")
        rest=$(jq -c --arg k "$kind" '[.items[] | select(.kind == $k)][0] as $o | [.items[] | select(. != $o)]' "$R/kubectl-all-kinds.json")
        # every (path, shape) of the kind from one jq: path, shape and document a line
        while IFS=$'\t' read -r path shape doc; do
            printf '%s\n' "$doc" >"$BATS_TEST_TMPDIR/m.json"
            for r in "dra-slice validate" "dra-select lint" "dra-alloc schedule" "dra-claim doctor" "dra-evict"; do
                # shellcheck disable=SC2086
                run --separate-stderr "$DRA_BIN/"$r "$BATS_TEST_TMPDIR/m.json"
                no_sanitizer_report || { echo "$r, $kind $path = $shape"; return 1; }
                [[ $status -le 3 ]] || { echo "$r, $kind $path = $shape: exit $status"; return 1; }
                if [[ $status -eq 2 && -z $stderr ]]; then
                    echo "$r, $kind $path = $shape: silent failure"
                    return 1
                fi
                n=$((n + 1))
            done
        done < <(jq -r --argjson o "$obj" --argjson rest "$rest" -n '
            [$o | paths | select(length <= 4)][:40][] as $p
            | ("\"x\"", "7", "null", "[]", "{}", "[\"x\"]", "9223372036854775807", "-1") as $s
            | ($s | fromjson) as $v
            | [($p | tojson), $s,
               ({apiVersion: "v1", kind: "List", items: ([$o | setpath($p; $v)] + $rest)} | tojson)]
            | join("\t")')
    done
    echo "$n runs"
}

@test "a 20,000-item kubectl List loads in reasonable time" {
    awk 'BEGIN { printf "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
                 for (i = 0; i < 20000; i++) printf "%s{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"c%d\"},\"spec\":{}}", (i ? "," : ""), i
                 printf "]}\n" }' >"$BATS_TEST_TMPDIR/big.json"
    SECONDS=0
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/big.json"
    assert_success
    ((SECONDS < 30))
}

@test "metadata that is a string is reported at 'metadata'" {
    fails_cleanly 2 'metadata-string.yaml:3: <unnamed ResourceSlice>: metadata: Invalid value: "x": must be of type object' \
        "$DRA_BIN/dra-slice" validate "$R/metadata-string.yaml"
    [[ $stderr != *metadata.metadata* ]]
}

@test "an apiVersion or kind that is not a string says so" {
    fails_cleanly 2 'kind-int.yaml:1: object/x: apiVersion: Invalid value: 1: must be of type string' \
        "$DRA_BIN/dra-slice" validate "$R/kind-int.yaml"
}
