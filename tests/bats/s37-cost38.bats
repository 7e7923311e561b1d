#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Kubernetes 1.38's cost estimates (cel-go v0.33 common/cost, k8s.io/apiserver
# v0.38.0-beta.0 pkg/cel/library/cost.go) behind --kubernetes-version: each
# case checks 1.38's figures, upstream-cel's, against 1.37's.
load helpers

setup() {
    unset DRA_KUBERNETES_VERSION
}

check() { # RELEASE EXPR
    run --separate-stderr "$DRA_BIN/dra-select" check --kubernetes-version "$1" -- "$2"
}

@test "a URL accessor is as long as its URL from 1.38 on, unbounded before" {
    check 1.38 'url("a").getScheme().matches("a")'
    assert_success
    assert_output "type bool, estimated cost 3..3"
    check 1.37 'url("a").getScheme().matches("a")'
    assert_failure 2
    [[ $stderr == *"too complex, exceeds cost limit (1844674407370955266 > 1000000)"* ]]
}

@test "an unknown size stays unknown through a standard call's factor from 1.38 on" {
    check 1.38 'string("a").matches("x")'
    assert_failure 2
    [[ $stderr == *"too complex, exceeds cost limit (18446744073709551615 > 1000000)"* ]]
    check 1.37 'string("a").matches("x")'
    assert_failure 2
    [[ $stderr == *"too complex, exceeds cost limit (1844674407370955265 > 1000000)"* ]]
}

@test "filter() may keep no element from 1.38 on" {
    check 1.38 '[1, 2].filter(x, x > 1).exists(y, y > 1)'
    assert_success
    assert_output "type bool, estimated cost 28..64"
    check 1.37 '[1, 2].filter(x, x > 1).exists(y, y > 1)'
    assert_success
    assert_output "type bool, estimated cost 36..64"
}

@test "transformMap's entries are sized from 1.38 on" {
    check 1.38 '{"a": 1}.transformMap(k, v, 1).all(k, "a".endsWith(k))'
    assert_success
    assert_output "type bool, estimated cost 68..70"
    check 1.37 '{"a": 1}.transformMap(k, v, 1).all(k, "a".endsWith(k))'
    assert_failure 2
}

@test "slice() and distinct() keep their elements' sizes from 1.38 on" {
    check 1.38 'isIP(["a"].slice(0, 1)[0]) || isIP(["a"].distinct()[0])'
    assert_success
    assert_output "type bool, estimated cost 24..50"
    check 1.37 'isIP(["a"].slice(0, 1)[0])'
    assert_failure 2
}
