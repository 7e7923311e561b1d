#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-watch get -o jsonl writes listed objects from the server's text
# (src/common/kube/list_lines.c): the same lines the objects' trees give.
load helpers

setup_file() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_start "$BATS_FILE_TMPDIR/api"
}

teardown_file() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_stop
}

setup() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    W="$BATS_TEST_TMPDIR"
    apiserver_req POST /_test/reset '{"objects":true}' >/dev/null
}

@test "s39-int: get -o jsonl lines are the objects -o json lists, without managedFields" {
    apiserver_req POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ml"}}' >/dev/null
    # escapes, raw UTF-8, a line separator, HTML characters, managedFields
    local note='tab\there \"q\" back\\slash <a>&amp; é \u2028 \u0001'
    apiserver_req POST /api/v1/namespaces/ml/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"ml","annotations":{"note":"'"$note"'"},"managedFields":[{"manager":"m","operation":"Apply"}]},"spec":{"containers":[{"name":"c","image":"i"}]}}' >/dev/null
    apiserver_req POST /api/v1/namespaces/ml/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2","namespace":"ml"},"spec":{"containers":[{"name":"c","image":"i"}]}}' >/dev/null
    "$DRA_BIN/dra-slice" profile gpu --nodes 3 --devices 2 -o jsonl >"$W/slices.jsonl"
    apiserver_req POST /_test/objects "$(jq -s . "$W/slices.jsonl")" >/dev/null
    for kind in pods resourceslices; do
        run --separate-stderr "$DRA_BIN/dra-watch" get "$kind" -A
        assert_success
        printf '%s\n' "$output" >"$W/lines"
        run --separate-stderr "$DRA_BIN/dra-watch" get "$kind" -A -o json
        assert_success
        jq -c '.items[]' <<<"$output" >"$W/items"
        run diff <(jq -c . "$W/lines") "$W/items"
        assert_success
    done
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -n ml
    assert_success
    [[ ${lines[0]} == '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"ml",'* ]]
    [[ ${lines[0]} != *managedFields* ]]
    [[ ${lines[0]} == *'"note":"tab\there \"q\" back\\slash <a>&amp; é '$'\u2028'' \u0001"'* ]]
    assert_equal "${#lines[@]}" 2
}
