#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Cases found while bringing this release's work together.
load helpers

@test "s40-int: a duplicate request's value keeps a NUL in its CEL expression, as Go's JSON writes it" {
    # upstream-validate at 1.37 and 1.38 prints "expression":"\u0000" in the
    # Duplicate value (field.Duplicate renders the struct with encoding/json)
    printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"d1","namespace":"default"},"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"gpu"}},{"name":"a","exactly":{"deviceClassName":"gpu","selectors":[{"cel":{"expression":"\u0000"}}]}}]}}}' >"$BATS_TEST_TMPDIR/c.json"
    # 1.36 names the duplicate by its name alone
    for v in 1.37 1.38; do
        local rc=0
        "$DRA_BIN/dra-slice" validate --kubernetes-version "$v" "$BATS_TEST_TMPDIR/c.json" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
        assert_equal "$rc" 2
        assert_file_empty "$BATS_TEST_TMPDIR/out"
        grep -aqF 'spec.devices.requests[1]: Duplicate value: {"name":"a","exactly":{"deviceClassName":"gpu","selectors":[{"cel":{"expression":"\u0000"}}],"allocationMode":"ExactCount","count":1}}' "$BATS_TEST_TMPDIR/err" ||
            { cat -v "$BATS_TEST_TMPDIR/err"; false; }
    done
}
