#!/usr/bin/env bats
# A raw control character in a JSON document is named as the API server's
# decoder names it (Go's encoding/json scanner, scanner.go: "invalid
# character '\x00' in string literal"), at its line and column, by every
# reading tool: exit 2, nothing on stdout.  jansson took a raw NUL for the
# end of the text, so a NUL after a number even left a document it accepted.
bats_require_minimum_version 1.5.0
load helpers

READERS=(
    "dra-slice validate"
    "dra-select lint"
    "dra-alloc schedule"
    "dra-claim status"
    "dra-evict"
)

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
