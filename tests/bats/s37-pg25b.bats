#!/usr/bin/env bats
# A raw control character in a JSON document is named as the API server's
# decoder names it (Go's encoding/json scanner, scanner.go: "invalid
# character '\x00' in string literal"), at its line and column, by every
# reading tool: exit 2, nothing on stdout.  jansson took a raw NUL for the
# end of the text, so a NUL after a number even left a document it accepted.
bats_require_minimum_version 1.5.0
load helpers

# refused_by_all WANT FILE: every reader exits 2 with WANT on stderr
refused_by_all() {
    local want=$1 file=$2 r
    for r in "${READERS[@]}"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$r "$file"
        [[ $status -eq 2 ]] || { echo "$r: exit $status: $stderr"; return 1; }
        [[ -z $output ]] || { echo "$r: stdout: $output"; return 1; }
        [[ $stderr == "${r%% *}: $file:$want" ]] || { echo "$r: stderr: $stderr"; return 1; }
    done
}

CLASS='{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",'

@test "a NUL inside a JSON string: invalid character '\\x00' in string literal" {
    printf '%s"metadata":{"name":"a\0b"}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/s.json"
    refused_by_all "1:78: invalid JSON: invalid character '\\x00' in string literal" "$BATS_TEST_TMPDIR/s.json"
}

@test "a NUL where a key belongs, after a value, or after a document" {
    printf '%s\0"metadata":{"name":"a"}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/k.json"
    refused_by_all "1:57: invalid JSON: invalid character '\\x00' looking for beginning of object key string" "$BATS_TEST_TMPDIR/k.json"
    printf '%s"metadata":{"name":"a","generation":1\0}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/v.json"
    refused_by_all "1:94: invalid JSON: invalid character '\\x00' after object key:value pair" "$BATS_TEST_TMPDIR/v.json"
    printf '%s"metadata":{"name":"a"}}\0\n' "$CLASS" >"$BATS_TEST_TMPDIR/d.json"
    refused_by_all "1:81 (document 2): invalid JSON: invalid character '\\x00' looking for beginning of value" "$BATS_TEST_TMPDIR/d.json"
}

@test "a NUL after a number is no end of the document: nothing of it is read" {
    # jansson stopped at the NUL and took the next brace as the end
    printf '%s"metadata":{"generation":1\0}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/n.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate -o json "$BATS_TEST_TMPDIR/n.json"
    assert_failure 2
    [[ $output != *'name or generateName is required'* ]]
    [[ $output == *'"message": "invalid JSON: invalid character '"'\\\\x00'"' after object key:value pair"'* ]]
    refused_by_all "1:83: invalid JSON: invalid character '\\x00' after object key:value pair" "$BATS_TEST_TMPDIR/n.json"
}

@test "a NUL in a List item, on its own line, in an array, in a literal, on stdin" {
    printf '{"apiVersion":"v1","kind":"List","items":[\n%s"metadata":{"name":"a"}},\n%s"metadata":{"name":"é\0"}}\n]}\n' "$CLASS" "$CLASS" >"$BATS_TEST_TMPDIR/l.json"
    refused_by_all "3:78: invalid JSON: invalid character '\\x00' in string literal" "$BATS_TEST_TMPDIR/l.json"
    printf '%s"metadata":{"name":"a"},"spec":{"selectors":[\0]}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/a.json"
    refused_by_all "1:102: invalid JSON: invalid character '\\x00' looking for beginning of value" "$BATS_TEST_TMPDIR/a.json"
    printf '%s"metadata":{"name":"a"},"spec":{"selectors":[],"config":tr\0e}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/t.json"
    refused_by_all "1:115: invalid JSON: invalid character '\\x00' in literal true (expecting 'u')" "$BATS_TEST_TMPDIR/t.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate - < <(printf '%s"metadata":{"name":"a\0b"}}\n' "$CLASS")
    assert_failure 2
    [[ $stderr == "dra-slice: <stdin>:1:78: invalid JSON: invalid character '\\x00' in string literal" ]]
}

@test "other control characters in JSON strings are named as Go quotes them" {
    printf '%s"metadata":{"name":"a\001b"}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/c.json"
    refused_by_all "1:78: invalid JSON: invalid character '\\x01' in string literal" "$BATS_TEST_TMPDIR/c.json"
    printf '%s"metadata":{"name":"a\033b"}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/e.json"
    refused_by_all "1:78: invalid JSON: invalid character '\\x1b' in string literal" "$BATS_TEST_TMPDIR/e.json"
    printf '%s"metadata":{"name":"a\fb"}}\n' "$CLASS" >"$BATS_TEST_TMPDIR/f.json"
    refused_by_all "1:78: invalid JSON: invalid character '\\f' in string literal" "$BATS_TEST_TMPDIR/f.json"
}

# A YAML plain integer past uint64 is a float to go-yaml: sigs.k8s.io/yaml
# hands the API server encoding/json's text of that float64, and the
# decoder names that text ("cannot unmarshal number 18446744073709552000
# into Go struct field ObjectMeta.metadata.generation of type int64").
@test "a YAML integer past uint64 is named by the JSON number sigs.k8s.io/yaml makes of it" {
    local n want
    while read -r n want; do
        printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a, generation: %s}\n' "$n" >"$BATS_TEST_TMPDIR/g.yaml"
        run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/g.yaml"
        assert_failure 2
        [[ $stderr == "dra-slice: $BATS_TEST_TMPDIR/g.yaml:3: DeviceClass/a: metadata.generation: Invalid value: $want: must be of type integer" ]] ||
            { echo "$n: $stderr"; return 1; }
    done <<'LIST'
18446744073709551615 18446744073709551615
18446744073709551616 18446744073709552000
-18446744073709551617 -18446744073709552000
1000000000000000000000000000000 1e+30
123456789012345678901234567890123 1.2345678901234569e+32
1.5e300 1.5e+300
9.3e18 9300000000000000000
LIST
}

@test "a YAML float in kind is named as the JSON number the API server gets" {
    printf 'apiVersion: resource.k8s.io/v1\nkind: 1e30\nmetadata: {name: a}\n' >"$BATS_TEST_TMPDIR/k.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/k.yaml"
    assert_failure 2
    [[ $stderr == *"kind: Invalid value: 1e+30: must be of type string"* ]]
}
